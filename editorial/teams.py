"""Which venues an editor edits: the venues of their teams (``editorial.models.Team``), or
every venue for a site-wide editor (the ``editorial.edit_every_venue`` permission, which
superusers have and the Editors group holds). A rule of Django's own permissions rather
than a flag on the user: it is granted through a group, and ``has_perm`` reads it.

Conferences, awards, papers and what belongs to them are reached through their venue
(``VENUE_PATHS``); authors and institutions are shared by every venue: any editor adds
and corrects them, only a site-wide editor deletes them (``SITE_WIDE_ONLY``)."""

import json
from collections import defaultdict

from catalogue.models import (
    Affiliation,
    Author,
    Authorship,
    Award,
    AwardEntry,
    AwardKind,
    AwardLevel,
    Conference,
    Institution,
    Paper,
    PaperLink,
    Venue,
)

SITE_WIDE = "editorial.edit_every_venue"
# The lookup from each scoped model to its venue.
VENUE_PATHS = {
    Venue: "pk",
    Conference: "venue",
    Award: "conference__venue",
    AwardLevel: "award__conference__venue",
    AwardEntry: "award__conference__venue",
    Paper: "conference__venue",
    Authorship: "paper__conference__venue",
    Affiliation: "authorship__paper__conference__venue",
    PaperLink: "paper__conference__venue",
}
# What only a site-wide editor may do to a model: {model: {"add", "change", "delete"}}.
# An award kind is every venue's: a team editor chooses one for an award, no more.
SITE_WIDE_ONLY = {
    Venue: {"add", "delete"},
    AwardKind: {"add", "change", "delete"},
    Author: {"delete"},
    Institution: {"delete"},
}


def is_site_wide(user):
    """Whether ``user`` edits every venue (a bool; superusers do)."""
    return user.is_active and user.has_perm(SITE_WIDE)


def team_venues(user):
    """The venues of ``user``'s teams, a Venue QuerySet (a subquery where filtered by)."""
    return Venue.objects.filter(team__members=user)


def editable_venues(user):
    """The venues ``user`` edits: all for a site-wide editor, else their teams'."""
    return Venue.objects.all() if is_site_wide(user) else team_venues(user)


def scoped(queryset, user):
    """``queryset`` less what belongs to venues ``user`` does not edit (unchanged for a
    model without a venue, or for a site-wide editor). No query of its own beyond the
    permission check ``has_perm`` caches on the user."""
    path = VENUE_PATHS.get(queryset.model)
    if path is None or is_site_wide(user):
        return queryset
    return queryset.filter(**{f"{path}__in": team_venues(user).values("pk")})


def may(user, action, model):
    """Whether ``user``'s venue rights allow ``action`` ("add", "change", "delete") on ``model``
    (Django's model permissions are checked besides)."""
    return action not in SITE_WIDE_ONLY.get(model, ()) or is_site_wide(user)


def stored_fields(version):
    """The field values stored in ``version`` (a dict; empty if unreadable)."""
    try:
        return json.loads(version.serialized_data)[0]["fields"]
    except (ValueError, LookupError, TypeError):
        return {}


def venues_of_versions(versions):
    """{version pk: venue pk or None} for ``versions`` (of scoped models): the venue the
    stored object pointed to when the version was saved, through its first foreign key
    as stored and the others as they are now (None where that object is gone). A query
    per model of the first step."""
    wanted = defaultdict(dict)  # {(model, rest of path): {version pk: related pk}}
    found = {}
    for version in versions:
        model = version.content_type.model_class()
        path = VENUE_PATHS.get(model)
        if path is None:
            found[version.pk] = None
        elif path == "pk":
            found[version.pk] = int(version.object_id)
        else:
            first, _sep, rest = path.partition("__")
            related = model._meta.get_field(first).related_model
            wanted[(related, rest)][version.pk] = stored_fields(version).get(first)
    for (related, rest), keys in wanted.items():
        if not rest:
            found.update(keys)
            continue
        rows = related._base_manager.filter(pk__in={pk for pk in keys.values() if pk})
        venue_of = dict(rows.values_list("pk", rest))
        found.update({version: venue_of.get(pk) for version, pk in keys.items()})
    return found


def versions_in_scope(versions, user):
    """The ``versions`` (an iterable, read once) of objects ``user`` edits: of the venues
    they edit, or of shared models (authors, institutions)."""
    versions = list(versions)
    if is_site_wide(user):
        return versions
    venues = set(team_venues(user).values_list("pk", flat=True))
    venue_of = venues_of_versions(versions)
    return [
        version
        for version in versions
        if version.content_type.model_class() not in VENUE_PATHS or venue_of[version.pk] in venues
    ]
