"""The awards domain: venues, conferences, papers, authors, institutions, awards.

Prose fields are translated by django-modeltranslation (catalogue/translation.py).
The modules import one another in layers: ``base`` <- ``querysets`` <- ``papers`` <-
``people``, and ``conferences`` and ``bookkeeping`` on their own; relations name their
targets as strings. Everything is imported from here (``from catalogue.models import
Paper``).
"""

from catalogue.models.base import (
    PublishedQuerySet,
    Status,
    count_of,
    natural_key_lookups,
    unlisted_paper_fields,
)
from catalogue.models.bookkeeping import ContentGeneration, ContentGenerationQuerySet, ImportRecord
from catalogue.models.conferences import Award, AwardEntry, AwardLevel, Conference, Venue
from catalogue.models.papers import KIND_ORDER, Affiliation, Authorship, Paper, PaperLink
from catalogue.models.people import (
    HAS_PUBLISHED_PAPER_COLUMN,
    Author,
    Institution,
    has_published_paper_rule,
)
from catalogue.models.querysets import (
    NEWEST_FIRST,
    SEARCH_MAX_WORDS,
    authorships_with_affiliations,
)

__all__ = [
    "HAS_PUBLISHED_PAPER_COLUMN",
    "KIND_ORDER",
    "NEWEST_FIRST",
    "SEARCH_MAX_WORDS",
    "Affiliation",
    "Author",
    "Authorship",
    "Award",
    "AwardEntry",
    "AwardLevel",
    "Conference",
    "ContentGeneration",
    "ContentGenerationQuerySet",
    "ImportRecord",
    "Institution",
    "Paper",
    "PaperLink",
    "PublishedQuerySet",
    "Status",
    "Venue",
    "authorships_with_affiliations",
    "count_of",
    "has_published_paper_rule",
    "natural_key_lookups",
    "unlisted_paper_fields",
]
