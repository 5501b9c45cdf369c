"""What a re-publish renders again (an incremental ``publish_site``).

Rendering the 5,000-paper data set's pages to compare their bytes takes minutes; a
re-publish after one edit has 10 s. So a publish keeps a :func:`snapshot` of the hash of
what each page shows, made from the published rows read from the database (so admin
saves, imports, ``QuerySet.update()`` and raw SQL all count), with the code's
fingerprint (``awardsite.release.fingerprint``: when it differs, everything is rendered
again); :func:`affected` names the pages whose hash differs. The snapshot is taken before
rendering (an edit saved during the run is seen by the next) and written only after a
run that succeeded.
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
    AwardKind,
    AwardLevel,
    Conference,
    Institution,
    Paper,
    PaperLink,
    PublishedQuerySet,
    Venue,
)
from editorial.history import latest_change
from importing.compact.writer import name_stands_alone, other_slugs

# The snapshot's file in the publish folder, and its format's version (a snapshot of
# another format is treated as missing: everything is rendered).
SNAPSHOT = ".publish-snapshot.json"
FORMAT = 3

# Each model a public page shows, with the foreign keys the hashes follow and the slug.
CONTENT_MODELS = {
    Venue: ("slug",),
    # A kind's page lists awards of every venue: a page about the site (ROUTE_KINDS).
    # Its rows count in the site's hash, and in its awards' (``snapshot``).
    AwardKind: (),
    Conference: ("venue_id", "slug"),
    Award: ("conference_id", "slug"),
    AwardLevel: ("award_id",),
    AwardEntry: ("award_id", "paper_id"),
    Paper: ("conference_id", "slug"),
    PaperLink: ("paper_id",),
    Authorship: ("paper_id", "author_id"),
    Affiliation: ("authorship_id", "institution_id"),
    Institution: (),
    Author: ("slug",),
}
# The models whose last ref is their slug.
SLUGGED = (Venue, Conference, Award, Paper, Author)
# The rows of these models are published when their paper (or award) is.
PUBLISHED_THROUGH = {
    AwardLevel: "award__",
    PaperLink: "paper__",
    Affiliation: "authorship__paper__",
}

# Columns left out of the hash: derived from other rows' columns, whose own hashes name
# the pages that show them (and long: the search text is most of a paper row's bytes).
UNHASHED = {"search_text", "match_text", "has_published_paper"}

# The models a compact conference file names by their name alone when no other row, a
# draft's too, has it (importing/compact/writer.py ``name_stands_alone``), with the
# name's column: a homonym added anywhere changes the files of the other's conferences.
NAMED_ALONE = {Author: "name", Institution: "name_en"}

# The pages whose URLs each sitemap section lists (pages/sitemaps.py): it changes when
# one of them comes, goes or changes its URL. None: no object's.
SITEMAP_KINDS = {
    "home": None,
    "venues": "venues",
    "conferences": "conferences",
    "awards": "awards",
    "award-series": "award_series",
    "papers": "papers",
    "authors": "authors",
}


# The sections whose pages are dated by their object's last change (pages/sitemaps.py's
# lastmod): such a section changes too when an object of the model gets a new version.
SITEMAP_DATED = {
    "venues": Venue,
    "conferences": Conference,
    "awards": Award,
    "papers": Paper,
    "authors": Author,
}


def published_rows(model):
    """The rows of ``model`` that published pages show, by the models' vocabulary
    (``published()``, ``published_condition()``), without modeltranslation's rewriting,
    by primary key."""
    if model in PUBLISHED_THROUGH:
        rows = QuerySet(model).filter(
            PublishedQuerySet.published_condition(PUBLISHED_THROUGH[model])
        )
    else:
        rows = model.objects.published()
    if hasattr(rows, "rewrite"):
        rows = rows.rewrite(False)
    return rows.order_by("pk")


def _hash(*values):
    return hashlib.blake2b(repr(values).encode(), digest_size=8).hexdigest()


def _table(model):
    """``{pk: (hash, *refs)}`` of ``model``'s published rows: ``hash`` over every column
    but ``UNHASHED``, ``refs`` the columns ``CONTENT_MODELS`` names."""
    names = [f.attname for f in model._meta.concrete_fields if f.attname not in UNHASHED]
    positions = [names.index(ref) for ref in CONTENT_MODELS[model]]
    return {
        values[0]: (_hash(values), *(values[p] for p in positions))
        for values in published_rows(model).values_list(*names)
    }


def _by(table, position=1):
    """``{value: [pk, ...]}`` of ``table``'s rows by their ref at ``position`` (1: the first)."""
    groups = defaultdict(list)
    for pk, row in table.items():
        groups[row[position]].append(pk)
    return groups


def _each(hashes, pks):
    return sorted(hashes.get(pk, "") for pk in pks)


