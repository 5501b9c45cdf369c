"""The search page (pages/views/search.py SearchView, editorial/forms.py, PaperQuerySet.search)."""

import json

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from catalogue import search
from catalogue.models import Author, Authorship, Paper, PaperLink, Status
from importing.pipeline import import_fixture
from pages.views import SearchMatches
from tests import factories
from tests.html import visible_text


def _titles(response):
    return [paper.title_en for paper in response.context["papers"]]


def _slugs(response):
    return [paper.slug for paper in response.context["papers"]]


def _keys(response):
    """The primary keys of a search page's results (rows of values, not Paper instances)."""
    return [paper.pk for paper in response.context["papers"]]


def test_chinese_substring_finds_the_paper(icml, client):
    response = client.get("/zh-hans/search/", {"q": "共形预测"})

    assert response.status_code == 200
    assert _titles(response) == ["Conformal Prediction as Bayesian Quadrature"]
    assert "找到 1 篇论文" in visible_text(response.content.decode())


@pytest.mark.parametrize(
    ("field", "value", "query"),
    [
        ("title_en", "Quadrature of Things", "quadrature"),
        ("title_zh_hans", "求积之道", "求积"),
        ("abstract_en", "We study dragons.", "DRAGONS"),
        ("abstract_zh_hans", "我们研究龙。", "研究龙"),
        ("summary_en", "A gentle tour of wyverns.", "wyvern"),
        ("summary_zh_hans", "飞龙导读。", "飞龙"),
    ],
)
def test_search_looks_in_prose_in_both_languages(client, db, field, value, query):
    wanted = factories.paper(**{field: value})
    factories.paper(title_en="Unrelated", title_zh_hans="无关")

    response = client.get("/en/search/", {"q": query})

    assert _keys(response) == [wanted.pk]


def test_search_finds_author_names_and_institutions_in_both_languages(client, db):
    person = factories.author(name="Zhang Wei", other_names="张伟")
    place = factories.institution(name_en="Tsinghua University", name_zh_hans="清华大学")
    wanted = factories.paper(authors=[person], affiliations=[place])
    factories.paper(authors=[factories.author()])

    for query in ["zhang wei", "张伟", "tsinghua", "清华"]:
        assert _keys(client.get("/en/search/", {"q": query})) == [wanted.pk], query


def test_every_word_must_match_and_a_paper_is_listed_once(client, db):
    people = [factories.author(name="Jake Snell"), factories.author(name="Jake Other")]
    both = factories.paper(title_en="Bayesian quadrature", authors=people)
    factories.paper(title_en="Bayesian optimisation", authors=[factories.author()])

    response = client.get("/en/search/", {"q": "jake bayesian"})

    assert _keys(response) == [both.pk]


def test_drafts_are_never_found(client, db):
    factories.paper(title_en="Secret draft", status=Status.DRAFT)
    factories.paper(title_en="Secret conference", conference=factories.conference(status="draft"))

    assert _keys(client.get("/en/search/", {"q": "secret"})) == []


def test_filters_by_conference_year_and_award(client, db):
    old, new = factories.conference(year=2015), factories.conference(year=2025, venue=None)
    test_of_time = factories.award(conference=new, slug="test-of-time")
    classic = factories.paper(conference=old, title_en="Classic learning")
    factories.paper(conference=new, title_en="Fresh learning")
    factories.paper(conference=old, title_en="Forgotten learning")
    factories.award_entry(test_of_time, classic)

    def found(**params):
        response = client.get("/en/search/", {"q": "learning", **params})
        return sorted(_titles(response))

    # A conference lists its own papers and the papers its awards went to.
    assert found(conference=new.slug) == ["Classic learning", "Fresh learning"]
    assert found(year="2015") == ["Classic learning", "Forgotten learning"]
    assert found(award="test-of-time") == ["Classic learning"]
    # A year lists papers published or awarded that year.
    assert found(award="test-of-time", year="2025") == ["Classic learning"]
    assert found(conference=old.slug, year="2025") == []


def test_filters_alone_list_papers_without_text(client, db):
    award = factories.award(slug="best-paper")
    winner = factories.paper(conference=award.conference)
    factories.award_entry(award, winner)
    factories.paper()

    assert _keys(client.get("/en/search/", {"award": "best-paper"})) == [winner.pk]


