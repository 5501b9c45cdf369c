"""Lists of papers in Django's templates, rendered by the Jinja2 templates of
templates/papers/lists/ (see pages/jinja.py for why) from catalogue/listing.py's data,
so that the paper page's badges and links have the lists' markup. None makes a query.
"""

from django import template
from django.template import engines
from django.utils.safestring import mark_safe
from django.utils.translation import get_language

register = template.Library()


def render(context, name, **values):
    """The Jinja2 template ``papers/lists/<name>.html`` rendered with ``values``, the
    ``context``'s ``preview`` and notice about untranslated text, and the ``language``."""
    page = {key: context.get(key) for key in ("preview", "untranslated_tracker")}
    page["language"] = get_language()
    html = engines["jinja2"].get_template(f"papers/lists/{name}.html").render(page | values)
    return mark_safe(html)  # noqa: S308 - rendered with every value escaped


@register.simple_tag(takes_context=True)
def paper_items(context, papers, heading=4, **options):
    """Each of ``papers`` as an ``<article class="paper-item">`` whose title is a heading
    of level ``heading``; ``options``: ``show_awards``, ``show_conference``,
    ``snippet_query`` (the words a snippet shows) and ``hide_links`` (paper_list.html)."""
    return render(context, "paper_list", papers=papers, heading=heading, **options)


@register.simple_tag(takes_context=True)
def award_levels(context, award, level_heading=3, paper_heading=4):
    """``award``'s papers in a ``<section class="award-level">`` per level, the top level
    first, headed (level ``level_heading``) by the level's name."""
    values = {"level_heading": level_heading, "paper_heading": paper_heading}
    return render(context, "award_levels", award=award, **values)


@register.simple_tag(takes_context=True)
def award_sections(context, awards):
    """The conference page's ``awards``, a ``<section class="award">`` each: the award's
    linked name as an ``<h2>``, then its papers level by level (``<h3>``, ``<h4>``)."""
    return render(context, "award_sections", awards=awards)


@register.simple_tag(takes_context=True)
def latest_winners(context, awards):
    """The top level's papers of each of ``awards`` (given ``listed_levels`` by
    ``listing.PageLists``) as cards in a ``<ul class="winners">``: award, title (an
    ``<h3>``), authors."""
    return render(context, "latest_winners", awards=awards)


@register.simple_tag(takes_context=True)
def award_index_series(context, series):
    """A venue's award ``series`` on the award index (``AwardListView``), an ``<li>``
    each: the series' linked name, its editions' years with their numbers of papers,
    and its newest edition's winners with their authors."""
    return render(context, "award_index", series=series)


@register.simple_tag(takes_context=True)
def award_badge(context, entry):
    """The badge of an award ``entry`` (with its award, the award's conference and its
    level, ``level_rank`` and ``is_top_level``, as ``AwardEntryQuerySet.for_paper()``)."""
    return render(context, "award_badge", entry=entry)


@register.simple_tag(takes_context=True)
def paper_links(context, links):
    """A paper's links (PaperLink instances) as ``<ul class="links">``, in the order of
    ``PaperLink.Kind``; "" without links."""
    return render(context, "paper_links", links=sorted(links, key=lambda link: link.sort_key))
