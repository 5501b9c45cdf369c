"""Prose fields translated by django-modeltranslation (``<field>_en``, ``<field>_zh_hans``).

Only prose is registered; keys (slugs, years, URLs) are language-neutral.
Run ``makemigrations`` after every change here.

``names`` lists the fields that are names: one written the same in both languages
(an acronym and a year such as "ICML 2025", an English-only institution name) may be
left empty in Chinese, and a Chinese page then shows the English without marking it
as untranslated. Every other field left empty is marked (see templatetags/awards.py).
"""

from modeltranslation.translator import TranslationOptions, register

from catalogue.models import Award, AwardLevel, Conference, Institution, Paper, Venue


@register(Venue)
class VenueTranslationOptions(TranslationOptions):
    fields = ("name",)
    names = ("name",)
    required_languages = ("en",)


@register(Conference)
class ConferenceTranslationOptions(TranslationOptions):
    fields = ("name", "description", "city", "country", "proceedings")
    names = ("name", "city", "country", "proceedings")
    required_languages = {"en": ("name",)}


@register(Institution)
class InstitutionTranslationOptions(TranslationOptions):
    fields = ("name",)
    names = ("name",)
    required_languages = ("en",)


@register(Paper)
class PaperTranslationOptions(TranslationOptions):
    fields = ("title", "abstract", "summary", "image_alt", "lead")
    required_languages = {"en": ("title",)}


@register(Award)
class AwardTranslationOptions(TranslationOptions):
    fields = ("name", "description")
    required_languages = {"en": ("name",)}


@register(AwardLevel)
class AwardLevelTranslationOptions(TranslationOptions):
    fields = ("name", "name_plural")
    required_languages = {"en": ("name", "name_plural")}