def test_empty_search_shows_the_form_and_no_results(client, db):
    factories.paper()

    response = client.get("/en/search/", {"q": "   "})

    assert response.status_code == 200
    assert response.context["searched"] is False
    assert "found" not in visible_text(response.content.decode())


def test_results_are_paginated_by_twenty(client, db):
    conference = factories.conference()
    for n in range(45):
        factories.paper(conference=conference, title_en=f"Kernel paper {n:02d}")

    first = client.get("/en/search/", {"q": "kernel"})
    last = client.get("/en/search/", {"q": "kernel", "page": "3"})

    assert len(first.context["papers"]) == 20
    assert len(last.context["papers"]) == 5
    assert first.context["paginator"].count == 45
    html = first.content.decode()
    assert '<a href="?q=kernel&amp;page=2" rel="next">Next page</a>' in html
    assert "Page 1 of 3" in visible_text(html)


@pytest.mark.parametrize(
    "number", ["abc", "-1", "0", "4", str(10**9), "1.5", "1e3", str(2**63), "9" * 30]
)
def test_malformed_page_is_a_404(client, db, number):
    conference = factories.conference()
    for n in range(45):
        factories.paper(conference=conference, title_en=f"Kernel paper {n}")

    response = client.get("/en/search/", {"q": "kernel", "page": number})

    assert response.status_code == 404
    assert "<h1>Page not found</h1>" in response.content.decode()


@pytest.mark.parametrize(
    "params",
    [
        {"q": "x" * 201},
        {"q": "共" * 5000},
        {"q": "a\x00b"},
        {"conference": "a\x00b"},  # NUL: PostgreSQL cannot compare it; never reaches it
        {"award": "\x00"},
        {"year": "abc"},
        {"year": "99999999999999999999"},
        {"conference": "no-such-conference"},
        {"award": "no-such-award"},
        {"conference": "../../etc/passwd"},
    ],
)
def test_invalid_parameters_are_form_errors_on_a_normal_page(client, db, params):
    factories.paper()

    response = client.get("/en/search/", params)

    assert response.status_code == 200
    assert response.context["form"].errors
    assert response.context["searched"] is False
    assert 'class="errorlist"' in response.content.decode()


def test_a_nul_in_the_query_is_named_correctly_in_chinese(client, db):
    """Django's own Chinese catalogue translates "Null characters are not allowed." as
    "empty strings are not allowed" (with a typo); the site's catalogue overrides it."""
    response = client.get("/zh-hans/search/", {"q": "a\x00b"})

    page = response.content.decode()
    assert "不允许使用空字符（NUL）。" in page
    assert "不允许是用空字符串" not in page


@pytest.mark.parametrize(
    "query_string",
    [
        "q=%ED%A0%80",  # a lone surrogate, UTF-8 encoded
        "q=%FF%FE",  # not UTF-8 at all
        "q=%F0%9F%98%80%E2%80%8F%EF%BF%BF",  # emoji, right-to-left mark, a non-character
        "q=%25%5F%5C",  # LIKE wildcards and the escape character
        "q=" + "%E2%80%8B" * 150,  # 150 zero-width spaces
        "q[]=a&q=b&q=c",
    ],
)
def test_odd_unicode_and_wildcards_never_fail(client, db, query_string):
    factories.paper(title_en="Plain title")

    response = client.get(f"/en/search/?{query_string}")

    assert response.status_code == 200


def test_like_wildcards_match_literally(client, db):
    literal = factories.paper(title_en="Gains of 50% and more")
    factories.paper(title_en="Gains of 500 and more")

    assert _keys(client.get("/en/search/", {"q": "50%"})) == [literal.pk]


def test_search_queries_do_not_grow_with_results(client, db):
    def queries():
        with CaptureQueriesContext(connection) as captured:
            response = client.get("/en/search/", {"q": "needle"})
        assert response.status_code == 200
        return len(captured), len(response.context["papers"])

    award = factories.award()
    single = factories.paper(
        title_en="needle 0", authors=[factories.author()], conference=award.conference
    )
    factories.award_entry(award, single)
    one, shown = queries()
    assert shown == 1
    institution = factories.institution()
    for n in range(15):
        paper = factories.paper(
            title_en=f"needle {n + 1}",
            authors=[factories.author(), factories.author()],
            affiliations=[institution],
            links=[(PaperLink.Kind.ARXIV, f"https://arxiv.org/abs/2501.{n:05d}")],
        )
        factories.award_entry(factories.award(), paper, level="honourable-mention")

    many, shown = queries()
    assert shown == 16
    # The form's conference and award choices; the count and the page of papers;
    # their authorships, links and award entries.
    assert many == one == 7


