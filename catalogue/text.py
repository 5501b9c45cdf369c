"""Text fields that store what editors typed with LF line endings (browsers send CRLF)
and ``""`` for empty (modeltranslation's columns are nullable), in every language's
column, through their form field and at every save; they deconstruct as Django's own."""

from django import forms
from django.db import models
from modeltranslation.fields import TranslationFieldDescriptor


def normalise_newlines(value):
    """``value`` with every CRLF or lone CR written as LF; other values unchanged."""
    if isinstance(value, str) and "\r" in value:
        return value.replace("\r\n", "\n").replace("\r", "\n")
    return value


class TextFormField(forms.CharField):
    """A form's text: LF line endings, and ``""`` (never None) when left empty."""

    def __init__(self, *, empty_value="", **kwargs):
        super().__init__(empty_value="", **kwargs)

    def to_python(self, value):
        return super().to_python(normalise_newlines(value))


class _PlainText:
    """What both model fields share."""

    def formfield(self, **kwargs):
        # Choices keep Django's choice field; modeltranslation passes its own subclass.
        kwargs.setdefault("form_class", TextFormField)
        kwargs["empty_value"] = ""
        return super().formfield(**kwargs)

    def to_python(self, value):
        return normalise_newlines(super().to_python(value))

    def pre_save(self, model_instance, add):
        value = super().pre_save(model_instance, add)
        clean = "" if value is None else normalise_newlines(value)
        # modeltranslation's original field reads and writes the active language's
        # column (with fallbacks): leave the instance to that column's own field.
        mirror = isinstance(
            getattr(type(model_instance), self.attname, None), TranslationFieldDescriptor
        )
        if clean is not value and not mirror:
            setattr(model_instance, self.attname, clean)
        return clean

    def deconstruct(self):
        name, _path, args, kwargs = super().deconstruct()  # named as Django's own classes
        return name, f"django.db.models.{type(self).__name__}", args, kwargs


class TextField(_PlainText, models.TextField):
    """A ``models.TextField`` that stores LF line endings and ``""`` for empty."""


class CharField(_PlainText, models.CharField):
    """A ``models.CharField`` that stores ``""`` for empty (and LF, should a line end)."""
