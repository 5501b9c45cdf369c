"""Citation downloads of a paper, an award and a conference (BibTeX, RIS, CSL-JSON)."""

from django.http import HttpResponse, StreamingHttpResponse
from django.shortcuts import get_object_or_404

from awardsite.addresses import absolute_url
from catalogue.models import Award, AwardEntry, Conference, Paper
from editorial.teams import scoped
from pages import citations
from pages.views.common import mark_preview, previewing


def _urls(papers, request):
    """{pk: the absolute URL of the paper's page in the active language} of ``papers``."""
    return {paper.pk: absolute_url(paper.get_absolute_url(), request) for paper in papers}


# Papers fetched and formatted at a time by a streamed citation download.
CITATION_BATCH = 200


def citation_batches(order, request=None):
    """The published papers with primary keys ``order`` (a list without repeats), in
    that order, as the ``(papers, urls)`` batches ``citations.stream()`` reads:
    ``CITATION_BATCH`` papers at a time, each fetched when read (bounded memory)."""
    for start in range(0, len(order), CITATION_BATCH):
        keys = order[start : start + CITATION_BATCH]
        papers = Paper.objects.published().filter(pk__in=keys).for_citation().in_bulk()
        batch = [papers[pk] for pk in keys if pk in papers]
        yield batch, _urls(batch, request)


def _download(response_class, text, fmt, filename):
    """A ``response_class`` of ``text`` (a string, or pieces of it) in citation format
    ``fmt`` (the URL allows only the keys of ``citations.FORMATS``), as a download."""
    response = response_class(text, content_type=citations.FORMATS[fmt])
    response["Content-Disposition"] = f'attachment; filename="{filename}.{fmt}"'
    return response


def _streamed_citations(request, pks, fmt, filename):
    """The published papers with primary keys ``pks`` (read here; a paper that comes
    twice counts at its first place) in citation format ``fmt`` as a streamed download."""
    stream = citations.stream(fmt, citation_batches(list(dict.fromkeys(pks)), request))
    return _download(StreamingHttpResponse, stream, fmt, filename)


def paper_citation(request, slug, fmt):
    """One published paper's citation as BibTeX (``bib``), RIS (``ris``) or CSL-JSON
    (``json``); 404 for an unknown or unpublished paper or format. With ``?preview=1``,
    staff who may view papers and edit its venue get a draft's (see ``previewing``),
    never cached."""
    preview = previewing(request, Paper)
    papers = scoped(Paper.objects.all(), request.user) if preview else Paper.objects.published()
    paper = get_object_or_404(papers.for_citation(), slug=slug)
    text = citations.citation_text(fmt, [paper], _urls([paper], request))
    response = _download(HttpResponse, text, fmt, slug)
    return mark_preview(response) if preview else response


def award_citation(request, conference_slug, slug, fmt):
    """Citations of an award's papers, the top level first, in ``fmt`` (see
    paper_citation)."""
    award = get_object_or_404(
        Award.objects.published().filter(conference__slug=conference_slug), slug=slug
    )
    entries = AwardEntry.objects.published().filter(award=award).in_level_order()
    pks = entries.values_list("paper_id", flat=True)
    return _streamed_citations(request, pks, fmt, f"{conference_slug}-{slug}")


def conference_citation(request, slug, fmt):
    """Citations of every paper a conference page lists, in its order (its awards'
    papers, then the others), in ``fmt`` (see paper_citation). Two queries and the
    batches'."""
    conference = get_object_or_404(Conference.objects.published(), slug=slug)
    awarded = (
        AwardEntry.objects.published()
        .filter(award__conference=conference)
        .in_level_order()
        .order_by("award__position", "award__slug", *AwardEntry.LEVEL_ORDER)
        .values_list("paper_id", flat=True)
    )
    others = Paper.objects.published().published_without_award_at(conference)
    pks = [*awarded, *others.values_list("pk", flat=True)]
    return _streamed_citations(request, pks, fmt, slug)
