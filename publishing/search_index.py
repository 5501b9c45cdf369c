"""Search for the published static site (issue 12): an index built at publish time, a page
that searches it in the browser.

``manage.py publish_site DIR`` writes, for each language, under ``DIR/<lang>/search/``:
``index.json`` (a MiniSearch index of the published papers, the same in every language),
``results.json`` (how each paper is shown in that language) and ``index.html`` (the page,
``papers/static_search.html``, whose ``static/js/static-search.js`` reads the query).

MiniSearch (npm ``minisearch`` 7.2.0, plain JavaScript, no dependencies), not Pagefind:
Pagefind searches with WebAssembly, which Chromium refuses under the site's policy
(``script-src 'self'``) unless ``'wasm-unsafe-eval'`` is added. MiniSearch has no Chinese
word splitter: ``static/js/search-terms.js`` gives it character bigrams.

The index is built from the database, not the HTML: it needs every language's titles,
abstracts, summaries, authors and institutions, which the models keep folded in their
``search_text`` columns (catalogue/search.py), of the published papers only, in the live
search's order. Node runs ``scripts/search-index.js`` with the MiniSearch committed in
``static/vendor/``, so the browser reads the index with the code that wrote it.
"""

import json
import shutil
import subprocess  # nosec B404  # runs node, found on PATH, with a fixed script
import tempfile
from pathlib import Path

from django.conf import settings
from django.contrib.auth.models import AnonymousUser
from django.template.loader import render_to_string
from django.test import RequestFactory
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


def search_paths():
    """The paths, relative to the published site's root (POSIX strings), of the files
    :func:`search_files` makes: ``<lang>/search/index.html``, ``index.json`` and
    ``results.json`` for each language of ``settings.LANGUAGES``. No query."""
    paths = []
    for code, _name in settings.LANGUAGES:
        with translation.override(code):
            folder = reverse("papers:search").strip("/")
        paths += [f"{folder}/index.json", f"{folder}/results.json", f"{folder}/index.html"]
    return paths


def search_files(previous=None, changed=None):
    """The published site's search as ``{relative path: bytes}``, the files of
    :func:`search_paths` (see the module's docstring); nothing is written. The page
    loads the static files from ``STATIC_URL``: whoever writes it publishes those too.
    Raises :class:`SearchIndexError` when node is not installed or fails.

    ``previous``: the site's root the last publish wrote them in, and ``changed``: the
    slugs of the papers whose pages changed since (publishing.changes.Affected.papers):
    the other papers' results are then read back from the last ``results.json`` instead
    of rendered again (seconds at 5,000 papers); the bytes are the same.
    """
    return start_search_files(previous, changed)()


def start_search_files(previous=None, changed=None):
    """:func:`search_files` (same arguments) begun: the papers' documents and results are
    read and rendered here, and node is started on the index, which it builds while the
    caller goes on (``publish_site`` renders pages meanwhile: node took a second and a
    half at 5,000 papers, after them). Returns a function of no arguments that waits
    for node and returns what :func:`search_files` returns, raising SearchIndexError
    as it does; its ``cancel()`` stops node when the caller gives up instead. Raises
    SearchIndexError at once when node is not installed."""
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
        for code, _name in settings.LANGUAGES:
            with translation.override(code):
                path = reverse("papers:search")
                folder = path.strip("/")
                files[f"{folder}/index.json"] = index
                files[f"{folder}/results.json"] = json.dumps(
                    results[code], ensure_ascii=False, separators=(",", ":")
                ).encode("utf-8")
                files[f"{folder}/index.html"] = _search_page(path).encode("utf-8")
        return files

    finish.cancel = building.cancel
    return finish


def _previous_results(root, changed):
    """``{language: {pk: result}}`` of the results the last run wrote under ``root``,
    without the papers whose slug is in ``changed``; None when one cannot be read."""
    stale = set(Paper.objects.filter(slug__in=changed).values_list("pk", flat=True))
    reuse = {}
    for code, _name in settings.LANGUAGES:
        with translation.override(code):
            path = root / reverse("papers:search").strip("/") / "results.json"
        try:
            results = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        if not isinstance(results, dict):
            return None
        reuse[code] = {int(pk): result for pk, result in results.items() if int(pk) not in stale}
    return reuse


def build_search_index(output_dir):
    """Write :func:`search_files` under ``output_dir``, the published site's root (a
    path), replacing what was there: a file whose content is unchanged is not written
    again, so it keeps its time. Returns the paths of the files, a list of Path.

    Raises :class:`SearchIndexError` when node is not installed or fails; nothing is
    written then, as the files are written only once every one is complete.
    """
    output_dir = Path(output_dir)
    paths = []
    for relative, data in search_files().items():
        path = output_dir / relative
        paths.append(path)
        if path.exists() and path.read_bytes() == data:
            continue  # unchanged: kept as it was, so a static host's copy stays valid
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    return paths


def _listings():
    """What the search page's filters match, for each published paper:
    ``{pk: {"at": [[conference slug, year], ...], "awards": [award slug, ...]}}``.

    As the live search's filters read them (pages/views/search.py), a paper is "at" each
    conference whose page lists it (``PaperQuerySet.listed_at``: the conference it was
    published at, and each conference that gave it a published award) and has each
    award series it has a published entry in (``with_award``). Two queries, whatever
    the papers, conferences and awards.
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
    """The published papers ``keys`` (in that order) as ``(documents, results)``.

    ``documents`` are what the index is built from: each paper's ``id`` (its primary
    key), ``order`` (its place in the live search's order, counted from ``first``) and
    the folded text it is found by (``text``: its own fields in every language;
    ``people``: its authors' and institutions'). ``results`` is ``{language: {id:
    result}}``: how each paper is shown, ``html`` being its item as the live search
    page renders it in that language, ``snippet`` the text its snippet is cut from (the
    abstract, or else the summary) and ``snippetLang`` that text's language when it is
    not the page's ("" otherwise). A paper whose result is in ``reuse`` (``{language:
    {pk: result}}``, every language) is not rendered again.
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


def _minisearch_index(documents):
    """The MiniSearch index of ``documents`` as JSON text, built by node."""
    return _start_minisearch_index(documents)()


def _start_minisearch_index(documents):
    """Start node on the MiniSearch index of ``documents``; returns a function of no
    arguments that waits for it and returns the index as JSON text (raising
    SearchIndexError when node failed), with ``cancel()`` to stop node instead. The
    documents reach node through a temporary file, so nothing of this process writes
    to node while the caller works (or forks). Raises SearchIndexError when node is
    not installed."""
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


def _search_page(path):
    """The published search page at ``path`` (``/<lang>/search/``) in the active
    language, as HTML: rendered as a request for ``path`` would be, so that its
    navigation, language switcher and alternates are the live page's. Absolute URLs
    (canonical, alternates) use ``settings.SITE_URL`` (``DJANGO_SITE_URL``), which a
    published site should set; without it, the first of ``settings.ALLOWED_HOSTS``."""
    hosts = [host for host in settings.ALLOWED_HOSTS if host and "*" not in host]
    request = RequestFactory().get(path, HTTP_HOST=(hosts or ["localhost"])[0].lstrip("."))
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