def snapshot(current_fingerprint=None):
    """The content as the publisher keeps it, ``{"format", "fingerprint", "pages"}``:
    ``pages`` maps each set of :class:`Affected` (and ``site``, ``author_index``) to
    ``{key: hash}``, the key being the page's URL slugs (a pair for awards and series), a
    sitemap section or ``""``, the hash 16 hex digits of BLAKE2b. At 5,000 papers: 0.5 s
    of CPU, 0.7 MB of JSON (benchmarks/publish_changes.py). ``current_fingerprint``:
    ``fingerprint()``'s answer, if the caller has it.

    What a page shows, as the views do: a paper, its row, conference, venue, links,
    authors, institutions, award entries, their award, its levels and kind; an author, a
    conference, an award, the papers they list (a conference its awards); an award
    series, its editions; a venue, its conferences; the site, every published row.
    """
    rows = {model: _table(model) for model in CONTENT_MODELS}
    own = {model: {pk: row[0] for pk, row in table.items()} for model, table in rows.items()}
    slug = {model: {pk: row[-1] for pk, row in rows[model].items()} for model in SLUGGED}
    children = {model: _by(rows[model]) for model in CONTENT_MODELS if CONTENT_MODELS[model]}
    entries_of, authorships_of = _by(rows[AwardEntry], 2), _by(rows[Authorship], 2)

    conference = {pk: _hash(h, own[Venue][v]) for pk, (h, v, _) in rows[Conference].items()}
    # An award's kind: its name is in the conference's compact file (the export).
    kind_of = dict(published_rows(Award).values_list("pk", "kind_id"))
    award = {
        pk: _hash(
            h,
            conference[c],
            _each(own[AwardLevel], children[AwardLevel][pk]),
            own[AwardKind].get(kind_of.get(pk)),
        )
        for pk, (h, c, _) in rows[Award].items()
    }
    entry = {pk: _hash(h, award[a]) for pk, (h, a, _) in rows[AwardEntry].items()}
    affiliation = {pk: _hash(h, own[Institution][i]) for pk, (h, _, i) in rows[Affiliation].items()}
    authorship = {
        pk: _hash(h, own[Author].get(a), _each(affiliation, children[Affiliation][pk]))
        for pk, (h, _, a) in rows[Authorship].items()
    }
    paper = {
        pk: _hash(
            h,
            conference[c],
            _each(own[PaperLink], children[PaperLink][pk]),
            _each(authorship, children[Authorship][pk]),
            _each(entry, entries_of[pk]),
        )
        for pk, (h, c, _) in rows[Paper].items()
    }
    listed = {pk: _hash(h, paper[p]) for pk, (h, _, p) in rows[AwardEntry].items()}
    award_page = {pk: _hash(h, _each(listed, children[AwardEntry][pk])) for pk, h in award.items()}
    conference_page = {
        pk: _hash(h, _each(paper, children[Paper][pk]), _each(award_page, children[Award][pk]))
        for pk, h in conference.items()
    }
    series = defaultdict(list)
    for pk, (_h, c, award_slug) in rows[Award].items():
        series[(slug[Venue][rows[Conference][c][1]], award_slug)].append(award_page[pk])
    # The author index shows each author's number of awarded papers.
    awarded = {paper_pk for _h, _a, paper_pk in rows[AwardEntry].values()}
    awarded_papers = Counter(a for _h, p, a in rows[Authorship].values() if p in awarded)
    pages = {
        "site": {"": _hash(*(list(hashes.values()) for hashes in own.values()))},
        "author_index": {"": _hash(list(own[Author].values()), sorted(awarded_papers.items()))},
        "venues": {
            slug[Venue][pk]: _hash(h, _each(conference_page, children[Conference][pk]))
            for pk, h in own[Venue].items()
        },
        "conferences": {slug[Conference][pk]: h for pk, h in conference_page.items()},
        "awards": {
            (slug[Conference][c], award_slug): award_page[pk]
            for pk, (_h, c, award_slug) in rows[Award].items()
        },
        "award_series": {key: _hash(sorted(hashes)) for key, hashes in series.items()},
        "papers": {slug[Paper][pk]: h for pk, h in paper.items()},
        "authors": {
            slug[Author][pk]: _hash(
                h, sorted(paper[rows[Authorship][a][1]] for a in authorships_of[pk])
            )
            for pk, h in own[Author].items()
        },
        "archives": _archives(rows, slug, children),
    }
    pages["sitemaps"] = {
        section: _hash(
            list(pages[kind]) if kind else [],
            latest_change(SITEMAP_DATED[section]) if section in SITEMAP_DATED else None,
        )
        for section, kind in SITEMAP_KINDS.items()
    }
    return {"format": FORMAT, "fingerprint": current_fingerprint or fingerprint(), "pages": pages}


