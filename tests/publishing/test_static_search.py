"""The published site's search index and page (publishing/search_index.py, issue 12)."""

import json
import re
import shutil
import subprocess  # nosec B404
import tempfile

import pytest
from django.conf import settings
from django.core.management import call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext

from catalogue import search
from catalogue.models import Paper, Status
from publishing.search_index import SearchIndexError, search_paths, start_search_files
from publishing.site import Site
from tests import factories
from tests.pages.test_html_validity import VNU

SLUG = "conformal-prediction-as-bayesian-quadrature"


def search_files():
    """The published search's files, ``{relative path: bytes}``, as publish_site gets them."""
    return start_search_files(Site("http://localhost"))()


def build_search_index(directory):
    """Write search_files() under ``directory`` as publish_site does, once every file is
    built; returns the paths written."""
    files = search_files()
    for relative, data in files.items():
        (directory / relative).parent.mkdir(parents=True, exist_ok=True)
        (directory / relative).write_bytes(data)
    return [directory / relative for relative in files]


def _index(directory, language):
    return json.loads((directory / language / "search" / "index.json").read_text("utf-8"))


def _results(directory, language):
    return json.loads((directory / language / "search" / "results.json").read_text("utf-8"))


def test_index_is_built_for_both_languages(icml, tmp_path):
    written = build_search_index(tmp_path)

    assert sorted(path.relative_to(tmp_path).as_posix() for path in written) == [
        "en/search/index.html",
        "en/search/index.json",
        "en/search/results.json",
        "zh-hans/search/index.html",
        "zh-hans/search/index.json",
        "zh-hans/search/results.json",
    ]
    published = set(Paper.objects.published().values_list("pk", flat=True))
    assert len(published) == 19
    for language in ("en", "zh-hans"):
        index = _index(tmp_path, language)
        assert set(index["documentIds"].values()) == published
        assert {int(key) for key in _results(tmp_path, language)} == published
    paper = Paper.objects.get(slug=SLUG)
    english = _results(tmp_path, "en")[str(paper.pk)]
    chinese = _results(tmp_path, "zh-hans")[str(paper.pk)]
    assert (
        f'<a href="/en/papers/{SLUG}/">Conformal Prediction as Bayesian Quadrature</a>'
        in (english["html"])
    )
    assert f'<a href="/zh-hans/papers/{SLUG}/">共形预测作为贝叶斯求积</a>' in chinese["html"]
    assert english["snippet"].startswith("As machine learning-based prediction systems")
    assert chinese["snippet"].startswith("随着机器学习预测系统")
    assert (english["snippetLang"], chinese["snippetLang"]) == ("", "")


def test_search_files_are_built_in_memory_as_the_folder_gets_them(icml, tmp_path, monkeypatch):
    written = build_search_index(tmp_path)

    def no_temporary_folder(*args, **kwargs):
        raise AssertionError("search_files() should not go through a temporary folder")

    monkeypatch.setattr(tempfile, "mkdtemp", no_temporary_folder)
    files = search_files()

    assert sorted(files) == sorted(search_paths())
    assert files == {path.relative_to(tmp_path).as_posix(): path.read_bytes() for path in written}
    assert files["en/search/index.json"] == files["zh-hans/search/index.json"]


def test_index_holds_chinese_bigrams_and_folded_words(icml, tmp_path):
    build_search_index(tmp_path)

    terms = {term for term, _postings in _index(tmp_path, "zh-hans")["index"]}

    assert {"贝叶", "叶斯", "求积", "贝", "quadrature", "jimenez"} - terms == set()


def test_index_leaves_out_drafts_in_the_live_search_order(db, tmp_path):
    old = factories.paper(title_en="B old", conference=factories.conference(year=2015))
    new_b = factories.paper(title_en="B new", conference=factories.conference(year=2025))
    new_a = factories.paper(title_en="A new", conference=new_b.conference)
    factories.paper(title_en="Draft", status=Status.DRAFT, conference=new_b.conference)

    build_search_index(tmp_path)

    index = _index(tmp_path, "en")
    order = sorted(index["storedFields"], key=lambda key: index["storedFields"][key]["order"])
    assert [index["documentIds"][key] for key in order] == [new_a.pk, new_b.pk, old.pk]


