"""Optimistic locking for the editors' admin: a form opened before another save is refused.

A change form carries a signed *edit token*, a digest of each field of the object and of
what belongs to it. If the database differs on submit, the form is refused, naming what
changed, the input kept and the token renewed. (django-concurrency needs a version
column, patches Django's private ``Model._do_update``, misses bulk updates and restores.)
"""

import hashlib
import json
import time

from django import forms
from django.apps import apps
from django.core import serializers, signing
from django.core.exceptions import ValidationError
from django.utils.formats import date_format
from django.utils.text import capfirst
from django.utils.timezone import localtime
from django.utils.translation import gettext_lazy as _
from reversion.models import Version

from editorial.history import belongings, recorded_fields

TOKEN_FIELD = "edit_token"  # nosec B105  # a form field's name, not a password
_SALT = "editorial.editing"


def _digest(value):
    text = json.dumps(value, sort_keys=True, default=str, ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _state(obj):
    """{"fields": {name: digest}, "related": {"label:pk": digest}} for ``obj`` now."""
    rows = {}
    for item in belongings(obj):
        (row,) = serializers.serialize("python", [item], fields=recorded_fields(type(item)))
        rows[f"{type(item)._meta.label_lower}:{item.pk}"] = row["fields"]
    main = rows.pop(f"{type(obj)._meta.label_lower}:{obj.pk}")
    return {
        "fields": {name: _digest(value) for name, value in main.items()},
        "related": {key: _digest(fields) for key, fields in rows.items()},
    }


def edit_token(obj):
    """The signed token of ``obj`` as it is in the database now (a string)."""
    return signing.dumps({"state": _state(obj), "opened": time.time()}, salt=_SALT, compress=True)


def changes_since(token, obj):
    """``(names, opened)``: the fields of ``obj`` and kinds of related objects changed
    since ``token`` (a missing or forged one: everything), and when the form was opened
    (epoch seconds, or None)."""
    now = _state(obj)
    try:
        payload = signing.loads(token or "", salt=_SALT)
        then, opened = payload["state"], payload["opened"]
    except (signing.BadSignature, KeyError, TypeError):
        return [str(_("the whole form (it carries no valid edit token)"))], None
    model = type(obj)
    names = [
        str(model._meta.get_field(name).verbose_name)
        for name in now["fields"]
        if then["fields"].get(name) != now["fields"][name]
    ]
    changed = [
        key
        for key in sorted(set(now["related"]) | set(then["related"]))
        if now["related"].get(key) != then["related"].get(key)
    ]
    for label in dict.fromkeys(key.split(":", 1)[0] for key in changed):
        names.append(str(apps.get_model(label)._meta.verbose_name_plural))
    return names, opened


class EditTokenField(forms.CharField):
    """The hidden token: never a change of its own (it is renewed on every page load)."""

    widget = forms.HiddenInput

    def has_changed(self, initial, data):
        return False


class EditTokenFormMixin:
    """A ModelForm mixin carrying the edit token; refuses a submit whose object changed."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields[TOKEN_FIELD] = EditTokenField(required=False, initial=edit_token(self.instance))

    def clean(self):
        cleaned_data = super().clean()
        model = type(self.instance)
        # Read the row again and hold it until this transaction (the admin's) ends, so
        # two submits are checked one after the other (SQLite writes one at a time).
        current = model._base_manager.select_for_update().get(pk=self.instance.pk)
        changed, opened = changes_since(self.cleaned_data.get(TOKEN_FIELD), current)
        if changed:
            # Renew the token: the next submit saves what the form then shows.
            self.data = self.data.copy()
            self.data[self.add_prefix(TOKEN_FIELD)] = edit_token(current)
            raise ValidationError(
                _(
                    "This %(model)s was changed and saved by someone else after you opened "
                    "this form%(by)s, so nothing was saved. Changed since: %(changes)s. "
                    "Your input is still in the form below: check these against the saved "
                    "version (see History), then save again to keep what the form shows."
                ),
                code="edited_elsewhere",
                params={
                    "model": model._meta.verbose_name,
                    "by": _saved_by(current, opened),
                    "changes": ", ".join(capfirst(name) for name in changed),
                },
            )
        return cleaned_data


def _saved_by(obj, opened):
    """ " (by NAME, DATE TIME)" from the latest version saved after ``opened``, or ""."""
    if opened is None:
        return ""
    latest = Version.objects.get_for_object(obj).select_related("revision__user").first()
    if latest is None or latest.revision.date_created.timestamp() <= opened:
        return ""
    revision = latest.revision
    who = revision.user.get_username() if revision.user else revision.comment
    when = date_format(localtime(revision.date_created), "DATETIME_FORMAT")
    return _(" (by %(who)s, %(when)s)") % {"who": who, "when": when}
