"""Shared by the public views: pagination, previews of drafts."""

from django.conf import settings
from django.core.paginator import InvalidPage, Paginator
from django.http import Http404
from django.utils.cache import patch_cache_control

from catalogue.models import AwardEntry
from editorial.teams import scoped

# Items per page of a conference's papers without an award and of an author's papers: the
# largest conference page stays far below 200 KB of HTML (benchmarks/page_sizes.py).
LIST_PAGE_SIZE = 50


def paginate(number, items, per_page=LIST_PAGE_SIZE):
    """Page ``number`` (an int from 1) of ``items`` as a Paginator Page; out of range a
    404, as in Django's ListView (an empty list has one, empty, first page)."""
    paginator = Paginator(items, per_page)
    try:
        return paginator.page(number)
    except InvalidPage as error:
        raise Http404(str(error)) from error


def previewing(request, model):
    """Whether ``request`` asks for a preview (``?preview``) of an object of ``model`` and
    may have one: an active staff user with the model's view permission."""
    user = request.user
    return (
        PreviewMixin.preview_parameter in request.GET
        and user.is_active
        and user.is_staff
        and user.has_perm(f"{model._meta.app_label}.view_{model._meta.model_name}")
    )


def mark_preview(response):
    """Keep ``response`` (a preview's) out of shared caches and search engines; returns it."""
    patch_cache_control(response, private=True, no_store=True, max_age=0)
    response["X-Robots-Tag"] = "noindex, nofollow"
    return response


class PreviewMixin:
    """``?preview=1`` shows a draft conference, award or paper, its lists as visitors
    will see them once published, to active staff with the model's view permission who
    edit its venue (``editorial.teams``; a 404 for another venue's; anyone else gets the
    public page: a 404 for a draft); bannered (``preview`` in the
    context), ``noindex``, never stored by a shared cache."""

    preview_parameter = settings.PREVIEW_PARAMETER

    def dispatch(self, request, *args, **kwargs):
        self.preview = previewing(request, self.model)
        response = super().dispatch(request, *args, **kwargs)
        if self.preview:
            mark_preview(response)
        return response

    def get_object(self, queryset=None):
        """The view's object; in a preview, among those of the editor's venues."""
        if self.preview and queryset is None:
            queryset = scoped(self.get_queryset(), self.request.user)
        return super().get_object(queryset)

    def get_context_data(self, **kwargs):
        return super().get_context_data(preview=self.preview, **kwargs)


def shown_entries(preview):
    """The award entries a page lists, for ``PageLists.awards()``: in a preview, every
    entry, its paper and that paper's conference in any status (a conference imported as
    a draft brings its papers, and a Test-of-Time award's earlier editions, as drafts:
    the banner says drafts are not public yet); else ``None``, the published ones."""
    return AwardEntry.objects.all() if preview else None
