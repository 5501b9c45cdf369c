"""Template tags of the public pages: translated content, languages, metadata, badges.

``{% translated obj "field" %}`` (inline) and ``{% translated_block obj "field" %}``
(paragraphs) show the visitor's language, else the English original marked
``lang="en"``: a *name* (``TranslationOptions.names``) as it is, other text with the
class ``untranslated`` (static/css/site.css), and the page then says once, at the top,
what that means (``{% untranslated_notice %}`` inside ``{% marking_untranslated %}``).
An empty field never passes for a translation.
"""

import re
import secrets
import types

from django import template
from django.conf import settings
from django.template.defaultfilters import linebreaks_filter
from django.urls import NoReverseMatch, reverse, translate_url
from django.utils import formats, translation
from django.utils.html import conditional_escape, format_html, format_html_join
from django.utils.safestring import mark_safe
from django.utils.text import Truncator
from django.utils.translation import get_language, gettext, ngettext
from modeltranslation.translator import NotRegistered, translator

from catalogue import search
from catalogue.images import Picture, thumbnail_picture
from catalogue.languages import localized_value
from catalogue.mathtext import math_inline, math_paragraphs
from pages.cards import share_card
from pages.metadata import (
    absolute_url,
    json_ld,
    language_versions,
    og_locale,
    scholar_tags,
    scholarly_article,
)

register = template.Library()


def is_name(obj, field):
    """Whether ``field`` of ``obj`` (a model instance or class) is in its model's ``names``
    (catalogue/translation.py): the same in every language."""
    try:
        options = translator.get_options_for_model(obj if isinstance(obj, type) else type(obj))
    except NotRegistered:
        return False
    return field in getattr(options, "names", ())


def note_untranslated(context):
    """Turn on the notice of the ``{% marking_untranslated %}`` around ``context``, if any."""
    tracker = context.get("untranslated_tracker") if context is not None else None
    if tracker is not None:
        tracker.found = True


@register.simple_tag(takes_context=True)
def translated(context, obj, field, math=False):
    """Inline translated text as escaped HTML: ``{% translated paper "title" %}``. A
    fallback is wrapped in ``<span lang="en">``, with the class ``untranslated`` and the
    page's notice turned on unless the field is a name (:func:`is_name`). ``math=True``:
    TeX maths as MathML (catalogue/mathtext.py)."""
    return translated_html(obj, field, math=math, context=context)


def translated_html(obj, field, *, math=False, model=None, context=None, language=None):
    """``{% translated obj field %}``: ``obj`` a model instance, or an object with the
    field's columns when ``model`` says whose; ``context`` the template context (its
    notice), if any; ``language`` the active one, if known."""
    active = language or get_language() or settings.LANGUAGE_CODE
    text, language = localized_value(obj, field, active)
    if math:
        text = math_inline(text)
    if language is None or language == active:
        return conditional_escape(text)
    if is_name(obj if model is None else model, field):
        return format_html('<span lang="{}">{}</span>', language, text)
    note_untranslated(context)
    return format_html('<span lang="{}" class="untranslated">{}</span>', language, text)


@register.simple_tag
def original_title(paper):
    """The English title (TeX as maths) as ``<p class="original-title" lang="en">``, to
    show under the title on a page in another language when the title is translated (a
    reader then finds the paper by the name it was published under); "" otherwise."""
    default = settings.MODELTRANSLATION_DEFAULT_LANGUAGE
    active = get_language() or settings.LANGUAGE_CODE
    text, language = localized_value(paper, "title", active)
    original, _ = localized_value(paper, "title", default)
    if active == default or language != active or not original or original == text:
        return ""
    return format_html('<p class="original-title" lang="{}">{}</p>', default, math_inline(original))


@register.simple_tag(takes_context=True)
def translated_block(context, obj, field, math=False):
    """Translated prose as paragraphs split at blank lines, "" for an empty field:
    ``{% translated_block paper "abstract" %}``. A fallback comes in a ``<div lang="en"
    class="untranslated">`` and turns the page's notice on; ``math`` as for translated."""
    text, language = localized_value(obj, field)
    if language is None:
        return ""
    if math:
        paragraphs = math_paragraphs(text)
    else:
        paragraphs = linebreaks_filter(text, autoescape=True)
    if language == (get_language() or settings.LANGUAGE_CODE):
        return paragraphs
    note_untranslated(context)
    return format_html('<div lang="{}" class="untranslated">{}</div>', language, paragraphs)


