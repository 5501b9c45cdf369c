"""Which published pages a re-publish must render again (issue 12: an incremental
``publish_site``).

Rendering all ~40,000 pages of the 5,000-paper data set to compare their bytes takes
minutes; a re-publish after one edit has 10 s. So a publish keeps a :func:`snapshot` of
the content next to its output, and the next one compares it with the database's:

- :func:`snapshot` reads every published row of the models public pages show
  (``CONTENT_MODELS``) as values, and keeps per row a hash of its columns and the few
  columns the rules below follow (foreign keys and slugs). No signal is needed, so it
  sees admin saves, imports, ``QuerySet.update()`` and raw SQL alike. With it goes a
  :func:`fingerprint` of what renders the pages (code, templates, catalogues, static
  files, package versions, the settings pages print): when that differs, everything is
  rendered again.
- :func:`changed` says which rows were added, changed and deleted.
- ``publishing.affected.affected()`` turns them into the pages to render again
  (``Affected``), by the dependency rules of its docstring, read from the views and
  templates. A deleted row is followed through its *old* keys (an authorship removed
  re-renders the author it named), a changed one through its old and new keys.

The publisher (``manage.py publish_site``) uses it so::

    state = directory / publish_changes.SNAPSHOT
    new = publish_changes.snapshot()            # before rendering: see below
    pages = affected.affected(publish_changes.read(state), new)
    for each page it publishes (route name, URL kwargs):
        render it if pages.covers(name, kwargs) or its file is missing; else keep it
    remove the files of pages no longer published
    publish_changes.write(new, state)           # only once the run succeeded

The snapshot is taken before rendering, so an edit saved during the run is seen by the
next one (rendered twice at worst, never missed); it is written only after a run that
succeeded, so a failed run's changes are rendered again by the next.
"""

import hashlib
import json
import os
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from django.db.models import QuerySet

from awardsite.release import fingerprint
from catalogue.models import (
    Affiliation,
    Author,
    Authorship,
    Award,
    AwardEntry,
    AwardLevel,
    Conference,
    Institution,
    Paper,
    PaperLink,
    Venue,
    published_q,
)
from importing.compact.writer import name_stands_alone, other_slugs

# The snapshot's file in the publish folder, and the version of its format: a snapshot
# of another format is treated as missing (everything is rendered).
SNAPSHOT = ".publish-snapshot.json"
FORMAT = 2

# Each model a public page shows, with the columns the dependency rules follow (kept as
# they are, besides the hash of all columns). Any other model is not shown by a page
# (users, import records, history, the cache's content generation). Only the rows a
# published page shows are read (``published_rows``).
CONTENT_MODELS = {
    Venue: ("slug",),
    Conference: ("venue_id", "slug"),
    Award: ("conference_id", "slug"),
    AwardLevel: ("award_id",),
    AwardEntry: ("award_id", "paper_id", "level_id"),
    Paper: ("conference_id", "slug"),
    PaperLink: ("paper_id",),
    Authorship: ("paper_id", "author_id"),
    Affiliation: ("authorship_id", "institution_id"),
    Institution: (),
    Author: ("slug",),
}

# Columns left out of the hash: derived from other columns (so they change only with
# them) and long (the search text is most of a paper row's bytes). A paper's matched
# text (its own search text with its authors' and institutions') changes with rows of
# other tables, whose own hashes already name the pages that show them; so does whether
# an author has a published paper (true in every published row: the published rows are
# those where it is).
UNHASHED = {"search_text", "match_text", "has_published_paper"}


# The models a compact conference file (the open-data archives) names by their name
# alone when no other row of the model has it, with their name's column
# (importing/compact/writer.py ``name_stands_alone``): whether a file writes an
# author's slug depends on every author of the database, a draft's too, so a homonym
# added anywhere changes the files of the conferences of the other one (``shared``).
NAMED_ALONE = {Author: "name", Institution: "name_en"}


def published_rows(model):
    """The rows of ``model`` that published pages show, by the models' own vocabulary
    (``published()``, ``published_q``): a draft's rows are left out, so editing a draft or
    importing a draft conference changes no snapshot, and one that is published or
    returned to draft shows as rows added or deleted. Without modeltranslation's
    rewriting of field names to the active language (``rewrite(False)``)."""
    if model in (AwardLevel, PaperLink, Authorship, Affiliation):
        prefix = {
            AwardLevel: "award__",
            PaperLink: "paper__",
            Authorship: "paper__",
            Affiliation: "authorship__paper__",
        }[model]
        rows = QuerySet(model).filter(published_q(prefix))
    else:
        rows = model.objects.published()
    if hasattr(rows, "rewrite"):
        rows = rows.rewrite(False)
    return rows.order_by()


def model_label(model):
    """The key of ``model``'s rows in a snapshot: its label, lower case (``papers.paper``)."""
    return model._meta.label_lower


def _hash(values):
    return hashlib.blake2b(repr(values).encode(), digest_size=8).hexdigest()


# --- The snapshot ----------------------------------------------------------------------