def test_header_search_box_on_every_page_in_both_languages(icml, client):
    english = client.get("/en/").content.decode()
    chinese = client.get("/zh-hans/").content.decode()

    assert '<form class="site-search" role="search" method="get" action="/en/search/">' in english
    assert 'action="/zh-hans/search/"' in chinese
    assert '<button type="submit">搜索</button>' in chinese


def test_search_results_are_not_indexed(client, db):
    assert (
        '<meta name="robots" content="noindex">' in client.get("/en/search/?q=x").content.decode()
    )
    assert 'name="robots"' not in client.get("/en/search/").content.decode()


def test_paper_factory_is_published_by_default(db):
    # The search tests above rely on it; a draft default would make them vacuous.
    paper = factories.paper()

    assert list(Paper.objects.published()) == [paper]


# Case and accents (catalogue/search.py) ---------------------------------------------


def _found(client, query):
    return _keys(client.get("/en/search/", {"q": query}))


@pytest.mark.parametrize(
    ("stored", "query"),
    [
        ("Jiménez", "Jimenez"),
        ("Jimenez", "Jiménez"),
        ("Müller", "MULLER"),
        ("Ørsted Dvořák", "dvorak"),
        ("François", "FRANÇOIS"),
        ("Straße", "STRASSE"),
    ],
)
def test_author_search_ignores_accents_and_case(client, db, stored, query):
    wanted = factories.paper(authors=[factories.author(name=f"Ana {stored}")])
    factories.paper(authors=[factories.author(name="Ana Other")])

    assert _found(client, query) == [wanted.pk]


@pytest.mark.parametrize(
    ("title", "query"),
    [
        ("ΣΟΦΊΑ ΤΩΝ ΜΗΧΑΝΏΝ", "σοφια"),  # Greek: SQLite's LIKE folds ASCII only
        ("σοφία των μηχανών", "ΜΗΧΑΝΩΝ"),
        ("ОБУЧЕНИЕ С ПОДКРЕПЛЕНИЕМ", "обучение"),  # Cyrillic
        ("ÉCOLE D'ÉTÉ", "école"),  # Latin-1
        ("ＡＩ for science", "ai for"),  # full-width Latin
    ],
)
def test_title_search_folds_case_in_every_script(client, db, title, query):
    wanted = factories.paper(title_en=title)
    factories.paper(title_en="Unrelated")

    assert _found(client, query) == [wanted.pk]


def test_search_text_follows_edits_of_authors_and_institutions(client, db):
    person = factories.author(name="Old Name")
    place = factories.institution(name_en="Old Institute")
    paper = factories.paper(authors=[person], affiliations=[place])

    person.name = "Zoë New"
    person.save()
    place.name_zh_hans = "新研究所"
    place.save(update_fields=["name_zh_hans"])

    assert _found(client, "zoe") == [paper.pk]
    assert _found(client, "old name") == []
    assert _found(client, "新研究所") == [paper.pk]


def test_imported_and_reimported_papers_are_found(client, db, tmp_path):
    objects = [
        {"model": "papers.venue", "fields": {"slug": "tv", "acronym": "TV", "name_en": "Test"}},
        {
            "model": "papers.conference",
            "fields": {
                "venue": ["tv"],
                "slug": "tv-2030",
                "year": 2030,
                "name_en": "TV 2030",
                "status": "published",
            },
        },
        {"model": "papers.author", "fields": {"slug": "ann", "name": "Ána Núñez"}},
        {
            "model": "papers.paper",
            "fields": {
                "slug": "p1",
                "title_en": "Première Étude",
                "conference": ["tv-2030"],
                "status": "published",
            },
        },
        {
            "model": "papers.authorship",
            "fields": {"paper": ["p1"], "author": ["ann"], "position": 1},
        },
    ]
    path = tmp_path / "fixture.json"
    path.write_text(json.dumps(objects, ensure_ascii=False), encoding="utf-8")

    import_fixture(path)
    found_first = _slugs(client.get("/en/search/", {"q": "nunez etude"}))
    objects[3]["fields"]["title_en"] = "Seconde Étude"
    path.write_text(json.dumps(objects, ensure_ascii=False), encoding="utf-8")
    import_fixture(path)

    assert found_first == ["p1"]
    assert _slugs(client.get("/en/search/", {"q": "seconde"})) == ["p1"]
    assert _found(client, "premiere") == []