@register.simple_tag
def untranslated_notice_text():
    """The notice about untranslated text (see marking_untranslated; the published search
    page shows it too), in the active language."""
    return gettext(
        "Some text on this page has no Chinese translation yet: it is shown "
        "in English, marked with a dotted underline or a line at its side."
    )


class MarkingUntranslatedNode(template.Node):
    def __init__(self, nodelist):
        self.nodelist = nodelist

    def render(self, context):
        # Whether the part showed untranslated text, and where its notice goes.
        marker = f"<!--untranslated-notice-{secrets.token_hex(8)}-->"
        tracker = types.SimpleNamespace(found=False, marker=marker)
        with context.push(untranslated_tracker=tracker):
            html = self.nodelist.render(context)
        notice = ""
        if tracker.found:
            notice = format_html(
                '<p class="untranslated-notice" role="note">{}</p>', untranslated_notice_text()
            )
        return mark_safe(html.replace(tracker.marker, notice, 1))  # noqa: S308 - rendered HTML


@register.tag
def marking_untranslated(parser, token):
    """``{% marking_untranslated %}...{% endmarking_untranslated %}``: render the
    enclosed part of the page, then, if any text in it was untranslated, put one notice
    where ``{% untranslated_notice %}`` stands inside it (an English page never has one)."""
    nodelist = parser.parse(("endmarking_untranslated",))
    parser.delete_first_token()
    return MarkingUntranslatedNode(nodelist)


@register.simple_tag(takes_context=True)
def untranslated_shown(context):
    """Turn on the page's notice (see marking_untranslated) for text a view translated
    itself. Outputs nothing."""
    note_untranslated(context)
    return ""


@register.simple_tag(takes_context=True)
def untranslated_notice(context):
    """Where the page's notice about untranslated text goes (see marking_untranslated)."""
    tracker = context.get("untranslated_tracker")
    return mark_safe(tracker.marker) if tracker is not None else ""  # noqa: S308 - our marker


def _resolved(request):
    """``request.resolver_match``, or None for a 404 or under a script prefix."""
    match = getattr(request, "resolver_match", None)
    return match if match is not None and request.path == request.path_info else None


def language_paths(request):
    """``{code: path}``: ``request.path`` in each language of settings.LANGUAGES, as
    ``translate_url()`` gives it, once per request from the route Django resolved."""
    paths = request.__dict__.get("_language_paths")
    if paths is not None:
        return paths
    match, path = _resolved(request), request.path
    if match is None:
        paths = {code: translate_url(path, code) for code, _name in settings.LANGUAGES}
    else:
        paths = {}
        for code, _name in settings.LANGUAGES:
            with translation.override(code):
                try:
                    paths[code] = reverse(match.view_name, args=match.args, kwargs=match.kwargs)
                except NoReverseMatch:
                    paths[code] = path
    request._language_paths = paths
    return paths


@register.simple_tag(takes_context=True)
def url_in_language(context, language):
    """The current page's URL in ``language`` (a code from settings.LANGUAGES); the home
    page in ``language`` for an address that matches no route (a 404 page)."""
    request = context["request"]
    path = request.get_full_path()
    if _resolved(request) is None:
        translated_path = translate_url(path, language)
    else:  # the same, without resolving the path again
        _path, question_mark, query = path.partition("?")
        translated_path = language_paths(request)[language] + question_mark + query
    if translated_path == path and language != get_language():
        with translation.override(language):
            return reverse("papers:home")
    return translated_path


# What a link in a preview adds to an address (read by pages.views.PreviewMixin).
PREVIEW_QUERY = f"{settings.PREVIEW_PARAMETER}=1"


@register.simple_tag(takes_context=True)
def object_url(context, obj):
    """The address of ``obj``'s page; in a preview (``preview`` in the context) its
    preview, so that an editor following links reaches drafts (404s in public)."""
    url = obj.get_absolute_url()
    return f"{url}?{PREVIEW_QUERY}" if context.get("preview") else url


