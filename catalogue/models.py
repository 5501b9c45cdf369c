"""The awards domain: venues, conferences, papers, authors, institutions, awards.

Keys are language-neutral slugs. Every model a fixture names says which fields make its
natural key (``natural_key_fields``), from which ``NaturalKeyMixin.natural_key()`` and
``NaturalKeyQuerySet.get_by_natural_key()`` follow, so fixtures never carry primary keys.
Prose fields are translated by django-modeltranslation (see ``translation.py``);
their suffixed columns are ``<field>_en`` and ``<field>_zh_hans``.
"""

import functools

from django.core.exceptions import ObjectDoesNotExist, ValidationError
from django.db import connections, models, transaction
from django.db.models import Count, Exists, F, Max, Min, OuterRef, Prefetch, Q, Subquery
from django.db.models.functions import Coalesce
from django.urls import reverse
from django.utils.translation import gettext_lazy as _

from catalogue import languages, leads, search, text
from catalogue.derived import DerivedColumn, DerivedColumnsMixin
from catalogue.mathtext import MathLimitsValidator
from catalogue.orcid import validate_orcid
from catalogue.slugs import AsciiSlugField, SlugFromTitleMixin

SLUG_HELP = _("Leave blank to make one from the English title or name.")


def natural_key_lookups(model):
    """The lookups that find an object of ``model`` by its natural key, in key order.

    From ``model.natural_key_fields``: a plain field is its own lookup, a foreign key
    contributes its target's lookups (``AwardEntry``: ``award__conference__slug``,
    ``award__slug``, ``paper__slug``).
    """
    lookups = []
    for name in model.natural_key_fields:
        field = model._meta.get_field(name)
        if field.is_relation:
            lookups += [f"{name}__{part}" for part in natural_key_lookups(field.related_model)]
        else:
            lookups.append(name)
    return lookups


class NaturalKeyMixin:
    """``natural_key()`` from ``natural_key_fields``, the fields whose values name an
    object (a foreign key contributes its target's natural key). The one statement of
    a model's key: fixtures, the importer and the export ask it. Django's serialisers
    order dependencies by the foreign keys themselves, so none are declared.
    """

    natural_key_fields = ("slug",)

    def natural_key(self):
        key = []
        for name in self.natural_key_fields:
            value = getattr(self, name)
            key += value.natural_key() if isinstance(value, models.Model) else [value]
        return tuple(key)


class NaturalKeyQuerySet(models.QuerySet):
    """``get_by_natural_key()`` for loaddata, from the model's ``natural_key_fields``."""

    def get_by_natural_key(self, *key):
        return self.get(**dict(zip(natural_key_lookups(self.model), key, strict=True)))


class Status(models.TextChoices):
    """Publication status: visitors see only published conferences, awards and papers."""

    DRAFT = "draft", _("Draft")
    PUBLISHED = "published", _("Published")


def published_q(prefix=""):
    """The condition "published, at a published conference" on a paper or an award.

    ``prefix`` reaches the paper or award through a relation (``"paper__"``), so
    related rows are filtered by a join rather than ``paper__in=<subquery>``, which
    SQLite would evaluate into a list of every published id inside each query.
    """
    return Q(
        **{f"{prefix}status": Status.PUBLISHED, f"{prefix}conference__status": Status.PUBLISHED}
    )


def count_of(queryset, field):
    """The number of rows of ``queryset`` whose ``field`` is the outer query's row: an
    integer expression (0 when none) for ``annotate()``, as a correlated subquery.

    It counts rows (``COUNT(*)``), not their keys: ``COUNT(id)`` needs the column
    ``id``, so PostgreSQL could not count a conference's published papers from the
    index ``paper_listing_order`` (conference, status, ...) alone, and read through the
    index of every paper of the site for each conference instead (make bench's data:
    5,000 rows for each of the 10 conferences; EXPLAIN ANALYZE of the venue page's list
    3.99 against 1.79 ms, the conferences list's likewise)."""
    counted = (
        queryset.filter(**{field: OuterRef("pk")}).order_by().values(field).annotate(n=Count("*"))
    )
    return Coalesce(Subquery(counted.values("n")), 0)


def unlisted_paper_fields(prefix=""):
    """A paper's long columns that no list of papers shows: abstract and summary (the
    field and each language's column) and the search texts (``search_text``, ``match_text``).

    Lists ``defer()`` them (``prefix`` reaches the paper through a relation, as
    ``"paper__"``): at 5,000 papers they were most of each row read, and SQLite
    carried them through the sort of the conference page's list.
    """
    names = ["search_text", "match_text"]
    for field in ("abstract", "summary"):
        names += [
            field,
            *languages.columns(field),
        ]
    return [prefix + name for name in names]


def search_text_field():
    """The folded text the search box matches (catalogue/search.py); never edited by hand."""
    return models.TextField(_("search text"), blank=True, default="", editable=False)


def status_field():
    return models.CharField(
        _("status"),
        max_length=10,
        choices=Status.choices,
        default=Status.DRAFT,
        db_index=True,
        help_text=_("Visitors see only published items."),
    )


class VenueQuerySet(NaturalKeyQuerySet):
    def published(self):
        """Venues with at least one published conference."""
        return self.filter(Exists(Conference.objects.published().filter(venue=OuterRef("pk"))))


class Venue(NaturalKeyMixin, models.Model):
    """A conference series, such as ICML, whose editions are conferences."""

    slug = AsciiSlugField(_("slug"), max_length=50, unique=True)
    acronym = text.CharField(_("acronym"), max_length=30)
    name = text.CharField(_("name"), max_length=200)
    website = models.URLField(_("website"), blank=True)

    objects = VenueQuerySet.as_manager()

    class Meta:
        verbose_name = _("venue")
        verbose_name_plural = _("venues")
        ordering = ["acronym"]

    def __str__(self):
        return self.acronym

    def get_absolute_url(self):
        return reverse("papers:venue-detail", kwargs={"slug": self.slug})


# The one order of conferences, newest first, wherever they are listed: the pages, the
# API, the sitemap, the publisher and the admin (Conference.Meta.ordering). Within a year
# the later start first, a conference without a start date last on every database
# (PostgreSQL sorts NULL first in a descending order, SQLite last), then by slug.
NEWEST_FIRST = ("-year", F("start_date").desc(nulls_last=True), "slug")


