"""Bookkeeping rows, not content: the importer's records and the content generation."""

from django.db import models, transaction
from django.db.models import F
from django.utils.translation import gettext_lazy as _


class ImportRecord(models.Model):
    """What the last ``import_conference`` set on one object, field by field, to tell an
    editor's change (kept) from the fixture's (applied). Never exported."""

    model = models.CharField(_("model"), max_length=50)
    key = models.CharField(
        _("natural key"), max_length=400, help_text=_("The object's natural key as a JSON list.")
    )
    values = models.JSONField(_("imported values"), default=dict)
    source = models.CharField(_("source file"), max_length=400, blank=True)
    imported_at = models.DateTimeField(_("imported at"), auto_now=True)

    class Meta:
        verbose_name = _("import record")
        verbose_name_plural = _("import records")
        ordering = ["model", "key"]
        # Not content: no admin, no permissions (the Editors group gets them all).
        default_permissions = ()
        constraints = [
            models.UniqueConstraint(fields=["model", "key"], name="importrecord_unique_key"),
        ]

    def __str__(self):
        return f"{self.model} {self.key}"


# The one row of ContentGeneration.
GENERATION_ID = 1


class ContentGenerationQuerySet(models.QuerySet):
    def current(self):
        """The current number (0 before the first change)."""
        return self.filter(pk=GENERATION_ID).values_list("number", flat=True).first() or 0

    def advance(self):
        """Raise the number by one in the caller's transaction (seen with the change it
        announces, or not at all), making the row if it is missing."""
        rows = self.filter(pk=GENERATION_ID)
        if not rows.update(number=F("number") + 1):
            with transaction.atomic(using=self.db):
                _row, created = self.get_or_create(pk=GENERATION_ID, defaults={"number": 1})
            if not created:  # another process made the row in the meantime
                rows.update(number=F("number") + 1)

    def wait_for_other_writers(self):
        """Inside a transaction on a database with ``SELECT ... FOR UPDATE``
        (PostgreSQL), lock the generation's row until the transaction ends, once every
        other writer that called this or :meth:`advance` has ended, so that on READ
        COMMITTED later statements see them (catalogue/published_authors.py); no query
        elsewhere (autocommit; SQLite serialises writers). Readers are never held up."""
        database = transaction.get_connection(self.db)
        if not (database.in_atomic_block and database.features.has_select_for_update):
            return
        self.select_for_update().filter(pk=GENERATION_ID).exists()


class ContentGeneration(models.Model):
    """A counter raised by every change to what public pages show: one row, whose number
    is in every cached page's key, so raising it retires them all when the change
    commits, in every app server (pagecache/). No admin, no permissions."""

    number = models.PositiveBigIntegerField(_("number"), default=0)

    objects = ContentGenerationQuerySet.as_manager()

    class Meta:
        verbose_name = _("content generation")
        verbose_name_plural = _("content generations")
        ordering = ["pk"]
        default_permissions = ()

    def __str__(self):
        return str(self.number)
