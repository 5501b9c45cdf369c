"""Slugs made from titles and names in any script: python-slugify transliterates, so
"信任区域策略优化" gives "xin-ren-qu-yu-ce-lue-you-hua" where Django's ``slugify`` gives "".
"""

import re

from django import forms
from django.core.exceptions import ValidationError
from django.db import models
from django.utils.deconstruct import deconstructible
from django.utils.translation import gettext_lazy as _
from slugify import slugify


def slug_from(text, max_length):
    """The ASCII slug of ``text`` (``张伟`` gives ``zhang-wei``), at most ``max_length``
    characters cut after the last whole word that fits (a first word longer than that is
    cut); "" for no letters. ``save_order``: without it python-slugify skips a word too
    long for what is left and adds shorter ones after it ("...-reveals-about-the-and")."""
    return slugify(text or "", max_length=max_length, word_boundary=True, save_order=True)


def unique_slug(instance, text, fallback, scope=None, taken=()):
    """A slug for ``instance`` from ``text`` (else ``fallback``), within the field's
    max_length, not in ``taken`` and unique among the rows matching ``scope`` (lookups;
    None: the table): a taken one gets "-2", "-3", ..."""
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
    """A blank ``slug`` is made from the field ``slug_source`` (else ``slug_fallback``),
    unique within ``slug_scope()``, by ``clean()`` and ``save()`` (not raw saves)."""

    slug_source = "title_en"
    slug_fallback = "item"

    def slug_scope(self):
        return None

    def fill_slug(self, taken=()):
        """Make the slug if it is blank, avoiding ``taken`` too."""
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


# Django's own rule for slugs, whose message says "letters" and leaves ä and é unexplained.
ASCII_SLUG = re.compile(r"^[-a-zA-Z0-9_]+\Z")


@deconstructible
class AsciiSlugValidator:
    """Refuse a slug with anything but ASCII letters, digits, hyphens and underscores
    (ValidationError, code ``"invalid"``), suggesting its transliteration if any."""

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
    """An inline formset of a ``SlugFromTitleMixin`` model: each slug made for a blank one
    avoids the other rows' (two new rows of one name would get the same)."""

    def clean(self):
        taken = set()
        made = []
        for form in self.forms:
            data = getattr(form, "cleaned_data", None)
            if not data or "slug" not in data or data.get("DELETE"):
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