class ConferenceQuerySet(NaturalKeyQuerySet):
    def published(self):
        return self.filter(status=Status.PUBLISHED)

    def newest_first(self):
        """The conferences in :data:`NEWEST_FIRST` order."""
        return self.order_by(*NEWEST_FIRST)

    def with_awards(self):
        """Conferences that give at least one published award of their own.

        Leaves out editions kept only as where papers were published (an edition whose
        papers a later conference honoured): the venue page lists those.
        """
        return self.filter(Exists(Award.objects.published().filter(conference=OuterRef("pk"))))

    def with_listed_awards(self):
        """Conferences with their venue and ``listed_awards``: their published awards in
        their order on the conference page, each with ``entry_count`` (its published
        papers). Two queries however many conferences."""
        awards = Award.objects.published().with_entry_count().order_by("position", "slug")
        return self.select_related("venue").prefetch_related(
            Prefetch("awards", queryset=awards, to_attr="listed_awards")
        )

    def for_venue(self):
        """Conferences with ``award_count`` (published awards) and ``paper_count``
        (published papers published there), for a venue's list of editions.

        Each count is a subquery of its own: counting both over joins of the awards and
        the papers made a row for every award and paper pair (10,000 a conference at the
        benchmark's size: 20 awards, 500 papers), and the list of conferences took 97 ms.
        """
        return self.annotate(
            award_count=count_of(Award.objects.filter(status=Status.PUBLISHED), "conference"),
            paper_count=count_of(Paper.objects.filter(status=Status.PUBLISHED), "conference"),
        )


class Conference(NaturalKeyMixin, SlugFromTitleMixin, models.Model):
    """One edition of a venue: ICML 2025 in Vancouver, 13-19 July 2025."""

    slug_source = "name_en"
    slug_fallback = "conference"

    venue = models.ForeignKey(
        "papers.Venue",
        on_delete=models.PROTECT,
        related_name="conferences",
        verbose_name=_("venue"),
    )
    slug = AsciiSlugField(
        _("slug"),
        max_length=50,
        unique=True,
        blank=True,
        help_text=_(
            "Language-neutral key used in URLs and fixtures, e.g. icml-2025. "
            "Leave blank to make one from the English name."
        ),
    )
    year = models.PositiveSmallIntegerField(_("year"))
    name = text.CharField(_("name"), max_length=200)
    description = text.TextField(_("description"), blank=True)
    city = text.CharField(_("city"), max_length=100, blank=True)
    country = text.CharField(_("country"), max_length=100, blank=True)
    start_date = models.DateField(_("start date"), null=True, blank=True)
    end_date = models.DateField(_("end date"), null=True, blank=True)
    proceedings = text.CharField(
        _("proceedings"),
        max_length=200,
        blank=True,
        help_text=_("Where the papers are published, e.g. PMLR volume 267."),
    )
    website = models.URLField(_("website"), blank=True)
    status = status_field()

    objects = ConferenceQuerySet.as_manager()

    class Meta:
        verbose_name = _("conference")
        verbose_name_plural = _("conferences")
        ordering = NEWEST_FIRST
        constraints = [
            models.UniqueConstraint(
                fields=["venue", "year"],
                name="conference_unique_venue_year",
                violation_error_message=_("This venue already has a conference in this year."),
            ),
            models.CheckConstraint(
                condition=Q(start_date__isnull=True)
                | Q(end_date__isnull=True)
                | Q(end_date__gte=models.F("start_date")),
                name="conference_end_not_before_start",
                violation_error_message=_("The end date is before the start date."),
            ),
        ]

    def __str__(self):
        return self.name_en or self.slug

    def get_absolute_url(self):
        return reverse("papers:conference-detail", kwargs={"slug": self.slug})


class InstitutionQuerySet(NaturalKeyQuerySet):
    def published(self):
        """Institutions an author of a published paper is affiliated with on that paper."""
        return self.filter(
            Exists(
                Affiliation.objects.filter(
                    published_q("authorship__paper__"), institution=OuterRef("pk")
                )
            )
        )

    def of_author(self, author):
        """The institutions ``author`` gave on published papers, with ``first_year`` and
        ``last_year`` (the conference years of those papers): the latest first."""
        years = "affiliation_rows__authorship__paper__conference__year"
        return (
            self.filter(
                published_q("affiliation_rows__authorship__paper__"),
                affiliation_rows__authorship__author=author,
            )
            .annotate(first_year=Min(years), last_year=Max(years))
            .order_by("-last_year", "-first_year", "slug")
        )

    def of_authors(self, authors):
        """``of_author()`` of each of ``authors`` (ids) at once, each institution with
        ``of_author`` (the author's id): the rows of one author together, in
        ``of_author()``'s order. One query. (The authors' published authorships are
        named by a subquery: without it SQLite's planner started from every published
        paper, 0.5 to 1.6 s for 200 authors at 5,000 papers instead of 1 to 20 ms.)"""
        years = "affiliation_rows__authorship__paper__conference__year"
        authorships = Authorship.objects.published().filter(author__in=authors).values("pk")
        return (
            self.filter(affiliation_rows__authorship__in=authorships)
            .annotate(
                of_author=F("affiliation_rows__authorship__author"),
                first_year=Min(years),
                last_year=Max(years),
            )
            .order_by("of_author", "-last_year", "-first_year", "slug")
        )


class Institution(NaturalKeyMixin, DerivedColumnsMixin, SlugFromTitleMixin, models.Model):
    """A university, laboratory or company that authors are affiliated with."""

    slug_source = "name_en"
    slug_fallback = "institution"

    slug = AsciiSlugField(_("slug"), max_length=100, unique=True, blank=True, help_text=SLUG_HELP)
    name = text.CharField(_("name"), max_length=200)
    country = text.CharField(_("country"), max_length=100, blank=True)
    website = models.URLField(_("website"), blank=True)
    search_text = search_text_field()

    objects = InstitutionQuerySet.as_manager()
    search_sources = ("name",)
    derived_columns = (search.SEARCH_TEXT,)

    class Meta:
        verbose_name = _("institution")
        verbose_name_plural = _("institutions")
        ordering = ["slug"]

    def __str__(self):
        return self.name_en or self.slug


HAS_PUBLISHED_PAPER_COLUMN = "has_published_paper"


