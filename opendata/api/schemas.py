"""The shapes of the API's answers: django-ninja ``Schema`` models read from the
catalogue's objects (attributes, dotted ``validation_alias`` paths and ``resolve_``
methods), which validate every answer and write the OpenAPI schema
(``/api/v1/openapi.json``). Objects are named by their language-neutral keys (slugs,
years); each translated field is a :data:`Translated` object holding every language of
``settings.LANGUAGES``, an untranslated one as ``null``.
"""

from datetime import date
from operator import attrgetter
from typing import Annotated

from django.conf import settings
from django.urls import reverse
from django.utils import translation
from modeltranslation.utils import build_localized_fieldname
from ninja import Schema
from pydantic import BeforeValidator, ConfigDict, Field, create_model

from awardsite.addresses import absolute_url

# The API's URL namespace (awardsite/urls.py mounts it at /api/v1/).
NAMESPACE = "api-v1"


def api_url(request, name, **kwargs):
    """The absolute URL of the API endpoint ``name``."""
    return absolute_url(reverse(f"{NAMESPACE}:{name}", kwargs=kwargs), request)


def downloads(request, conference=None):
    """The whole downloads of ``conference``, or of the site when None (opendata/downloads.py)."""
    scope, kwargs = (
        ("site", {}) if conference is None else ("conference", {"slug": conference.slug})
    )
    return {
        kind: absolute_url(reverse(f"opendata-{scope}-{kind}", kwargs=kwargs), request)
        for kind in ("csv", "compact")
    }


def by_language(title, description, value, field_description):
    """A model with a field per language of the site, named by its code ("zh-hans")."""
    return create_model(
        title,
        __config__=ConfigDict(
            title=title, json_schema_extra={"description": description}, populate_by_name=True
        ),
        **{
            code.replace("-", "_"): (value, Field(alias=code, description=field_description % name))
            for code, name in settings.LANGUAGES
        },
    )


Translated = by_language(
    "Translated",
    "A translated text in every language of the site, keyed by language code; null where "
    "that language has no text (never a copy of another).",
    str | None,
    "%s text.",
)
Pages = by_language("Pages", "The object's web page in each language.", str, "Absolute URL, %s.")
# A text that may be blank, given as null when it is.
Blank = Annotated[str | None, BeforeValidator(lambda text: text or None)]


def in_languages(field):
    """A resolver of the translated ``field``: ``{language code: text or None}`` from
    each language's own column (``name_en``, ``name_zh_hans``), never another's text."""
    return staticmethod(
        lambda obj: {
            code: getattr(obj, build_localized_fieldname(field, code)) or None
            for code, _name in settings.LANGUAGES
        }
    )


def api_link(name, **paths):
    """A resolver of the URL of the API endpoint ``name``, each URL argument read from
    the object at a dotted path (``conference="conference.slug"``)."""
    getters = {key: attrgetter(path) for key, path in paths.items()}

    def resolve(obj, context):
        return api_url(context["request"], name, **{k: get(obj) for k, get in getters.items()})

    return staticmethod(resolve)


def web_pages(obj, context):
    """A resolver of the absolute URL of ``obj``'s web page in every language."""
    pages = {}
    for code, _name in settings.LANGUAGES:
        with translation.override(code):
            pages[code] = absolute_url(obj.get_absolute_url(), context["request"])
    return pages


# The base of the schemas of translated objects: a translated field is read in every
# language by its name, whichever the schema (an author's name is not translated).
class Read(Schema):
    resolve_name = in_languages("name")
    resolve_name_plural = in_languages("name_plural")
    resolve_title = in_languages("title")
    resolve_abstract = in_languages("abstract")
    resolve_summary = in_languages("summary")
    resolve_description = in_languages("description")
    resolve_city = in_languages("city")
    resolve_proceedings = in_languages("proceedings")
    resolve_html = staticmethod(web_pages)


class Error(Schema):
    """A refused request: what was wrong."""

    detail: str = Field(description="What was wrong, naming the parameter when one was.")


class ParameterError(Schema):
    """One refused parameter."""

    parameter: str = Field(description="The parameter's name, e.g. year.")
    where: str = Field(description="query or path.")
    message: str


class ValidationErrors(Schema):
    """Parameters that could not be read (422)."""

    detail: str
    errors: list[ParameterError]


class Throttled(Schema):
    """Too many requests from one address (429); Retry-After says when to try again."""

    detail: str
    retry_after: int = Field(description="Seconds to wait before the next request.")


