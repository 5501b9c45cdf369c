"""Prose fields translated by django-modeltranslation (``<field>_en``, ``<field>_zh_hans``).

Only prose is registered; keys (slugs, years, URLs) are language-neutral.
Run ``makemigrations`` after every change here.
"""

from modeltranslation.translator import TranslationOptions, register

from .models import Award, Conference, Institution, Paper, Venue


@register(Venue)
class VenueTranslationOptions(TranslationOptions):
    fields = ("name",)
    required_languages = ("en",)


@register(Conference)
class ConferenceTranslationOptions(TranslationOptions):
    fields = ("name", "description", "city", "country", "proceedings")
    required_languages = {"en": ("name",)}


@register(Institution)
class InstitutionTranslationOptions(TranslationOptions):
    fields = ("name",)
    required_languages = ("en",)


@register(Paper)
class PaperTranslationOptions(TranslationOptions):
    fields = ("title", "abstract", "summary", "image_alt")
    required_languages = {"en": ("title",)}


@register(Award)
class AwardTranslationOptions(TranslationOptions):
    fields = ("name", "description")
    required_languages = {"en": ("name",)}