# Indexes: trigram on PostgreSQL (0008, 0019), covering on SQLite (0018, 0019); 0020 ------

on_postgresql = pytest.mark.skipif(
    connection.vendor != "postgresql", reason="pg_trgm indexes exist on PostgreSQL only"
)


def test_no_index_is_kept_for_the_search_text_columns(db):
    """Search matches ``match_text`` only (0019); the indexes of ``search_text`` were
    dropped (0020): nothing filters on it, and each save paid for their upkeep."""
    names = {
        index
        for table in ("papers_paper", "papers_author", "papers_institution")
        for index in connection.introspection.get_constraints(connection.cursor(), table)
    }

    assert {name for name in names if "search_t" in name} == set()
    assert (
        "papers_paper_match_trgm"
        if connection.vendor == "postgresql"
        else "papers_paper_match_text"
    ) in names


@on_postgresql
@pytest.mark.parametrize("word", ["jiménez", "共形预测"])
def test_matched_text_has_a_trigram_index_on_postgresql(db, word):
    with connection.cursor() as cursor:
        cursor.execute("SET LOCAL enable_seqscan = off")
        cursor.execute("SET LOCAL enable_indexscan = off")
        plan = Paper.objects.filter(match_text__contains=search.fold(word)).explain()

    assert "Bitmap Index Scan on papers_paper_match_trgm" in plan, plan


@on_postgresql
def test_search_order_has_a_covering_index_on_postgresql(db):
    """The columns a search sorts its matches by are in one index with the key
    (catalogue/migrations/0017_paper_search_order_index.py), so the key query reads
    them by an index-only scan instead of reading every paper."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT indexdef FROM pg_indexes WHERE indexname = 'papers_paper_search_order'"
        )
        definitions = [row[0] for row in cursor.fetchall()]

    assert len(definitions) == 1
    assert definitions[0].endswith("(id) INCLUDE (status, conference_id, title_en)")


# SQLite: the index of the matched text (catalogue/migrations/0019_paper_match_text.py)


@pytest.mark.skipif(connection.vendor != "sqlite", reason="EXPLAIN QUERY PLAN is SQLite's")
@pytest.mark.parametrize("words", [["word"], ["two", "words"]])
def test_search_reads_papers_from_the_index_of_the_matched_text_on_sqlite(db, words):
    """A search's key query reads each paper's status, matched text, conference and
    title from one index that holds them all, not the papers' whole rows (abstracts and
    summaries too), and joins no author or institution. A migration that rebuilds the
    papers' table (SQLite's way to alter a column) drops this index, which the model
    does not declare; this test then fails."""
    keys = SearchMatches(words).queryset.values("pk")
    sql, params = keys.query.sql_with_params()

    with connection.cursor() as cursor:
        cursor.execute(f"EXPLAIN QUERY PLAN {sql}", params)
        plan = " / ".join(row[-1] for row in cursor.fetchall())

    assert "COVERING INDEX papers_paper_match_text" in plan, plan
    assert "papers_author" not in sql and "papers_institution" not in sql


@pytest.mark.skipif(connection.vendor != "sqlite", reason="EXPLAIN QUERY PLAN is SQLite's")
@pytest.mark.parametrize("filters", [{"conference": "c"}, {"year": 2030}, {"award": "a"}])
def test_a_search_by_filter_alone_never_reads_every_published_paper_on_sqlite(db, filters):
    """With no word, a search by conference, year or award series (here with a paper of
    an earlier conference awarded, as a Test of Time award does) starts from an index
    narrower than the papers' status, with the conferences' and the awarded papers'
    keys as lists: with joins SQLite read every published paper's row (0.4 to 0.9 s at
    make bench's 50,000 papers)."""
    here = factories.conference(slug="c", year=2030)
    factories.paper(conference=here)
    award = factories.award(slug="a", conference=here)
    factories.award_entry(award, factories.paper(conference=factories.conference(year=2015)))
    keys = SearchMatches([], **filters).queryset.values("pk")
    sql, params = keys.query.sql_with_params()

    with connection.cursor() as cursor:
        cursor.execute(f"EXPLAIN QUERY PLAN {sql}", params)
        plan = " / ".join(row[-1] for row in cursor.fetchall())

    assert "papers_paper_status" not in plan, plan
    assert "SCAN papers_paper" not in plan, plan


