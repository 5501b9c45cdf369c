"""The pages of one object or one conference: home, venue, conference, award, award
series, paper, author."""

from django.views import generic

from awardsite.addresses import absolute_url
from catalogue import listing
from catalogue.models import Author, Award, AwardKind, Conference, Institution, Paper, Venue
from pages.citation_styles import cite_panel
from pages.paging import PagePathMixin
from pages.views.common import PreviewMixin, paginate, shown_entries

# Conferences the home page shows with their awards: about a season of the field's main
# venues, so that the page does not grow with the data.
HOME_CONFERENCES = 5


class HomeView(generic.ListView):
    """The ``HOME_CONFERENCES`` most recent conferences with awards, each with its awards;
    ``more_conferences`` when there are others; ``latest_awards``: the newest conference's
    awards with their papers level by level (listing.PageLists), whose top level the
    page shows as the latest winners. Two queries without conferences, five with."""

    template_name = "papers/home.html"
    context_object_name = "conferences"

    def get_queryset(self):
        # One more than shown: whether there are others, without counting them all.
        conferences = Conference.objects.published().with_awards().newest_first()
        return conferences.with_listed_awards()[: HOME_CONFERENCES + 1]

    def get_context_data(self, **kwargs):
        conferences = list(self.object_list)
        latest_awards = []
        if conferences:
            latest = conferences[0]
            latest_awards = list(latest.listed_awards)
            for award in latest_awards:
                award.conference = latest
            lists = listing.PageLists()
            lists.awards(latest_awards, shown_entries(preview=False))
            lists.fetch()
        return super().get_context_data(
            object_list=conferences[:HOME_CONFERENCES],
            more_conferences=len(conferences) > HOME_CONFERENCES,
            latest_awards=latest_awards,
            **kwargs,
        )


class VenueDetailView(generic.DetailView):
    """A venue (a conference series) and its published editions, newest first, with
    how many awards and papers each has here. 404 when it has none."""

    model = Venue

    def get_queryset(self):
        return Venue.objects.published()

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        context["conferences"] = self.object.conferences.published().for_venue().newest_first()
        return context


class ConferenceDetailView(PagePathMixin, PreviewMixin, generic.DetailView):
    """A conference's awards in full, level by level, the top level first, then its
    other papers by title, ``LIST_PAGE_SIZE`` a page (pages/paging.py). 404 when
    unknown."""

    model = Conference

    def get_queryset(self):
        conferences = Conference.objects.select_related("venue")
        return conferences if self.preview else conferences.published()

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        conference = self.object
        # The conference's published awards (all in a preview), given the page's conference.
        awards = Award.objects.filter(conference=conference)
        if not self.preview:
            awards = awards.published(ignore_conference=True)
        awards = list(awards.order_by("position", "slug"))
        for award in awards:
            award.conference = conference
        lists = listing.PageLists()
        context["awards"] = lists.awards(awards, shown_entries(self.preview))
        # Less the papers of the awards shown above, whatever the conference's status.
        papers = Paper.objects.all()
        if not self.preview:
            papers = papers.published(ignore_conference=True)
        unawarded = papers.published_without_award_at(conference, any_status=self.preview)
        page = paginate(self.page_number, unawarded)
        context["page_obj"] = page
        context["other_papers"] = lists.papers(listing.papers(page.object_list))
        lists.fetch()
        if self.preview:
            # The conference's data downloads and API have no preview: not linked for a draft.
            context["conference_public"] = (
                Conference.objects.published().filter(pk=conference.pk).exists()
            )
        return context