def snapshot(current_fingerprint=None):
    """The content as the publisher keeps it: ``{"format", "fingerprint", "rows",
    "shared"}``, where ``rows`` maps each model's label (``"papers.paper"``) to ``{pk:
    [hash, *refs]}``, ``refs`` being the row's values of the columns ``CONTENT_MODELS``
    names and ``hash`` 16 hex digits of a BLAKE2b hash of all its columns but
    ``UNHASHED``; ``shared`` is :func:`shared_names`'.

    Reads the published rows of ``CONTENT_MODELS`` (``published_rows``, one query each)
    as plain values. Only what the published site shows is in it (as slugs, keys and
    hashes), so it may lie in the published folder. For the 5,000-paper data set
    (67,000 rows): 0.46 s of CPU (1.3 s on a 2-core machine at load 9) and 2.5 MB of
    JSON; reading the last one, taking this one and comparing them, 0.6 s of CPU (1.9 s
    there); figures of ``benchmarks/publish_changes.py``. ``current_fingerprint``:
    :func:`fingerprint`'s answer when the caller has it already (it reads every source
    file: 0.25 s).
    """
    rows = {}
    for model, refs in CONTENT_MODELS.items():
        names = [f.attname for f in model._meta.concrete_fields if f.attname not in UNHASHED]
        positions = [names.index(ref) for ref in refs]
        table = {}
        for values in published_rows(model).values_list(*names):
            table[values[0]] = [_hash(values), *(values[p] for p in positions)]
        rows[model_label(model)] = table
    return {
        "format": FORMAT,
        "fingerprint": current_fingerprint or fingerprint(),
        "rows": rows,
        "shared": shared_names(),
    }


def shared_names():
    """``{label: [pk, ...]}``, for each model of ``NAMED_ALONE``, the published rows a
    compact file names with their slug because their name does not stand for them alone
    (another row, maybe a draft's, has it; an institution's name is another's slug):
    ``name_stands_alone``, the writer's own rule, over every row of the model. Only
    keys of published rows, ascending: nothing of a draft is told (but that a published
    name is shared). Two queries per model (15,000 authors: about 30 ms)."""
    shared = {}
    for model, name_field in NAMED_ALONE.items():
        counts = Counter(model.objects.values_list(name_field, flat=True).order_by())
        slugs = other_slugs(model)
        shared[model_label(model)] = sorted(
            pk
            for pk, slug, name in published_rows(model).values_list("pk", "slug", name_field)
            if not name_stands_alone(name, slug, counts, slugs)
        )
    return shared


def write(content, path):
    """Write the snapshot ``content`` (as :func:`snapshot` gives it) to ``path`` as JSON,
    whole or not at all (a temporary file renamed over it). Each table is stored as two
    lists, its pks and their rows, which JSON reads back faster than an object keyed
    by pk (whose keys would come back as strings)."""
    path = Path(path)
    stored = {
        **content,
        "rows": {
            label: {"pks": list(table), "rows": list(table.values())}
            for label, table in content["rows"].items()
        },
    }
    temporary = path.with_name(path.name + ".tmp")
    temporary.write_text(json.dumps(stored, separators=(",", ":")), encoding="utf-8")
    os.replace(temporary, path)


def read(path):
    """The snapshot stored at ``path`` with its keys as :func:`snapshot` gives them, or
    None when there is none, it cannot be read or it is of another format (then the
    publisher renders everything, which is always right)."""
    try:
        content = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(content, dict) or content.get("format") != FORMAT:
        return None
    if not isinstance(content.get("shared"), dict):
        return None
    try:
        content["rows"] = {
            label: dict(zip(table["pks"], table["rows"], strict=True))
            for label, table in content["rows"].items()
        }
    except (AttributeError, KeyError, TypeError, ValueError):
        return None
    return content


def collected_already(previous, current):
    """Whether ``collectstatic`` may be skipped: the last publish (its snapshot
    ``previous``, as :func:`read` gives it, or None) collected the static files, and what
    turns sources into collected files is as it was then: its fingerprint is
    ``current``, :func:`fingerprint`'s of now (which covers
    ``static/``, the installed packages, the project's code and collectstatic's own
    manifest in ``STATIC_ROOT``; a missing manifest changes it). Collecting again would
    write the same files."""
    return bool(
        previous is not None
        and previous.get("collected")
        and previous.get("fingerprint") == current
    )


# --- What changed ----------------------------------------------------------------------


@dataclass
class Change:
    """One model's rows that differ between two snapshots: pks ``added``, ``changed``
    (their hash differs) and ``deleted``."""

    added: set = field(default_factory=set)
    changed: set = field(default_factory=set)
    deleted: set = field(default_factory=set)

    def __bool__(self):
        return bool(self.added or self.changed or self.deleted)

    @property
    def all(self):
        return self.added | self.changed | self.deleted


def changed(old, new):
    """``{model label: Change}`` of the models whose rows differ between the snapshots
    ``old`` and ``new`` (both as :func:`snapshot` gives them); models without a
    difference are left out. The rows' old and new keys are in the snapshots."""
    changes = {}
    for label, table in new["rows"].items():
        before = old["rows"].get(label, {})
        change = Change(
            added=table.keys() - before.keys(),
            changed={pk for pk, row in table.items() if pk in before and before[pk][0] != row[0]},
            deleted=before.keys() - table.keys(),
        )
        if change:
            changes[label] = change
    return changes
