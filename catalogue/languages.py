"""The content's languages: a translated field has a column per language of
``settings.LANGUAGES`` (``title_en``, ``title_zh_hans``), and which one a page shows."""

from django.conf import settings
from django.utils.translation import get_language
from modeltranslation.utils import build_localized_fieldname


def codes():
    """The codes of ``settings.LANGUAGES`` (``["en", "zh-hans"]``), the default first."""
    default = settings.MODELTRANSLATION_DEFAULT_LANGUAGE
    return [default, *(code for code, _name in settings.LANGUAGES if code != default)]


def suffixes():
    """The column suffix of each language of :func:`codes`: ``("en", "zh_hans")``."""
    return tuple(build_localized_fieldname("", code).removeprefix("_") for code in codes())


def columns(field, prefix=""):
    """The columns of the translated ``field`` in :func:`codes` order, after ``prefix``
    (a lookup path such as ``"paper__"``): ``["title_en", "title_zh_hans"]``."""
    return [prefix + build_localized_fieldname(field, code) for code in codes()]


def localized_value(obj, field, language=None):
    """``(text, language)`` of ``obj.field`` in ``language`` (the active one if None), else
    the default language, else ``("", None)``; AttributeError for an untranslated field."""
    language = language or get_language() or settings.LANGUAGE_CODE
    default = settings.MODELTRANSLATION_DEFAULT_LANGUAGE
    for candidate in dict.fromkeys([language, default]):
        value = getattr(obj, build_localized_fieldname(field, candidate))
        if value:
            return value, candidate
    return "", None
