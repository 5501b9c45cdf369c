"""Shared by the public views: pagination, previews of drafts."""

from django.conf import settings
from django.core.paginator import InvalidPage, Paginator
from django.http import Http404
from django.utils.cache import patch_cache_control

from catalogue.models import AwardEntry, Status

# Items per page of the lists that grow with the data: a conference's papers without
# an award and an author's papers. Chosen so that the largest conference page stays
# far below 200 KB of HTML (see benchmarks/page_sizes.py for the figures).
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
    """Whether ``request`` asks for a preview (``?preview`` in its query string) of an
    object of ``model`` and may have one: an active staff user with the model's view
    permission. False for anyone else, who gets the public page (see PreviewMixin)."""
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
    """``?preview=1`` shows a draft conference, award or paper to active staff with the
    model's view permission (anyone else gets the public page: a 404 for a draft),
    whatever its status, its lists as visitors will see them once published; bannered
    (``preview`` in the context), ``noindex``, never stored by a shared cache."""

    preview_parameter = settings.PREVIEW_PARAMETER

    def dispatch(self, request, *args, **kwargs):
        self.preview = previewing(request, self.model)
        response = super().dispatch(request, *args, **kwargs)
        if self.preview:
            mark_preview(response)
        return response

    def get_context_data(self, **kwargs):
        return super().get_context_data(preview=self.preview, **kwargs)


def previewed_entries():
    """Award entries as visitors will see them once their award is published."""
    return AwardEntry.objects.filter(paper__status=Status.PUBLISHED)


def shown_entries(preview):
    """The award entries a page lists, for ``PageLists.awards()``: a preview's (see
    above), or ``None`` for the published ones."""
    return previewed_entries() if preview else None