def has_published_paper_rule():
    """The rule ``Author.has_published_paper`` keeps (catalogue/published_authors.py), as
    an ``Exists`` on Author (``OuterRef("pk")``): the author has an authorship of a paper
    published at a published conference."""
    return Exists(Authorship.objects.filter(published_q("paper__"), author=OuterRef("pk")))


def _refresh_has_published_paper(author):
    """``HAS_PUBLISHED_PAPER``'s refresh: the column of ``author`` (an Author) from the
    rows stored now (one query; none for an author not saved yet, who has no paper)."""
    value = False
    if author.pk is not None:
        value = Author.objects.filter(has_published_paper_rule(), pk=author.pk).exists()
    setattr(author, HAS_PUBLISHED_PAPER_COLUMN, value)


# A derived column of Author with no source among its own fields: a save limited by
# ``update_fields`` leaves it alone; any other save (raw ones included) works it out.
HAS_PUBLISHED_PAPER = DerivedColumn(
    HAS_PUBLISHED_PAPER_COLUMN,
    sources=lambda model: (),
    columns=lambda model: (HAS_PUBLISHED_PAPER_COLUMN,),
    refresh=_refresh_has_published_paper,
)


class AuthorQuerySet(NaturalKeyQuerySet):
    def published(self):
        """Authors of at least one published paper: those whose kept column
        ``has_published_paper`` says so (catalogue/published_authors.py keeps it by
        :func:`has_published_paper_rule`).

        Read from the column, with no join: joining the 20,000 authorships of the
        benchmark's 5,000 papers to their papers and conferences for DISTINCT authors
        took 15 to 30 ms a query (a correlated EXISTS per author was slower on SQLite,
        which has no statistics; a non-correlated IN subquery no quicker).
        """
        return self.filter(has_published_paper=True)

    def coauthors_of(self, author, limit=None):
        """The people who wrote a published paper with ``author``, each with ``shared``
        (how many), the most frequent first, then by slug; at most ``limit``."""
        people = (
            self.filter(
                published_q("authorships__paper__"),
                authorships__paper__authorships__author=author,
            )
            .exclude(pk=author.pk)
            .annotate(shared=Count("authorships__paper", distinct=True))
            .order_by("-shared", "slug")
        )
        return people[:limit] if limit else people

    def coauthors_of_authors(self, authors):
        """``coauthors_of()`` of each of ``authors`` (ids) at once, each person with
        ``of_author`` (whose co-author they are) and ``shared``: the rows of one author
        together, in ``coauthors_of()``'s order. One query. (The authors' papers are
        named by a subquery, as in ``InstitutionQuerySet.of_authors()``.)"""
        papers = Paper.objects.published().filter(authorships__author__in=authors).values("pk")
        return (
            self.filter(
                authorships__paper__in=papers, authorships__paper__authorships__author__in=authors
            )
            .annotate(of_author=F("authorships__paper__authorships__author"))
            .exclude(pk=F("of_author"))
            .annotate(shared=Count("authorships__paper", distinct=True))
            .order_by("of_author", "-shared", "slug")
        )

    def with_published_papers(self):
        """Authors with ``published_papers``: how many published papers they wrote
        (a subquery per author)."""
        return self.annotate(published_papers=count_of(Authorship.objects.published(), "author"))


class Author(NaturalKeyMixin, DerivedColumnsMixin, SlugFromTitleMixin, models.Model):
    """One person, across every paper they wrote.

    Affiliations belong to the authorship (people move), not to the person.
    """

    slug_source = "name"
    slug_fallback = "author"

    slug = AsciiSlugField(_("slug"), max_length=100, unique=True, blank=True, help_text=SLUG_HELP)
    name = text.CharField(
        _("name"), max_length=200, help_text=_("The name as the person publishes it.")
    )
    other_names = text.TextField(
        _("other names"),
        blank=True,
        help_text=_("Other spellings seen in publications, one per line."),
    )
    homepage = models.URLField(_("homepage"), blank=True)
    orcid = text.CharField(_("ORCID iD"), max_length=19, blank=True, validators=[validate_orcid])
    search_text = search_text_field()
    # Kept by catalogue/published_authors.py: whether a paper of theirs is published at a
    # published conference (what ``Author.objects.published()`` reads).
    has_published_paper = models.BooleanField(
        _("has a published paper"), default=False, editable=False
    )

    objects = AuthorQuerySet.as_manager()
    search_sources = ("name", "other_names")
    derived_columns = (search.SEARCH_TEXT, HAS_PUBLISHED_PAPER)

    class Meta:
        verbose_name = _("author")
        verbose_name_plural = _("authors")
        ordering = ["name", "slug"]
        indexes = [
            # The A-Z index of authors (by slug), its count and its letters: the authors
            # with a published paper in slug order, with the name the page shows and the
            # key, read from this index alone (a partial index: the others are not in it;
            # the key is SQLite's rowid anyway, and lets PostgreSQL scan the index only).
            models.Index(
                fields=["slug", "name", "id"],
                condition=Q(has_published_paper=True),
                name="author_published_slug",
            ),
        ]

    def __str__(self):
        return self.name

    def get_absolute_url(self):
        return reverse("papers:author-detail", kwargs={"slug": self.slug})

    @property
    def other_name_list(self):
        return [line.strip() for line in self.other_names.splitlines() if line.strip()]


@functools.cache
def paper_detail_prefetches():
    """The prefetches of ``PaperQuerySet.for_detail()``: authorships with their authors
    and institutions in order, links, and the published awards' entries (of published
    conferences) in ``AwardEntryQuerySet.for_paper()`` order.

    Built once per process: they hold no content and no language (positions, statuses,
    years and slugs, none translated), and Django copies what it changes of a Prefetch
    when it runs one. Building them (the entries' level annotations above all) was
    about a tenth of the paper page's time (benchmarks/server_time.py --profile paper).
    """
    return (
        authorships_with_affiliations(),
        "links",
        Prefetch(
            "award_entries",
            queryset=AwardEntry.objects.filter(published_q("award__")).for_paper(),
        ),
    )