@pytest.mark.skipif(connection.vendor != "sqlite", reason="EXPLAIN QUERY PLAN is SQLite's")
def test_other_queries_of_published_papers_leave_the_matched_text_index_alone(db):
    """The index is partial (its condition holds for every paper): without it, SQLite
    took it, as a covering index, for any ``status = 'published'`` of the papers, and the
    author page's co-authors query started from every published paper."""
    person = factories.author()
    factories.paper(authors=[person, factories.author()])
    sql, params = Author.objects.coauthors_of_authors([person.pk]).query.sql_with_params()

    with connection.cursor() as cursor:
        cursor.execute(f"EXPLAIN QUERY PLAN {sql}", params)
        plan = " / ".join(row[-1] for row in cursor.fetchall())

    assert "papers_paper_match_text" not in plan, plan


def test_matched_text_follows_authorships_and_affiliations(client, db):
    person = factories.author(name="Ada Lovelace")
    place = factories.institution(name_en="Analytical Engine Works")
    paper = factories.paper(title_en="Notes")
    authorship = Authorship.objects.create(paper=paper, author=person, position=1)
    authorship.set_affiliations([place])

    assert _found(client, "lovelace engine") == [paper.pk]

    authorship.set_affiliations([])
    assert _found(client, "engine") == []
    authorship.affiliations.add(place)  # bulk: no post_save, an m2m_changed
    assert _found(client, "engine") == [paper.pk]
    place.authorships.clear()
    assert _found(client, "engine") == []
    authorship.delete()
    assert _found(client, "lovelace") == []
    assert _found(client, "notes") == [paper.pk]


@on_postgresql
def test_postgresql_finds_trigrams_in_chinese(db):
    # In a database whose ctype is C (not C.UTF-8), Chinese gives no trigrams and the
    # index cannot narrow a search: scripts/postgres.sh makes the cluster C.UTF-8.
    with connection.cursor() as cursor:
        cursor.execute("SELECT array_length(show_trgm(%s), 1)", ["共形预测"])
        (count,) = cursor.fetchone()

    assert count == 5


def _prepared_search_statements():
    """The statements of search's key query that PostgreSQL holds prepared."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT statement FROM pg_prepared_statements")
        return [row[0] for row in cursor.fetchall() if "match_count" in row[0]]


@on_postgresql
@pytest.mark.parametrize("query", ["prediction", "prediction learning"])
def test_search_is_planned_for_its_words_on_postgresql(client, db, query):
    """The key query of a search (``planned_for_its_values``) is never a prepared
    statement, so PostgreSQL never runs it with a generic plan (made without the
    words, several times slower for a common word); the page's other queries still
    are, and the connection's prepare_threshold is as it was."""
    factories.paper(title_en="Conformal Prediction Learning", authors=[factories.author()])
    for _ in range(12):  # prepared after 5 runs; a generic plan comes 5 runs later
        found = _titles(client.get("/en/search/", {"q": query}))
        assert found == ["Conformal Prediction Learning"]

    with connection.cursor() as cursor:
        cursor.execute("SELECT statement FROM pg_prepared_statements")
        statements = [row[0] for row in cursor.fetchall()]

    assert _prepared_search_statements() == []
    assert any('"papers_authorship"."paper_id"' in statement for statement in statements)
    assert connection.connection.prepare_threshold == 5


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_nul_in_the_query_is_never_written_into_the_page(client, db, language):
    """A NUL is refused (a form error) and the box shows the query again, with U+FFFD
    where the NUL was: written into HTML a NUL is a parse error."""
    factories.paper()

    response = client.get(f"/{language}/search/", {"q": "a\x00b"})

    html = response.content.decode()
    assert response.context["form"].errors["q"]
    assert "\x00" not in html
    assert 'value="a\ufffdb"' in html
    assert "a\ufffdb" in html[html.index("<title>") : html.index("</title>")]


@pytest.mark.parametrize("language", ["en", "zh-hans"])
@pytest.mark.parametrize("name", ["conference", "year", "award"])
def test_nul_in_a_filter_is_never_written_into_the_page(client, db, language, name):
    """A filter's refused value is repeated in its error with U+FFFD for the NUL (found
    by a fresh tester: ``conference=icml%00`` wrote the NUL into the page)."""
    factories.paper()

    response = client.get(f"/{language}/search/", {"q": "paper", name: "icml\x00"})

    html = response.content.decode()
    assert response.context["form"].errors[name]
    assert "\x00" not in html
    assert "icml\ufffd" in html


