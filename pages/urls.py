from django.urls import path, register_converter

from opendata import downloads as opendata
from pages import feeds, views
from pages.paging import paged


class CitationFormatConverter:
    """The citation formats of pages/citations.py: "bib", "ris" or "json"."""

    regex = "bib|ris|json"

    def to_python(self, value):
        return value

    def to_url(self, value):
        return value


class AuthorInitialConverter:
    """A group of the author index (views.AuthorListView): a letter, or the digit that
    stands for every digit."""

    regex = f"[{views.AUTHOR_INITIALS}{views.DIGITS}]"

    def to_python(self, value):
        return value

    def to_url(self, value):
        return value


register_converter(CitationFormatConverter, "citation_format")
register_converter(AuthorInitialConverter, "author_initial")

app_name = "papers"

urlpatterns = [
    path("", views.HomeView.as_view(), name="home"),
    path("search/", views.SearchView.as_view(), name="search"),
    path("conferences/", views.ConferenceListView.as_view(), name="conference-list"),
    path("venues/", views.VenueListView.as_view(), name="venue-list"),
    path("awards/", views.AwardListView.as_view(), name="award-list"),
    # Lists of more than one page: page N at "page/<N>/" after the list's own address,
    # named "<name>-page" (pages/paging.py).
    *paged("authors/", views.AuthorListView.as_view(), "author-list"),
    *paged(
        "authors/letter/<author_initial:letter>/",
        views.AuthorListView.as_view(),
        "author-list-letter",
    ),
    path("feeds/awards.atom", feeds.LatestAwardsFeed(), name="awards-feed"),
    *paged("conferences/<slug:slug>/", views.ConferenceDetailView.as_view(), "conference-detail"),
    path(
        "conferences/<slug:slug>/cite.<citation_format:fmt>",
        views.conference_citation,
        name="conference-citation",
    ),
    path(
        "conferences/<slug:conference_slug>/awards/<slug:slug>/",
        views.AwardDetailView.as_view(),
        name="award-detail",
    ),
    path(
        "conferences/<slug:conference_slug>/awards/<slug:slug>/cite.<citation_format:fmt>",
        views.award_citation,
        name="award-citation",
    ),
    path(
        "venues/<slug:venue_slug>/awards/<slug:slug>/",
        views.AwardSeriesView.as_view(),
        name="award-series",
    ),
    path("venues/<slug:slug>/", views.VenueDetailView.as_view(), name="venue-detail"),
    path("papers/<slug:slug>/", views.PaperDetailView.as_view(), name="paper-detail"),
    path(
        "papers/<slug:slug>/cite.<citation_format:fmt>",
        views.paper_citation,
        name="paper-citation",
    ),
    *paged("authors/<slug:slug>/", views.AuthorDetailView.as_view(), "author-detail"),
    path("open-data/", opendata.OpenDataView.as_view(), name="open-data"),
]
