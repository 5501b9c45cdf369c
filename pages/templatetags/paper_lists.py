"""Template tags for lists of papers, built in Python by pages/listing.py.

``{% paper_items papers heading=3 show_awards=True %}`` lists papers that
``listing.prepare()`` gave what a list shows; ``{% award_levels award %}`` an award's
papers level by level (``listing.with_entries()``), ``{% award_sections awards %}`` a
conference page's awards, each in its section; ``{% award_badge entry %}`` and
``{% paper_links links %}`` the paper page's badges and links, in the same markup.
"""

from django import template
from django.utils.safestring import mark_safe

from pages.listing import Renderer

register = template.Library()


@register.simple_tag(takes_context=True)
def paper_items(
    context,
    papers,
    heading=4,
    award=None,
    show_awards=False,
    show_conference=False,
    snippet_query=None,
    show_links=True,
):
    """Each of ``papers`` as an ``<article class="paper-item">`` whose title is a heading
    of level ``heading``: thumbnail, title, authors, then where it was published (when
    ``show_conference``, on an author page, or when ``award`` is of another conference),
    a search snippet around ``snippet_query`` (unless None), its award badges
    (``show_awards``) and its links (``show_links``). No query."""
    return Renderer.of(context).papers(
        papers,
        heading=heading,
        award=award,
        show_awards=show_awards,
        show_conference=show_conference,
        snippet_query=snippet_query,
        show_links=show_links,
    )


@register.simple_tag(takes_context=True)
def award_levels(context, award, level_heading=3, paper_heading=4):
    """``award``'s papers in a ``<section class="award-level">`` per level, the top level
    first, headed (level ``level_heading``) by the level's name. No query."""
    return Renderer.of(context).levels(
        award, level_heading=level_heading, paper_heading=paper_heading
    )


@register.simple_tag(takes_context=True)
def award_sections(context, awards):
    """The conference page's ``awards``, a ``<section class="award">`` each: the award's
    linked name as an ``<h2>``, then its papers level by level (as ``award_levels``
    with ``level_heading=3 paper_heading=4``). No query."""
    return Renderer.of(context).award_sections(awards)


@register.simple_tag(takes_context=True)
def award_badge(context, entry):
    """The badge of an award entry (with its award, the award's conference and its
    level loaded, and ``level_rank`` and ``is_top_level`` annotated, as
    ``AwardEntryQuerySet.for_paper()`` gives). No query."""
    return mark_safe(Renderer.of(context).badge(entry))  # noqa: S308 - built escaped


@register.simple_tag(takes_context=True)
def paper_links(context, links):
    """A paper's links (PaperLink instances) as ``<ul class="links">``, in the order of
    ``PaperLink.Kind``; "" without links. No query."""
    ordered = sorted(links, key=lambda link: link.sort_key)
    return mark_safe(Renderer.of(context).links([(link.kind, link.url) for link in ordered]))  # noqa: S308
