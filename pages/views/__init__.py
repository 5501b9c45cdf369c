"""Public pages, by kind (``common``: pagination and previews; ``details``: the page of one
object; ``indexes``; ``search``; ``cite``: citation downloads; ``site``: robots.txt and the
error pages), named from here by the URLconf and settings. Each runs a fixed number of
queries however many papers it lists, and shows only published items (an unpublished or
unknown slug is a 404); editors preview a draft with ``?preview=1`` (``PreviewMixin``)."""

from pages.views.cite import award_citation, conference_citation, paper_citation  # noqa: F401
from pages.views.common import LIST_PAGE_SIZE, PreviewMixin  # noqa: F401
from pages.views.details import (  # noqa: F401
    HOME_CONFERENCES,
    AuthorDetailView,
    AwardDetailView,
    AwardKindView,
    AwardSeriesView,
    ConferenceDetailView,
    HomeView,
    PaperDetailView,
    VenueDetailView,
)
from pages.views.indexes import (  # noqa: F401
    AUTHOR_INITIALS,
    AUTHOR_PAGE_SIZE,
    AWARD_SERIES_PAGE_SIZE,
    DIGITS,
    AuthorListView,
    AwardListView,
    ConferenceListView,
    VenueListView,
)
from pages.views.search import SearchMatches, SearchView  # noqa: F401
from pages.views.site import (  # noqa: F401
    bad_request,
    compact_format_schema,
    csrf_failure,
    page_not_found,
    permission_denied,
    robots_txt,
    server_error,
)
