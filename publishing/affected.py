"""Which published pages a change of the content reaches (:func:`affected`), from the
rows :func:`publishing.changes.changed` says were added, changed and deleted between two
snapshots (publishing/changes.py has the whole design)."""

from collections import defaultdict
from dataclasses import dataclass, field

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
)
from publishing.changes import changed, model_label

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
        change = changes.get(model_label(model))
        if not change:
            return False
        if change.added or change.deleted:
            return True
        before, after = old["rows"][model_label(model)], new["rows"][model_label(model)]
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
            return rows.get(model_label(model), {})

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
        change = changes.get(model_label(model))
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
        indexes, shared.get(model_label(Author), ()), lambda i, a: i.authorships_of_author.get(a)
    ) | _gather(
        indexes,
        _gather(
            indexes,
            shared.get(model_label(Institution), ()),
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