# Results with a snippet, the conference, and suggestions (issue 10) ----------------


def test_snippet_marks_every_word_ignoring_case_and_accents():
    parts, cut_before, cut_after = search.snippet(
        "Work by Jiménez on policy search. POLICY gradients.", "jimenez policy"
    )

    assert [part for part, hit in parts if hit] == ["Jiménez", "policy", "POLICY"]
    assert "".join(part for part, _hit in parts) == (
        "Work by Jiménez on policy search. POLICY gradients."
    )
    assert (cut_before, cut_after) == (False, False)


def test_snippet_is_a_window_around_the_first_match():
    text = " ".join(f"word{n}" for n in range(200)) + " conformal " + "tail " * 100

    parts, cut_before, cut_after = search.snippet(text, "conformal")
    window = "".join(part for part, _hit in parts)

    assert ("conformal", True) in parts
    assert len(window) <= search.SNIPPET_CHARS
    assert (cut_before, cut_after) == (True, True)
    assert window.startswith("word")  # starts at a word, not inside one


def test_snippet_without_a_match_is_the_start_of_the_text():
    parts, cut_before, _cut_after = search.snippet("An abstract.", "someone's name")

    assert (parts, cut_before) == ([("An abstract.", False)], False)
    assert search.snippet("", "x") == ([], False, False)


def test_results_show_conference_and_a_highlighted_snippet(client, db):
    conference = factories.conference(name_en="ICML 2031", name_zh_hans="ICML 2031")
    factories.paper(
        conference=conference,
        title_en="Kernels",
        abstract_en="We study <kernel> methods.",
        abstract_zh_hans="我们研究核方法。",
    )

    english = client.get("/en/search/", {"q": "kernel"}).content.decode()
    chinese = client.get("/zh-hans/search/", {"q": "核方法"}).content.decode()

    assert "Published at ICML 2031" in visible_text(english)
    assert '<p class="snippet">We study &lt;<mark>kernel</mark>&gt; methods.</p>' in english
    assert '<p class="snippet">我们研究<mark>核方法</mark>。</p>' in chinese


def test_chinese_result_without_chinese_abstract_marks_the_english_snippet(client, db):
    factories.paper(title_zh_hans="核", abstract_en="Kernel methods.", abstract_zh_hans="")

    html = client.get("/zh-hans/search/", {"q": "kernel"}).content.decode()

    assert '<p class="snippet untranslated" lang="en"><mark>Kernel</mark> methods.</p>' in html
    assert 'class="untranslated-notice"' in html


def test_no_results_suggest_other_searches_and_the_index_pages(client, db):
    conference = factories.conference(year=2031)
    factories.paper(conference=conference, title_en="Kernels")

    html = client.get("/en/search/", {"q": "zzzz", "year": "2031"}).content.decode()
    unfiltered = client.get("/en/search/", {"q": "zzzz"}).content.decode()

    text = visible_text(html)
    assert "0 papers found No paper matches every word." in text
    assert '<a href="?q=zzzz">Search every conference, year and award.</a>' in html
    assert '<a href="/en/authors/">authors</a>' in html
    assert "Search every conference" not in unfiltered


@pytest.mark.parametrize(
    "text",
    ["Plain ASCII, With Capitals.", "Jiménez ＡＩ ß Straße", "共形预测 Conformal", "ΣΟΦΊΑ ﬁ"],
)
def test_snippet_folding_keeps_each_folded_character_with_its_origin(text):
    folded, origin = search._folded_with_origin(text)

    assert folded == "".join(search.fold(char) for char in text)
    assert [text[index] for index in origin] == [
        char for char in text for _piece in search.fold(char)
    ]


def test_search_words_are_matched_as_written_escaped_as_django_escapes_them(client, db):
    factories.paper(title_en="Odds of 100% recall")
    factories.paper(title_en="Odds of 100 recall")

    assert _titles(client.get("/en/search/", {"q": "100%"})) == ["Odds of 100% recall"]
    assert _titles(client.get("/en/search/", {"q": "odds"})) == [
        "Odds of 100 recall",
        "Odds of 100% recall",
    ]
    assert _titles(client.get("/en/search/", {"q": "odds 100%"})) == ["Odds of 100% recall"]
