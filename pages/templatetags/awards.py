"""Template tags for translated content, language switching and date ranges.

``{% translated obj "field" %}`` (inline) and ``{% translated_block obj "field" %}``
(paragraphs) show the visitor's language, or else the English original marked
``lang="en"``: a *name* (a field in its model's ``TranslationOptions.names``, such as a
conference or an institution) as it is; other text with the class ``untranslated`` (a
quiet cue, static/css/site.css), and the page then says once, at the top, what the cue
means (``{% untranslated_notice %}`` inside ``{% marking_untranslated %}``). An empty
field never passes for a translation; an English page never shows another language.
"""

import re
import secrets

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
    """Whether ``obj.field`` is a name, the same in every language when left untranslated.

    ``obj`` is a model instance or a model class. The names are listed per model in
    ``catalogue/translation.py`` (``names``).
    """
    try:
        options = translator.get_options_for_model(obj if isinstance(obj, type) else type(obj))
    except NotRegistered:
        return False
    return field in getattr(options, "names", ())


class UntranslatedTracker:
    """Whether a page showed untranslated text, and where its notice goes (a marker)."""

    def __init__(self):
        self.found = False
        self.marker = f"<!--untranslated-notice-{secrets.token_hex(8)}-->"


def note_untranslated(context):
    """Turn on the page's notice about untranslated text (see marking_untranslated), if
    ``context`` (a template context, or None) is inside ``{% marking_untranslated %}``."""
    tracker = context.get("untranslated_tracker") if context is not None else None
    if tracker is not None:
        tracker.found = True


@register.simple_tag(takes_context=True)
def translated(context, obj, field, math=False):
    """Inline translated text, e.g. a title: ``{% translated paper "title" %}``.

    Returns escaped HTML. A fallback is wrapped in ``<span lang="en">``; unless the
    field is a name (see :func:`is_name`) the span has the class ``untranslated`` and
    the page's notice is turned on (see :func:`marking_untranslated`). With
    ``math=True``, TeX maths in the text is rendered as MathML (see catalogue/mathtext.py).
    """
    return translated_html(obj, field, math=math, context=context)


def translated_html(obj, field, *, math=False, model=None, context=None, language=None):
    """What ``{% translated obj field %}`` shows: ``obj`` a model instance, or an object
    with the field's columns when ``model`` says whose (a name or not); ``context``'s
    notice a fallback turns on, if any; ``language`` the active one, if known."""
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


@register.simple_tag(takes_context=True)
def translated_block(context, obj, field, math=False):
    """Translated prose as paragraphs: ``{% translated_block paper "abstract" %}``.

    Blank lines separate paragraphs. A fallback comes in a ``<div lang="en"
    class="untranslated">`` and turns the page's notice on. Empty fields give "".
    With ``math=True``, TeX maths is rendered as MathML (see catalogue/mathtext.py).
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
    note_untranslated(context)
    return format_html('<div lang="{}" class="untranslated">{}</div>', language, paragraphs)


@register.simple_tag
def untranslated_notice_text():
    """The notice a page shows once, at the top, when it holds untranslated text (see
    marking_untranslated; the published search page shows it too when its results do),
    in the active language."""
    return gettext(
        "Some text on this page has no Chinese translation yet: it is shown "
        "in English, marked with a dotted underline or a line at its side."
    )


class MarkingUntranslatedNode(template.Node):
    def __init__(self, nodelist):
        self.nodelist = nodelist

    def render(self, context):
        tracker = UntranslatedTracker()
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
    """``{% marking_untranslated %}...{% endmarking_untranslated %}``: render the part of
    the page that may hold untranslated text, then put one notice where
    ``{% untranslated_notice %}`` stands inside it, if any text was untranslated.

    The notice's text is in the page's language; an English page never has one.
    """
    nodelist = parser.parse(("endmarking_untranslated",))
    parser.delete_first_token()
    return MarkingUntranslatedNode(nodelist)


@register.simple_tag(takes_context=True)
def untranslated_shown(context):
    """Turn on the page's notice about untranslated text (see marking_untranslated) for
    text a view translated itself, as ``{% translated %}`` does for its own. Outputs
    nothing."""
    note_untranslated(context)
    return ""


@register.simple_tag(takes_context=True)
def untranslated_notice(context):
    """Where the page's notice about untranslated text goes (see marking_untranslated)."""
    tracker = context.get("untranslated_tracker")
    return mark_safe(tracker.marker) if tracker is not None else ""  # noqa: S308 - our marker