class Link(Schema):
    kind: str = Field(description="pmlr, proceedings, openreview, arxiv, doi, code, ...")
    url: str


class VenueRef(Read):
    slug: str
    acronym: str
    url: str = Field(description="This venue in the API.")

    resolve_url = api_link("venue", slug="slug")


class ConferenceRef(Read):
    slug: str
    year: int
    name: Translated
    venue: str = Field(validation_alias="venue.slug", description="The venue's slug.")
    url: str = Field(description="This conference in the API.")

    resolve_url = api_link("conference", slug="slug")


class LevelRef(Read):
    slug: str
    name: Translated
    position: int = Field(description="Rank within the award; the lowest is the top level.")


class Level(LevelRef):
    name_plural: Translated = Field(description="The level's name for two papers or more.")


# Read from any edition (an Award).
class SeriesRef(Schema):
    venue: str = Field(validation_alias="conference.venue.slug", description="The venue's slug.")
    slug: str = Field(description="The award's slug, the same at every edition.")
    url: str = Field(description="This award series in the API.")

    resolve_url = api_link("award-series", venue="conference.venue.slug", slug="slug")


class AwardRef(Read):
    conference: str = Field(
        validation_alias="conference.slug",
        description="The slug of the conference that gives the award.",
    )
    year: int = Field(validation_alias="conference.year")
    slug: str
    name: Translated
    url: str = Field(description="This award in the API.")

    resolve_url = api_link("award", conference="conference.slug", slug="slug")


class InstitutionRef(Read):
    slug: str
    name: Translated
    url: str = Field(description="This institution in the API.")

    resolve_url = api_link("institution", slug="slug")


class AuthorRef(Schema):
    slug: str
    name: str = Field(description="The name as the person publishes it.")
    given_name: Blank = Field(
        description="Given name(s), as citations abbreviate them; null for a name cited "
        "whole (one word, a team), which is then all family_name."
    )
    family_name: str = Field(
        description="The name citations and the author index sort by, particles included "
        "(e.g. Fischer Abaigar, van der Schaar)."
    )
    orcid: Blank
    url: str = Field(description="This author in the API.")

    resolve_url = api_link("author", slug="slug")


class Authorship(Schema):
    position: int = Field(description="1 for the first author.")
    author: AuthorRef
    affiliations: list[InstitutionRef] = Field(description="In the order the paper lists them.")


class PaperAward(Schema):
    """Where and how a paper was awarded."""

    award: AwardRef
    level: LevelRef
    position: int = Field(description="Order within the level, lowest first.")


class PaperRef(Read):
    slug: str
    title: Translated
    conference: str = Field(
        validation_alias="conference.slug",
        description="The slug of the conference that published it.",
    )
    url: str = Field(description="This paper in the API.")

    resolve_url = api_link("paper", slug="slug")


class Paper(PaperRef):
    abstract: Translated
    summary: Translated
    published_at: ConferenceRef = Field(
        validation_alias="conference", description="The conference whose proceedings hold it."
    )
    pages: Blank = Field(description="Pages in the proceedings, e.g. 448-456.")
    authors: list[Authorship] = Field(
        validation_alias="authorships", description="In author order."
    )
    links: list[Link]
    awards: list[PaperAward] = Field(
        validation_alias="award_entries", description="Published awards, newest first."
    )
    html: Pages

    @staticmethod
    def resolve_links(paper):
        return sorted(paper.links.all(), key=lambda link: link.sort_key)


class Entry(Schema):
    """One paper's place in an award."""

    paper: PaperRef
    authors: list[AuthorRef] = Field(description="In author order.")
    level: str = Field(
        validation_alias="level.slug", description="The slug of one of the award's levels."
    )
    position: int = Field(description="Order within the level, lowest first.")

    @staticmethod
    def resolve_authors(entry):
        return [authorship.author for authorship in entry.paper.ordered_authorships]


