"""Text fields that store what editors typed with LF line endings (browsers send CRLF)
and ``""`` for empty (modeltranslation's columns are nullable), in every language's
column, through their form field and at every save; they deconstruct as Django's own.

Two rules on what they hold are model validators, so the admin's forms and the importer
(which cleans each value with its model field) both apply them, naming the field: a
:class:`CharField` (a title, a name) is one line (:class:`OneLineValidator`), and every
long text has a length limit in characters (the ``*_MAX_LENGTH`` figures below, given to
Django's ``MaxLengthValidator``; docs/compact-format.md and docs/editors.md list them).
"""

from django import forms
from django.core.exceptions import ValidationError
from django.db import models
from django.utils.deconstruct import deconstructible
from django.utils.translation import gettext_lazy as _
from modeltranslation.fields import TranslationFieldDescriptor

# Plain-text limits, in characters (code points). Generous on purpose: OpenReview, where
# ICML, ICLR and NeurIPS papers are submitted, takes an abstract of at most 5,000
# characters and arXiv one of 1,920; an abstract here may be twice OpenReview's, as long
# as the most maths one text may hold (catalogue/mathtext.py). A summary "may be longer
# than the abstract": twice that again. A conference's or award's description is a few
# paragraphs: as long as an abstract. Other names: 20 lines as long as a name (200).
ABSTRACT_MAX_LENGTH = 10_000
SUMMARY_MAX_LENGTH = 20_000
DESCRIPTION_MAX_LENGTH = 10_000
OTHER_NAMES_MAX_LENGTH = 4_000


def normalise_newlines(value):
    """``value`` with every CRLF or lone CR written as LF; other values unchanged."""
    if isinstance(value, str) and "\r" in value:
        return value.replace("\r\n", "\n").replace("\r", "\n")
    return value


@deconstructible
class OneLineValidator:
    """Refuses text with a line break, with a ValidationError (code ``line_break``) naming
    ``field`` (a verbose name). A line break is any line boundary of ``str.splitlines``:
    LF, CR, U+0085, U+2028 and U+2029, and the vertical tab, form feed and separators
    U+001C to U+001E. Titles and names are drawn on one line (share cards, feeds,
    citations), and Pillow refuses to measure a line break in a card's title."""

    code = "line_break"

    def __init__(self, field):
        self.field = field

    def __call__(self, value):
        text = str(value or "")
        if text.splitlines() not in ([], [text]):
            raise ValidationError(
                _("“%(field)s” must be on one line: remove the line break."),
                code=self.code,
                params={"field": self.field},
            )

    def __eq__(self, other):
        return isinstance(other, OneLineValidator) and str(self.field) == str(other.field)


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
    """A ``models.CharField`` that stores ``""`` for empty and holds one line: its first
    validator is a :class:`OneLineValidator` naming it by ``verbose_name`` (in every
    language's column: modeltranslation copies the validators)."""

    def __init__(self, verbose_name=None, *args, validators=(), **kwargs):
        validators = list(validators)
        if not any(isinstance(validator, OneLineValidator) for validator in validators):
            validators.insert(0, OneLineValidator(verbose_name))  # not again in clone()
        super().__init__(verbose_name, *args, validators=validators, **kwargs)
