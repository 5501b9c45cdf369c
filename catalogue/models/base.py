"""What every catalogue model shares: natural keys (``natural_key_fields``), the
publication status and the one rule of what is public (``PublishedQuerySet``), fields.
"""

from django.db import models
from django.db.models import Count, OuterRef, Q, Subquery
from django.db.models.functions import Coalesce
from django.utils.translation import gettext_lazy as _

from catalogue import languages

SLUG_HELP = _("Leave blank to make one from the English title or name.")


def natural_key_lookups(model):
    """The lookups that find an object of ``model`` by its natural key, in key order: a
    foreign key in ``natural_key_fields`` contributes its target's lookups
    (``AwardEntry``: ``award__conference__slug``, ``award__slug``, ``paper__slug``)."""
    lookups = []
    for name in model.natural_key_fields:
        field = model._meta.get_field(name)
        if field.is_relation:
            lookups += [f"{name}__{part}" for part in natural_key_lookups(field.related_model)]
        else:
            lookups.append(name)
    return lookups


class NaturalKeyMixin:
    """``natural_key()`` from ``natural_key_fields``, the one statement of a model's key."""

    natural_key_fields = ("slug",)

    def natural_key(self):
        key = []
        for name in self.natural_key_fields:
            value = getattr(self, name)
            key += value.natural_key() if isinstance(value, models.Model) else [value]
        return tuple(key)


class NaturalKeyQuerySet(models.QuerySet):
    """``get_by_natural_key()`` for loaddata, from the model's ``natural_key_fields``."""

    def get_by_natural_key(self, *key):
        return self.get(**dict(zip(natural_key_lookups(self.model), key, strict=True)))


class Status(models.TextChoices):
    """Publication status: visitors see only published conferences, awards and papers. An
    item an editor asked to have published is ready for review, not public; publishing
    and returning a published item to draft need the publish right (``publish_<model>``)."""

    DRAFT = "draft", _("Draft")
    REVIEW = "review", _("Ready for review")
    PUBLISHED = "published", _("Published")


def publish_permissions(model_name):
    """``Meta.permissions`` of a model with a status: the publish right, which publishing,
    returning a published item to draft and scheduling need (``papers.publish_<model>``)."""
    return [(f"publish_{model_name}", _("Can publish, unpublish and schedule"))]


class PublishedQuerySet(NaturalKeyQuerySet):
    """The one rule of what visitors see, :meth:`published`: every status on the relations
    ``published_paths`` (``""`` the row itself) is published. Joins, not a subquery, which
    SQLite evaluates into a list of every published id."""

    published_paths = ("", "conference__")

    @classmethod
    def published_condition(cls, prefix="", ignore_conference=False):
        """The condition of :meth:`published` as a ``Q``, reached from another model
        through ``prefix`` (``"paper__"``), for a filter that shares that join."""
        paths = cls.published_paths
        if ignore_conference:
            paths = [path for path in paths if not path.endswith("conference__")]
        return Q(**{f"{prefix}{path}status": Status.PUBLISHED for path in paths})

    def published(self, ignore_conference=False):
        """The public rows; ``ignore_conference`` leaves conferences' statuses out (a
        preview of a draft conference, or one already known to be published)."""
        return self.filter(self.published_condition(ignore_conference=ignore_conference))


class ScheduledMixin:
    """A model with ``publish_at_fields()``: a published row has no schedule, however it
    was published (the admin's form or inline, an action, ``publish_scheduled``), so that
    returning it to draft later does not leave an old time that would publish it again."""

    def save(self, *args, **kwargs):
        if self.status == Status.PUBLISHED and (self.publish_at or self.scheduled_by):
            self.publish_at, self.scheduled_by = None, ""
            if kwargs.get("update_fields") is not None:
                kwargs["update_fields"] = {*kwargs["update_fields"], "publish_at", "scheduled_by"}
        super().save(*args, **kwargs)


class ScheduledQuerySet(PublishedQuerySet):
    """A model with ``publish_at`` (``publish_at_fields``): what is due to be published."""

    def due(self, now):
        """The unpublished rows whose ``publish_at`` is ``now`` (an aware datetime) or
        earlier, the earliest first."""
        rows = self.exclude(status=Status.PUBLISHED).filter(publish_at__lte=now)
        return rows.order_by("publish_at", "pk")


def count_of(queryset, field):
    """A subquery for ``annotate()``: how many rows of ``queryset`` have the outer row as
    ``field`` (0 for none). ``COUNT(*)``: PostgreSQL counts ``COUNT(id)`` not from the
    index ``paper_listing_order`` alone (venue page: 3.99 against 1.79 ms)."""
    counted = (
        queryset.filter(**{field: OuterRef("pk")}).order_by().values(field).annotate(n=Count("*"))
    )
    return Coalesce(Subquery(counted.values("n")), 0)


def unlisted_paper_fields(prefix=""):
    """The paper's long columns that no list shows, after ``prefix`` (``"paper__"``), for
    ``defer()``: at 5,000 papers they were most of each row read."""
    names = ["search_text", "match_text"]
    for field in ("abstract", "summary"):
        names += [field, *languages.columns(field)]
    return [prefix + name for name in names]


def search_text_field():
    """The folded text the search box matches (catalogue/search.py); never edited by hand."""
    return models.TextField(_("search text"), blank=True, default="", editable=False)


def status_field():
    """The publication status (``Status``); visitors see only published rows."""
    return models.CharField(
        _("status"),
        max_length=10,
        choices=Status.choices,
        default=Status.DRAFT,
        db_index=True,
        help_text=_("Visitors see only published items."),
    )


def publish_at_fields():
    """``publish_at`` and ``scheduled_by``, the fields of a publication at an hour: the
    ``publish_scheduled`` command publishes the row once ``publish_at`` has come and clears
    both. Not editable: the admin sets them for editors with the publish right only, and
    a fixture neither carries nor sets a schedule (the importer reads editable fields)."""
    publish_at = models.DateTimeField(
        _("publish at"),
        null=True,
        blank=True,
        editable=False,
        db_index=True,
        help_text=_("Published automatically at this date and time; empty: not scheduled."),
    )
    scheduled_by = models.CharField(
        _("scheduled by"), max_length=150, blank=True, default="", editable=False
    )
    return publish_at, scheduled_by
