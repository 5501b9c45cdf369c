"""Links between the pages of a list (pages/paging.py)."""

from django import template

from pages import paging

register = template.Library()

# {% page_url request number %}: the address of page ``number`` (an int from 1) of the
# list the page shows, with the request's query string less any ``page``.
register.simple_tag(paging.page_url, name="page_url")


@register.filter
def list_name(url_name):
    """The URL name of a list's first page for that of any of its pages
    (``"author-list-page"`` gives ``"author-list"``), as the header's sections compare it."""
    return url_name.removesuffix(paging.PAGE_SUFFIX) if url_name else url_name
