"""Search for the published static site (issue 12): for each language, under
``DIR/<lang>/search/``, ``index.json`` (a MiniSearch index of the published papers, the
same in every language), ``results.json`` (how each paper is shown in that language) and
``index.html`` (``papers/static_search.html``, whose ``static/js/static-search.js``
reads the query).

MiniSearch (npm ``minisearch`` 7.2.0, plain JavaScript), not Pagefind, whose WebAssembly
Chromium refuses under the site's policy (``script-src 'self'``);
``static/js/search-terms.js`` gives it Chinese character bigrams. The index is built
from the database (the folded ``search_text`` columns of catalogue/search.py, in the
live search's order) by node running ``scripts/search-index.js`` with the MiniSearch
committed in ``static/vendor/``, so the browser reads it with the code that wrote it.
"""

import json
import shutil
import subprocess  # nosec B404  # runs node, found on PATH, with a fixed script
import tempfile
from pathlib import Path

from django.conf import settings
from django.contrib.auth.models import AnonymousUser
from django.core.handlers.wsgi import WSGIRequest
from django.template.loader import render_to_string
from django.urls import resolve, reverse
from django.utils import translation
from django.utils.translation import ngettext

from catalogue import listing
from catalogue.languages import localized_value
from catalogue.models import Authorship, AwardEntry, Paper
from editorial.forms import SearchForm

# The node program that turns the documents into a MiniSearch index.
INDEX_SCRIPT = Path(settings.BASE_DIR) / "scripts" / "search-index.js"
# Papers read and rendered at a time, so that memory stays bounded at any size.
BATCH = 500
# A result as the live search page lists it (templates/papers/search.html).
RESULT_TEMPLATE = "papers/lists/paper_list.html"
RESULT = {"heading": 3, "show_awards": True, "show_conference": True}
# Results a page shows, as the live search page (pages/views/search.py SearchView).
RESULTS_PER_PAGE = 20


class SearchIndexError(RuntimeError):
    """The index could not be built (node missing or failing); the message says why."""


def _folders():
    """``{language: the search page's folder}`` (``en/search``), for settings.LANGUAGES."""
    folders = {}
    for code, _name in settings.LANGUAGES:
        with translation.override(code):
            folders[code] = reverse("papers:search").strip("/")
    return folders


def search_paths():
    """The paths, relative to the published site's root (POSIX strings), of the files
    :func:`start_search_files` makes: ``<lang>/search/index.html``, ``index.json`` and
    ``results.json`` for each language of ``settings.LANGUAGES``. No query."""
    names = ("index.json", "results.json", "index.html")
    return [f"{folder}/{name}" for folder in _folders().values() for name in names]


def start_search_files(site, previous=None, changed=None):
    """Begin the published site's search, the files of :func:`search_paths`, for ``site``
    (a ``publishing.site.Site``, whose request renders the page): results are rendered
    here and node started on the index, which it builds while the caller renders pages
    (1.5 s at 5,000 papers). Returns a function of no arguments that waits for node and
    returns ``{relative path: bytes}`` (nothing is written; the page's static files are
    the caller's to publish); its ``cancel()`` stops node. Raises
    :class:`SearchIndexError` when node is missing (at once) or fails (when waited for).

    ``previous``: the site's root the last publish wrote them in; ``changed``: the slugs
    of the papers whose pages changed since (``publishing.changes.Affected.papers``):
    the others' results are read back from the last ``results.json`` (the same bytes)
    instead of rendered again (seconds at 5,000 papers).
    """
    reuse = None
    if previous is not None and changed is not None:
        reuse = _previous_results(Path(previous), changed)
    keys = list(Paper.objects.published().in_search_order().values_list("pk", flat=True))
    listings = _listings()
    documents, results = [], {code: {} for code, _name in settings.LANGUAGES}
    for start in range(0, len(keys), BATCH):
        batch_documents, batch_results = _documents(keys[start : start + BATCH], start, reuse)
        for document in batch_documents:
            document.update(listings[document["id"]])
        documents += batch_documents
        for code, shown in batch_results.items():
            results[code].update(shown)
    # The text a paper is found by is the same in every language (each paper's
    # search_text holds all of them): one index, built once, beside each page.
    building = _start_minisearch_index(documents)

    def finish():
        index = building().encode("utf-8")
        files = {}
        for code, folder in _folders().items():
            files[f"{folder}/index.json"] = index
            files[f"{folder}/results.json"] = json.dumps(
                results[code], ensure_ascii=False, separators=(",", ":")
            ).encode("utf-8")
            with translation.override(code):
                files[f"{folder}/index.html"] = _search_page(f"/{folder}/", site).encode("utf-8")
        return files

    finish.cancel = building.cancel
    return finish