class PaperQuerySet(NaturalKeyQuerySet):
    def published(self):
        """Published papers of published conferences."""
        return self.filter(published_q())

    def with_authors(self):
        """Papers with their authors in order (two queries however many papers), in
        ``ordered_authorships`` (see ``authorships_in_order``)."""
        return self.prefetch_related(authorships_in_order())

    def for_detail(self):
        """Everything the paper page shows, in a fixed number of queries (the
        prefetches of :func:`paper_detail_prefetches`)."""
        return self.select_related("conference__venue").prefetch_related(*paper_detail_prefetches())

    def published_without_award_at(self, conference):
        """Papers published at ``conference`` that no published award of that conference
        went to (whether the conference itself is published or not: a preview).

        For ICML 2025 these are the other papers we feature; for ICML 2015 the
        papers honoured ten years later. In title order, without the long columns;
        catalogue/listing.py's ``PageLists`` adds their authors, links and awards.
        """
        return (
            self.filter(conference=conference)
            # The papers awarded at this conference: a short list, computed once (a
            # correlated EXISTS would be evaluated per paper). Only the award's status
            # is asked: the paper's and the conference's are this queryset's own
            # filters, and joining the papers again here made SQLite read every
            # published paper for the list (about 0.2 s at 5,000 papers, twice a page).
            .exclude(
                pk__in=AwardEntry.objects.filter(
                    award__conference=conference, award__status=Status.PUBLISHED
                ).values("paper_id")
            )
            .defer(*unlisted_paper_fields())
            .order_by("title_en", "slug")
        )

    def search(self, text):
        """Papers matching every word of ``text``, ignoring case and accents.

        A word matches as a substring (so a Chinese phrase such as 共形预测 needs no
        spaces) of the paper's title, abstract or summary in either language, of an
        author's name or other names, or of an affiliation's name in either language:
        the paper's folded ``match_text`` (catalogue/search.py). Words are separated
        by white space; at most ``SEARCH_MAX_WORDS`` are used. An empty ``text``
        matches every paper.
        """
        return self.search_words(search.words(text)[:SEARCH_MAX_WORDS])

    def search_words(self, words):
        """Papers matching every one of ``words``, already folded (``search.words()``):
        ``search()`` after its reading of the text."""
        matches = self
        if words:
            # Always true: it lets SQLite use the partial index of the matched text,
            # which no other query uses (catalogue/migrations/0019_paper_match_text.py).
            matches = matches.filter(match_text__isnull=False)
        for word in words:
            # One column holding the paper's text and its authors' and institutions'
            # (``match_text``): a search is one scan, with no join to the authors.
            matches = matches.filter(match_text__contains=word)
        return matches

    def in_search_order(self):
        """The search page's order of results: the newest conference year first, then
        by English title (the key that is never empty), then by key."""
        return self.order_by("-conference__year", "title_en", "pk")

    def listed_at(self, conference=None, year=None):
        """Papers a conference page lists: published at it or awarded (published) by it.

        ``conference`` is a slug, ``year`` a conference year; ``None`` leaves either open.
        """
        published_at, awarded_at = Q(), Q()
        if conference is not None:
            published_at &= Q(conference__slug=conference)
            awarded_at &= Q(award__conference__slug=conference)
        if year is not None:
            published_at &= Q(conference__year=year)
            awarded_at &= Q(award__conference__year=year)
        awarded = AwardEntry.objects.published().filter(awarded_at).values("paper")
        return self.filter(published_at | Q(pk__in=awarded))

    def with_award(self, slug):
        """Papers with a published entry in an award series (an award ``slug``, any year)."""
        return self.filter(
            pk__in=AwardEntry.objects.published().filter(award__slug=slug).values("paper")
        )

    def for_citation(self):
        """Papers with what a citation needs: conference, venue, authors in order, links."""
        return self.select_related("conference__venue").with_authors().prefetch_related("links")

    def for_listing(self):
        """Papers with their conference, without the long columns no list shows, for a
        list of results: catalogue/listing.py's ``PageLists`` adds authors, links, awards."""
        return self.select_related("conference").defer(*unlisted_paper_fields())


SEARCH_MAX_WORDS = 10


class Paper(NaturalKeyMixin, DerivedColumnsMixin, SlugFromTitleMixin, models.Model):
    """A published paper: its translated title, abstract and summary, and links."""

    slug_source = "title_en"
    slug_fallback = "paper"

    slug = AsciiSlugField(_("slug"), max_length=120, unique=True, blank=True, help_text=SLUG_HELP)
    # Rendered with their TeX maths (catalogue/mathtext.py), whose limits the validators keep.
    title = text.CharField(_("title"), max_length=400, validators=[MathLimitsValidator(_("Title"))])
    abstract = text.TextField(
        _("abstract"), blank=True, validators=[MathLimitsValidator(_("Abstract"))]
    )
    summary = text.TextField(
        _("summary"),
        blank=True,
        help_text=_("An introduction for a general reader; may be longer than the abstract."),
        validators=[MathLimitsValidator(_("Summary"))],
    )
    conference = models.ForeignKey(
        "papers.Conference",
        on_delete=models.PROTECT,
        related_name="papers",
        verbose_name=_("published at"),
        help_text=_("The conference whose proceedings published the paper."),
    )
    pages = text.CharField(
        _("pages"), max_length=30, blank=True, help_text=_("In the proceedings, e.g. 448-456.")
    )
    image = models.ImageField(_("teaser image"), upload_to="papers/", blank=True)
    image_alt = text.CharField(
        _("image description"),
        max_length=300,
        blank=True,
        help_text=_("Alternative text for readers who cannot see the image."),
    )
    status = status_field()
    authors = models.ManyToManyField(
        "papers.Author",
        through="papers.Authorship",
        related_name="papers",
        verbose_name=_("authors"),
    )
    lead = models.TextField(
        _("lead"),
        blank=True,
        default="",
        editable=False,
        help_text=_("The first sentence of the summary or abstract, shown in lists."),
    )
    search_text = search_text_field()
    # What a search matches: the paper's search text with its authors' and their
    # institutions' (catalogue/search.py, kept in step by ``search.refresh_match_texts``).
    match_text = models.TextField(_("matched text"), blank=True, default="", editable=False)

    objects = PaperQuerySet.as_manager()
    search_sources = ("title", "abstract", "summary")
    derived_columns = (search.SEARCH_TEXT, leads.LEAD)

    class Meta:
        verbose_name = _("paper")
        verbose_name_plural = _("papers")
        ordering = ["slug"]
        indexes = [
            # A conference page's list of other papers (published_without_award_at):
            # the database walks this index in title order and stops at the page's end,
            # and counts from it alone, instead of sorting every paper of the
            # conference (20 ms of 5,000 papers on SQLite, to 0.5 ms; the count 15 to 6).
            models.Index(
                fields=["conference", "status", "title_en", "slug"], name="paper_listing_order"
            ),
        ]

    def __str__(self):
        return self.title_en or self.slug

    def get_absolute_url(self):
        return reverse("papers:paper-detail", kwargs={"slug": self.slug})

    def clean(self):
        """An image needs a description in every language (screen readers read it)."""
        super().clean()
        if self.image:
            missing = {
                field: ValidationError(
                    _("Describe the image for readers who cannot see it."), code="alt_text_missing"
                )
                for field in languages.columns("image_alt")
                if not (getattr(self, field) or "").strip()
            }
            if missing:
                raise ValidationError(missing)

    @property
    def ordered_authorships(self):
        """The authorships in author order: the list ``authorships_in_order`` prefetched,
        else from the prefetch cache of ``authorships`` when present."""
        prefetched = getattr(self, AUTHORSHIPS_IN_ORDER, None)
        if prefetched is not None:
            return prefetched
        return sorted(self.authorships.all(), key=lambda authorship: authorship.position)


