"""Public pages. Each view's queryset comes from the model's QuerySet vocabulary,
so every page runs a fixed number of queries however many papers it lists, and
shows only published items (an unpublished or unknown slug is a 404).

Editors preview a draft by adding ``?preview=1`` to its address (the admin's "View on
site" does): see ``PreviewMixin``."""

from django.db.models import Prefetch
from django.utils.cache import patch_cache_control
from django.views.generic import DetailView, ListView

from .models import Author, Award, AwardEntry, Conference, Paper, Status


class PreviewMixin:
    """``?preview=1`` shows a draft conference, award or paper to staff who may view it.

    Only an active staff user with the model's view permission gets a preview; anyone
    else gets the public page (a 404 for a draft). In preview the object is shown
    whatever its status (and its conference's), with the lists in it as visitors will
    see them once it is published; the page is bannered (``preview`` in the context),
    marked ``noindex``, and never stored by a shared cache.
    """

    preview_parameter = "preview"

    def dispatch(self, request, *args, **kwargs):
        user = request.user
        self.preview = (
            self.preview_parameter in request.GET
            and user.is_active
            and user.is_staff
            and user.has_perm(f"{self.model._meta.app_label}.view_{self.model._meta.model_name}")
        )
        response = super().dispatch(request, *args, **kwargs)
        if self.preview:
            patch_cache_control(response, private=True, no_store=True, max_age=0)
            response["X-Robots-Tag"] = "noindex, nofollow"
        return response

    def get_context_data(self, **kwargs):
        return super().get_context_data(preview=self.preview, **kwargs)


def previewed_entries():
    """Award entries as visitors will see them once their award is published."""
    return AwardEntry.objects.filter(paper__status=Status.PUBLISHED).for_award()


class HomeView(ListView):
    """The conferences, newest first, each with its awards."""

    template_name = "papers/home.html"
    context_object_name = "conferences"

    def get_queryset(self):
        return Conference.objects.published().for_listing().newest_first()


class ConferenceDetailView(PreviewMixin, DetailView):
    """A conference's awards, winners before honourable mentions. 404 for an unknown slug."""

    model = Conference

    def get_queryset(self):
        conferences = Conference.objects.select_related("venue")
        return conferences if self.preview else conferences.published()

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        if self.preview:
            context["awards"] = (
                Award.objects.filter(conference=self.object, status=Status.PUBLISHED)
                .select_related("conference__venue")
                .prefetch_related(Prefetch("entries", queryset=previewed_entries()))
            )
            papers = Paper.objects.filter(status=Status.PUBLISHED)
        else:
            context["awards"] = (
                Award.objects.published().filter(conference=self.object).for_detail()
            )
            papers = Paper.objects.published()
        context["other_papers"] = papers.published_without_award_at(self.object)
        return context


class AwardDetailView(PreviewMixin, DetailView):
    """One award at one conference: its description and its papers. 404 when unknown."""

    model = Award

    def get_queryset(self):
        awards = Award.objects.filter(conference__slug=self.kwargs["conference_slug"])
        if self.preview:
            return awards.select_related("conference__venue").prefetch_related(
                Prefetch("entries", queryset=previewed_entries())
            )
        return awards.published().for_detail()


class PaperDetailView(PreviewMixin, DetailView):
    """A paper: authors with affiliations, abstract, summary, links and awards. 404 when unknown."""

    model = Paper

    def get_queryset(self):
        papers = Paper.objects.for_detail()
        return papers if self.preview else papers.published()


class AuthorDetailView(DetailView):
    """A person's papers, newest first, with the awards each received. 404 when unknown."""

    model = Author

    def get_queryset(self):
        return Author.objects.published().for_detail()
