"""Links between the pages of a list (pages/paging.py)."""

from django import template

from pages.paging import PAGE_SUFFIX
from pages.paging import page_url as _page_url

register = template.Library()


@register.simple_tag(takes_context=True)
def page_url(context, number):
    """The address of page ``number`` (an int from 1) of the list the page shows: the
    list's own address for page 1, its ``page/<number>/`` path for the others, with the
    request's query string less any ``page`` (see pages.paging.page_url)."""
    return _page_url(context["request"], number)


@register.filter
def list_name(url_name):
    """The URL name of a list's first page for the name of any of its pages
    (``"author-list-page"`` gives ``"author-list"``; other names are kept), as the
    header's sections compare it."""
    return url_name.removesuffix(PAGE_SUFFIX) if url_name else url_name
