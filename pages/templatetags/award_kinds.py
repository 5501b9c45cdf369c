"""``{% award_kinds %}``: the awards index's section of the kinds of award
(``AwardKind``), each linked to its page at every venue, with its number of published
awards. A tag of its own, so that the index's view and its other sections stay as they
are; one query."""

from django import template

from catalogue.models import AwardKind

register = template.Library()


@register.inclusion_tag("papers/includes/award_kinds.html", takes_context=True)
def award_kinds(context):
    """The kinds with a published award, in their order (``position``, then slug), each
    with ``award_count``. The template's context is the page's, for ``{% translated %}``'s
    note of untranslated names."""
    kinds = AwardKind.objects.published().with_award_count().order_by("position", "slug")
    return {**context.flatten(), "award_kinds": list(kinds)}
