"""What changed since the last publish (an incremental ``publish_site``).

Rendering the 5,000-paper data set's pages to compare their bytes takes minutes; a
re-publish after one edit has 10 s. So a publish keeps a :func:`snapshot` of the content
next to its output: per published row of the models pages show, a hash of its columns and
the foreign keys and slugs the rules follow, with the fingerprint of the code
(``awardsite.release.fingerprint``: when it differs, everything is rendered again). No
signal is needed, so it sees admin saves, imports, ``QuerySet.update()`` and raw SQL
alike. :func:`changed` says which rows were added, changed and deleted;
``publishing.affected.affected()`` turns that into the pages to render again.

The snapshot is taken before rendering (an edit saved during the run is seen by the next:
rendered twice at worst, never missed) and written only after a run that succeeded (a
failed run's changes are rendered again by the next).
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
    PublishedQuerySet,
    Venue,
)
from importing.compact.writer import name_stands_alone, other_slugs

# The snapshot's file in the publish folder, and its format's version (a snapshot of
# another format is treated as missing: everything is rendered).
SNAPSHOT = ".publish-snapshot.json"
FORMAT = 2

# Each model a public page shows, with the columns the rules of publishing/affected.py
# follow (kept besides the hash of all columns).
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
# The rows of these models are published when their paper (or award) is.
PUBLISHED_THROUGH = {
    AwardLevel: "award__",
    PaperLink: "paper__",
    Authorship: "paper__",
    Affiliation: "authorship__paper__",
}

# Columns left out of the hash: derived from other rows' columns, whose own hashes name
# the pages that show them (and long: the search text is most of a paper row's bytes).
UNHASHED = {"search_text", "match_text", "has_published_paper"}

# The models a compact conference file names by their name alone when no other row, a
# draft's too, has it (importing/compact/writer.py ``name_stands_alone``), with the
# name's column: a homonym added anywhere changes the files of the other's conferences.
NAMED_ALONE = {Author: "name", Institution: "name_en"}


def published_rows(model):
    """The rows of ``model`` that published pages show, by the models' vocabulary
    (``published()``, ``published_condition()``), without modeltranslation's rewriting."""
    if model in PUBLISHED_THROUGH:
        rows = QuerySet(model).filter(
            PublishedQuerySet.published_condition(PUBLISHED_THROUGH[model])
        )
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


def snapshot(current_fingerprint=None):
    """The content as the publisher keeps it: ``{"format", "fingerprint", "rows",
    "shared"}``; ``rows`` maps each model's label to ``{pk: [hash, *refs]}`` (``refs``:
    the columns ``CONTENT_MODELS`` names; ``hash``: 16 hex digits of BLAKE2b over all
    columns but ``UNHASHED``); ``shared`` is :func:`shared_names`'. Only what the
    published site shows, so it may lie in the published folder. At 5,000 papers
    (65,000 rows): 0.3 s of CPU, 2.4 MB of JSON (benchmarks/publish_changes.py).
    ``current_fingerprint``: ``fingerprint()``'s answer, if the caller has it."""
    rows = {}
    for model, refs in CONTENT_MODELS.items():
        names = [f.attname for f in model._meta.concrete_fields if f.attname not in UNHASHED]
        positions = [names.index(ref) for ref in refs]
        rows[model_label(model)] = {
            values[0]: [_hash(values), *(values[p] for p in positions)]
            for values in published_rows(model).values_list(*names)
        }
    return {
        "format": FORMAT,
        "fingerprint": current_fingerprint or fingerprint(),
        "rows": rows,
        "shared": shared_names(),
    }


def shared_names():
    """``{label: [pk, ...]}``: for each model of ``NAMED_ALONE``, the published rows a
    compact file names by their slug because their name does not stand alone (the
    writer's own rule, over every row of the model), ascending."""
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
    """Write the snapshot ``content`` to ``path`` as JSON, whole or not at all. Each
    table is stored as two lists, pks and rows, which read back faster than an object
    keyed by pk (whose keys would come back as strings)."""
    path = Path(path)
    rows = {
        label: {"pks": list(table), "rows": list(table.values())}
        for label, table in content["rows"].items()
    }
    temporary = path.with_name(path.name + ".tmp")
    temporary.write_text(json.dumps({**content, "rows": rows}, separators=(",", ":")), "utf-8")
    os.replace(temporary, path)


def read(path):
    """The snapshot stored at ``path`` as :func:`snapshot` gives it, or None when there
    is none, it cannot be read or it is of another format (then everything is rendered)."""
    try:
        content = json.loads(Path(path).read_text(encoding="utf-8"))
        if content.get("format") != FORMAT or not isinstance(content.get("shared"), dict):
            return None
        content["rows"] = {
            label: dict(zip(table["pks"], table["rows"], strict=True))
            for label, table in content["rows"].items()
        }
    except (OSError, ValueError, AttributeError, KeyError, TypeError):
        return None
    return content


def collected_already(previous, current):
    """Whether ``collectstatic`` may be skipped: the last publish (its snapshot
    ``previous``, or None) collected the static files, and its fingerprint is
    ``current`` (which covers ``static/``, the packages, the code and collectstatic's
    manifest in ``STATIC_ROOT``): collecting again would write the same files."""
    return bool(previous and previous.get("collected") and previous.get("fingerprint") == current)


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
    ``old`` and ``new``; models without a difference are left out."""
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
