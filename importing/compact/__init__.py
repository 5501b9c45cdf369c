"""The compact conference file: a conference written around its papers (``docs/compact-format.md``).

A fixture names every object by its natural key: one ``papers.author`` per person and
one ``papers.authorship`` per person on a paper, 140 objects for a conference of seven
papers. The compact file writes the same conference the way a programme lists it: the
conference (with its venue inline), its awards with their levels and the papers each
level went to, and each paper with its authors in order (name, ORCID, affiliations)
and its links as a map from kind to URL. Slugs may be left out and are derived
(:func:`catalogue.slugs.slug_from`, any script transliterated); papers may come from a
BibTeX file (``bibtex: papers.bib``), named by citation key.

It is not a second importer. :func:`objects_from` turns a parsed compact document into
the fixture object list that :mod:`importing` reads, checks, plans and applies
(one transaction, a dry run, editors' changes kept); :func:`relocate` renames the
engine's problems by the compact file's places (``papers[3].authors[2].orcid``).
:func:`from_objects` and :func:`render` go the other way, for ``export_conference
--format compact``.

People and institutions are matched to the database (and to one another in the file)
by ORCID, then slug, then exact name. A name that matches someone only loosely (the
same when accents, case and spacing are folded, or the same derived slug) becomes a
new person or institution with a free slug, and a note says it may be a duplicate:
nothing is merged on a guess.

Modules: ``reader`` (a document -> fixture objects, problems -> places) and ``writer``
(exported fixture objects -> a document -> text).
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
