"""Public pages. Each view's queryset comes from the model's QuerySet vocabulary,
so every page runs a fixed number of queries however many papers it lists, and
shows only published items (an unpublished or unknown slug is a 404)."""

from django.views.generic import DetailView, ListView

from .models import Author, Award, Conference, Paper


class HomeView(ListView):
    """The conferences, newest first, each with its awards."""

    template_name = "papers/home.html"
    context_object_name = "conferences"

    def get_queryset(self):
        return Conference.objects.published().for_listing().newest_first()


class ConferenceDetailView(DetailView):
    """A conference's awards, winners before honourable mentions. 404 for an unknown slug."""

    model = Conference

    def get_queryset(self):
        return Conference.objects.published().select_related("venue")

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        context["awards"] = Award.objects.published().filter(conference=self.object).for_detail()
        context["other_papers"] = Paper.objects.published().published_without_award_at(self.object)
        return context


class AwardDetailView(DetailView):
    """One award at one conference: its description and its papers. 404 when unknown."""

    model = Award

    def get_queryset(self):
        return (
            Award.objects.published()
            .filter(conference__slug=self.kwargs["conference_slug"])
            .for_detail()
        )


class PaperDetailView(DetailView):
    """A paper: authors with affiliations, abstract, summary, links and awards. 404 when unknown."""

    model = Paper

    def get_queryset(self):
        return Paper.objects.published().for_detail()


class AuthorDetailView(DetailView):
    """A person's papers, newest first, with the awards each received. 404 when unknown."""

    model = Author

    def get_queryset(self):
        return Author.objects.published().for_detail()
