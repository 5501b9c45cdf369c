"""``reverse()`` for URLs made of slugs, done once per route and language, not per object.

A list page builds hundreds of links (a paper's, each of its authors'); Django's
``reverse()`` resolves the route, checks every argument against the pattern and
quotes the result each time, which was a tenth of the conference page's time at
5,000 papers. :func:`reverse_slugs` asks ``reverse()`` once for each route, active
language, script prefix and URLconf, with placeholder slugs, and then only puts the
real slugs in their places. A slug is put in only when Django's ``slug`` converter
would accept it (ASCII letters, digits, ``-`` and ``_``, which ``reverse()`` leaves
unquoted), so the result is exactly ``reverse()``'s; any other value goes to
``reverse()`` itself, which raises ``NoReverseMatch`` as before.
"""

import functools
import re

from django.core.signals import setting_changed
from django.urls import NoReverseMatch, get_script_prefix, get_urlconf, reverse
from django.utils.translation import get_language

# Django's slug path converter (django.urls.converters.SlugConverter.regex).
SLUG = re.compile(r"[-a-zA-Z0-9_]+")
PLACEHOLDER = "0-slug-{}-0"
PLACEHOLDERS = re.compile(r"0-slug-(\d+)-0")


@functools.lru_cache(maxsize=512)
def _parts(name, keys, language, script_prefix, urlconf):
    """``reverse(name)`` with placeholders for ``keys``, split into literal text (even
    items) and the index in ``keys`` of the slug between them (odd items). One entry per
    language, script prefix and URLconf, the arguments that key the cache."""
    url = reverse(name, kwargs={key: PLACEHOLDER.format(i) for i, key in enumerate(keys)})
    parts = PLACEHOLDERS.split(url)
    parts[1::2] = [int(index) for index in parts[1::2]]
    return tuple(parts)


def reverse_slugs(name, **slugs):
    """``reverse(name, kwargs=slugs)`` for a route whose arguments are all ``<slug:...>``.

    Returns the same string as ``reverse()``; raises ``NoReverseMatch`` as it does when
    a value is not a slug or the route is unknown.
    """
    values = tuple(slugs.values())
    if not all(isinstance(value, str) and SLUG.fullmatch(value) for value in values):
        return reverse(name, kwargs=slugs)
    try:
        parts = _parts(name, tuple(slugs), get_language(), get_script_prefix(), get_urlconf())
    except NoReverseMatch:  # a converter narrower than a slug (the index's letter)
        return reverse(name, kwargs=slugs)
    return "".join(values[part] if i % 2 else part for i, part in enumerate(parts))


def slug_url(name, key):
    """A function of one slug that gives ``reverse_slugs(name, **{key: slug})``, with the
    route looked up once (in the active language, script prefix and URLconf, which
    must not change while it is used): for a list that builds hundreds of links of one
    kind, such as its papers' authors."""
    parts = _parts(name, (key,), get_language(), get_script_prefix(), get_urlconf())
    if len(parts) != 3:  # the slug appears other than once: the general way
        return lambda slug: reverse_slugs(name, **{key: slug})
    before, _index, after = parts
    fullmatch = SLUG.fullmatch

    def url(slug):
        if isinstance(slug, str) and fullmatch(slug):
            return before + slug + after
        return reverse(name, kwargs={key: slug})

    return url


def slugs_url(name, *keys):
    """:func:`slug_url` for a route of several slugs: a function of as many slugs as
    ``keys``, in their order, that gives ``reverse_slugs(name, **dict(zip(keys, slugs)))``
    (such as an award's address from its conference's slug and its own)."""
    parts = _parts(name, keys, get_language(), get_script_prefix(), get_urlconf())
    fullmatch = SLUG.fullmatch

    def url(*slugs):
        if all(isinstance(slug, str) and fullmatch(slug) for slug in slugs):
            return "".join(slugs[part] if i % 2 else part for i, part in enumerate(parts))
        return reverse(name, kwargs=dict(zip(keys, slugs, strict=True)))

    return url


def _forget(**kwargs):
    """A changed setting (ROOT_URLCONF, LANGUAGES, ... in tests) may change every URL."""
    _parts.cache_clear()


setting_changed.connect(_forget, dispatch_uid="catalogue.reversing")