def _archives(rows, slug, children):
    """``{conference slug: hash}`` of the conferences whose compact file names an author
    or institution by its slug because its name does not stand alone (the writer's own
    rule, over every row of the model): those of its papers and of the papers it
    awarded, as ``importing.exporting.belonging_to`` gathers them."""
    shared = {}
    for model, name_field in NAMED_ALONE.items():
        counts = Counter(model.objects.values_list(name_field, flat=True).order_by())
        slugs = other_slugs(model)
        shared[model] = {
            pk
            for pk, own_slug, name in published_rows(model).values_list("pk", "slug", name_field)
            if not name_stands_alone(name, own_slug, counts, slugs)
        }
    names = defaultdict(set)  # paper -> the shared names it gives
    for _h, paper, author in rows[Authorship].values():
        if author in shared.get(Author, ()):
            names[paper].add(("author", author))
    for _h, authorship, institution in rows[Affiliation].values():
        if institution in shared.get(Institution, ()):
            names[rows[Authorship][authorship][1]].add(("institution", institution))
    archives = {}
    for pk, conference_slug in slug[Conference].items():
        papers = children[Paper][pk] + [
            rows[AwardEntry][e][2] for a in children[Award][pk] for e in children[AwardEntry][a]
        ]
        if found := set().union(*(names[p] for p in papers)):
            archives[conference_slug] = _hash(sorted(found))
    return archives


def write(content, path):
    """Write the snapshot ``content`` to ``path`` as JSON, whole or not at all; each kind's
    ``{key: hash}`` as a list of pairs (a JSON object's key cannot be a tuple)."""
    path = Path(path)
    pages = {kind: list(table.items()) for kind, table in content["pages"].items()}
    temporary = path.with_name(path.name + ".tmp")
    temporary.write_text(json.dumps({**content, "pages": pages}, separators=(",", ":")), "utf-8")
    os.replace(temporary, path)


def read(path):
    """The snapshot stored at ``path`` as :func:`snapshot` gives it, or None when there
    is none, it cannot be read or it is of another format (then everything is rendered)."""
    try:
        content = json.loads(Path(path).read_text(encoding="utf-8"))
        if content.get("format") != FORMAT:
            return None
        content["pages"] = {
            kind: {tuple(key) if isinstance(key, list) else key: value for key, value in table}
            for kind, table in content["pages"].items()
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
class Affected:
    """The pages to render again: ``everything`` (no earlier snapshot, or the code
    changed); ``site``, the pages about the whole site (home, lists, feeds, open data,
    search), on any change; ``author_index``, the A-Z of authors; by their URL's slugs,
    the objects whose pages change (``awards`` by (conference, slug), ``award_series`` by
    (venue, slug)); ``sitemaps``, the sections whose URLs changed; ``archives``, the
    conferences whose compact file names other shared names. Pages without content
    (robots.txt, the API's index and schema) only with ``everything``."""

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
        """Whether the page of the route ``name`` (``"paper-detail"``) with the URL
        ``kwargs`` must be rendered again; an unknown route is a page about the site."""
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
            return section in self.sitemaps or (section not in SITEMAP_KINDS and self.site)
        if kind == "conference_archive":
            return kwargs.get("slug") in self.conferences or kwargs.get("slug") in self.archives
        if kind == "site_archive":
            return self.site or bool(self.archives)
        if kind in ("awards", "award_series"):
            parent = "conference_slug" if kind == "awards" else "venue_slug"
            return (kwargs.get(parent), kwargs.get("slug")) in getattr(self, kind)
        return kwargs.get("slug") in getattr(self, kind)


# The routes of one object's pages, by the set of Affected that names them. Any other
# route is a page about the whole site: rendered again on any change, never wrong.
ROUTE_KINDS = {
    "venue-detail": "venues",
    "conference-detail": "conferences",
    "conference-detail-page": "conferences",
    "conference-citation": "conferences",
    "opendata-conference-csv": "conferences",
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
    "author-list-letter": "author_index",
    "author-list-letter-page": "author_index",
    "sitemap": "sitemap",
    "sitemap-section": "sitemaps",
    "sitemap-section-page": "sitemaps",
    # No content of the database: robots.txt, the API's index, schema and docs page.
    "robots-txt": "no_content",
    "index": "no_content",
    "openapi-json": "no_content",
    "openapi-view": "no_content",
    "api-docs": "no_content",
}


def affected(old, new):
    """The pages (:class:`Affected`) that differ between the snapshots ``old`` (None:
    no publish yet) and ``new``: everything when ``old`` is None or of another
    fingerprint; else those of each kind whose hash differs or that exist in only one
    (a deleted or renamed object's old page too)."""
    if old is None or old.get("fingerprint") != new.get("fingerprint"):
        return Affected(everything=True)
    differ = {}
    for kind, table in new["pages"].items():
        before = old["pages"].get(kind, {})
        differ[kind] = {
            key for key in before.keys() | table.keys() if before.get(key) != table.get(key)
        }
    site, author_index = bool(differ.pop("site")), bool(differ.pop("author_index"))
    return Affected(site=site, author_index=author_index, **differ)
