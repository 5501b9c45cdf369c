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
- :func:`affected` turns them into the pages to render again (:class:`Affected`), by
  the dependency rules of :func:`affected`'s docstring, read from the views and
  templates. A deleted row is followed through its *old* keys (an authorship removed
  re-renders the author it named), a changed one through its old and new keys.

The publisher (``manage.py publish_site``) uses it so::

    state = directory / publish_changes.SNAPSHOT
    new = publish_changes.snapshot()            # before rendering: see below
    pages = publish_changes.affected(publish_changes.read(state), new)
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
from collections import Counter, defaultdict
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


def _label(model):
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
        rows[_label(model)] = table
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
        shared[_label(model)] = sorted(
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


# --- Which pages -----------------------------------------------------------------------


@dataclass
class Affected:
    """The pages to render again.

    ``everything``: all of them (no earlier snapshot, or the code changed). ``site``:
    the pages about the whole site (home, index lists, feeds, sitemaps, open data and its
    downloads, search, the API's index, robots.txt), on any change of the content.
    ``author_index``: the A-Z of authors and its pages (names of authors with a
    published paper). The sets name objects by their URL's slugs: ``venues``,
    ``conferences``, ``papers``, ``authors`` (slugs), ``awards`` (conference slug, award
    slug) and ``award_series`` (venue slug, award slug); an object's pages are all of
    its routes (detail, pages 2..N, citations, its downloads). ``sitemaps``: the
    sections of the sitemap (pages/sitemaps.py) whose list of URLs changed; the
    sitemap's index when there is one. ``archives``: conferences (slugs) whose
    compact archive (open data) must be made again although their pages need not (a
    name of theirs became shared or stopped being: ``shared_names``); the site's
    compact archive with them. Pages that show no content (robots.txt, the API's index
    and schema) only with ``everything``.
    """

    everything: bool = False
    site: bool = False
    author_index: bool = False
    sitemaps: set = field(default_factory=set)
    venues: set = field(default_factory=set)
    conferences: set = field(default_factory=set)
    awards: set = field(default_factory=set)
    award_series: set = field(default_factory=set)
    papers: set = field(default_factory=set)
    authors: set = field(default_factory=set)
    archives: set = field(default_factory=set)

    def __bool__(self):
        return self.everything or self.site

    def covers(self, name, kwargs=None):
        """Whether the page of the URL pattern ``name`` (its name in the URLconf, such
        as ``"paper-detail"``) with the URL ``kwargs`` must be rendered again. A route
        this module does not know is taken as a page about the whole site."""
        if self.everything:
            return True
        kwargs = kwargs or {}
        kind = ROUTE_KINDS.get(name)
        if kind is None:
            return self.site
        if kind == "author_index":
            return self.author_index
        if kind == "no_content":
            return False
        if kind == "sitemap":
            return bool(self.sitemaps)
        if kind == "sitemaps":
            section = kwargs.get("section")
            return section in self.sitemaps or (section not in SITEMAP_MODELS and self.site)
        if kind == "conference_archive":
            return kwargs.get("slug") in self.conferences or kwargs.get("slug") in self.archives
        if kind == "site_archive":
            return self.site or bool(self.archives)
        if kind in ("awards", "award_series"):
            parent = "conference_slug" if kind == "awards" else "venue_slug"
            return (kwargs.get(parent), kwargs.get("slug")) in getattr(self, kind)
        return kwargs.get("slug") in getattr(self, kind)

    def count(self):
        """How many objects' pages are named (for the publisher's report)."""
        return sum(
            len(getattr(self, name))
            for name in ("venues", "conferences", "awards", "award_series", "papers", "authors")
        )


# The routes of one object's pages (pages/urls.py, awardsite/urls.py and the API's
# ``conference``), by the set of Affected that names them; pages N of a list are the
# route "<name>-page" (pages/paging.py, branch pagepaths). Any other route is a page
# about the whole site: rendered again on any change, which is never wrong.
ROUTE_KINDS = {
    "venue-detail": "venues",
    "conference-detail": "conferences",
    "conference-detail-page": "conferences",
    "conference-citation": "conferences",
    "opendata-conference-csv": "conferences",
    # A conference's compact archive, and the site's (every conference's compact file).
    "opendata-conference-compact": "conference_archive",
    "opendata-site-compact": "site_archive",
    "conference": "conferences",
    "award-detail": "awards",
    "award-citation": "awards",
    "award-series": "award_series",
    "paper-detail": "papers",
    "paper-citation": "papers",
    "author-detail": "authors",
    "author-detail-page": "authors",
    "author-list": "author_index",
    "author-list-page": "author_index",
    # The A-Z's letters at paths of their own (branch pagepaths).
    "author-list-letter": "author_index",
    "author-list-letter-page": "author_index",
    # The sitemap's index (counts of each section's URLs) and its sections, by kwargs.
    "sitemap": "sitemap",
    "sitemap-section": "sitemaps",
    # Parts 2..N of a long section (pages/sitemaps.py part_path), by their section.
    "sitemap-section-page": "sitemaps",
    # No content of the database: robots.txt (the sitemap's address), the API's index
    # (addresses, the licence setting) and its OpenAPI schema and page (the code).
    "robots-txt": "no_content",
    "index": "no_content",
    "openapi-json": "no_content",
    "openapi-view": "no_content",
}

# The models whose published rows each section of the sitemap lists, by their keys (slugs
# and the foreign keys that lead to the slugs in their URLs): a section changes only when
# one of those rows is added, removed or given other keys (pages/sitemaps.py; no
# section gives a lastmod). A section not named here is rendered on any change.
SITEMAP_MODELS = {
    "home": (),
    "venues": (Venue,),
    "conferences": (Conference,),
    "awards": (Award, Conference),
    "award-series": (Award, Conference, Venue),
    "papers": (Paper,),
    "authors": (Author,),
}


def _sitemaps(old, new, changes):
    """The sections of the sitemap named in ``SITEMAP_MODELS`` whose URLs differ between
    the snapshots ``old`` and ``new``."""

    def keys_changed(model):
        change = changes.get(_label(model))
        if not change:
            return False
        if change.added or change.deleted:
            return True
        before, after = old["rows"][_label(model)], new["rows"][_label(model)]
        return any(before[pk][1:] != after[pk][1:] for pk in change.changed)

    return {
        section
        for section, models in SITEMAP_MODELS.items()
        if any(keys_changed(model) for model in models)
    }


class _Index:
    """One snapshot's rows looked up by the keys the rules follow."""

    def __init__(self, content):
        rows = content["rows"]
        self.rows = rows

        def table(model):
            return rows.get(_label(model), {})

        def children(model, position):
            found = defaultdict(set)
            for pk, row in table(model).items():
                found[row[position]].add(pk)
            return found

        self.venue = table(Venue)
        self.conference = table(Conference)
        self.award = table(Award)
        self.level = table(AwardLevel)
        self.entry = table(AwardEntry)
        self.paper = table(Paper)
        self.link = table(PaperLink)
        self.authorship = table(Authorship)
        self.affiliation = table(Affiliation)
        self.author = table(Author)
        # Row layout: [hash, *refs] in CONTENT_MODELS' order.
        self.conferences_of_venue = children(Conference, 1)
        self.awards_of_conference = children(Award, 1)
        self.entries_of_award = children(AwardEntry, 1)
        self.entries_of_paper = children(AwardEntry, 2)
        self.papers_of_conference = children(Paper, 1)
        self.authorships_of_paper = children(Authorship, 1)
        self.authorships_of_author = children(Authorship, 2)
        self.affiliations_of_institution = children(Affiliation, 2)

    @staticmethod
    def ref(table, pk, position):
        row = table.get(pk)
        return None if row is None else row[position]


def _gather(indexes, pks, lookup):
    """The union over ``indexes`` of ``lookup(index, pk)`` (a value, a set or None)."""
    found = set()
    for index in indexes:
        for pk in pks:
            value = lookup(index, pk)
            if isinstance(value, set):
                found |= value
            elif value is not None:
                found.add(value)
    return found


def affected(old, new):
    """The pages (:class:`Affected`) that differ between the content of snapshot ``old``
    (None: there was no publish) and that of ``new``, as ``snapshot()`` gives them.

    Everything when ``old`` is None or its fingerprint is not ``new``'s; nothing when no
    row differs (the snapshots hold published rows only, so edits of drafts re-render
    nothing); otherwise the site-wide pages and these
    objects' pages, each rule followed in the old and the new snapshot (so through a
    deleted row's old keys):

    - Rows whose change shows on many pages: a venue's on its conferences'; a
      conference's (name, city, dates, status) on its papers', its awards' and theirs;
      an award's or one of its levels' (name, description, level names and order) on the
      papers it gives and their pages.
    - A paper's page shows its row, conference and venue, authorships with the authors'
      names and their affiliations' institutions, links and award entries with their
      award, level and the award's conference: a change of any of these, an author
      renamed, an institution renamed or a link edited touches the paper.
    - Touching a paper touches its authors' pages (their papers' titles, conferences,
      badges and co-authors), its conference's page and downloads (the list of its papers
      with authors), the pages of the awards it received, their award series and the
      venues above (counts of papers and awards per edition).
    - An award entry added or removed touches its award and its paper; an authorship its
      author and paper.
    - The A-Z of authors when an author of a published paper changed, or one was added
      or removed (by publishing or returning to draft too).
    """
    if old is None or old.get("fingerprint") != new.get("fingerprint"):
        return Affected(everything=True)
    changes = changed(old, new)
    shared = {
        label: set(old["shared"].get(label, ())) ^ set(new["shared"].get(label, ()))
        for label in new["shared"]
    }
    if not changes and not any(shared.values()):
        return Affected()

    both = (_Index(old), _Index(new))
    archives = _archives(both, shared)
    if not changes:
        return Affected(archives=archives)

    def gather(keys, lookup):
        return _gather(both, keys, lookup)

    def pks(model):
        change = changes.get(_label(model))
        return change.all if change else set()

    # Rows whose change shows on many pages, followed down to the papers they show on.
    venues = pks(Venue)
    conferences = pks(Conference) | gather(venues, lambda i, v: i.conferences_of_venue.get(v))
    awards = (
        pks(Award)
        | gather(pks(AwardLevel), lambda i, pk: i.ref(i.level, pk, 1))
        | gather(conferences, lambda i, c: i.awards_of_conference.get(c))
    )
    authorships = (
        pks(Authorship)
        | gather(pks(Affiliation), lambda i, pk: i.ref(i.affiliation, pk, 1))
        | gather(pks(Author), lambda i, a: i.authorships_of_author.get(a))
        | gather(
            gather(pks(Institution), lambda i, pk: i.affiliations_of_institution.get(pk)),
            lambda i, pk: i.ref(i.affiliation, pk, 1),
        )
    )
    entries = pks(AwardEntry) | gather(awards, lambda i, a: i.entries_of_award.get(a))
    papers = (
        pks(Paper)
        | gather(conferences, lambda i, c: i.papers_of_conference.get(c))
        | gather(pks(PaperLink), lambda i, pk: i.ref(i.link, pk, 1))
        | gather(authorships, lambda i, pk: i.ref(i.authorship, pk, 1))
        | gather(entries, lambda i, pk: i.ref(i.entry, pk, 2))
    )

    # The pages that show a touched paper, award or conference.
    authors = (
        pks(Author)
        | gather(pks(Authorship), lambda i, pk: i.ref(i.authorship, pk, 2))
        | gather(
            gather(papers, lambda i, p: i.authorships_of_paper.get(p)),
            lambda i, pk: i.ref(i.authorship, pk, 2),
        )
    )
    awards |= gather(entries, lambda i, pk: i.ref(i.entry, pk, 1)) | gather(
        gather(papers, lambda i, p: i.entries_of_paper.get(p)),
        lambda i, pk: i.ref(i.entry, pk, 1),
    )
    conferences |= gather(papers, lambda i, p: i.ref(i.paper, p, 1)) | gather(
        awards, lambda i, a: i.ref(i.award, a, 1)
    )
    venues |= gather(conferences, lambda i, c: i.ref(i.conference, c, 1))

    # The snapshots hold the authors of published papers only: any change to those rows
    # is a name, a slug or an author added to or removed from the A-Z.
    author_index = bool(pks(Author))

    def award_series(i, a):
        row = i.award.get(a)
        if row is None:
            return None
        venue = i.ref(i.conference, row[1], 1)
        return (i.ref(i.venue, venue, 1), row[2])

    def awards_by_slug(i, a):
        row = i.award.get(a)
        return None if row is None else (i.ref(i.conference, row[1], 2), row[2])

    return Affected(
        site=True,
        author_index=author_index,
        sitemaps=_sitemaps(old, new, changes),
        venues=gather(venues, lambda i, v: i.ref(i.venue, v, 1)),
        conferences=gather(conferences, lambda i, c: i.ref(i.conference, c, 2)),
        awards=gather(awards, awards_by_slug),
        award_series=gather(awards, award_series),
        papers=gather(papers, lambda i, p: i.ref(i.paper, p, 2)),
        authors=gather(authors, lambda i, a: i.ref(i.author, a, 1)),
        archives=archives,
    )


def _archives(indexes, shared):
    """The slugs of the conferences whose compact files name one of the published authors
    or institutions of ``shared`` (``{label: pks}`` whose name became shared or stopped
    being: ``shared_names``): the conferences of their papers and those that awarded
    them, as ``importing.exporting.belonging_to`` gathers a conference's papers."""
    authorships = _gather(
        indexes, shared.get(_label(Author), ()), lambda i, a: i.authorships_of_author.get(a)
    ) | _gather(
        indexes,
        _gather(
            indexes,
            shared.get(_label(Institution), ()),
            lambda i, pk: i.affiliations_of_institution.get(pk),
        ),
        lambda i, pk: i.ref(i.affiliation, pk, 1),
    )
    papers = _gather(indexes, authorships, lambda i, pk: i.ref(i.authorship, pk, 1))
    awards = _gather(
        indexes,
        _gather(indexes, papers, lambda i, p: i.entries_of_paper.get(p)),
        lambda i, pk: i.ref(i.entry, pk, 1),
    )
    conferences = _gather(indexes, papers, lambda i, p: i.ref(i.paper, p, 1)) | _gather(
        indexes, awards, lambda i, a: i.ref(i.award, a, 1)
    )
    return _gather(indexes, conferences, lambda i, c: i.ref(i.conference, c, 2))
