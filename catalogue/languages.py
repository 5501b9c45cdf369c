"""The content's languages: which value of a translated field a page shows.

Translated fields (catalogue/translation.py, django-modeltranslation) have one column per
language of ``settings.LANGUAGES`` (``title_en``, ``title_zh_hans``); the default
language's column holds the original.
"""

from django.conf import settings
from django.utils.translation import get_language
from modeltranslation.utils import build_localized_fieldname


def localized_value(obj, field, language=None):
    """Return ``(text, language)`` for ``obj.field`` in the active language (or in
    ``language``, a code of settings.LANGUAGES, for callers that already know it).

    ``language`` is the active language when ``obj`` has a value in it, the
    default language when the value falls back to it, and ``None`` when
    neither has a value (``text`` is then ""). Raises AttributeError for a
    field that is not translated on ``obj``.
    """
    language = language or get_language() or settings.LANGUAGE_CODE
    default = settings.MODELTRANSLATION_DEFAULT_LANGUAGE
    for candidate in dict.fromkeys([language, default]):
        value = getattr(obj, build_localized_fieldname(field, candidate))
        if value:
            return value, candidate
        if language == default:
            break
    return "", None
