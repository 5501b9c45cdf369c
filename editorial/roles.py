"""Roles: the "Editors" group of site-wide editors, holding exactly the permissions of the
``papers`` app's models and ``editorial.edit_every_venue`` (none on users, groups or
teams), the "Venue editors" group of editors on venue teams (the same less that one), both
kept after every ``migrate``, and editor accounts (editorial/teams.py says who edits what).
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
EDITOR_APPS = ("papers",)


def _content_permissions(using):
    return Permission.objects.using(using).filter(content_type__app_label__in=EDITOR_APPS)


def sync_editors_group(using="default", **kwargs):
    """Create the Editors group if needed, give it exactly the permissions of the apps in
    EDITOR_APPS and ``SITE_WIDE``, give the Venue editors group (if made yet) the former
    only, and return the Editors group (a ``post_migrate`` receiver of the editorial app,
    whose permissions exist by then)."""
    group, _created = Group.objects.using(using).get_or_create(name=EDITORS)
    app_label, codename = SITE_WIDE.split(".")
    site_wide = Permission.objects.using(using).filter(
        content_type__app_label=app_label, codename=codename
    )
    group.permissions.set([*_content_permissions(using), *site_wide])
    for team_group in Group.objects.using(using).filter(name=TEAM_EDITORS):
        team_group.permissions.set(_content_permissions(using))
    return group


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
def create_editor(username, email, password, venues=(), dry_run=False):
    """Create a staff, non-superuser account and return it (with ``dry_run``: check
    everything, save nothing, return the unsaved user): on the teams of the venues with
    the slugs ``venues`` in the Venue editors group, or without venues a site-wide editor
    in the Editors group. Raises ValidationError as ``unsaved_editor`` and ``venues_named``
    do, or for a password the validators refuse."""
    user = unsaved_editor(username, email)
    teams_venues = venues_named(venues)
    validate_password(password, user)
    user.set_password(password)
    if dry_run:
        return user
    user.save()
    if not teams_venues:
        user.groups.add(sync_editors_group())
        return user
    user.groups.add(team_editors_group())
    for venue in teams_venues:
        Team.objects.get_or_create(venue=venue)[0].members.add(user)
    return user
