"""Links between the pages of a list (papers/paging.py)."""

from django import template

from ..paging import page_url as _page_url

register = template.Library()


@register.simple_tag(takes_context=True)
def page_url(context, number):
    """The address of page ``number`` (an int from 1) of the list the page shows: the
    list's own address for page 1, its ``page/<number>/`` path for the others, with the
    request's query string less any ``page`` (see papers.paging.page_url)."""
    return _page_url(context["request"], number)
