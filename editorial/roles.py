"""Roles: the "Editors" group of site-wide editors, holding exactly the permissions of the
``papers`` app's models but the publish right, and ``editorial.edit_every_venue`` (none
on users, groups or teams), and ``editorial.import_conference`` (``IMPORT_RIGHT``: the
admin's import page); the "Venue editors" group of editors on venue teams (the
same less ``edit_every_venue``); the "Publishers" group, holding the publish right alone
(``papers.publish_<model>``: publishing, returning to draft, scheduling); all kept after
every ``migrate``; and editor accounts (editorial/teams.py says who edits what). An
editor without the publish right asks for review; a publisher is in two groups.
"""

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group, Permission
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError
from django.db import transaction

from catalogue.models import Venue
from editorial.models import Team
from editorial.teams import SITE_WIDE

EDITORS = "Editors"
TEAM_EDITORS = "Venue editors"
PUBLISHERS = "Publishers"
GROUPS = (EDITORS, PUBLISHERS)  # what ``migrate`` keeps (a restore replaces the rest)
EDITOR_APPS = ("papers",)
PUBLISH_RIGHT = "publish_"  # the codenames' prefix (catalogue.models.base.publish_permissions)
IMPORT_RIGHT = "editorial.import_conference"  # the admin's import page (importing/admin.py)


def _content_permissions(using):
    """The permissions of the apps in EDITOR_APPS but the publish right, and IMPORT_RIGHT."""
    permissions = Permission.objects.using(using)
    content = permissions.filter(content_type__app_label__in=EDITOR_APPS).exclude(
        codename__startswith=PUBLISH_RIGHT
    )
    return [*content, *_permissions_named(using, IMPORT_RIGHT)]


def _permissions_named(using, name):
    """The permission ``name`` ("app_label.codename") as a QuerySet (empty if not made yet)."""
    app_label, codename = name.split(".")
    return Permission.objects.using(using).filter(
        content_type__app_label=app_label, codename=codename
    )


def sync_editors_group(using="default", **kwargs):
    """Create the Editors and Publishers groups if needed; give Editors exactly the
    permissions of the apps in EDITOR_APPS but the publish right, IMPORT_RIGHT and
    ``SITE_WIDE``; the Venue editors group (if made yet) all but ``SITE_WIDE``; Publishers
    exactly the publish right; return the Editors group (a ``post_migrate`` receiver of
    the editorial app, whose permissions exist by then)."""
    groups, permissions = Group.objects.using(using), Permission.objects.using(using)
    editors, _created = groups.get_or_create(name=EDITORS)
    site_wide = _permissions_named(using, SITE_WIDE)
    editors.permissions.set([*_content_permissions(using), *site_wide])
    for team_group in groups.filter(name=TEAM_EDITORS):
        team_group.permissions.set(_content_permissions(using))
    publishers, _created = groups.get_or_create(name=PUBLISHERS)
    publish_right = permissions.filter(
        content_type__app_label__in=EDITOR_APPS, codename__startswith=PUBLISH_RIGHT
    )
    publishers.permissions.set(publish_right)
    return editors


def publishers_group(using="default"):
    """The Publishers group (``sync_editors_group`` keeps its permissions)."""
    sync_editors_group(using)
    return Group.objects.using(using).get(name=PUBLISHERS)


def team_editors_group():
    """The Venue editors group, made on first use, with the content permissions."""
    group, created = Group.objects.get_or_create(name=TEAM_EDITORS)
    if created:
        group.permissions.set(_content_permissions("default"))
    return group


def venues_named(slugs):
    """The venues with the slugs ``slugs``, in that order. Raises ValidationError naming
    the first unknown slug."""
    found = Venue.objects.in_bulk(list(slugs), field_name="slug")
    for slug in slugs:
        if slug not in found:
            raise ValidationError("No venue with the slug %(slug)r.", params={"slug": slug})
    return [found[slug] for slug in slugs]


def unsaved_editor(username, email):
    """The unsaved staff account ``create_editor`` would save, without a password. Raises
    ValidationError for a taken or invalid username or an invalid e-mail address."""
    User = get_user_model()
    user = User(**{User.USERNAME_FIELD: username}, email=email or "", is_staff=True)
    user.full_clean(exclude=["password"])
    return user


@transaction.atomic
def create_editor(username, email, password, venues=(), dry_run=False, publisher=False):
    """Create a staff, non-superuser account and return it (with ``dry_run``: check
    everything, save nothing, return the unsaved user): on the teams of the venues with
    the slugs ``venues`` in the Venue editors group, or without venues a site-wide editor
    in the Editors group; with ``publisher`` in the Publishers group too (publishing what
    the account may edit). Raises ValidationError as ``unsaved_editor`` and
    ``venues_named`` do, or for a password the validators refuse."""
    user = unsaved_editor(username, email)
    teams_venues = venues_named(venues)
    validate_password(password, user)
    user.set_password(password)
    if dry_run:
        return user
    user.save()
    if publisher:
        user.groups.add(publishers_group())
    if not teams_venues:
        user.groups.add(sync_editors_group())
        return user
    user.groups.add(team_editors_group())
    for venue in teams_venues:
        Team.objects.get_or_create(venue=venue)[0].members.add(user)
    return user
