"""The shapes of the API's answers (pydantic models through django-ninja's ``Schema``).

These models are the contract: django-ninja validates every answer against them and
writes the OpenAPI schema (``/api/v1/openapi.json``) from them, so what the schema
says is what is sent. Objects are named by their language-neutral keys (slugs, years);
each translated field is a :data:`Translated` object holding every language of
``settings.LANGUAGES``, an untranslated one as ``null``.
"""

from datetime import date

from django.conf import settings
from ninja import Schema
from pydantic import ConfigDict, Field, create_model


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


class VenueRef(Schema):
    slug: str
    acronym: str
    url: str = Field(description="This venue in the API.")


class ConferenceRef(Schema):
    slug: str
    year: int
    name: Translated
    venue: str = Field(description="The venue's slug.")
    url: str = Field(description="This conference in the API.")


class LevelRef(Schema):
    slug: str
    name: Translated
    position: int = Field(description="Rank within the award; the lowest is the top level.")


class Level(LevelRef):
    name_plural: Translated = Field(description="The level's name for two papers or more.")


class SeriesRef(Schema):
    venue: str = Field(description="The venue's slug.")
    slug: str = Field(description="The award's slug, the same at every edition.")
    url: str = Field(description="This award series in the API.")


class AwardRef(Schema):
    conference: str = Field(description="The slug of the conference that gives the award.")
    year: int
    slug: str
    name: Translated
    url: str = Field(description="This award in the API.")


class InstitutionRef(Schema):
    slug: str
    name: Translated
    url: str = Field(description="This institution in the API.")


class AuthorRef(Schema):
    slug: str
    name: str
    orcid: str | None
    url: str = Field(description="This author in the API.")


class Authorship(Schema):
    position: int = Field(description="1 for the first author.")
    author: AuthorRef
    affiliations: list[InstitutionRef] = Field(description="In the order the paper lists them.")


class PaperAward(Schema):
    """Where and how a paper was awarded."""

    award: AwardRef
    level: LevelRef
    position: int = Field(description="Order within the level, lowest first.")


class PaperRef(Schema):
    slug: str
    title: Translated
    conference: str = Field(description="The slug of the conference that published it.")
    url: str = Field(description="This paper in the API.")


class Paper(PaperRef):
    abstract: Translated
    summary: Translated
    published_at: ConferenceRef = Field(description="The conference whose proceedings hold it.")
    pages: str | None = Field(description="Pages in the proceedings, e.g. 448-456.")
    authors: list[Authorship] = Field(description="In author order.")
    links: list[Link]
    awards: list[PaperAward] = Field(description="Published awards, newest first.")
    html: Pages


class Entry(Schema):
    """One paper's place in an award."""

    paper: PaperRef
    authors: list[AuthorRef] = Field(description="In author order.")
    level: str = Field(description="The slug of one of the award's levels.")
    position: int = Field(description="Order within the level, lowest first.")


class Award(Schema):
    conference: ConferenceRef
    slug: str
    name: Translated
    description: Translated
    position: int = Field(description="Order among the conference's awards, lowest first.")
    announced_on: date | None = Field(
        description="The day the award was announced; null when no source gives it."
    )
    series: SeriesRef
    levels: list[Level] = Field(description="The top level first.")
    entries: list[Entry] = Field(description="By level (the top level first), then position.")
    url: str = Field(description="This award in the API.")
    html: Pages


class AwardSeries(Schema):
    venue: VenueRef
    slug: str
    name: Translated = Field(description="The name of the newest edition.")
    years: list[int] = Field(description="Years of the published editions, newest first.")
    url: str = Field(description="Every edition, in the API.")


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
    website: str | None
    awards: list[AwardRef] = Field(description="Published awards, in the conference's order.")
    downloads: "Downloads"
    html: Pages


class Venue(VenueRef):
    name: Translated
    website: str | None
    conferences: list[ConferenceRef] = Field(description="Published editions, newest first.")
    html: Pages


class Institution(InstitutionRef):
    country: str | None
    website: str | None


class AuthorAward(PaperAward):
    paper: str = Field(description="The slug of the awarded paper.")


class Author(AuthorRef):
    other_names: list[str] = Field(description="Other spellings seen in publications.")
    homepage: str | None


class AuthorDetail(Author):
    papers: list[PaperRef] = Field(description="Published papers, newest first.")
    awards: list[AuthorAward] = Field(description="Awards of those papers, newest first.")
    html: Pages


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