def test_search_page_is_the_static_page_with_its_script_and_the_lists(icml, tmp_path):
    build_search_index(tmp_path)

    english = (tmp_path / "en" / "search" / "index.html").read_text("utf-8")
    chinese = (tmp_path / "zh-hans" / "search" / "index.html").read_text("utf-8")

    assert '<script type="module" src="/static/js/static-search.js"></script>' in english
    assert '<form class="search-form" method="get" action="/en/search/"' in english
    assert 'id="search-fallback"' in english
    for path in ("/en/conferences/", "/en/awards/", "/en/authors/"):
        assert f'href="{path}"' in english
    assert 'data-found-many="{count} papers found"' in english
    assert 'data-found-many="找到 {count} 篇论文"' in chinese
    assert 'hreflang="en" lang="en"' in chinese


def test_without_node_nothing_is_written(icml, tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path / "nothing-here"))

    with pytest.raises(SearchIndexError, match="node"):
        build_search_index(tmp_path / "site")

    assert not (tmp_path / "site").exists()


def test_search_pages_are_valid_html(icml, tmp_path):
    written = build_search_index(tmp_path)
    pages = [str(path) for path in written if path.suffix == ".html"]

    result = subprocess.run(  # nosec B603
        [shutil.which("java"), "-jar", str(VNU), "--errors-only", "--format", "json", *pages],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )

    assert json.loads(result.stderr or result.stdout)["messages"] == []
    assert len(pages) == 2


def _queries_to_build(directory):
    with CaptureQueriesContext(connection) as queries:
        build_search_index(directory)
    return len(queries)


def test_queries_do_not_grow_with_the_papers(db, tmp_path):
    """Two queries for the filters, a fixed number per batch of papers, two for the
    form's choices: none per paper, conference or award."""
    institution = factories.institution()
    paper = factories.paper(authors=[factories.author()], affiliations=[institution])
    factories.award_entry(factories.award(conference=paper.conference), paper)
    one = _queries_to_build(tmp_path / "one")
    for _ in range(4):
        paper = factories.paper(
            authors=[factories.author(), factories.author()], affiliations=[institution]
        )
        factories.award_entry(factories.award(), paper)

    many = _queries_to_build(tmp_path / "many")

    assert (one, many) == (14, 14)


def test_a_missing_chinese_abstract_is_the_english_one_marked_as_english(db, tmp_path):
    paper = factories.paper(abstract_en="Only in English.", abstract_zh_hans="")

    build_search_index(tmp_path)

    chinese = _results(tmp_path, "zh-hans")[str(paper.pk)]
    assert (chinese["snippet"], chinese["snippetLang"]) == ("Only in English.", "en")


def test_a_second_build_gives_the_same_bytes_but_what_changed(icml):
    # publish_site writes only the files whose bytes differ (Publisher.store).
    before = search_files()
    # update() leaves the search text as it was (catalogue/search.py): only a snippet changes.
    Paper.objects.filter(slug=SLUG).update(abstract_en="A new abstract.")

    after = search_files()

    assert sorted(after) == sorted(before)
    assert [path for path in sorted(after) if after[path] != before[path]] == [
        "en/search/results.json"
    ]


def test_index_holds_what_the_filters_match(icml, tmp_path):
    build_search_index(tmp_path)
    index = _index(tmp_path, "en")
    stored = {index["documentIds"][key]: value for key, value in index["storedFields"].items()}

    trpo = stored[Paper.objects.get(slug="trust-region-policy-optimization").pk]
    conformal = stored[Paper.objects.get(slug=SLUG).pk]

    # Published at ICML 2015, honoured by ICML 2025's Test of Time Award.
    assert trpo["at"] == [["icml-2015", 2015], ["icml-2025", 2025]]
    assert trpo["awards"] == ["test-of-time"]
    assert conformal["at"] == [["icml-2025", 2025]]
    assert conformal["awards"] == ["outstanding-paper"]