class AuthorshipQuerySet(NaturalKeyQuerySet):
    # Positions stay far below this (PositiveSmallIntegerField allows up to 32767).
    POSITION_OFFSET = 10_000

    def move_aside(self):
        """Add POSITION_OFFSET to these authorships' positions, in one UPDATE.

        The one way to renumber authors (the admin's formset, restoring a version, the
        importer): original positions are distinct per paper, so the shifted ones are
        too, and none can meet a final position; the rows can then be given their new
        positions without breaking the paper-and-position unique constraint. Returns
        the number of rows moved.
        """
        return self.update(position=models.F("position") + self.POSITION_OFFSET)

    def moved_aside(self):
        """Those of these authorships that are still moved aside (see ``move_aside``)."""
        return self.filter(position__gte=self.POSITION_OFFSET)

    def published(self):
        """Authorships of published papers (at published conferences)."""
        return self.filter(published_q("paper__"))

    def for_author_page(self, author):
        """``author``'s authorships of published papers, newest first: the author
        page's list, whose papers catalogue/listing.py's ``AuthorPapers`` reads."""
        return self.filter(published_q("paper__"), author=author).order_by(
            "-paper__conference__year", "paper__slug"
        )

    def for_authors_pages(self, authors):
        """``for_author_page()`` of each of ``authors`` (ids) at once, by author: each
        author's authorships in that page's order. (Their papers are named by a
        subquery too: without it SQLite's planner went through every published paper,
        170 ms for 50 authors at 5,000 papers instead of about 1 ms.)"""
        papers = self.filter(author__in=authors).values("paper")
        return self.filter(published_q("paper__"), paper__in=papers, author__in=authors).order_by(
            "author_id", "-paper__conference__year", "paper__slug"
        )

    def names_in_order(self):
        """``(paper id, author name, author slug)`` of these authorships, each paper's
        in author order: what a list of papers shows of its authors, as plain rows."""
        return self.order_by("paper_id", "position").values_list(
            "paper_id", "author__name", "author__slug"
        )


class Authorship(NaturalKeyMixin, models.Model):
    """An author's place on a paper, with the affiliations given on that paper."""

    paper = models.ForeignKey(
        "papers.Paper",
        on_delete=models.CASCADE,
        related_name="authorships",
        verbose_name=_("paper"),
    )
    author = models.ForeignKey(
        "papers.Author",
        on_delete=models.PROTECT,
        related_name="authorships",
        verbose_name=_("author"),
    )
    position = models.PositiveSmallIntegerField(
        _("position"), help_text=_("1 for the first author, 2 for the second, and so on.")
    )
    affiliations = models.ManyToManyField(
        "papers.Institution",
        through="papers.Affiliation",
        blank=True,
        related_name="authorships",
        verbose_name=_("affiliations"),
    )

    objects = AuthorshipQuerySet.as_manager()
    natural_key_fields = ("paper", "author")
    # (group, number): positions run 1, 2, 3, ... within each paper, without gaps. The
    # admin's drag and drop renumbers them; the importer checks a file's against it.
    numbering = ("paper", "position")

    class Meta:
        verbose_name = _("authorship")
        verbose_name_plural = _("authorships")
        ordering = ["paper", "position"]
        constraints = [
            models.UniqueConstraint(
                fields=["paper", "position"],
                name="authorship_unique_position",
                violation_error_message=_("Another author of this paper has this position."),
            ),
            models.UniqueConstraint(fields=["paper", "author"], name="authorship_unique_author"),
            models.CheckConstraint(
                condition=Q(position__gte=1),
                name="authorship_position_from_1",
                violation_error_message=_("Author positions start at 1."),
            ),
        ]
        indexes = [
            # A person's papers, from the author's side: the author page's count, list,
            # institutions and co-authors. Without it SQLite (which has no statistics)
            # started from every published paper and looked for the author on each:
            # 12 ms of the benchmark's author page in those queries, 0.4 ms with it.
            models.Index(fields=["author", "paper"], name="authorship_author_paper"),
        ]

    def __str__(self):
        try:
            author = self.author
        except Author.DoesNotExist:
            # An authorship being recovered with its paper (the admin's recover form)
            # may name an author deleted since: say so rather than fail the page.
            author = _("deleted author #%(id)s") % {"id": self.author_id}
        return f"{author} ({self.position})"

    def set_affiliations(self, institutions):
        """Make ``institutions`` (in order, first listed first) this authorship's affiliations."""
        self.affiliation_rows.exclude(institution__in=institutions).delete()
        current = {row.institution_id: row for row in self.affiliation_rows.all()}
        for position, institution in enumerate(institutions, start=1):
            row = current.get(institution.pk) or Affiliation(
                authorship=self, institution=institution
            )
            if row.pk is None or row.position != position:
                row.position = position
                row.save()


