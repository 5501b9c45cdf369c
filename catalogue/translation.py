"""Prose fields translated by django-modeltranslation: only prose, keys (slugs, years,
URLs) are language-neutral. Run ``makemigrations`` after every change here.

``names`` are fields that may be left empty in Chinese when written alike ("ICML 2025"):
a Chinese page shows the English unmarked, where other fallbacks are marked untranslated.
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
