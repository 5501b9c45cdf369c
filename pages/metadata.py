"""Machine-readable metadata: absolute URLs, Google Scholar tags, JSON-LD and OpenGraph.

Google Scholar's ``citation_*`` tags follow its inclusion guidelines
(scholar.google.com/intl/en/scholar/inclusion.html#indexing): one ``citation_author``
per author in order, the year as ``YYYY``, ``citation_pdf_url`` only for a real PDF.
The schema.org vocabulary is https://schema.org/ScholarlyArticle. Metadata describe the
paper as published: the English originals, on both language versions of a page.
"""

import json
import re

from django.conf import settings
from django.utils.translation import get_language

from awardsite.addresses import absolute_url
from catalogue.models import PaperLink

ARXIV_ID = re.compile(r"arxiv\.org/(?:abs|pdf)/(?P<id>[^?#]+?)(?:\.pdf)?/?(?:[?#].*)?$")
DOI = re.compile(r"(?:doi\.org/|^doi:)(?P<doi>10\.\S+)$", re.IGNORECASE)
# OpenGraph names locales as language_TERRITORY.
OG_LOCALES = {"en": "en_US", "zh-hans": "zh_CN"}


def language_versions(translated):
    """``[(hreflang, path), ...]`` of a page's path in every language, from ``translated``
    (``{code: path}``), then ``x-default``: the path without a language prefix
    (LocaleMiddleware redirects by Accept-Language), as django.contrib.sitemaps writes it."""
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
    """A paper's identifiers from its links (prefetched): ``arxiv``, ``doi``, ``pdf`` (a
    PDF link's URL) and ``landing`` (the first of PMLR, OpenReview, DOI), "" if unknown."""
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
        tags.append(("citation_author", authorship.author.citation_name))
        for institution in authorship.affiliations.all():
            tags.append(("citation_author_institution", institution.name_en))
    first, last = first_page_and_last(paper.pages)
    tags += [
        ("citation_publication_date", str(conference.year)),
        ("citation_conference_title", conference.venue.name_en),
        ("citation_firstpage", first),
        ("citation_lastpage", last),
        ("citation_pdf_url", ids["pdf"]),
        ("citation_doi", ids["doi"]),
        ("citation_arxiv_id", ids["arxiv"]),
        ("citation_abstract_html_url", page_url),
        ("citation_public_url", ids["landing"]),
        ("citation_language", "en"),
    ]
    return [(name, content) for name, content in tags if content]


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
    for authorship in paper.ordered_authorships:
        author = authorship.author
        person = {
            "@type": "Person",
            "name": author.name,
            "url": absolute_url(author.get_absolute_url(), request),
        }
        orcid = f"https://orcid.org/{author.orcid}" if author.orcid else ""
        _add_values(
            person,
            affiliation=[
                {"@type": "Organization", "name": institution.name_en}
                for institution in authorship.affiliations.all()
            ],
            sameAs=[url for url in (author.homepage, orcid) if url],
        )
        article["author"].append(person)
    links = sorted(paper.links.all(), key=lambda link: link.sort_key)
    doi = paper_identifiers(paper)["doi"]
    return _add_values(
        article,
        abstract=paper.abstract_en,
        alternativeHeadline=paper.title_zh_hans,
        pagination=paper.pages,
        sameAs=[link.url for link in links if link.kind != PaperLink.Kind.CODE],
        identifier=doi and {"@type": "PropertyValue", "propertyID": "DOI", "value": doi},
        award=[
            f"{entry.award.conference.name_en} {entry.award.name_en}"
            + ("" if entry.is_top_level else f" ({entry.level.name_en})")
            for entry in paper.award_entries.all()
        ],
    )


def _add_values(data, **optional):
    """``data`` (a dict, updated) with each of ``optional`` that is not empty."""
    data.update((key, value) for key, value in optional.items() if value)
    return data


def json_ld(data):
    """``data`` as JSON safe inside ``<script type="application/ld+json">``: ``<``, ``>``
    and ``&`` as JSON escapes, as Django's json_script writes them."""
    text = json.dumps(data, ensure_ascii=False, indent=None, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def og_locale(language=None):
    """The OpenGraph locale of ``language`` (default: the active one), e.g. "zh_CN"."""
    return OG_LOCALES.get(language or get_language() or settings.LANGUAGE_CODE, "en_US")
