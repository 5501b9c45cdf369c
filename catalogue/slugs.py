"""Slugs made from titles and names, in any script.

python-slugify transliterates through text-unidecode, so a title in Chinese characters
only ("信任区域策略优化") still gives a readable ASCII slug ("xin-ren-qu-yu-ce-lue-you-hua")
where Django's own ``slugify`` (and the admin's prepopulating script) give "".
"""

import re

from django import forms
from django.core.exceptions import ValidationError
from django.db import models
from django.utils.deconstruct import deconstructible
from django.utils.translation import gettext_lazy as _
from slugify import slugify


def slug_from(text, max_length):
    """The ASCII slug ``text`` gives, any script transliterated; "" if it has no letters.

    ``Kynkäänniemi`` gives ``kynkaanniemi``, ``张伟`` gives ``zhang-wei``; at most
    ``max_length`` characters, cut at a word boundary. The admin (:func:`unique_slug`)
    and the compact conference file (``importing.compact``) both use it, so a
    slug left out of either is the same.
    """
    return slugify(text or "", max_length=max_length, word_boundary=True)


def unique_slug(instance, text, fallback, scope=None, taken=()):
    """A slug for ``instance`` made from ``text``, unique among its model's rows.

    ``text`` is any string (a title or name, in any script); ``fallback`` is used when
    ``text`` yields no letters or digits at all (e.g. only punctuation or emoji).
    ``scope`` is a dict of field lookups that bounds uniqueness (an award's slug is
    unique per conference), or None for the whole table. ``taken`` holds slugs to avoid
    as well (those of unsaved rows on the same form). The slug fits the model's
    ``slug`` max_length; a taken slug gets "-2", "-3", ... Returns the slug; saves nothing.
    """
    max_length = instance._meta.get_field("slug").max_length
    base = slug_from(text, max_length) or fallback
    others = type(instance)._default_manager.filter(**(scope or {}))
    if instance.pk is not None:
        others = others.exclude(pk=instance.pk)
    slug, n = base, 1
    while slug in taken or others.filter(slug=slug).exists():
        n += 1
        suffix = f"-{n}"
        slug = base[: max_length - len(suffix)].rstrip("-") + suffix
    return slug


class SlugFromTitleMixin:
    """For models whose ``slug`` may be left blank: one is made from ``slug_source``.

    ``slug_source`` names the field to read (e.g. "title_en"); ``slug_fallback`` is the
    slug used when that field gives nothing; ``slug_scope()`` returns the lookups that
    bound uniqueness. ``clean()`` fills the slug so form validation sees it; ``save()``
    fills it for code that saves without validating. loaddata saves raw and is untouched.
    """

    slug_source = "title_en"
    slug_fallback = "item"

    def slug_scope(self):
        return None

    def fill_slug(self, taken=()):
        """Make the slug if it is blank, avoiding ``taken`` too (see ``unique_slug``)."""
        if not self.slug:
            self.slug = unique_slug(
                self, getattr(self, self.slug_source), self.slug_fallback, self.slug_scope(), taken
            )

    def clean(self):
        super().clean()
        self.fill_slug()

    def save(self, *args, **kwargs):
        self.fill_slug()
        super().save(*args, **kwargs)


# What a slug may hold: ASCII letters, digits, hyphens and underscores (Django's own
# rule, whose message says only "letters" and so leaves ä and é unexplained).
ASCII_SLUG = re.compile(r"^[-a-zA-Z0-9_]+\Z")


@deconstructible
class AsciiSlugValidator:
    """Refuse a slug with anything but ASCII letters, digits, hyphens and underscores.

    The message says ASCII, and suggests the slug python-slugify makes of the value
    (a transliteration: "Kynkäänniemi" gives "kynkaanniemi"), when it makes one.
    Raises ``ValidationError`` with code ``"invalid"``, as Django's ``validate_slug``.
    """

    def __call__(self, value):
        if ASCII_SLUG.match(value):
            return
        params = {"value": value, "suggestion": slugify(value)}
        if not params["suggestion"]:
            message = _(
                "“%(value)s” is not a valid slug: a slug holds only ASCII letters, digits, "
                "hyphens and underscores."
            )
        elif not value.isascii():
            message = _(
                "“%(value)s” is not a valid slug: a slug holds only ASCII letters, digits, "
                "hyphens and underscores, so letters such as ä or é need a transliteration, "
                "e.g. “%(suggestion)s”."
            )
        else:
            message = _(
                "“%(value)s” is not a valid slug: a slug holds only ASCII letters, digits, "
                "hyphens and underscores, e.g. “%(suggestion)s”."
            )
        raise ValidationError(message, code="invalid", params=params)

    def __eq__(self, other):
        return isinstance(other, AsciiSlugValidator)


validate_ascii_slug = AsciiSlugValidator()


class SlugsMadeFormSet(forms.BaseInlineFormSet):
    """An inline formset of a ``SlugFromTitleMixin`` model whose rows' slugs may be blank.

    Each row's model ``clean()`` makes its blank slug alone, so two new rows with one
    English name (or any two blank slugs: the form still holds "") would be refused as
    duplicates, and rows of a parent not saved yet are checked against nothing. Here the
    made slugs go into the forms' data, and each avoids the slugs of the rows above it
    (given or made) before the formset's own duplicate check runs.
    """

    def clean(self):
        taken = set()
        made = []
        for form in self.forms:
            data = getattr(form, "cleaned_data", None)
            if not data or "slug" not in data or self._should_delete_form(form):
                continue
            if data["slug"]:
                taken.add(data["slug"])
            else:
                made.append(form)
        for form in made:
            form.instance.slug = ""
            form.instance.fill_slug(taken)
            form.cleaned_data["slug"] = form.instance.slug
            taken.add(form.instance.slug)
        super().clean()


class AsciiSlugFormField(forms.SlugField):
    """A form's slug field with :class:`AsciiSlugValidator`'s message."""

    default_validators = [validate_ascii_slug]


class AsciiSlugField(models.SlugField):
    """A slug column whose error says ASCII and suggests a transliteration (forms too)."""

    default_validators = [validate_ascii_slug]

    def formfield(self, **kwargs):
        return super().formfield(**{"form_class": AsciiSlugFormField, **kwargs})
