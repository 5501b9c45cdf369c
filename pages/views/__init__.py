"""Public pages. Each view's queryset comes from the model's QuerySet vocabulary,
so every page runs a fixed number of queries however many papers it lists, and
shows only published items (an unpublished or unknown slug is a 404).

Editors preview a draft by adding ``?preview=1`` to its address (the admin's "View on
site" does): see ``PreviewMixin``.

The views live by kind in the modules of this package (``common``: pagination and
previews; ``details``: the page of one object; ``indexes``; ``search``; ``cite``: citation
downloads; ``site``: robots.txt and the error pages); the URLconf and settings name them
from here."""

from pages.views.cite import (  # noqa: F401
    CITATION_BATCH,
    award_citation,
    award_citation_order,
    citation_batches,
    citation_text,
    conference_citation,
    conference_citation_order,
    paper_citation,
)
from pages.views.common import (  # noqa: F401
    LIST_PAGE_SIZE,
    PreviewMixin,
    mark_preview,
    paginate,
    previewed_entries,
    previewing,
    shown_entries,
)
from pages.views.details import (  # noqa: F401
    COAUTHORS_SHOWN,
    HOME_CONFERENCES,
    AuthorDetailView,
    AwardDetailView,
    AwardSeriesView,
    ConferenceDetailView,
    HomeView,
    PaperDetailView,
    VenueDetailView,
    author_page_contexts,
)
from pages.views.indexes import (  # noqa: F401
    AUTHOR_INITIALS,
    AUTHOR_PAGE_SIZE,
    AWARD_INDEX_COLUMNS,
    DIGITS,
    LETTERS_IN_USE,
    NAME_COLUMNS,
    AuthorListView,
    AwardListView,
    ConferenceListView,
    VenueListView,
    initial_range,
    letters_in_use,
)
from pages.views.search import (  # noqa: F401
    MatchKeys,
    SearchMatches,
    SearchView,
    planned_for_its_values,
)
from pages.views.site import (  # noqa: F401
    API_PREFIX,
    bad_request,
    csrf_failure,
    page_not_found,
    permission_denied,
    robots_txt,
    server_error,
)
