"""Which published pages a change of the content reaches (:func:`affected`), from the
rows added, changed and deleted between two snapshots (publishing/changes.py)."""

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
from publishing.changes import CONTENT_MODELS, changed, model_label


@dataclass
class Affected:
    """The pages to render again: ``everything`` (no earlier snapshot, or the code
    changed); ``site``, the pages about the whole site (home, lists, feeds, open data,
    search), on any change; ``author_index``, the A-Z of authors; the objects whose pages
    (all their routes) change, by their URL's slugs: ``venues``, ``conferences``,
    ``papers``, ``authors``, ``awards`` (conference slug, slug), ``award_series`` (venue
    slug, slug); ``sitemaps``, the sitemap's sections whose URLs changed; ``archives``,
    conferences whose compact archive changes although their pages do not (a name of
    theirs became shared or stopped being). Pages without content (robots.txt, the
    API's index and schema) only with ``everything``."""

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
            return section in self.sitemaps or (section not in SITEMAP_MODELS and self.site)
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
}

# The models whose rows' keys (slugs, and foreign keys to the slugs in their URLs) each
# sitemap section lists (pages/sitemaps.py, no lastmod): it changes only when one of
# those rows is added, removed or given other keys. Others are rendered on any change.
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
    """The sections of ``SITEMAP_MODELS`` whose URLs differ between ``old`` and ``new``."""

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
    """One snapshot's rows, followed by the columns ``CONTENT_MODELS`` keeps."""

    def __init__(self, content):
        self.rows = {model: content["rows"].get(model_label(model), {}) for model in CONTENT_MODELS}
        self.children = {}  # (model, column) -> {value: pks of the rows that have it}

    def value(self, model, column, pk):
        """``column`` of ``model``'s row ``pk``, or None when there is no such row."""
        row = self.rows[model].get(pk)
        return None if row is None else row[CONTENT_MODELS[model].index(column) + 1]

    def having(self, model, column, values):
        """The pks of ``model``'s rows whose ``column`` is one of ``values``."""
        if (model, column) not in self.children:
            position = CONTENT_MODELS[model].index(column) + 1
            found = defaultdict(set)
            for pk, row in self.rows[model].items():
                found[row[position]].add(pk)
            self.children[(model, column)] = found
        found = self.children[(model, column)]
        return set().union(*(found.get(value, ()) for value in values))


def _up(both, model, column, pks):
    """The values of ``column`` of ``model``'s rows ``pks``, in either snapshot."""
    return {i.value(model, column, pk) for i in both for pk in pks} - {None}


def _down(both, model, column, values):
    """The pks of ``model``'s rows whose ``column`` is one of ``values``, in either."""
    return set().union(*(i.having(model, column, values) for i in both))


def _award_keys(both, awards, parent_of):
    """(slug of the award's conference, or of its venue with ``parent_of`` Venue, the
    award's slug) of each of ``awards`` (pks), looked up in each snapshot."""
    keys = set()
    for i in both:
        for pk in awards:
            if (slug := i.value(Award, "slug", pk)) is not None:
                conference = i.value(Award, "conference_id", pk)
                if parent_of is Venue:
                    parent = i.value(Venue, "slug", i.value(Conference, "venue_id", conference))
                else:
                    parent = i.value(Conference, "slug", conference)
                keys.add((parent, slug))
    return keys


def affected(old, new):
    """The pages (:class:`Affected`) that differ between the snapshots ``old`` (None:
    no publish yet) and ``new``. Everything when ``old`` is None or of another
    fingerprint; nothing when no published row differs; otherwise the site-wide pages
    and these objects', each rule followed in both snapshots (so through a deleted
    row's old keys), as the views and templates show them:

    - a venue's change shows on its conferences'; a conference's on its papers' and
      awards'; an award's or its levels' on the papers it gives;
    - a paper's page shows its conference and venue, authors and their institutions,
      links and award entries (award, level): a change of any touches the paper;
    - a touched paper touches its authors', conference's (and downloads), awards',
      award series' and venue's pages; an award entry or authorship added or removed
      touches its award or author and its paper;
    - the A-Z of authors when an author of a published paper changed, came or went.
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

    def pks(model):
        change = changes.get(model_label(model))
        return change.all if change else set()

    def up(model, column, pks):
        return _up(both, model, column, pks)

    def down(model, column, values):
        return _down(both, model, column, values)

    # Rows whose change shows on many pages, followed down to the papers they show on.
    venues = pks(Venue)
    conferences = pks(Conference) | down(Conference, "venue_id", venues)
    awards = (
        pks(Award)
        | up(AwardLevel, "award_id", pks(AwardLevel))
        | down(Award, "conference_id", conferences)
    )
    authorships = (
        pks(Authorship)
        | up(Affiliation, "authorship_id", pks(Affiliation))
        | down(Authorship, "author_id", pks(Author))
        | up(Affiliation, "authorship_id", down(Affiliation, "institution_id", pks(Institution)))
    )
    entries = pks(AwardEntry) | down(AwardEntry, "award_id", awards)
    papers = (
        pks(Paper)
        | down(Paper, "conference_id", conferences)
        | up(PaperLink, "paper_id", pks(PaperLink))
        | up(Authorship, "paper_id", authorships)
        | up(AwardEntry, "paper_id", entries)
    )
    # The pages that show a touched paper, award or conference.
    authors = pks(Author) | up(
        Authorship, "author_id", pks(Authorship) | down(Authorship, "paper_id", papers)
    )
    awards |= up(AwardEntry, "award_id", entries | down(AwardEntry, "paper_id", papers))
    conferences |= up(Paper, "conference_id", papers) | up(Award, "conference_id", awards)
    venues |= up(Conference, "venue_id", conferences)
    return Affected(
        site=True,
        # The snapshots hold authors of published papers only: any change shows in the A-Z.
        author_index=bool(pks(Author)),
        sitemaps=_sitemaps(old, new, changes),
        venues=up(Venue, "slug", venues),
        conferences=up(Conference, "slug", conferences),
        awards=_award_keys(both, awards, Conference),
        award_series=_award_keys(both, awards, Venue),
        papers=up(Paper, "slug", papers),
        authors=up(Author, "slug", authors),
        archives=archives,
    )


def _archives(both, shared):
    """The slugs of the conferences whose compact files name an author or institution
    of ``shared`` (``{label: pks}``): those of their papers and those that awarded them,
    as ``importing.exporting.belonging_to`` gathers a conference's papers."""
    institutions = shared.get(model_label(Institution), ())
    authorships = _down(both, Authorship, "author_id", shared.get(model_label(Author), ())) | _up(
        both, Affiliation, "authorship_id", _down(both, Affiliation, "institution_id", institutions)
    )
    papers = _up(both, Authorship, "paper_id", authorships)
    awards = _up(both, AwardEntry, "award_id", _down(both, AwardEntry, "paper_id", papers))
    conferences = _up(both, Paper, "conference_id", papers) | _up(
        both, Award, "conference_id", awards
    )
    return _up(both, Conference, "slug", conferences)
