"""The compact conference file: a conference written around its papers (``docs/compact-format.md``).

It is not a second importer: :func:`objects_from` turns a parsed compact document into
the fixture objects that :mod:`importing.pipeline` checks, plans and applies, and
:func:`relocate` names the problems found by the compact file's places
(``papers[3].authors[2].orcid``). :func:`from_objects` and :func:`render` go the other
way, for ``export_conference --format compact``. People and institutions are matched by
ORCID, then slug, then exact name; a loose match is only noted, never merged
(``people.py``).
"""

from importing.compact.reader import (
    CompactDocument,
    CompactProblem,
    bibtex_alone_message,
    looks_like_bibtex,
    objects_from,
    relocate,
)
from importing.compact.writer import from_objects, render

__all__ = [
    "CompactDocument",
    "CompactProblem",
    "bibtex_alone_message",
    "from_objects",
    "looks_like_bibtex",
    "objects_from",
    "relocate",
    "render",
]
