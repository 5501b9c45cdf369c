"""Roles: the "Editors" group, holding exactly the permissions of the ``papers`` app's
models (none on users or groups) but the publish right, and the "Publishers" group,
holding the publish right alone (``papers.publish_<model>``: publishing, returning to
draft, scheduling), both kept after every ``migrate``; and editor accounts. An editor
without the publish right asks for review; a publisher is in both groups.
"""

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group, Permission
from django.contrib.auth.password_validation import validate_password
from django.db import transaction

EDITORS = "Editors"
PUBLISHERS = "Publishers"
GROUPS = (EDITORS, PUBLISHERS)  # what ``migrate`` keeps (a restore replaces the rest)
EDITOR_APPS = ("papers",)
PUBLISH_RIGHT = "publish_"  # the codenames' prefix (catalogue.models.base.publish_permissions)


def sync_editors_group(using="default", **kwargs):
    """Create the Editors and Publishers groups if needed, give Editors exactly the
    permissions of the apps in EDITOR_APPS but the publish right and Publishers exactly
    the publish right, and return Editors (a ``post_migrate`` receiver of the papers app)."""
    groups = Group.objects.using(using)
    content = Permission.objects.using(using).filter(content_type__app_label__in=EDITOR_APPS)
    editors, _created = groups.get_or_create(name=EDITORS)
    editors.permissions.set(content.exclude(codename__startswith=PUBLISH_RIGHT))
    publishers, _created = groups.get_or_create(name=PUBLISHERS)
    publishers.permissions.set(content.filter(codename__startswith=PUBLISH_RIGHT))
    return editors


def publishers_group(using="default"):
    """The Publishers group (``sync_editors_group`` keeps its permissions)."""
    sync_editors_group(using)
    return Group.objects.using(using).get(name=PUBLISHERS)


def unsaved_editor(username, email):
    """The unsaved staff account ``create_editor`` would save, without a password. Raises
    ValidationError for a taken or invalid username or an invalid e-mail address."""
    User = get_user_model()
    user = User(**{User.USERNAME_FIELD: username}, email=email or "", is_staff=True)
    user.full_clean(exclude=["password"])
    return user


@transaction.atomic
def create_editor(username, email, password, dry_run=False, publisher=False):
    """Create a staff, non-superuser account in the Editors group (and with ``publisher``
    in the Publishers group too) and return it (with ``dry_run``: check everything, save
    nothing, return the unsaved user). Raises ValidationError as ``unsaved_editor`` does,
    or for a password the validators refuse."""
    user = unsaved_editor(username, email)
    validate_password(password, user)
    user.set_password(password)
    if dry_run:
        return user
    user.save()
    user.groups.add(sync_editors_group())
    if publisher:
        user.groups.add(publishers_group())
    return user
