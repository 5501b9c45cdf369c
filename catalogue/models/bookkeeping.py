"""Bookkeeping rows, not content: the importer's records and the content generation."""

from django.db import connections, models, transaction
from django.db.models import F
from django.utils.translation import gettext_lazy as _


class ImportRecord(models.Model):
    """What the last ``import_conference`` set on one object, field by field.

    The importer compares it with the database to tell an editor's change (keep it)
    from a change in the fixture (apply it). Not a fixture model: never exported.
    """

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
        # Bookkeeping of the import command, not content: no admin, no permissions
        # (so the Editors group, which gets every papers permission, is unchanged).
        default_permissions = ()
        constraints = [
            models.UniqueConstraint(fields=["model", "key"], name="importrecord_unique_key"),
        ]

    def __str__(self):
        return f"{self.model} {self.key}"


# The one row of ContentGeneration.
GENERATION_ID = 1


class ContentGenerationQuerySet(models.QuerySet):
    """The vocabulary of the one ``ContentGeneration`` row."""

    def current(self):
        """The current number (0 before the first change): one query.

        Plain SQL (Django's ``connection.cursor()``) rather than the ORM: it runs for
        every page the page cache serves, where building the ORM's query more than
        doubled a hit's CPU time, 0.19 ms to 0.42 ms against a trivial view's 0.20 ms
        (benchmarks/server_time.py); issue 28 asks a hit for at least half the trivial
        view's rate (pagecache/caching.py).
        """
        connection = connections[self.db]
        table = connection.ops.quote_name(self.model._meta.db_table)
        with connection.cursor() as cursor:
            # The table name is quoted by the backend; the row's key is a parameter.
            cursor.execute(f"SELECT number FROM {table} WHERE id = %s", [GENERATION_ID])  # nosec B608
            row = cursor.fetchone()
        return row[0] if row else 0

    def advance(self):
        """Raise the number by one, in the caller's transaction: it is seen together with
        the change it announces, and not at all if that change is rolled back. Makes the
        row if it is missing. Returns None."""
        rows = self.filter(pk=GENERATION_ID)
        if not rows.update(number=F("number") + 1):
            with transaction.atomic(using=self.db):
                _row, created = self.get_or_create(pk=GENERATION_ID, defaults={"number": 1})
            if not created:  # another process made the row in the meantime
                rows.update(number=F("number") + 1)

    def wait_for_other_writers(self):
        """Inside a transaction on a database with ``SELECT ... FOR UPDATE`` (PostgreSQL),
        lock the content generation's row until this transaction ends, after any other
        transaction holding it (one that raised the generation, or called this) has
        ended. Elsewhere (autocommit, SQLite, whose settings start every transaction with
        ``BEGIN IMMEDIATE`` and so serialise writers already) nothing, and no query.
        Returns None. The database is the QuerySet's (``using()``).

        For work that reads rows other transactions may be changing and writes what it
        concludes (catalogue/published_authors.py): after this, on READ COMMITTED, each of
        its statements sees every such transaction that committed before, so two of them
        cannot each conclude from the other's old rows. A content change raises the
        generation (:meth:`advance`, whose ``UPDATE`` holds the same lock) anyway, so this
        orders only what was ordered loosely, never a reader.
        """
        database = transaction.get_connection(self.db)
        if not (database.in_atomic_block and database.features.has_select_for_update):
            return
        self.select_for_update().filter(pk=GENERATION_ID).exists()


class ContentGeneration(models.Model):
    """A counter raised by every change to what the public pages show (pagecache/).

    One row. Each cached page's key holds the number current when it was made, so
    raising it retires every cached page at once, in every app server, as soon as the
    change commits. Bookkeeping, not content: no admin, no permissions.
    """

    number = models.PositiveBigIntegerField(_("number"), default=0)

    objects = ContentGenerationQuerySet.as_manager()

    class Meta:
        verbose_name = _("content generation")
        verbose_name_plural = _("content generations")
        ordering = ["pk"]
        default_permissions = ()

    def __str__(self):
        return str(self.number)
