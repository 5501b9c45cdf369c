"""Roles: the "Editors" group and editor accounts.

Editors maintain content only: the group holds exactly the permissions of the ``papers``
app's models, none on users, groups or other apps. ``sync_editors_group`` runs after
every ``migrate``, so the group follows new models and rights given by hand are reset.
"""

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group, Permission
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils.translation import gettext as _

EDITORS = "Editors"
EDITOR_APPS = ("papers",)


def editor_permissions():
    """The permissions an editor needs: every permission of the apps in EDITOR_APPS."""
    return Permission.objects.filter(content_type__app_label__in=EDITOR_APPS)


def sync_editors_group(using="default", **kwargs):
    """Create the Editors group if needed, give it exactly ``editor_permissions()`` and
    return it (a ``post_migrate`` receiver of the papers app, ``EditorialConfig``)."""
    group, _created = Group.objects.using(using).get_or_create(name=EDITORS)
    group.permissions.set(editor_permissions().using(using))
    return group


def unsaved_editor(username, email):
    """The unsaved staff account ``create_editor`` would save, without a password.
    Raises ValidationError for a taken or invalid username or an invalid e-mail address."""
    User = get_user_model()
    if User._default_manager.filter(**{User.USERNAME_FIELD: username}).exists():
        raise ValidationError(
            _("A user named %(username)s already exists."), params={"username": username}
        )
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