def _previous_results(root, changed):
    """``{language: {pk: result}}`` of the results the last run wrote under ``root``,
    without the papers whose slug is in ``changed``; None when one cannot be read."""
    stale = set(Paper.objects.filter(slug__in=changed).values_list("pk", flat=True))
    reuse = {}
    for code, folder in _folders().items():
        try:
            results = json.loads((root / folder / "results.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        if not isinstance(results, dict):
            return None
        reuse[code] = {int(pk): result for pk, result in results.items() if int(pk) not in stale}
    return reuse


def _listings():
    """What the search page's filters match, ``{pk: {"at": [[conference slug, year],
    ...], "awards": [award slug, ...]}}`` of each published paper, as the live search's
    filters read them (pages/views/search.py): the conferences whose page lists it
    (``listed_at``) and the awards it has a published entry in. Two queries.
    """
    listings = {}
    for pk, slug, year in Paper.objects.published().values_list(
        "pk", "conference__slug", "conference__year"
    ):
        listings[pk] = {"at": [[slug, year]], "awards": []}
    entries = AwardEntry.objects.published().values_list(
        "paper_id", "award__conference__slug", "award__conference__year", "award__slug"
    )
    for pk, slug, year, award in entries.order_by("award__conference__year", "pk"):
        found = listings[pk]
        if [slug, year] not in found["at"]:
            found["at"].append([slug, year])
        if award not in found["awards"]:
            found["awards"].append(award)
    return listings


def _documents(keys, first, reuse=None):
    """The published papers ``keys`` (in that order) as ``(documents, results)``:
    ``documents`` for the index (``id``; ``order`` in the live search, counted from
    ``first``; the folded ``text`` of its fields and ``people``, its authors' and
    institutions'); ``results`` ``{language: {id: {"html": its item as the live search
    renders it, "snippet": the abstract or else the summary, "snippetLang": that text's
    language if not the page's, else ""}}}``. A paper in ``reuse`` (``{language: {pk:
    result}}``) is not rendered again.
    """
    texts = dict(Paper.objects.filter(pk__in=keys).values_list("pk", "search_text"))
    people = {key: [] for key in keys}
    for paper_id, text in Authorship.objects.filter(paper__in=keys).values_list(
        "paper_id", "author__search_text"
    ):
        people[paper_id].append(text)
    for paper_id, text in Authorship.objects.filter(
        paper__in=keys, affiliations__isnull=False
    ).values_list("paper_id", "affiliations__search_text"):
        people[paper_id].append(text)
    documents = [
        {"id": key, "order": order, "text": texts[key], "people": "\n".join(people[key])}
        for order, key in enumerate(keys, start=first)
    ]
    known = set(keys).intersection(*(shown.keys() for shown in reuse.values())) if reuse else set()
    fresh = [key for key in keys if key not in known]
    papers = listing.search_results(fresh)
    lists = listing.PageLists()
    lists.papers(papers.values())
    lists.fetch()
    results = {}
    for code, _name in settings.LANGUAGES:
        with translation.override(code):
            results[code] = {}
            for key in keys:
                if key in known:
                    results[code][key] = reuse[code][key]
                    continue
                paper = papers[key]
                snippet, language = localized_value(paper, "abstract", code)
                if not snippet:
                    snippet, language = localized_value(paper, "summary", code)
                results[code][paper.pk] = {
                    "html": render_to_string(
                        RESULT_TEMPLATE,
                        {"papers": [paper], "language": code, **RESULT},
                        using="jinja2",
                    ),
                    "snippet": " ".join(snippet.split()),
                    "snippetLang": "" if language in (code, None) else language,
                }
    return documents, results


def _start_minisearch_index(documents):
    """Start node on the MiniSearch index of ``documents`` (through a temporary file:
    nothing of this process writes to node while the caller works or forks); returns a
    function waiting for the index as JSON text, with ``cancel()``. Raises
    SearchIndexError when node is missing or fails."""
    node = shutil.which("node")
    if node is None:
        raise SearchIndexError(
            "node (Node.js) is required to build the search index: install the nodejs package."
        )
    with tempfile.TemporaryFile() as data:
        data.write(json.dumps({"documents": documents}, ensure_ascii=False).encode("utf-8"))
        data.seek(0)
        process = subprocess.Popen(  # nosec B603  # fixed program and script, data on stdin
            [node, str(INDEX_SCRIPT)],
            stdin=data,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )

    def wait():
        out, err = process.communicate()
        if process.returncode != 0:
            message = err.decode("utf-8", "replace").strip()
            raise SearchIndexError(f"node could not build the search index: {message}")
        return out.decode("utf-8")

    def cancel():
        process.kill()
        process.communicate()

    wait.cancel = cancel
    return wait


def _search_page(path, site):
    """The published search page at ``path`` (``/<lang>/search/``) in the active
    language, as HTML, rendered for ``site``'s request of ``path`` so that its navigation
    and alternates are the live page's."""
    request = WSGIRequest(site.environ(path))
    request.resolver_match = resolve(path)
    request.user = AnonymousUser()
    # The texts the script shows, translated here: the live page's own strings, with
    # "{count}", "{number}", "{total}" and "{query}" where the script puts its values.
    context = {
        "found_one": ngettext("%(counter)s paper found", "%(counter)s papers found", 1)
        % {"counter": "{count}"},
        "found_many": ngettext("%(counter)s paper found", "%(counter)s papers found", 2)
        % {"counter": "{count}"},
        "page_of": translation.gettext("Page %(number)s of %(total)s")
        % {"number": "{number}", "total": "{total}"},
        "title_query": translation.gettext("Search: %(query)s") % {"query": "{query}"},
        "per_page": RESULTS_PER_PAGE,
        "form": SearchForm(),
        # The live page's notice about untranslated text, which the script shows when a
        # result it lists is marked untranslated; an English page has none.
        "untranslated_notice": translation.get_language() != settings.LANGUAGE_CODE,
    }
    return render_to_string("papers/static_search.html", context, request=request)
