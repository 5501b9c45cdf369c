from django.urls import path, register_converter
from django.urls.converters import StringConverter

from opendata import api
from opendata import downloads as opendata
from pages import citations, feeds, views
from pages.distill import (
    author_letter_pages,
    author_letters,
    author_list_pages,
    author_pages,
    authors,
    award_kinds,
    award_list_pages,
    award_series,
    awards,
    conference_pages,
    conferences,
    distill,
    distill_citations,
    distill_paged,
    papers,
    public,
    venues,
)
from pages.paging import paged


class CitationFormatConverter(StringConverter):
    """A citation format of pages/citations.py: "bib", "ris" or "json"."""

    regex = "|".join(citations.FORMATS)


class AuthorInitialConverter(StringConverter):
    """A group of the author index (views.AuthorListView): a letter, or "0" for digits."""

    regex = f"[{views.AUTHOR_INITIALS}{views.DIGITS}]"


register_converter(CitationFormatConverter, "citation_format")
register_converter(AuthorInitialConverter, "author_initial")

app_name = "papers"

# Each route is marked public (the page cache may store it) or published too, with the
# function listing its pages (pages/distill.py); the search and its results are not files.
urlpatterns = [
    distill(path("", views.HomeView.as_view(), name="home")),
    public(path("search/", views.SearchView.as_view(), name="search")),
    distill(path("conferences/", views.ConferenceListView.as_view(), name="conference-list")),
    distill(path("venues/", views.VenueListView.as_view(), name="venue-list")),
    distill(
        path("awards/kinds/<slug:slug>/", views.AwardKindView.as_view(), name="award-kind"),
        award_kinds,
    ),
    # Lists of more than one page: page N at "page/<N>/" after the list's own address,
    # named "<name>-page" (pages/paging.py).
    *distill_paged(
        paged("awards/", views.AwardListView.as_view(), "award-list"), None, award_list_pages
    ),
    *distill_paged(
        paged("authors/", views.AuthorListView.as_view(), "author-list"), None, author_list_pages
    ),
    *distill_paged(
        paged(
            "authors/letter/<author_initial:letter>/",
            views.AuthorListView.as_view(),
            "author-list-letter",
        ),
        author_letters,
        author_letter_pages,
    ),
    distill(path("feeds/awards.atom", feeds.LatestAwardsFeed(), name="awards-feed")),
    *distill_paged(
        paged(
            "conferences/<slug:slug>/", views.ConferenceDetailView.as_view(), "conference-detail"
        ),
        conferences,
        conference_pages,
    ),
    distill_citations(
        "conferences/<slug:slug>/", views.conference_citation, "conference-citation", conferences
    ),
    distill(
        path(
            "conferences/<slug:conference_slug>/awards/<slug:slug>/",
            views.AwardDetailView.as_view(),
            name="award-detail",
        ),
        awards,
    ),
    distill_citations(
        "conferences/<slug:conference_slug>/awards/<slug:slug>/",
        views.award_citation,
        "award-citation",
        awards,
    ),
    distill(
        path(
            "venues/<slug:venue_slug>/awards/<slug:slug>/",
            views.AwardSeriesView.as_view(),
            name="award-series",
        ),
        award_series,
    ),
    distill(
        path("venues/<slug:slug>/", views.VenueDetailView.as_view(), name="venue-detail"), venues
    ),
    distill(
        path("papers/<slug:slug>/", views.PaperDetailView.as_view(), name="paper-detail"), papers
    ),
    distill_citations("papers/<slug:slug>/", views.paper_citation, "paper-citation", papers),
    *distill_paged(
        paged("authors/<slug:slug>/", views.AuthorDetailView.as_view(), "author-detail"),
        authors,
        author_pages,
    ),
    distill(path("open-data/", opendata.OpenDataView.as_view(), name="open-data")),
    distill(path("open-data/api/", api.docs_page, name="api-docs")),
]