class Affiliation(models.Model):
    """One institution of an authorship, in the order the paper lists them (first first)."""

    authorship = models.ForeignKey(
        "papers.Authorship",
        on_delete=models.CASCADE,
        related_name="affiliation_rows",
        verbose_name=_("authorship"),
    )
    institution = models.ForeignKey(
        "papers.Institution",
        on_delete=models.PROTECT,
        related_name="affiliation_rows",
        verbose_name=_("institution"),
    )
    position = models.PositiveSmallIntegerField(
        _("position"),
        default=0,
        help_text=_("Order among the author's affiliations on this paper, lowest first."),
    )

    class Meta:
        verbose_name = _("affiliation")
        verbose_name_plural = _("affiliations")
        # No unique position: the order is the point, ties fall back to the order of entry.
        ordering = ["authorship", "position", "pk"]
        constraints = [
            models.UniqueConstraint(
                fields=["authorship", "institution"], name="affiliation_unique_institution"
            ),
        ]

    def __str__(self):
        return f"{self.authorship}: {self.institution}"


# Where ``authorships_in_order`` puts a paper's authorships (``Paper.ordered_authorships``).
AUTHORSHIPS_IN_ORDER = "prefetched_authorships"


def authorships_in_order(lookup="authorships"):
    """A Prefetch of papers' authorships with their authors, by position, into a plain
    list that ``Paper.ordered_authorships`` returns (``lookup`` reaches the paper's
    authorships through a relation, as ``"paper__authorships"``).

    A list (``to_attr``) rather than the related manager's cache, for which Django
    builds a filtered queryset for every paper; ``paper.authorships.all()`` then
    queries again, so lists read ``ordered_authorships``. The authors' long columns
    that no list shows (search text, other names) are left out: with the list this
    took about a tenth off the conference page's queries and objects (600 authors
    for 150 papers at the benchmark's size, benchmarks/server_time.py).
    """
    return Prefetch(
        lookup,
        queryset=Authorship.objects.select_related("author")
        .defer("author__search_text", "author__other_names")
        .order_by("position"),
        to_attr=AUTHORSHIPS_IN_ORDER,
    )


def authorships_with_affiliations():
    """A Prefetch of a paper's authorships (its related manager's cache) in author
    order, each with its author and its institutions in the order the paper lists
    them: what a paper page and the API show of its authors."""
    return Prefetch(
        "authorships",
        queryset=Authorship.objects.select_related("author")
        .prefetch_related(affiliations_in_order())
        .order_by("position"),
    )


def affiliations_in_order(lookup="affiliations"):
    """A Prefetch of an authorship's institutions in the order the paper lists them.

    Prefetching ``"affiliations"`` alone would give Institution's own order (by slug).
    """
    return Prefetch(
        lookup,
        queryset=Institution.objects.order_by("affiliation_rows__position", "affiliation_rows__pk"),
    )


class PaperLink(NaturalKeyMixin, models.Model):
    """A typed external link of a paper: its proceedings, arXiv, code, dataset, video, ..."""

    class Kind(models.TextChoices):
        # Declaration order is the order links are shown in.
        PMLR = "pmlr", _("PMLR proceedings")
        PROCEEDINGS = "proceedings", _("Proceedings")
        OPENREVIEW = "openreview", _("OpenReview")
        ARXIV = "arxiv", _("arXiv")
        POSTER = "poster", _("Conference poster page")
        PDF = "pdf", _("PDF")
        DOI = "doi", _("DOI")
        PROJECT = "project", _("Project page")
        CODE = "code", _("Code")
        DATASET = "dataset", _("Dataset")
        VIDEO = "video", _("Video")
        SLIDES = "slides", _("Slides")

    paper = models.ForeignKey(
        "papers.Paper", on_delete=models.CASCADE, related_name="links", verbose_name=_("paper")
    )
    kind = models.CharField(_("kind"), max_length=20, choices=Kind.choices)
    url = models.URLField(_("URL"), max_length=500)

    objects = NaturalKeyQuerySet.as_manager()
    natural_key_fields = ("paper", "kind")

    class Meta:
        verbose_name = _("link")
        verbose_name_plural = _("links")
        ordering = ["paper", "kind"]
        constraints = [
            models.UniqueConstraint(fields=["paper", "kind"], name="paperlink_unique_kind"),
        ]

    def __str__(self):
        return f"{self.get_kind_display()}: {self.url}"

    def get_kind_display(self):
        """The kind's label in the active language, or the stored value for an unknown kind.

        Django's own ``get_FOO_display()`` builds a dict of every choice on each call,
        a tenth of the link list's time on a page of 150 papers; this is the same answer
        from the enum's own lookup.
        """
        return self.kind_label(self.kind)

    @classmethod
    def kind_label(cls, kind):
        """The label of ``kind`` in the active language, or ``kind`` itself when unknown."""
        try:
            return str(cls.Kind(kind).label)
        except ValueError:
            return kind

    @property
    def sort_key(self):
        """The kind's place in ``Kind`` (declaration order is display order)."""
        return KIND_ORDER.get(self.kind, len(KIND_ORDER))


KIND_ORDER = {kind: position for position, kind in enumerate(PaperLink.Kind.values)}


class AwardQuerySet(NaturalKeyQuerySet):
    def published(self):
        """Published awards of published conferences."""
        return self.filter(published_q())

    def series(self, venue_slug, slug):
        """Every edition of one award at one venue (the same ``slug``), newest first."""
        return self.filter(conference__venue__slug=venue_slug, slug=slug).order_by(
            "-conference__year", "-conference__start_date"
        )

    def with_entry_count(self):
        """Awards with ``entry_count``: their entries whose paper is published."""
        return self.annotate(entry_count=Count("entries", filter=published_q("entries__paper__")))

    def with_conference(self):
        """Awards with their conference and venue (their addresses and titles name them)."""
        return self.select_related("conference__venue")

    def for_detail(self):
        """Awards with their conference and published entries (authors in order)."""
        return self.with_conference().prefetch_related(
            Prefetch("entries", queryset=AwardEntry.objects.published().for_award())
        )