def _resolved(request):
    """The request's route (``request.resolver_match``), or None for a 404 or under a
    script prefix (where ``translate_url()`` could not resolve ``request.path``)."""
    match = getattr(request, "resolver_match", None)
    return match if match is not None and request.path == request.path_info else None


def language_paths(request):
    """``{code: path}``: ``request.path`` in each language of settings.LANGUAGES, as
    ``translate_url(request.path, code)`` gives it (the path itself where no route
    matches or none reverses).

    Worked out once per request, from the route Django already resolved
    (``request.resolver_match``) instead of resolving the path again for each link
    (three times a page: the alternates and the language switcher).
    """
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
    """The current page's URL in ``language`` (a code from settings.LANGUAGES).

    An address that matches no route (a 404 page such as ``/en/no/such/page/``) has no
    equivalent: the home page in ``language`` is given instead, never the same page.
    """
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


# What a link in a preview adds to the address of a page that has one (the query
# string pages.views.PreviewMixin reads).
PREVIEW_QUERY = f"{settings.PREVIEW_PARAMETER}=1"


@register.simple_tag(takes_context=True)
def object_url(context, obj):
    """The address of ``obj``'s page (a conference, award or paper: a model that has a
    preview, see pages.views.PreviewMixin) as a page links to it: in a preview
    (``preview`` in the context) its preview, so that an editor following links stays
    in preview and reaches drafts, whose public pages are 404s; else the public page."""
    url = obj.get_absolute_url()
    return f"{url}?{PREVIEW_QUERY}" if context.get("preview") else url


@register.filter
def paper_count(number):
    """``number`` papers in the active language: "1 paper", "3 papers" ("3 篇论文"), the
    message of ``{% blocktranslate count %}`` at a fifth of its cost (the home page shows
    one per award: the block tag was a quarter of its time, benchmarks/server_time.py)."""
    return ngettext("%(counter)s paper", "%(counter)s papers", number) % {"counter": number}


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
    every language plus ``x-default`` (hreflang), all absolute
    (``awardsite.addresses.absolute_url``). The query string is left out: a page's
    canonical address is its path."""
    request = context["request"]
    path = request.path
    links = [format_html('<link rel="canonical" href="{}">', absolute_url(path, request))]
    for code, version in language_versions(path, language_paths(request)):
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

    The share image (``og:image``) is the teaser's thumbnail, with its size and
    description, when the paper has one; otherwise the paper's share card in the page's
    language (pages/cards.py), once it is drawn.

    ``paper`` comes from ``Paper.objects.for_detail()`` (no further queries).
    """
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
    """The badge tier (1, 2 or 3) of an award level of rank ``rank`` (0 for an award's
    top level; ``AwardEntryQuerySet.in_level_order`` annotates it as ``level_rank``).

    The tier picks the badge's colour and icon (static/css/site.css, "Award badges"):
    1 for the top level, 2 for the next, 3 for every level below. A missing rank
    (``None``) counts as the top level.
    """
    return min(int(rank or 0), BADGE_TIERS - 1) + 1


# A hyphen, doubled hyphen (BibTeX's "--"), hyphen or figure dash, or em dash between the
# two ends of a range, with any spaces around it.
RANGE_DASH = re.compile(r"(?<=\w)\s*(?:--?|[\u2010\u2011\u2012\u2014\u2015])\s*(?=\w)")


@register.filter
def page_range(pages):
    """Pages as typeset: ``"1889-1897"`` becomes ``"1889–1897"``, with an en dash
    (the typographic convention for ranges: Chicago Manual of Style 6.78, Butterick's
    Practical Typography). Anything else in the text is kept as it is."""
    return RANGE_DASH.sub("\u2013", pages or "")


@register.filter
def teaser_picture(image, alias="teaser"):
    """``image``'s thumbnail ``alias`` with its size, for ``<img src width height>``
    (catalogue.images.thumbnail_picture; ``None`` when there is nothing to show)."""
    return thumbnail_picture(image, alias)


@register.simple_tag(takes_context=True)
def search_snippet(context, paper, query, matches_only=False):
    """A search result's snippet: the paper's abstract (or summary) around the first
    word of ``query`` it holds, each match in ``<mark>`` (catalogue.search.snippet), in the
    visitor's language or marked as English like ``translated``. "" without a text, and
    with ``matches_only`` "" when no word of ``query`` is in it (the paper was found by
    an author or an institution: the snippet would be the start of the text)."""
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
