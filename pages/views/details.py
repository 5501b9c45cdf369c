"""The pages of one object or one conference: home, venue, conference, award, award
series, paper, author."""

from django.views import generic

from catalogue import languages, listing
from catalogue.models import Author, Authorship, Award, Conference, Institution, Paper, Venue
from pages.paging import PagePathMixin
from pages.views.common import PreviewMixin, paginate, shown_entries

# Conferences the home page shows with their awards: about a season of the field's main
# venues, so that the page does not grow with the data.
HOME_CONFERENCES = 5


class HomeView(generic.ListView):
    """The ``HOME_CONFERENCES`` most recent conferences with awards, each with its awards;
    ``more_conferences`` when there are others. Two queries (one without conferences)."""

    template_name = "papers/home.html"
    context_object_name = "conferences"

    def get_queryset(self):
        # One more than shown: whether there are others, without counting them all.
        conferences = Conference.objects.published().with_awards().newest_first()
        return conferences.with_listed_awards()[: HOME_CONFERENCES + 1]

    def get_context_data(self, **kwargs):
        conferences = list(self.object_list)
        return super().get_context_data(
            object_list=conferences[:HOME_CONFERENCES],
            more_conferences=len(conferences) > HOME_CONFERENCES,
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
        # The conference's published awards, each given the page's conference.
        awards = Award.objects.published(ignore_conference=True).filter(conference=conference)
        awards = list(awards.order_by("position", "slug"))
        for award in awards:
            award.conference = conference
        lists = listing.PageLists()
        context["awards"] = lists.awards(awards, shown_entries(self.preview))
        # Less the papers of the awards shown above, whatever the conference's status.
        papers = Paper.objects.published(ignore_conference=True)
        page = paginate(self.page_number, papers.published_without_award_at(conference))
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
    """One award at one conference: its description and its papers. 404 when unknown."""

    model = Award

    def get_queryset(self):
        awards = Award.objects.filter(conference__slug=self.kwargs["conference_slug"])
        return (awards if self.preview else awards.published()).with_conference()

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


class PaperDetailView(PreviewMixin, generic.DetailView):
    """A paper: authors with affiliations, abstract, summary, links and awards. 404 when unknown."""

    model = Paper

    def get_queryset(self):
        """Published papers (any paper in a preview) with everything the page shows:
        ``Paper.objects.for_detail()``, five queries."""
        papers = Paper.objects.all() if self.preview else Paper.objects.published()
        return papers.for_detail()


# Co-authors an author page names, the most frequent first.
COAUTHORS_SHOWN = 24


def author_facts(author):
    """``(papers, institutions, coauthors)`` of ``author``: how many published papers
    they wrote; the Institutions they gave on them, each with ``first_year`` and
    ``last_year``, the latest first; their co-authors on them (Authors), each with
    ``shared``, the papers together, the most frequent first. One query: the
    authorships of those papers, with their affiliations."""
    papers = Paper.objects.published().filter(authorships__author=author)
    rows = Authorship.objects.filter(paper__in=papers.values("pk")).values_list(
        "paper_id",
        "author_id",
        "author__slug",
        "author__name",
        "paper__conference__year",
        "affiliation_rows__institution__slug",
        *languages.columns("name", "affiliation_rows__institution__"),
    )
    own, together, years, names = set(), {}, {}, {}
    for paper_id, author_id, slug, name, year, institution, *institution_names in rows:
        if author_id != author.pk:
            together.setdefault((slug, name), set()).add(paper_id)
            continue
        own.add(paper_id)
        if institution is not None:
            years.setdefault(institution, set()).add(year)
            columns = languages.columns("name")
            names[institution] = dict(zip(columns, institution_names, strict=True))
    institutions = [
        _with(Institution(slug=slug, **names[slug]), first_year=min(seen), last_year=max(seen))
        for slug, seen in years.items()
    ]
    coauthors = [
        _with(Author(slug=slug, name=name), shared=len(papers))
        for (slug, name), papers in together.items()
    ]
    return (
        len(own),
        sorted(institutions, key=lambda place: (-place.last_year, -place.first_year, place.slug)),
        sorted(coauthors, key=lambda person: (-person.shared, person.slug)),
    )


def _with(obj, **attributes):
    """``obj`` given ``attributes`` (values a query annotated elsewhere)."""
    vars(obj).update(attributes)
    return obj


class AuthorDetailView(PagePathMixin, generic.DetailView):
    """A person's papers, newest first, with their awards, ``LIST_PAGE_SIZE`` a page
    (pages/paging.py); the institutions the person gave over the years and up to
    ``COAUTHORS_SHOWN`` co-authors. 404 when unknown or without a published paper.
    Six queries: the author, ``author_facts``, the page's papers and their
    affiliations, the papers' authors and award badges (catalogue/listing.py)."""

    model = Author

    def get_queryset(self):
        """Authors of a published paper."""
        return Author.objects.published()

    def get_context_data(self, **kwargs):
        """The author, ``page_obj`` (its papers), ``papers`` (listed), ``institutions``
        and ``coauthors``. Http404 for a page number past the author's last page."""
        context = super().get_context_data(**kwargs)
        author = self.object
        count, context["institutions"], coauthors = author_facts(author)
        context["coauthors"] = coauthors[:COAUTHORS_SHOWN]
        lists = listing.PageLists()
        page = paginate(self.page_number, listing.AuthorPapers(author, count))
        context["page_obj"] = page
        context["papers"] = lists.papers(page.object_list, links=False)
        lists.fetch()
        return context
