"""Citation downloads of a paper, an award and a conference (BibTeX, RIS, CSL-JSON)."""

from django.http import (
    HttpResponse,
    StreamingHttpResponse,
)
from django.shortcuts import get_object_or_404

from awardsite.addresses import absolute_url
from catalogue.models import (
    Award,
    AwardEntry,
    Conference,
    Paper,
)
from pages import citations
from pages.views.common import mark_preview, previewing


def citation_text(papers, fmt, request=None):
    """The text of ``papers`` (fetched with ``Paper.objects.for_citation()``) in citation
    format ``fmt`` (a key of citations.FORMATS), each naming its page in the active
    language by its absolute URL (``absolute_url``: SITE_URL, else ``request``'s host).
    What a citation download holds; publish_site writes papers' citation files with it
    too (publishing/site.py's ``paper_citations``)."""
    formatter, _content_type = citations.FORMATS[fmt]
    papers = list(papers)
    urls = {paper.pk: absolute_url(paper.get_absolute_url(), request) for paper in papers}
    return formatter(papers, urls)


def _citation_response(request, papers, fmt, filename):
    """``papers`` in citation format ``fmt`` (a key of citations.FORMATS) as a download."""
    _formatter, content_type = citations.FORMATS[fmt]  # the URL allows only these keys
    response = HttpResponse(citation_text(papers, fmt, request), content_type=content_type)
    response["Content-Disposition"] = f'attachment; filename="{filename}.{fmt}"'
    return response


# Papers fetched and formatted at a time by a streamed citation download.
CITATION_BATCH = 200


def _streamed_citations(request, pks, fmt, filename):
    """The published papers with primary keys ``pks``, in that order and once each, in
    citation format ``fmt`` as a streamed download (``citation_batches``)."""
    _formatter, content_type = citations.FORMATS[fmt]
    batches = citation_batches(pks, request)
    response = StreamingHttpResponse(citations.stream(fmt, batches), content_type=content_type)
    response["Content-Disposition"] = f'attachment; filename="{filename}.{fmt}"'
    return response


def citation_batches(pks, request=None, papers=None):
    """The published papers with primary keys ``pks``, in that order and once each, as
    the ``(papers, urls)`` batches ``citations.stream()`` reads: ``CITATION_BATCH``
    papers at a time, each named by its page's absolute URL in the active language.
    Without ``papers``, each batch is fetched when it is read (one query plus the
    prefetches of ``Paper.objects.for_citation()``), so a conference of any size takes
    bounded memory; ``papers``: {pk: paper} fetched already with
    ``Paper.objects.published().for_citation()`` for all of ``pks`` (publish_site
    fetches them once for many files; publishing/site.py's ``collection_citations``).
    ``pks`` is read at once (a queryset: one query)."""
    order = list(dict.fromkeys(pks))

    def batches():
        for start in range(0, len(order), CITATION_BATCH):
            keys = order[start : start + CITATION_BATCH]
            if papers is None:
                batch = _in_order(keys)
            else:
                batch = [papers[pk] for pk in keys if pk in papers]
            yield batch, {p.pk: absolute_url(p.get_absolute_url(), request) for p in batch}

    return batches()


def paper_citation(request, slug, fmt):
    """One published paper's citation as BibTeX (``bib``), RIS (``ris``) or CSL-JSON
    (``json``). 404 for an unknown or unpublished paper or format.

    With ``?preview=1``, staff who may view papers get a draft's citation too (the
    download a paper's preview links to; see ``previewing``), never stored by a cache.
    """
    preview = previewing(request, Paper)
    papers = Paper.objects.all() if preview else Paper.objects.published()
    paper = get_object_or_404(papers.for_citation(), slug=slug)
    response = _citation_response(request, [paper], fmt, slug)
    return mark_preview(response) if preview else response


def award_citation(request, conference_slug, slug, fmt):
    """Citations of an award's papers, the top level first, in ``fmt`` (see paper_citation)."""
    award = get_object_or_404(
        Award.objects.published().filter(conference__slug=conference_slug), slug=slug
    )
    return _streamed_citations(
        request, award_citation_order(award), fmt, f"{conference_slug}-{slug}"
    )


def award_citation_order(award):
    """The primary keys of the papers an award's citation download holds, in its order
    (the top level first; a paper may come more than once: the first counts)."""
    return (
        AwardEntry.objects.published()
        .filter(award=award)
        .in_level_order()
        .values_list("paper_id", flat=True)
    )


def conference_citation(request, slug, fmt):
    """Citations of every paper a conference page lists (its awards' papers, then the
    others), in ``fmt`` (see paper_citation)."""
    conference = get_object_or_404(Conference.objects.published(), slug=slug)
    return _streamed_citations(request, conference_citation_order(conference), fmt, slug)


def conference_citation_order(conference):
    """The primary keys of the papers a conference's citation download holds, in its
    order: its awards' papers, then the others (a paper may come more than once: the
    first counts). Two queries."""
    awarded = (
        AwardEntry.objects.published()
        .filter(award__conference=conference)
        .in_level_order()
        .order_by("award__position", "award__slug", *AwardEntry.LEVEL_ORDER)
        .values_list("paper_id", flat=True)
    )
    others = (
        Paper.objects.published()
        .published_without_award_at(conference)
        .values_list("pk", flat=True)
    )
    return [*awarded, *others]


def _in_order(pks):
    """The published papers with primary keys ``pks`` (distinct), in that order (one
    query plus the prefetches of ``Paper.objects.for_citation()``)."""
    papers = Paper.objects.published().filter(pk__in=pks).for_citation().in_bulk()
    return [papers[pk] for pk in pks if pk in papers]