# Words whose case folding is another letter, not only another case (found by a fresh
# tester: "Weiß" and a Greek name ending in ς found nothing in the published search).
FOLDED = ["Weiß", "STRAẞE", "Παππάς", "ΠΑΠΠΑΣ", "ϲ", "Jiménez", "ＡＩ", "ﬁne", "Straße-Ⅻ"]


def node_json(script, argument, stdin=b""):
    """What the ES module ``script`` writes to standard output, read as JSON; node runs
    it in the project's folder with ``argument`` as JSON in ``process.argv[1]`` and
    ``stdin`` (bytes) on its standard input. Raises CalledProcessError when it fails."""
    result = subprocess.run(  # nosec B603 B607  # node, a fixed script, data as an argument
        ["node", "--input-type=module", "-e", script, json.dumps(argument)],
        input=stdin,
        capture_output=True,
        check=True,
        cwd=settings.BASE_DIR,
    )
    return json.loads(result.stdout)


@pytest.mark.no_database
def test_the_published_search_folds_words_as_the_live_search_does():
    script = (
        'import { fold } from "./static/js/search-terms.js";'
        "process.stdout.write(JSON.stringify(JSON.parse(process.argv[1]).map(fold)));"
    )
    assert node_json(script, FOLDED) == [search.fold(word) for word in FOLDED]


@pytest.mark.no_database
def test_collected_search_modules_import_each_other_by_hashed_name(settings, tmp_path):
    settings.STATIC_ROOT = tmp_path
    settings.STORAGES = {
        **settings.STORAGES,
        "staticfiles": {"BACKEND": "awardsite.storage.StaticFilesStorage"},
    }
    call_command("collectstatic", interactive=False, verbosity=0)

    [page_script] = [p for p in (tmp_path / "js").glob("static-search.*.js")]
    [terms] = [p for p in (tmp_path / "js").glob("search-terms.*.js")]
    imports = re.findall(r'from\s*"([^"]+)"', page_script.read_text() + terms.read_text())
    assert f"./{terms.name}" in imports
    assert imports and all(re.search(r"\.[0-9a-f]{12}\.js$", name) for name in imports)


# Queries the published search answers as the live one does: a word inside a longer one,
# accents and case in any script, Chinese without spaces, an author's and an
# institution's name, several words, nothing found, and punctuation alone.
SAME_AS_LIVE = [
    "ptim",
    "OPTIM",
    "ayesian quadra",
    "JIMÉNEZ",
    "jimenez",
    "贝叶斯求积",
    "形预",
    "预测",
    "quadrature",
    "jordan",
    "a",
    "zzzqqq",
    "?!",
    "( )",
]


def static_search_ids(index, queries):
    """The primary keys the published search finds for each of ``queries``, in its
    order: static/js/search-terms.js's searchQuery() on ``index`` (bytes), run by node."""
    script = (
        'import { MiniSearch, OPTIONS, searchQuery } from "./static/js/search-terms.js";'
        'import { readFileSync } from "node:fs";'
        "const index = MiniSearch.loadJSON(readFileSync(0, 'utf8'), OPTIONS);"
        "const found = JSON.parse(process.argv[1]).map((text) => {"
        "  const query = searchQuery(index, text);"
        "  return query ? index.search(query).sort((a, b) => a.order - b.order).map((r) => r.id)"
        "    : [];"
        "});"
        "process.stdout.write(JSON.stringify(found));"
    )
    return dict(zip(queries, node_json(script, queries, index), strict=True))


def test_the_published_search_finds_what_the_live_search_finds(icml):
    found = static_search_ids(search_files()["en/search/index.json"], SAME_AS_LIVE)

    live = {
        query: list(
            Paper.objects.published().search(query).in_search_order().values_list("pk", flat=True)
        )
        for query in SAME_AS_LIVE
    }
    assert found == live
    # Not only empty answers: a word inside a longer one, in several papers.
    assert len(found["ptim"]) > 1 and len(found["a"]) == 19
