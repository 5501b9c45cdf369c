"""Roles: the "Editors" group, holding exactly the permissions of the ``papers`` app's
models (none on users or groups), kept after every ``migrate``, and editor accounts.
"""

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group, Permission
from django.contrib.auth.password_validation import validate_password
from django.db import transaction

EDITORS = "Editors"
EDITOR_APPS = ("papers",)


def sync_editors_group(using="default", **kwargs):
    """Create the Editors group if needed, give it exactly the permissions of the apps in
    EDITOR_APPS and return it (a ``post_migrate`` receiver of the papers app)."""
    group, _created = Group.objects.using(using).get_or_create(name=EDITORS)
    permissions = Permission.objects.using(using)
    group.permissions.set(permissions.filter(content_type__app_label__in=EDITOR_APPS))
    return group


def unsaved_editor(username, email):
    """The unsaved staff account ``create_editor`` would save, without a password. Raises
    ValidationError for a taken or invalid username or an invalid e-mail address."""
    User = get_user_model()
    user = User(**{User.USERNAME_FIELD: username}, email=email or "", is_staff=True)
    user.full_clean(exclude=["password"])
    return user


@transaction.atomic
def create_editor(username, email, password, dry_run=False):
    """Create a staff, non-superuser account in the Editors group and return it (with
    ``dry_run``: check everything, save nothing, return the unsaved user). Raises
    ValidationError as ``unsaved_editor`` does, or for a password the validators refuse."""
    user = unsaved_editor(username, email)
    validate_password(password, user)
    user.set_password(password)
    if dry_run:
        return user
    user.save()
    user.groups.add(sync_editors_group())
    return user
