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

# Proceedings named as "<series>, volume <number>" ("PMLR, volume 267"), the form the
# conference's ``proceedings`` help text asks for.
PROCEEDINGS = re.compile(r"^(?P<series>.+?),?\s+(?:volume|vol\.)\s*(?P<volume>\w+)$", re.IGNORECASE)
# Series known by an abbreviation: (full name, publisher), as their own BibTeX writes them.
KNOWN_SERIES = {"PMLR": ("Proceedings of Machine Learning Research", "PMLR")}
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


def proceedings_fields(proceedings):
    """``{"series", "volume", "publisher"}`` of a conference's ``proceedings`` (English)
    written "<series>, volume <number>": a known abbreviation (``KNOWN_SERIES``) gives
    the series' full name and its publisher; ``{}`` for any other text (a URL, a title)."""
    match = PROCEEDINGS.match(" ".join((proceedings or "").split()))
    if not match:
        return {}
    series, publisher = KNOWN_SERIES.get(match["series"], (match["series"], ""))
    return {"series": series, "volume": match["volume"], "publisher": publisher}


def paper_identifiers(paper):
    """A paper's identifiers from its links (prefetched): ``arxiv``, ``doi``, ``pdf`` (a
    PDF link's URL, else arXiv's PDF of the arXiv id) and ``landing`` (the first of PMLR,
    OpenReview, DOI), "" if unknown."""
    links = {link.kind: link.url for link in paper.links.all()}
    landing = next(
        (
            links[kind]
            for kind in (PaperLink.Kind.PMLR, PaperLink.Kind.OPENREVIEW, PaperLink.Kind.DOI)
            if kind in links
        ),
        "",
    )
    arxiv = arxiv_id(links.get(PaperLink.Kind.ARXIV, ""))
    return {
        "arxiv": arxiv,
        "doi": doi(links.get(PaperLink.Kind.DOI, "")),
        "pdf": links.get(PaperLink.Kind.PDF, "") or (arxiv and f"https://arxiv.org/pdf/{arxiv}"),
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
    proceedings = proceedings_fields(conference.proceedings_en)
    tags += [
        ("citation_publication_date", str(conference.year)),
        ("citation_conference_title", conference.venue.name_en),
        # Zotero's Embedded Metadata translator reads these as volume, series, publisher.
        ("citation_volume", proceedings.get("volume")),
        ("citation_series_title", proceedings.get("series")),
        ("citation_publisher", proceedings.get("publisher")),
        ("citation_firstpage", first),
        ("citation_lastpage", last),
        ("citation_pdf_url", ids["pdf"]),
        ("citation_doi", ids["doi"]),
        ("citation_arxiv_id", ids["arxiv"]),
        ("citation_abstract_html_url", page_url),
        ("citation_public_url", ids["landing"]),
        ("citation_language", "en"),
        # The whole abstract: without it Zotero saves the page's description, cut short.
        ("citation_abstract", " ".join((paper.abstract_en or "").split())),
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
        "author": [
            person(authorship.author, authorship.affiliations.all(), request)
            for authorship in paper.ordered_authorships
        ],
        # schema.org's property for the event that published a work (isPartOf's range is
        # a creative work: the proceedings' volume below).
        "publication": conference_event(paper.conference, request, "PublicationEvent"),
    }
    links = sorted(paper.links.all(), key=lambda link: link.sort_key)
    doi = paper_identifiers(paper)["doi"]
    proceedings = proceedings_fields(paper.conference.proceedings_en)
    return _add_values(
        article,
        isPartOf=proceedings
        and {
            "@type": "PublicationVolume",
            "volumeNumber": proceedings["volume"],
            "isPartOf": {"@type": "BookSeries", "name": proceedings["series"]},
        },
        publisher=proceedings.get("publisher")
        and {"@type": "Organization", "name": proceedings["publisher"]},
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


def conference_event(conference, request=None, kind="Event"):
    """A schema.org Event (or ``kind``, a subtype) of ``conference`` (its venue selected)
    as a dict: English name, its page as ``url`` and ``@id`` (with "#event"), dates and
    place when known, the venue as the ``superEvent`` (an EventSeries)."""
    url = absolute_url(conference.get_absolute_url(), request)
    event = {"@type": kind, "@id": f"{url}#event", "name": conference.name_en, "url": url}
    address = _add_values(
        {"@type": "PostalAddress"},
        addressLocality=conference.city_en,
        addressCountry=conference.country_en,
    )
    return _add_values(
        event,
        startDate=conference.start_date and conference.start_date.isoformat(),
        endDate=conference.end_date and conference.end_date.isoformat(),
        location=len(address) > 1 and {"@type": "Place", "address": address},
        superEvent={
            "@type": "EventSeries",
            "name": conference.venue.name_en,
            "url": absolute_url(conference.venue.get_absolute_url(), request),
        },
    )


def article_reference(paper, request=None):
    """A listed paper as a schema.org ScholarlyArticle of its English title and page."""
    return {
        "@type": "ScholarlyArticle",
        "name": paper.title_en,
        "url": absolute_url(paper.get_absolute_url(), request),
    }


def item_list(items, name="", url=""):
    """A schema.org ItemList of ``items`` (dicts of schema.org things, in order), each a
    ListItem at its ``position`` from 1; ``name`` and ``url`` when given."""
    elements = [
        {"@type": "ListItem", "position": position, "item": item}
        for position, item in enumerate(items, start=1)
    ]
    listed = {"@type": "ItemList", "numberOfItems": len(elements), "itemListElement": elements}
    return _add_values(listed, name=name, url=url)


def award_item_list(award, request=None):
    """An award's papers (``listed_levels``, from ``PageLists.awards``), the top level
    first, as an ItemList named ``"<conference> <award>"`` in English at the award's page."""
    return item_list(
        [
            article_reference(paper, request)
            for level in award.listed_levels
            for paper in level.papers
        ],
        name=f"{award.conference.name_en} {award.name_en}",
        url=absolute_url(award.get_absolute_url(), request),
    )


def web_page(url, name, kind="WebPage", **optional):
    """A schema.org WebPage (or ``kind``, a subtype such as CollectionPage) at ``url``
    named ``name``, in the active language, with the non-empty ``optional`` properties."""
    page = {
        "@context": "https://schema.org",
        "@type": kind,
        "@id": url,
        "url": url,
        "name": name,
        "inLanguage": get_language() or settings.LANGUAGE_CODE,
    }
    return _add_values(page, **optional)


def conference_graph(conference, awards, page_url, name, request=None, description=""):
    """A conference page's JSON-LD: the conference as an Event (``conference_event``) and
    the page, a CollectionPage about it whose main entities are its ``awards``' lists
    (``award_item_list``), as one ``@graph``."""
    event = conference_event(conference, request)
    page = web_page(
        page_url,
        name,
        "CollectionPage",
        description=description,
        about={"@id": event["@id"]},
        mainEntity=[award_item_list(award, request) for award in awards],
    )
    del page["@context"]
    return {"@context": "https://schema.org", "@graph": [event, page]}


def venue_series(venue, conferences, request=None):
    """A venue as a schema.org EventSeries whose ``subEvent`` are its ``conferences``
    (``conference_event``; from ``venue.conferences``, which know their venue)."""
    return _add_values(
        {
            "@context": "https://schema.org",
            "@type": "EventSeries",
            "@id": absolute_url(venue.get_absolute_url(), request) + "#series",
            "name": venue.name_en,
            "alternateName": venue.acronym,
            "url": absolute_url(venue.get_absolute_url(), request),
        },
        sameAs=venue.website,
        subEvent=[
            {k: v for k, v in conference_event(conference, request).items() if k != "superEvent"}
            for conference in conferences
        ],
    )


def person_names(author):
    """schema.org's ``givenName`` and ``familyName`` of ``author``, as citations split the
    name (``Author.name_parts``): a name without a given name (one word, a team) is whole
    as ``familyName``, with no ``givenName``."""
    parts = author.name_parts
    return _add_values({}, givenName=parts.given, familyName=parts.family or parts.literal)


def person(author, institutions=(), request=None):
    """An author as a schema.org Person: name, ``givenName`` and ``familyName``
    (``person_names``), page, the name in native script and other names as
    ``alternateName``, homepage and ORCID iD as ``sameAs``, ``institutions`` (in English)
    as ``affiliation``."""
    url = absolute_url(author.get_absolute_url(), request)
    orcid = f"https://orcid.org/{author.orcid}" if author.orcid else ""
    return _add_values(
        {"@type": "Person", "@id": f"{url}#person", "name": author.name, "url": url},
        **person_names(author),
        alternateName=[name for name in (author.native_name,) if name] + author.other_name_list,
        sameAs=[value for value in (author.homepage, orcid) if value],
        affiliation=[
            {"@type": "Organization", "name": institution.name_en} for institution in institutions
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