class AwardDetailView(PreviewMixin, generic.DetailView):
    """One award at one conference: its description, its kind and its papers. 404 when
    unknown."""

    model = Award

    def get_queryset(self):
        awards = Award.objects.filter(conference__slug=self.kwargs["conference_slug"])
        awards = awards if self.preview else awards.published()
        return awards.with_conference().select_related("kind")

    def get_object(self, queryset=None):
        award = super().get_object(queryset)
        lists = listing.PageLists()
        lists.awards([award], shown_entries(self.preview))
        lists.fetch()
        return award

    def get_context_data(self, **kwargs):
        """The page's context; in a preview also ``series_public``: whether the award
        series page, which has no preview, exists to be linked (one query)."""
        context = super().get_context_data(**kwargs)
        if self.preview:
            award = self.object
            context["series_public"] = (
                Award.objects.published().series(award.conference.venue.slug, award.slug).exists()
            )
        return context


class AwardSeriesView(generic.ListView):
    """Every edition of one award at one venue (the same award slug), newest first,
    each with its winners and honourable mentions. 404 when no edition is published."""

    template_name = "papers/award_series.html"
    context_object_name = "awards"
    allow_empty = False

    def get_queryset(self):
        awards = (
            Award.objects.published()
            .series(self.kwargs["venue_slug"], self.kwargs["slug"])
            .with_conference()
        )
        lists = listing.PageLists()
        awards = lists.awards(awards)
        lists.fetch()
        return awards

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        context["latest"] = context["awards"][0]
        context["venue"] = context["latest"].conference.venue
        return context


class AwardKindView(generic.DetailView):
    """A kind of award (``AwardKind``, such as the test of time award) at every venue:
    its published awards, the newest conference first (``AwardQuerySet.of_kind``), each
    with its winners and honourable mentions. 404 when unknown or without a published
    award. Five queries however many awards: the kind, its awards, their entries, and
    the listed papers' authors and links."""

    model = AwardKind
    template_name = "papers/award_kind.html"
    context_object_name = "kind"

    def get_queryset(self):
        return AwardKind.objects.published()

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        awards = Award.objects.published().of_kind(self.object).with_conference()
        lists = listing.PageLists()
        context["awards"] = lists.awards(awards)
        lists.fetch()
        context["venue_count"] = len({award.conference.venue_id for award in context["awards"]})
        return context


class PaperDetailView(PreviewMixin, generic.DetailView):
    """A paper: authors with affiliations, abstract, summary, links, awards and its cite
    panel (``cite_panel``: pages/citation_styles.py). 404 when unknown."""

    model = Paper

    def get_queryset(self):
        """Published papers (any paper in a preview) with everything the page shows:
        ``Paper.objects.for_detail()``, five queries."""
        papers = Paper.objects.all() if self.preview else Paper.objects.published()
        return papers.for_detail()

    def get_context_data(self, **kwargs):
        """The page's context with ``cite_panel``, the paper's citation as text, no query."""
        context = super().get_context_data(**kwargs)
        url = absolute_url(self.object.get_absolute_url(), self.request)
        context["cite_panel"] = cite_panel(self.object, url)
        return context


# Co-authors an author page names, the most frequent first.
COAUTHORS_SHOWN = 24


class AuthorDetailView(PagePathMixin, generic.DetailView):
    """A person's papers, newest first, with their awards, ``LIST_PAGE_SIZE`` a page
    (pages/paging.py); the institutions the person gave over the years and up to
    ``COAUTHORS_SHOWN`` co-authors. 404 when unknown or without a published paper."""

    model = Author

    def get_queryset(self):
        """Authors of a published paper, with ``published_papers`` (how many)."""
        return Author.objects.published().with_published_papers()

    def get_context_data(self, **kwargs):
        """The author, ``page_obj`` (its papers), ``papers`` (listed), ``institutions``
        and ``coauthors``. Http404 for a page number past the author's last page."""
        context = super().get_context_data(**kwargs)
        author = self.object
        lists = listing.PageLists()
        page = paginate(self.page_number, listing.AuthorPapers(author, author.published_papers))
        context["page_obj"] = page
        context["papers"] = lists.papers(page.object_list, links=False)
        context["institutions"] = list(Institution.objects.of_authors([author.pk]))
        coauthors = Author.objects.coauthors_of_authors([author.pk])
        context["coauthors"] = list(coauthors[:COAUTHORS_SHOWN])
        lists.fetch()
        return context