class Award(NaturalKeyMixin, SlugFromTitleMixin, models.Model):
    """An award given at a conference, such as the ICML 2025 Test of Time Award.

    The same ``slug`` at every edition of a venue makes an award series.
    """

    slug_source = "name_en"
    slug_fallback = "award"

    conference = models.ForeignKey(
        "papers.Conference",
        on_delete=models.PROTECT,
        related_name="awards",
        verbose_name=_("awarded at"),
    )
    slug = AsciiSlugField(
        _("slug"),
        max_length=80,
        blank=True,
        help_text=_(
            "The same slug at every edition links the years of one award. "
            "Leave blank to make one from the English name."
        ),
    )
    name = text.CharField(_("name"), max_length=200)
    description = text.TextField(_("description"), blank=True)
    position = models.PositiveSmallIntegerField(
        _("position"), default=0, help_text=_("Order on the conference page, lowest first.")
    )
    status = status_field()
    announced_on = models.DateField(
        _("announcement date"),
        null=True,
        blank=True,
        help_text=_(
            "The day the award was announced, as the conference published it. The awards "
            "feed dates the award by it; leave it empty when no source gives the day."
        ),
    )
    papers = models.ManyToManyField(
        "papers.Paper",
        through="papers.AwardEntry",
        related_name="awards",
        verbose_name=_("papers"),
    )

    objects = AwardQuerySet.as_manager()
    natural_key_fields = ("conference", "slug")

    class Meta:
        verbose_name = _("award")
        verbose_name_plural = _("awards")
        ordering = ["conference", "position", "slug"]
        constraints = [
            models.UniqueConstraint(fields=["conference", "slug"], name="award_unique_slug"),
        ]

    def __str__(self):
        return f"{self.conference}: {self.name_en}"

    def get_absolute_url(self):
        return reverse(
            "papers:award-detail",
            kwargs={"conference_slug": self.conference.slug, "slug": self.slug},
        )

    def slug_scope(self):
        return {"conference_id": self.conference_id}

    def get_series_url(self):
        """The page of every edition of this award at the venue (see the class docstring)."""
        return reverse(
            "papers:award-series",
            kwargs={"venue_slug": self.conference.venue.slug, "slug": self.slug},
        )


class AwardLevel(NaturalKeyMixin, SlugFromTitleMixin, models.Model):
    """A rank an award gives, such as winner, runner-up or honourable mention.

    Each award declares its own levels; ``position`` orders them, the lowest (the top
    level) first: on every page, in feeds and citations. A slug left blank is made from
    the English name, unique within the award (``SlugFromTitleMixin``).
    """

    slug_source = "name_en"
    slug_fallback = "level"

    award = models.ForeignKey(
        "papers.Award", on_delete=models.CASCADE, related_name="levels", verbose_name=_("award")
    )
    slug = AsciiSlugField(
        _("slug"),
        max_length=50,
        blank=True,
        help_text=_(
            "The level's key, e.g. winner or runner-up. "
            "Leave blank to make one from the English name."
        ),
    )
    name = text.CharField(
        _("name"), max_length=100, help_text=_("For one paper, e.g. Honourable mention.")
    )
    name_plural = text.CharField(
        _("name for several papers"),
        max_length=100,
        help_text=_("For two papers or more, e.g. Honourable mentions."),
    )
    position = models.PositiveSmallIntegerField(
        _("position"), default=0, help_text=_("Order within the award, the top level lowest.")
    )

    objects = NaturalKeyQuerySet.as_manager()
    natural_key_fields = ("award", "slug")

    class Meta:
        verbose_name = _("award level")
        verbose_name_plural = _("award levels")
        ordering = ["award", "position", "slug"]
        constraints = [
            models.UniqueConstraint(fields=["award", "slug"], name="awardlevel_unique_slug"),
        ]

    def __str__(self):
        return f"{self.award}: {self.name_en}"

    def slug_scope(self):
        return {"award_id": self.award_id}


def _levels_above():
    """The levels of an award entry's award above the entry's level (a lower position),
    for a subquery of an AwardEntry query."""
    return AwardLevel.objects.filter(
        award=OuterRef("award_id"), position__lt=OuterRef("level__position")
    )


def _level_rank():
    """An AwardEntry query's ``level_rank``: how many of the award's levels come before
    the entry's (0 for the top level)."""
    rank = _levels_above().order_by().values("award").annotate(n=Count("pk")).values("n")
    return Coalesce(Subquery(rank), 0)


class AwardEntryQuerySet(NaturalKeyQuerySet):
    def published(self):
        """Entries whose award and paper are both published."""
        return self.filter(published_q("award__"), published_q("paper__"))

    def in_level_order(self):
        """Entries in the award's order: by level (the top level first), then position.

        ``is_top_level`` is annotated: true for entries of their award's top level
        (the one with the lowest position), which badges show without the level's name.
        ``level_rank`` is the number of the award's levels above the entry's (0 for the
        top level, 1 for the next, ...): badges take their colour and icon from it.
        """
        return (
            self.select_related("level")
            .annotate(is_top_level=~Exists(_levels_above()), level_rank=_level_rank())
            .order_by(*AwardEntry.LEVEL_ORDER)
        )

    def for_award(self):
        """Entries with their levels, papers and ordered authors: the top level first."""
        return (
            self.in_level_order()
            .select_related("paper__conference")
            .defer(*unlisted_paper_fields("paper__"))
            .prefetch_related(authorships_in_order("paper__authorships"), "paper__links")
        )

    def with_level_rank(self):
        """Entries with ``level_rank`` as ``in_level_order()`` annotates it (how many of
        the award's levels come before the entry's), without its ``is_top_level`` and
        ``select_related()``: for ``values()`` of entry, award, level and paper columns
        (catalogue/listing.py). A subquery per entry, looked up by the award's index: a
        count over a join to the levels grouped the rows by every selected column, which
        took SQLite twice as long for a conference page's 100 entries."""
        return self.annotate(level_rank=_level_rank())

    def for_paper(self):
        """Entries with their award, level and the conference that gave it."""
        return (
            self.in_level_order()
            .select_related("award__conference")
            .order_by(*AwardEntry.PAPER_ORDER)
        )


