"""Pages of a long list at paths of their own: ``.../page/2/``, not ``...?page=2``, so
that a static host, which ignores the query string, can serve each page as a file.

Page 1 is the list's own address; page N > 1 adds ``page/<N>/``, under the list's URL
name followed by :data:`PAGE_SUFFIX`. :func:`paged` makes the two patterns,
:class:`PagePathMixin` reads the number and redirects other addresses to the canonical
one, :func:`page_url` links another page. (The search, not published, keeps ``?page=``.)
"""

from django.http import Http404, HttpResponsePermanentRedirect
from django.urls import path, register_converter, reverse

# The URL name of page N of a list: the list's URL name followed by this.
PAGE_SUFFIX = "-page"
# The URL keyword argument (in old links, the query parameter) of the page number.
PAGE_KWARG = "page"


class PageNumberConverter:
    """A page number as a path segment: a whole number from 1 without leading zeros, so
    that each page has one address (``page/02/`` and ``page/0/`` are 404s)."""

    regex = "[1-9][0-9]*"

    def to_python(self, value):
        return int(value)

    def to_url(self, value):
        return str(value)


# Registered once, here, for every URLconf that imports this module.
register_converter(PageNumberConverter, "page_number")


def paged(route, view, name):
    """The URL patterns of a paginated page: ``route`` (ending with a slash; page 1)
    named ``name``, and ``route + "page/<N>/"`` named ``name + PAGE_SUFFIX``."""
    return [
        path(route, view, name=name),
        path(f"{route}page/<page_number:{PAGE_KWARG}>/", view, name=name + PAGE_SUFFIX),
    ]


def page_path(view_name, kwargs, number):
    """The path of page ``number`` (an int from 1) of the list of route ``view_name``
    (either pattern of :func:`paged`) with URL ``kwargs`` (less any ``page``)."""
    base = view_name.removesuffix(PAGE_SUFFIX)
    kwargs = {key: value for key, value in kwargs.items() if key != PAGE_KWARG}
    if number == 1:
        return reverse(base, kwargs=kwargs)
    return reverse(base + PAGE_SUFFIX, kwargs={**kwargs, PAGE_KWARG: number})


def page_url(request, number, view_name=None, kwargs=None, moved=(PAGE_KWARG,)):
    """The address of page ``number`` of the list ``request`` shows (or of route
    ``view_name`` with URL ``kwargs``), with the request's query string (a preview's
    ``?preview=1``) less the parameters ``moved`` into the path."""
    if view_name is None:
        match = request.resolver_match
        view_name, kwargs = match.view_name, match.kwargs
    query = request.GET.copy()
    for name in moved:
        query.pop(name, None)
    location = page_path(view_name, kwargs or {}, number)
    return f"{location}?{query.urlencode()}" if query else location


def page_number(value):
    """The page number (an int from 1) of an old link's ``?page=`` (``value``, a string;
    1 when empty). Http404 for anything else, as Django's paginator: "0", "1.5", "last"."""
    if value == "":
        return 1
    if not (value.isascii() and value.isdigit()) or int(value) < 1:
        raise Http404("That page number is not a whole number from 1.")
    return int(value)


class PagePathMixin:
    """For a view at the two routes of :func:`paged`: ``page_number`` is the page asked
    for. ``page/1/`` and an old ``?page=N`` answer a 301 to the canonical address, other
    query parameters kept; a bad ``?page=`` is a 404 (see page_number)."""

    page_kwarg = PAGE_KWARG

    def dispatch(self, request, *args, **kwargs):
        number = kwargs.get(self.page_kwarg)
        if self.page_kwarg in request.GET:
            asked = page_number(request.GET[self.page_kwarg])
            return HttpResponsePermanentRedirect(page_url(request, asked))
        if number == 1:
            return HttpResponsePermanentRedirect(page_url(request, 1))
        self.page_number = number or 1
        return super().dispatch(request, *args, **kwargs)
