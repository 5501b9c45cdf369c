"""Template tags for translated content, language switching and date ranges.

Translated prose goes through ``{% translated obj "field" %}`` (inline) or
``{% translated_block obj "field" %}`` (paragraphs). Where the visitor's language
has no value, the tags show the English original marked ``lang="en"`` with a
visible, translated note; an empty field never passes for a translation, and an
English page never shows another language's text.
"""

from django import template
from django.conf import settings
from django.template.defaultfilters import linebreaks_filter
from django.urls import reverse, translate_url
from django.utils import formats
from django.utils.html import format_html
from django.utils.safestring import mark_safe
from django.utils.text import Truncator
from django.utils.translation import get_language, gettext
from modeltranslation.utils import build_localized_fieldname

from ..images import thumbnail_url
from ..mathtext import math_inline, math_paragraphs
from ..metadata import (
    absolute_url,
    json_ld,
    language_versions,
    og_locale,
    scholar_tags,
    scholarly_article,
)

register = template.Library()


def localized_value(obj, field):
    """Return ``(text, language)`` for ``obj.field`` in the active language.

    ``language`` is the active language when ``obj`` has a value in it, the
    default language when the value falls back to it, and ``None`` when
    neither has a value (``text`` is then ""). Raises AttributeError for a
    field that is not translated on ``obj``.
    """
    language = get_language() or settings.LANGUAGE_CODE
    default = settings.MODELTRANSLATION_DEFAULT_LANGUAGE
    for candidate in dict.fromkeys([language, default]):
        value = getattr(obj, build_localized_fieldname(field, candidate))
        if value:
            return value, candidate
        if language == default:
            break
    return "", None


@register.simple_tag
def translated(obj, field, math=False):
    """Inline translated text, e.g. a title: ``{% translated paper "title" %}``.

    Returns escaped HTML. A fallback is wrapped in ``<span lang="en">`` and followed
    by a short note ("English original" in the visitor's language). With
    ``math=True``, TeX maths in the text is rendered as MathML (see papers/mathtext.py).
    """
    text, language = localized_value(obj, field)
    if math:
        text = math_inline(text)
    if language is None or language == (get_language() or settings.LANGUAGE_CODE):
        return text
    return format_html(
        '<span lang="{}">{}</span> <span class="fallback-note">{}</span>',
        language,
        text,
        gettext("(English original)"),
    )


@register.simple_tag
def translated_block(obj, field, math=False):
    """Translated prose as paragraphs: ``{% translated_block paper "abstract" %}``.

    Blank lines separate paragraphs. A fallback comes in a ``<div lang="en">``
    after a paragraph saying that no translation exists yet. Empty fields give "".
    With ``math=True``, TeX maths is rendered as MathML (see papers/mathtext.py).
    """
    text, language = localized_value(obj, field)
    if language is None:
        return ""
    if math:
        paragraphs = math_paragraphs(text)
    else:
        paragraphs = linebreaks_filter(text, autoescape=True)
    if language == (get_language() or settings.LANGUAGE_CODE):
        return paragraphs
    return format_html(
        '<p class="fallback-note">{}</p><div lang="{}">{}</div>',
        gettext("No translation yet: this is the English original."),
        language,
        paragraphs,
    )


@register.simple_tag(takes_context=True)
def url_in_language(context, language):
    """The current page's URL in ``language`` (a code from settings.LANGUAGES)."""
    request = context["request"]
    return translate_url(request.get_full_path(), language)


@register.filter
def date_range(conference):
    """Format a conference's dates in the active language, e.g. "13–19 July 2025".

    Returns "" when the start date is unknown, and the start date alone when
    the end date is unknown or the same day.
    """
    start, end = conference.start_date, conference.end_date
    if start is None:
        return ""
    if end is None or end == start:
        return formats.date_format(start, "DATE_FORMAT")
    if (start.year, start.month) == (end.year, end.month):
        # "13–19 July 2025"; the Chinese catalogue puts the month first.
        return gettext("%(start_day)s–%(end_day)s %(year_month)s") % {
            "start_day": start.day,
            "end_day": end.day,
            "year_month": formats.date_format(start, "YEAR_MONTH_FORMAT"),
        }
    return gettext("%(start)s – %(end)s") % {
        "start": formats.date_format(start, "DATE_FORMAT"),
        "end": formats.date_format(end, "DATE_FORMAT"),
    }


@register.simple_tag(takes_context=True)
def page_alternates(context):
    """``<link>`` elements for the current page: its canonical URL and its versions in
    every language plus ``x-default`` (hreflang), all absolute (see metadata.absolute_url).
    The query string is left out: a page's canonical address is its path."""
    request = context["request"]
    path = request.path
    links = [format_html('<link rel="canonical" href="{}">', absolute_url(path, request))]
    for code, version in language_versions(path):
        links.append(
            format_html(
                '<link rel="alternate" hreflang="{}" href="{}">',
                code,
                absolute_url(version, request),
            )
        )
    return mark_safe("\n  ".join(links))  # noqa: S308 - each part built by format_html


@register.simple_tag(takes_context=True)
def feed_url(context):
    """The absolute URL of the awards feed in the visitor's language."""
    return absolute_url(reverse("papers:awards-feed"), context["request"])


@register.inclusion_tag("papers/includes/paper_metadata.html", takes_context=True)
def paper_metadata(context, paper):
    """Google Scholar tags, OpenGraph tags and schema.org JSON-LD for a paper page.

    ``paper`` comes from ``Paper.objects.for_detail()`` (no further queries).
    """
    request = context["request"]
    url = absolute_url(request.path, request)
    abstract = localized_value(paper, "abstract")[0] or localized_value(paper, "summary")[0]
    return {
        "scholar_tags": scholar_tags(paper, url),
        "json_ld": mark_safe(json_ld(scholarly_article(paper, url, request))),  # noqa: S308
        "og_title": localized_value(paper, "title")[0],
        "og_description": Truncator(" ".join(abstract.split())).chars(300),
        "og_url": url,
        "og_locale": og_locale(),
        "og_locale_alternates": [
            og_locale(code) for code, _name in settings.LANGUAGES if code != get_language()
        ],
    }


@register.filter
def teaser_url(image, alias="teaser"):
    """The URL of ``image``'s thumbnail ``alias``, made at upload (papers.images.thumbnail_url).

    Unlike easy-thumbnails' ``thumbnail_url`` filter, it never resizes the image inside
    the visitor's request; without a thumbnail it gives the image's own URL.
    """
    return thumbnail_url(image, alias)
