"""Prose fields translated by django-modeltranslation; run ``makemigrations`` after every
change. ``names`` may be left empty in Chinese ("ICML 2025"): pages show the English unmarked.
"""

from modeltranslation.translator import TranslationOptions, register

from catalogue.models import Award, AwardKind, AwardLevel, Conference, Institution, Paper, Venue


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


@register(AwardKind)
class AwardKindTranslationOptions(TranslationOptions):
    fields = ("name", "description")
    required_languages = {"en": ("name",)}
