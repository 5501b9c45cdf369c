"""What changed this week, venue by venue, from the history already kept: django-reversion's
revisions (who saved what, when, with the change message) and the admin's log of
deletions. Each change links to its compare view (or the history of a new object, or the
recover page of a deleted one)."""

import datetime
from collections import defaultdict

from django.contrib.admin.models import DELETION, LogEntry
from django.contrib.admin.utils import quote
from django.contrib.contenttypes.models import ContentType
from django.urls import NoReverseMatch, reverse
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from reversion.models import Version

from editorial import teams
from editorial.history import FOLLOW, related_model_and_key

WEEK = datetime.timedelta(days=7)
# Versions and deletions read at most: the newest (a week holding a large import
# shows its latest changes).
LIMIT = 500


def week_by_venue(user, site_name="admin", now=None):
    """``[(venue, rows)]`` for each venue ``user`` edits (by acronym): the changes of its
    objects in the ``WEEK`` before ``now`` (default: now), newest first, each row a dict
    of ``when`` (aware datetime), ``user`` (or None for the importer), ``model`` (verbose
    name), ``object`` (its name then), ``comment`` and ``url`` (compare, history or
    recover page in admin site ``site_name``; None without one)."""
    since = (now or timezone.now()) - WEEK
    kinds = ContentType.objects.get_for_models(*teams.VENUE_PATHS).values()
    versions = Version.objects.filter(revision__date_created__gte=since, content_type__in=kinds)
    versions = versions.select_related("revision__user", "content_type")
    saved = _main_versions(versions.order_by("-revision__date_created", "-pk")[:LIMIT])
    deletions = LogEntry.objects.filter(
        action_time__gte=since, action_flag=DELETION, content_type__in=kinds
    ).select_related("user", "content_type")
    deletions = list(deletions.order_by("-action_time")[:LIMIT])
    deleted = _last_versions(deletions)
    venue_of = teams.venues_of_versions([*saved, *deleted.values()])
    earlier = _earlier_versions(saved)
    rows = defaultdict(list)
    for version in saved:
        rows[venue_of[version.pk]].append(_saved_row(version, earlier, site_name))
    for entry in deletions:
        version = deleted.get(entry.pk)
        if version is not None:
            rows[venue_of[version.pk]].append(_deleted_row(entry, version, site_name))
    venues = teams.editable_venues(user).order_by("acronym", "slug")
    return [
        (venue, sorted(rows[venue.pk], key=lambda row: row["when"], reverse=True))
        for venue in venues
    ]


def _main_versions(versions):
    """The ``versions`` not saved as part of their owner's (an authorship with its paper)."""
    versions = list(versions)
    owners = defaultdict(list)  # {model: [(owner model, foreign key name)]}
    for owner, names in FOLLOW.items():
        for name in names:
            related, key = related_model_and_key(owner, name)
            owners[related].append((owner, key))
    present = {(v.revision_id, v.content_type.model_class(), v.object_id) for v in versions}
    main = []
    for version in versions:
        stored = teams.stored_fields(version)
        model = version.content_type.model_class()
        if not any(
            (version.revision_id, owner, str(stored.get(key))) in present
            for owner, key in owners[model]
        ):
            main.append(version)
    return main


def _earlier_versions(versions):
    """{version pk: the pk of the version of the same object just before it, or None}."""
    keys = {(version.content_type_id, version.object_id) for version in versions}
    history = defaultdict(list)
    rows = Version.objects.filter(
        content_type_id__in={kind for kind, _id in keys},
        object_id__in={object_id for _kind, object_id in keys},
    ).values_list("content_type_id", "object_id", "pk")
    for kind, object_id, pk in rows:
        if (kind, object_id) in keys:
            history[(kind, object_id)].append(pk)
    return {
        version.pk: max(
            (pk for pk in history[(version.content_type_id, version.object_id)] if pk < version.pk),
            default=None,
        )
        for version in versions
    }


def _last_versions(deletions):
    """{log entry pk: the last version of the deleted object} (those that have one), in
    one query."""
    deletions = list(deletions)
    keys = {(entry.content_type_id, entry.object_id): entry.pk for entry in deletions}
    last = {}
    versions = Version.objects.filter(
        content_type_id__in={kind for kind, _id in keys},
        object_id__in={object_id for _kind, object_id in keys},
    ).select_related("content_type")
    for version in versions.order_by("pk"):
        key = (version.content_type_id, version.object_id)
        if key in keys:
            last[keys[key]] = version
    return last


def _url(site_name, version, view, *args):
    """The address of ``view`` of the version's model in the admin site, or None for a
    model without admin pages of its own (award levels, edited inline in their award,
    have versions of their own when the importer writes them)."""
    opts = version.content_type.model_class()._meta
    try:
        return reverse(f"{site_name}:{opts.app_label}_{opts.model_name}_{view}", args=args)
    except NoReverseMatch:
        return None


def _saved_row(version, earlier, site_name):
    revision = version.revision
    before = earlier[version.pk]
    object_id = quote(version.object_id)
    if before is None:
        url = _url(site_name, version, "history", object_id)
    else:
        url = _url(site_name, version, "compare", object_id)
        url = url and f"{url}?version_id1={before}&version_id2={version.pk}"
    return {
        "when": revision.date_created,
        "user": revision.user,
        "model": version.content_type.model_class()._meta.verbose_name,
        "object": version.object_repr,
        "comment": revision.get_comment(),
        "url": url,
    }


def _deleted_row(entry, version, site_name):
    return {
        "when": entry.action_time,
        "user": entry.user,
        "model": version.content_type.model_class()._meta.verbose_name,
        "object": entry.object_repr,
        "comment": _("Deleted."),
        "url": _url(site_name, version, "recover", version.pk),
    }