class AwardEntry(NaturalKeyMixin, models.Model):
    """One paper's place in an award, at one of the award's levels."""

    # The one order of an award's entries: by level (the top level first), then by
    # position within the level. Pages, feeds and citations use it.
    LEVEL_ORDER = ("level__position", "level__slug", "position", "paper__slug")
    # The order of a paper's entries: the newest conference first, then the award's
    # place on its conference page and the level's.
    PAPER_ORDER = (
        "-award__conference__year",
        "award__position",
        "award__slug",
        "level__position",
        "level__slug",
    )

    award = models.ForeignKey(
        "papers.Award", on_delete=models.CASCADE, related_name="entries", verbose_name=_("award")
    )
    paper = models.ForeignKey(
        "papers.Paper",
        on_delete=models.PROTECT,
        related_name="award_entries",
        verbose_name=_("paper"),
    )
    # RESTRICT, not PROTECT: a level in use cannot be deleted on its own, but deleting
    # the award deletes its levels and entries together.
    level = models.ForeignKey(
        "papers.AwardLevel",
        on_delete=models.RESTRICT,
        related_name="entries",
        verbose_name=_("level"),
        help_text=_("One of the award's own levels."),
    )
    position = models.PositiveSmallIntegerField(
        _("position"), default=0, help_text=_("Order within the same level, lowest first.")
    )

    objects = AwardEntryQuerySet.as_manager()
    natural_key_fields = ("award", "paper")

    class Meta:
        verbose_name = _("award entry")
        verbose_name_plural = _("award entries")
        ordering = ["award", "level__position", "position"]
        constraints = [
            models.UniqueConstraint(fields=["award", "paper"], name="awardentry_unique_paper"),
        ]

    def __str__(self):
        return f"{self.award}: {self.paper} ({self.level.name_en})"

    def clean(self):
        """The level must be one of this award's levels.

        Compares the objects, not only their ids, so that it also holds for unsaved
        ones (the importer checks a file's new award and levels before writing them).
        """
        super().clean()
        try:
            award, level = self.award, self.level
        except ObjectDoesNotExist:  # left empty: the fields' own checks say so
            return
        if level.award != award:
            if award.pk is None:  # a new award: no levels to list yet
                error = ValidationError(
                    _("This level belongs to another award."), code="level_of_other_award"
                )
            else:
                levels = ", ".join(award.levels.values_list("slug", flat=True))
                error = ValidationError(
                    _("This level belongs to another award; this award's levels are: %(levels)s."),
                    code="level_of_other_award",
                    params={"levels": levels or "–"},
                )
            raise ValidationError({"level": error})


class ImportRecord(models.Model):
    """What the last ``import_conference`` set on one object, field by field.

    The importer compares it with the database to tell an editor's change (keep it)
    from a change in the fixture (apply it). Not a fixture model: never exported.
    """

    model = models.CharField(_("model"), max_length=50)
    key = models.CharField(
        _("natural key"), max_length=400, help_text=_("The object's natural key as a JSON list.")
    )
    values = models.JSONField(_("imported values"), default=dict)
    source = models.CharField(_("source file"), max_length=400, blank=True)
    imported_at = models.DateTimeField(_("imported at"), auto_now=True)

    class Meta:
        verbose_name = _("import record")
        verbose_name_plural = _("import records")
        ordering = ["model", "key"]
        # Bookkeeping of the import command, not content: no admin, no permissions
        # (so the Editors group, which gets every papers permission, is unchanged).
        default_permissions = ()
        constraints = [
            models.UniqueConstraint(fields=["model", "key"], name="importrecord_unique_key"),
        ]

    def __str__(self):
        return f"{self.model} {self.key}"


# The one row of ContentGeneration.
GENERATION_ID = 1


class ContentGenerationQuerySet(models.QuerySet):
    """The vocabulary of the one ``ContentGeneration`` row."""

    def current(self):
        """The current number (0 before the first change): one query.

        Plain SQL (Django's ``connection.cursor()``) rather than the ORM: it runs for
        every page the page cache serves, where building the ORM's query more than
        doubled a hit's CPU time, 0.19 ms to 0.42 ms against a trivial view's 0.20 ms
        (benchmarks/server_time.py); issue 28 asks a hit for at least half the trivial
        view's rate (pagecache/caching.py).
        """
        connection = connections[self.db]
        table = connection.ops.quote_name(self.model._meta.db_table)
        with connection.cursor() as cursor:
            # The table name is quoted by the backend; the row's key is a parameter.
            cursor.execute(f"SELECT number FROM {table} WHERE id = %s", [GENERATION_ID])  # nosec B608
            row = cursor.fetchone()
        return row[0] if row else 0

    def advance(self):
        """Raise the number by one, in the caller's transaction: it is seen together with
        the change it announces, and not at all if that change is rolled back. Makes the
        row if it is missing. Returns None."""
        rows = self.filter(pk=GENERATION_ID)
        if not rows.update(number=F("number") + 1):
            with transaction.atomic(using=self.db):
                _row, created = self.get_or_create(pk=GENERATION_ID, defaults={"number": 1})
            if not created:  # another process made the row in the meantime
                rows.update(number=F("number") + 1)

    def wait_for_other_writers(self):
        """Inside a transaction on a database with ``SELECT ... FOR UPDATE`` (PostgreSQL),
        lock the content generation's row until this transaction ends, after any other
        transaction holding it (one that raised the generation, or called this) has
        ended. Elsewhere (autocommit, SQLite, whose settings start every transaction with
        ``BEGIN IMMEDIATE`` and so serialise writers already) nothing, and no query.
        Returns None. The database is the QuerySet's (``using()``).

        For work that reads rows other transactions may be changing and writes what it
        concludes (catalogue/published_authors.py): after this, on READ COMMITTED, each of
        its statements sees every such transaction that committed before, so two of them
        cannot each conclude from the other's old rows. A content change raises the
        generation (:meth:`advance`, whose ``UPDATE`` holds the same lock) anyway, so this
        orders only what was ordered loosely, never a reader.
        """
        database = transaction.get_connection(self.db)
        if not (database.in_atomic_block and database.features.has_select_for_update):
            return
        self.select_for_update().filter(pk=GENERATION_ID).exists()


class ContentGeneration(models.Model):
    """A counter raised by every change to what the public pages show (pagecache/).

    One row. Each cached page's key holds the number current when it was made, so
    raising it retires every cached page at once, in every app server, as soon as the
    change commits. Bookkeeping, not content: no admin, no permissions.
    """

    number = models.PositiveBigIntegerField(_("number"), default=0)

    objects = ContentGenerationQuerySet.as_manager()

    class Meta:
        verbose_name = _("content generation")
        verbose_name_plural = _("content generations")
        ordering = ["pk"]
        default_permissions = ()

    def __str__(self):
        return str(self.number)