@register.filter
def paper_count(number):
    """``number`` papers in the active language ("3 papers", "3 篇论文"): the text of
    ``{% blocktranslate count %}`` at a fifth of its cost (benchmarks/server_time.py)."""
    return ngettext("%(counter)s paper", "%(counter)s papers", number) % {"counter": number}


@register.filter
def date_range(conference):
    """A conference's dates in the active language, e.g. "13–19 July 2025": "" without
    a start date, the start date alone without another end date."""
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
    """``<link>`` elements of the current page's canonical URL (its path, without the
    query string) and its versions in every language plus ``x-default``, absolute."""
    request = context["request"]
    versions = language_versions(language_paths(request))
    alternates = format_html_join(
        "\n  ",
        '<link rel="alternate" hreflang="{}" href="{}">',
        ((code, absolute_url(version, request)) for code, version in versions),
    )
    canonical = absolute_url(request.path, request)
    return format_html('<link rel="canonical" href="{}">\n  {}', canonical, alternates)


@register.simple_tag(takes_context=True)
def feed_url(context):
    """The absolute URL of the awards feed in the visitor's language."""
    return absolute_url(reverse("papers:awards-feed"), context["request"])


@register.inclusion_tag("papers/includes/paper_metadata.html", takes_context=True)
def paper_metadata(context, paper):
    """Google Scholar tags, OpenGraph tags and schema.org JSON-LD of ``paper`` (from
    ``Paper.objects.for_detail()``: no further query). The share image (``og:image``) is
    the teaser's thumbnail, else the paper's share card (pages/cards.py) once drawn."""
    request = context["request"]
    url = absolute_url(request.path, request)
    abstract = localized_value(paper, "abstract")[0] or localized_value(paper, "summary")[0]
    picture = thumbnail_picture(paper.image, "teaser")
    og_image_alt = localized_value(paper, "image_alt")[0]
    card = None if picture else share_card(paper, get_language())
    if card is not None:
        card_url, width, height, og_image_alt = card
        picture = Picture(card_url, width, height)
    return {
        "og_image": picture and {**picture._asdict(), "url": absolute_url(picture.url, request)},
        "og_image_alt": og_image_alt,
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


# Badge tiers: the top level of an award, the next one, and every level below them.
BADGE_TIERS = 3


@register.filter
def level_tier(rank):
    """The badge tier (static/css/site.css) of an award level of ``rank`` (``level_rank``;
    0 or None for the top level): 1 for the top level, 2 for the next, 3 below."""
    return min(int(rank or 0), BADGE_TIERS - 1) + 1


# A hyphen, doubled hyphen (BibTeX's "--"), hyphen or figure dash, or em dash between the
# two ends of a range, with any spaces around it.
RANGE_DASH = re.compile(r"(?<=\w)\s*(?:--?|[\u2010\u2011\u2012\u2014\u2015])\s*(?=\w)")


@register.filter
def page_range(pages):
    """Pages with an en dash between the ends of a range, ``"1889–1897"`` (Chicago Manual
    of Style 6.78); anything else in the text as it is."""
    return RANGE_DASH.sub("\u2013", pages or "")


@register.filter
def teaser_picture(image, alias="teaser"):
    """``image``'s thumbnail ``alias`` with its size, or None (catalogue.images)."""
    return thumbnail_picture(image, alias)


@register.simple_tag(takes_context=True)
def search_snippet(context, paper, query, matches_only=False):
    """A search result's snippet: the paper's abstract (or summary) around the first word
    of ``query`` it holds, matches in ``<mark>`` (catalogue.search.snippet), marked as
    English like ``translated`` when it falls back. "" without a text, and with
    ``matches_only`` when it holds no word of ``query``."""
    text, language = localized_value(paper, "abstract")
    if not text:
        text, language = localized_value(paper, "summary")
    parts, cut_before, cut_after = search.snippet(text, query or "")
    if not parts or (matches_only and not any(hit for _part, hit in parts)):
        return ""
    html = format_html_join(
        "", "{}", ((format_html("<mark>{}</mark>", part) if hit else part,) for part, hit in parts)
    )
    html = format_html("{}{}{}", "… " if cut_before else "", html, " …" if cut_after else "")
    if language == (get_language() or settings.LANGUAGE_CODE):
        return format_html('<p class="snippet">{}</p>', html)
    note_untranslated(context)
    return format_html('<p class="snippet untranslated" lang="{}">{}</p>', language, html)
