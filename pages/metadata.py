"""Machine-readable metadata: absolute URLs, Google Scholar tags, JSON-LD and OpenGraph.

Google Scholar's ``citation_*`` tags follow its inclusion guidelines
(scholar.google.com/intl/en/scholar/inclusion.html#indexing): one
``citation_author`` per author in order, ``citation_publication_date`` as
``YYYY`` when only the year is known, ``citation_pdf_url`` only for a real PDF.
The schema.org vocabulary is https://schema.org/ScholarlyArticle. Metadata describe
the paper as published, so titles and abstracts are the English originals on
both language versions of a page.
"""

import json
import re

from django.conf import settings
from django.urls import translate_url
from django.utils.translation import get_language

from awardsite.addresses import absolute_url
from catalogue.models import PaperLink

ARXIV_ID = re.compile(r"arxiv\.org/(?:abs|pdf)/(?P<id>[^?#]+?)(?:\.pdf)?/?(?:[?#].*)?$")
DOI = re.compile(r"(?:doi\.org/|^doi:)(?P<doi>10\.\S+)$", re.IGNORECASE)
# OpenGraph names locales as language_TERRITORY.
OG_LOCALES = {"en": "en_US", "zh-hans": "zh_CN"}


def language_versions(path, translated=None):
    """``[(hreflang, path), ...]`` for every language of ``path``, then ``x-default``:
    the address without a language prefix (LocaleMiddleware redirects by
    Accept-Language), as django.contrib.sitemaps writes it. ``translated``: ``{code:
    path}`` when the caller has them, else ``translate_url()`` makes them."""
    if translated is None:
        translated = {code: translate_url(path, code) for code, _name in settings.LANGUAGES}
    versions = [(code, translated[code]) for code, _name in settings.LANGUAGES]
    prefix = f"/{settings.LANGUAGE_CODE}/"
    default = dict(versions)[settings.LANGUAGE_CODE]
    if default.startswith(prefix):
        default = "/" + default.removeprefix(prefix)
    return [*versions, ("x-default", default)]


def arxiv_id(url):
    """The arXiv identifier in an arxiv.org URL ("2502.13228"), or "" for other URLs."""
    match = ARXIV_ID.search(url)
    return match["id"] if match else ""


def doi(url):
    """The DOI in a doi.org URL or a "doi:" string ("10.1234/x"), or ""."""
    match = DOI.search(url.strip())
    return match["doi"] if match else ""


def paper_identifiers(paper):
    """A paper's external identifiers from its links (prefetched): a dict with
    ``arxiv``, ``doi``, ``pdf`` (a PDF link's URL) and ``landing`` (the
    proceedings or OpenReview page: the first of PMLR, OpenReview, DOI); values "" when unknown."""
    links = {link.kind: link.url for link in paper.links.all()}
    landing = next(
        (
            links[kind]
            for kind in (PaperLink.Kind.PMLR, PaperLink.Kind.OPENREVIEW, PaperLink.Kind.DOI)
            if kind in links
        ),
        "",
    )
    return {
        "arxiv": arxiv_id(links.get(PaperLink.Kind.ARXIV, "")),
        "doi": doi(links.get(PaperLink.Kind.DOI, "")),
        "pdf": links.get(PaperLink.Kind.PDF, ""),
        "landing": landing,
    }


def first_page_and_last(pages):
    """``("1889", "1897")`` for "1889-1897" (any dash); ``(pages, "")`` for one page."""
    parts = [part.strip() for part in re.split(r"\s*[-\u2010-\u2015]+\s*", pages) if part.strip()]
    if len(parts) == 2:
        return parts[0], parts[1]
    return pages.strip(), ""


def scholar_tags(paper, page_url):
    """Google Scholar's ``citation_*`` meta tags, ``[(name, content), ...]``, of ``paper``
    (from ``Paper.objects.for_detail()``) at ``page_url``; none empty."""
    ids = paper_identifiers(paper)
    conference = paper.conference
    tags = [("citation_title", paper.title_en)]
    for authorship in paper.ordered_authorships:
        tags.append(("citation_author", authorship.author.name))
        for institution in authorship.affiliations.all():
            tags.append(("citation_author_institution", institution.name_en))
    tags += [
        ("citation_publication_date", str(conference.year)),
        ("citation_conference_title", conference.venue.name_en),
    ]
    first, last = first_page_and_last(paper.pages)
    if first:
        tags.append(("citation_firstpage", first))
    if last:
        tags.append(("citation_lastpage", last))
    if ids["pdf"]:
        tags.append(("citation_pdf_url", ids["pdf"]))
    if ids["doi"]:
        tags.append(("citation_doi", ids["doi"]))
    if ids["arxiv"]:
        tags.append(("citation_arxiv_id", ids["arxiv"]))
    tags.append(("citation_abstract_html_url", page_url))
    if ids["landing"]:
        tags.append(("citation_public_url", ids["landing"]))
    tags.append(("citation_language", "en"))
    return tags


def scholarly_article(paper, page_url, request=None):
    """A schema.org ScholarlyArticle of ``paper`` as a dict (serialise with ``json_ld``):
    authors with affiliations and page, external pages as ``sameAs``, each published
    award (and level) as ``award``."""
    article = {
        "@context": "https://schema.org",
        "@type": "ScholarlyArticle",
        "@id": page_url,
        "url": page_url,
        "headline": paper.title_en,
        "name": paper.title_en,
        "inLanguage": "en",
        "datePublished": str(paper.conference.year),
        "author": [],
        "isPartOf": {
            "@type": "PublicationEvent",
            "name": paper.conference.name_en,
            "superEvent": {"@type": "EventSeries", "name": paper.conference.venue.name_en},
        },
    }
    if paper.abstract_en:
        article["abstract"] = paper.abstract_en
    if paper.title_zh_hans:
        article["alternativeHeadline"] = paper.title_zh_hans
    if paper.pages:
        article["pagination"] = paper.pages
    for authorship in paper.ordered_authorships:
        author = authorship.author
        person = {
            "@type": "Person",
            "name": author.name,
            "url": absolute_url(author.get_absolute_url(), request),
        }
        affiliations = [
            {"@type": "Organization", "name": institution.name_en}
            for institution in authorship.affiliations.all()
        ]
        if affiliations:
            person["affiliation"] = affiliations
        same_as = [url for url in (author.homepage,) if url]
        if author.orcid:
            same_as.append(f"https://orcid.org/{author.orcid}")
        if same_as:
            person["sameAs"] = same_as
        article["author"].append(person)
    links = sorted(paper.links.all(), key=lambda link: link.sort_key)
    same_as = [link.url for link in links if link.kind != PaperLink.Kind.CODE]
    if same_as:
        article["sameAs"] = same_as
    ids = paper_identifiers(paper)
    if ids["doi"]:
        article["identifier"] = {"@type": "PropertyValue", "propertyID": "DOI", "value": ids["doi"]}
    awards = [
        f"{entry.award.conference.name_en} {entry.award.name_en}"
        + ("" if entry.is_top_level else f" ({entry.level.name_en})")
        for entry in paper.award_entries.all()
    ]
    if awards:
        article["award"] = awards
    return article


def json_ld(data):
    """``data`` as JSON safe inside ``<script type="application/ld+json">``: ``<``, ``>``
    and ``&`` as JSON escapes, as Django's json_script writes them."""
    text = json.dumps(data, ensure_ascii=False, indent=None, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def og_locale(language=None):
    """The OpenGraph locale of ``language`` (default: the active one), e.g. "zh_CN"."""
    return OG_LOCALES.get(language or get_language() or settings.LANGUAGE_CODE, "en_US")
