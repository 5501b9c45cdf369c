"""The awards domain, imported from here (``from catalogue.models import Paper``). The
modules import one another in layers: ``base`` <- ``querysets`` <- ``papers`` <-
``people``; ``conferences`` and ``bookkeeping`` alone."""

from catalogue.models.base import (
    PublishedQuerySet,
    Status,
    count_of,
    natural_key_lookups,
    unlisted_paper_fields,
)
from catalogue.models.bookkeeping import ContentGeneration, ImportRecord
from catalogue.models.conferences import (
    Award,
    AwardEntry,
    AwardKind,
    AwardLevel,
    Conference,
    Venue,
)
from catalogue.models.papers import KIND_ORDER, Affiliation, Authorship, Paper, PaperLink
from catalogue.models.people import Author, Institution
from catalogue.models.querysets import NEWEST_FIRST, SEARCH_MAX_WORDS

__all__ = [
    "KIND_ORDER",
    "NEWEST_FIRST",
    "SEARCH_MAX_WORDS",
    "Affiliation",
    "Author",
    "Authorship",
    "Award",
    "AwardEntry",
    "AwardKind",
    "AwardLevel",
    "Conference",
    "ContentGeneration",
    "ImportRecord",
    "Institution",
    "Paper",
    "PaperLink",
    "PublishedQuerySet",
    "Status",
    "Venue",
    "count_of",
    "natural_key_lookups",
    "unlisted_paper_fields",
]