class Award(Read):
    conference: ConferenceRef
    slug: str
    name: Translated
    description: Translated
    position: int = Field(description="Order among the conference's awards, lowest first.")
    kind: str | None = Field(
        description="The slug of the award's kind (test-of-time, best-paper, ...), the same "
        "at every venue; null when it has none. The kind's page lists it at every venue."
    )
    announced_on: date | None = Field(
        description="The day the award was announced; null when no source gives it."
    )
    series: SeriesRef
    levels: list[Level] = Field(description="The top level first.")
    entries: list[Entry] = Field(description="By level (the top level first), then position.")
    url: str = Field(description="This award in the API.")
    html: Pages

    resolve_series = staticmethod(lambda award: award)
    resolve_kind = staticmethod(lambda award: award.kind.slug if award.kind_id else None)
    resolve_url = api_link("award", conference="conference.slug", slug="slug")


# Read from the newest edition (an Award), its ``editions`` (newest first) set.
class AwardSeries(Read):
    venue: VenueRef = Field(validation_alias="conference.venue")
    slug: str
    name: Translated = Field(description="The name of the newest edition.")
    years: list[int] = Field(description="Years of the published editions, newest first.")
    url: str = Field(description="Every edition, in the API.")

    resolve_url = api_link("award-series", venue="conference.venue.slug", slug="slug")

    @staticmethod
    def resolve_years(latest):
        return [edition.conference.year for edition in latest.editions]


class AwardSeriesDetail(AwardSeries):
    editions: list[Award] = Field(description="Newest first.")


class Conference(ConferenceRef):
    name: Translated
    description: Translated
    city: Translated
    country: Translated
    proceedings: Translated
    start_date: date | None
    end_date: date | None
    website: Blank
    awards: list[AwardRef] = Field(
        validation_alias="listed_awards", description="Published awards, in the conference's order."
    )
    downloads: "Downloads"
    html: Pages

    resolve_country = in_languages("country")

    @staticmethod
    def resolve_downloads(conference, context):
        return downloads(context["request"], conference)


class Venue(VenueRef):
    name: Translated
    website: Blank
    conferences: list[ConferenceRef] = Field(description="Published editions, newest first.")
    html: Pages


class Institution(InstitutionRef):
    country: Blank
    website: Blank


class AuthorAward(PaperAward):
    paper: str = Field(validation_alias="paper.slug", description="The slug of the awarded paper.")


class Author(AuthorRef):
    name_suffix: Blank = Field(description="Jr., Sr., II, III and the like.")
    native_name: Blank = Field(
        description="The name in the person's own script, when it is not the name."
    )
    other_names: list[str] = Field(
        validation_alias="other_name_list", description="Other spellings seen in publications."
    )
    homepage: Blank


# Read from an Author, its ``published_authorships`` (newest first) set.
class AuthorDetail(Author):
    papers: list[PaperRef] = Field(description="Published papers, newest first.")
    awards: list[AuthorAward] = Field(description="Awards of those papers, newest first.")
    html: Pages

    resolve_html = staticmethod(web_pages)

    @staticmethod
    def resolve_papers(author):
        return [authorship.paper for authorship in author.published_authorships]

    @staticmethod
    def resolve_awards(author):
        return [
            entry
            for authorship in author.published_authorships
            for entry in authorship.paper.award_entries.all()
        ]


class Downloads(Schema):
    """Whole downloads of a conference or of the site."""

    csv: str = Field(description="A ZIP archive of CSV tables with datapackage.json.")
    compact: str = Field(
        description="A ZIP archive in the compact format import_conference reads (one "
        "YAML file per conference, its images and a README.txt), to move the published "
        "data to another installation."
    )


Conference.model_rebuild()


class Collections(Schema):
    model_config = ConfigDict(populate_by_name=True)

    venues: str
    conferences: str
    awards: str
    award_series_list: str = Field(alias="award-series")
    papers: str
    authors: str
    institutions: str


class Index(Schema):
    """What the API offers."""

    version: str
    licence: str | None = Field(description="The data's licence; null when none is stated.")
    openapi: str = Field(description="This API's OpenAPI schema.")
    docs: str = Field(description="Its interactive documentation.")
    collections: Collections = Field(description="The URL of every collection.")
    downloads: Downloads = Field(description="Whole downloads of the site.")


def page_of(item):
    """The schema of one page of ``item``s, with the links to its neighbours."""
    return create_model(
        f"{item.__name__}Page",
        __base__=Schema,
        count=(int, Field(description="Items on every page together.")),
        page=(int, Field(description="This page's number, from 1.")),
        pages=(int, Field(description="How many pages there are (at least 1).")),
        next=(str | None, Field(description="The next page's URL, null on the last.")),
        previous=(str | None, Field(description="The previous page's URL, null on the first.")),
        items=(list[item], ...),
    )
