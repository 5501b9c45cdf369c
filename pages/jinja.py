"""The Jinja2 environment of the lists of papers (templates/papers/lists/), through
Django's own backend (``settings.TEMPLATES``).

Why Jinja2 for them: a conference page lists about 150 papers; rendered by Django's
template language over the same data, the page took 216 ms at p95 and 72 ms of CPU
(benchmarks/server_time.py, 5,000 papers at one conference), against a 50 ms target;
its variable look-ups were most of it.

The templates call the functions of the ``awards`` tag library, so that a list shows
translated text, addresses, thumbnails and snippets as the other templates do; every
value is escaped as Django escapes it (``finalize``: :func:`escaped`), so the HTML is the
same as Django's templates make. Interface
text is marked with ``_()``, which ``makemessages`` reads in these templates too.
"""

import functools
import html
import re

from django.urls import reverse
from django.utils.translation import gettext, pgettext
from jinja2 import Environment, pass_context
from markupsafe import Markup

from catalogue.models import PaperLink
from catalogue.names import name_separator
from pages.templatetags import awards


def environment(**options):
    """The Jinja2 ``Environment`` for Django's backend, given its ``options``, with
    autoescaping on whatever they say (Django's backend turns it on by default)."""
    options.pop("autoescape", None)
    env = Environment(autoescape=True, finalize=escaped, **options)
    env.globals.update(
        _=gettext,
        slug_path=slug_path,
        pgettext=pgettext,
        preview_query=awards.PREVIEW_QUERY,
        object_url=pass_context(awards.object_url),
        snippet=pass_context(awards.search_snippet),
        translated=translated,
        link_label=link_label,
        name_separator=name_separator,
        paper_count=awards.paper_count,
    )
    env.filters["level_tier"] = awards.level_tier
    return env


@pass_context
def translated(context, obj, field, math=False):
    """``{% translated obj field %}`` (``awards.translated_html()``) in the list's
    ``language``, when its context names it."""
    language = context.get("language")
    return awards.translated_html(obj, field, math=math, context=context, language=language)


@functools.lru_cache(maxsize=256)
def link_label(kind, language):
    """``PaperLink.kind_label(kind)`` in the active language, ``language``: a lazy label
    made text took a tenth of a list's time, asked again for every link."""
    return PaperLink.kind_label(kind)


def escaped(value):
    """``value`` as Django's templates print it: itself when it is HTML already (has
    ``__html__``, as a SafeString), else its text escaped by ``html.escape()`` (which
    Django's ``escape()`` calls; markupsafe writes ``&#39;`` for ``'``, Django
    ``&#x27;``). Without Django's lazy-text wrapper, a third of a list's time."""
    if hasattr(value, "__html__"):
        return value
    return Markup(html.escape(str(value)))  # nosec B704  # escaped just before


# Django's ``slug`` path converter: what reverse() puts in a path as it is.
SLUG = re.compile(r"[-a-zA-Z0-9_]+")


def slug_path(route, *names):
    """A function of slugs that gives ``reverse(route, kwargs={name: slug, ...})`` for
    the URL's ``names`` (``("slug",)`` when none are given), in that order; the route is
    reversed once: for a list's hundreds of papers and authors (``reverse()`` for each
    took about a fifth of a conference page's CPU, 600 a page at 5,000 papers; the award
    index's 400 award and series addresses took 15 of its 60 ms at 200 awards). A value
    that is not a slug goes to reverse()."""
    names = names or ("slug",)
    marks = {name: f"slug{index}mark" for index, name in enumerate(names)}
    pieces = re.split("(" + "|".join(marks.values()) + ")", reverse(route, kwargs=marks))
    where = {mark: name for name, mark in marks.items()}

    def path(*slugs):
        if all(SLUG.fullmatch(slug) for slug in slugs):
            values = dict(zip(names, slugs, strict=True))
            return "".join(values[where[piece]] if piece in where else piece for piece in pieces)
        return reverse(route, kwargs=dict(zip(names, slugs, strict=True)))

    return path
