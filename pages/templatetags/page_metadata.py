"""``{% page_metadata kind title %}``: the OpenGraph tags and schema.org JSON-LD of every
public page but the paper's (``{% paper_metadata %}`` in awards.py), built by
pages/metadata.py from what the page's view put in the context: no query of its own but
an unevaluated list's, which the page then reuses.

Each ``kind`` is a page type, with what its JSON-LD describes:

- ``home``: the site, a WebSite;
- ``conference``: an Event and a CollectionPage of its award lists (ItemList);
- ``award``, ``award-series``: a CollectionPage of the award's papers, of its editions;
- ``award-kind``: a CollectionPage of the kind's awards at every venue (an ItemList);
- ``venue``: an EventSeries of its conferences;
- ``author``: a ProfilePage of a Person;
- ``conferences``, ``venues``, ``awards``, ``authors``: index pages, a CollectionPage
  of an ItemList;
- ``open-data``: a WebPage; ``search``: a SearchResultsPage.
"""

from django import template
from django.conf import settings
from django.urls import reverse
from django.utils.safestring import mark_safe
from django.utils.text import Truncator
from django.utils.translation import get_language

from awardsite.addresses import absolute_url
from pages import metadata

register = template.Library()

# The length of og:description, as on paper pages.
DESCRIPTION_LENGTH = 300


def _named(name, path, request, kind="ItemList"):
    """A listed thing of schema.org type ``kind`` by its English ``name`` and page."""
    return {"@type": kind, "name": name, "url": absolute_url(path, request)}


def _home(context, url, title, description):
    return metadata.web_page(url, title, "WebSite", description=description)


def _conference(context, url, title, description):
    conference, request = context["conference"], context["request"]
    return metadata.conference_graph(
        conference, context["awards"], url, title, request, description
    )


def _award(context, url, title, description):
    request, award = context["request"], context["award"]
    return metadata.web_page(
        url,
        title,
        "CollectionPage",
        description=description,
        about={"@id": metadata.conference_event(award.conference, request)["@id"]},
        mainEntity=metadata.award_item_list(award, request),
    )


def _award_series(context, url, title, description):
    request = context["request"]
    editions = [
        _named(f"{award.conference.name_en} {award.name_en}", award.get_absolute_url(), request)
        for award in context["awards"]
    ]
    editions = metadata.item_list(editions)
    return metadata.web_page(
        url, title, "CollectionPage", description=description, mainEntity=editions
    )


def _venue(context, url, title, description):
    return metadata.venue_series(context["venue"], context["conferences"], context["request"])


def _author(context, url, title, description):
    author = metadata.person(context["author"], context["institutions"], context["request"])
    return metadata.web_page(url, title, "ProfilePage", mainEntity=author)


def _index(items):
    """A builder of an index page: ``items(context, request)`` its listed things."""

    def build(context, url, title, description):
        listed = metadata.item_list(list(items(context, context["request"])))
        return metadata.web_page(
            url, title, "CollectionPage", description=description, mainEntity=listed
        )

    return build


def _award_series_rows(context, request):
    """The award index's series, from its rows (the newest edition of each first)."""
    seen = set()
    for row in context["awards"]:
        key = (row["conference__venue__slug"], row["slug"])
        if key not in seen:
            seen.add(key)
            path = reverse("papers:award-series", kwargs={"venue_slug": key[0], "slug": key[1]})
            yield _named(f"{row['conference__venue__acronym']} {row['name_en']}", path, request)


BUILDERS = {
    "home": _home,
    "conference": _conference,
    "award": _award,
    "award-series": _award_series,
    "award-kind": _award_series,  # the same: a CollectionPage of its awards
    "venue": _venue,
    "author": _author,
    "conferences": _index(
        lambda context, request: (
            _named(c.name_en, c.get_absolute_url(), request, "Event")
            for c in context["conferences"]
        )
    ),
    "venues": _index(
        lambda context, request: (
            _named(v.name_en, v.get_absolute_url(), request, "EventSeries")
            for v in context["venues"]
        )
    ),
    "awards": _index(_award_series_rows),
    "authors": _index(
        lambda context, request: (
            _named(a.name, a.get_absolute_url(), request, "Person") | metadata.person_names(a)
            for a in context["authors"]
        )
    ),
    "open-data": lambda context, url, title, description: metadata.web_page(url, title),
    "search": lambda context, url, title, description: metadata.web_page(
        url, title, "SearchResultsPage", description=description
    ),
}


@register.inclusion_tag("papers/includes/opengraph.html", takes_context=True)
def page_metadata(context, kind, title, description="", og_type="website"):
    """The OpenGraph tags and JSON-LD of a page of ``kind`` (a key of ``BUILDERS``)
    titled ``title`` (in the page's language), ``description`` cut to
    ``DESCRIPTION_LENGTH`` characters. KeyError for an unknown kind or a context that
    lacks what its builder reads."""
    request = context["request"]
    url = absolute_url(request.path, request)
    description = Truncator(" ".join(str(description).split())).chars(DESCRIPTION_LENGTH)
    data = BUILDERS[kind](context, url, str(title), description)
    return {
        "og_type": og_type,
        "og_title": title,
        "og_description": description,
        "og_url": url,
        "og_locale": metadata.og_locale(),
        "og_locale_alternates": [
            metadata.og_locale(code) for code, _name in settings.LANGUAGES if code != get_language()
        ],
        "json_ld": mark_safe(metadata.json_ld(data)),  # noqa: S308 (json_ld escapes <, >, &)
    }
