"""The public pages: content, languages, fallbacks, 404s and query counts."""

import os
import re
import shutil
import subprocess  # nosec B404  # manage.py makemessages, our own command
import sys
from pathlib import Path

import polib
import pytest
from django.conf import settings
from django.utils import translation

from catalogue.models import Author, AwardKind, PaperLink, Status
from pages.views import HOME_CONFERENCES, LIST_PAGE_SIZE
from tests import factories
from tests.html import CJK, visible_text
from tests.test_docs import doc_block

CATALOGUE = settings.BASE_DIR / "locale" / "zh_Hans" / "LC_MESSAGES" / "django.po"


def _award_with_papers(count, conference=None):
    """An award going to ``count`` papers, each with two authors, an affiliation and a link."""
    award = factories.award(conference=conference or factories.conference())
    institution = factories.institution()
    for n in range(count):
        paper = factories.paper(
            conference=award.conference,
            authors=[factories.author(), factories.author()],
            affiliations=[institution],
            links=[(PaperLink.Kind.ARXIV, f"https://arxiv.org/abs/2501.{n:05d}")],
        )
        level = "winner" if n % 2 else "honourable-mention"
        factories.award_entry(award, paper, level=level, position=n)
    return award


def _author_with_papers(count):
    """An author of ``count`` papers, each with a co-author, an affiliation and an award."""
    person = factories.author()
    institution = factories.institution()
    for _ in range(count):
        paper = factories.paper(
            authors=[factories.author(), person],
            affiliations=[institution],
            links=[(PaperLink.Kind.PMLR, "https://proceedings.mlr.press/v37/x.html")],
        )
        factories.award_entry(factories.award(), paper)
    return person


def _other_papers(conference, count):
    """``count`` papers published at ``conference`` without an award there, each with two
    authors, an affiliation, a link and an award at another conference: everything the
    conference page's list of other papers shows."""
    institution = factories.institution()
    elsewhere = factories.award()
    for n in range(count):
        paper = factories.paper(
            conference=conference,
            authors=[factories.author(), factories.author()],
            affiliations=[institution],
            links=[(PaperLink.Kind.PMLR, f"https://proceedings.mlr.press/v1/p{n}.html")],
        )
        factories.award_entry(elsewhere, paper)


# Query counts: a literal number, the same with one item as with many ---------------
# (as pretalx does). Each list on a page has more than one item in the "many" case,
# with everything the page shows about it, so that a missing prefetch fails.


@pytest.mark.django_db
def test_home_queries_do_not_grow_with_conferences(assert_queries):
    _award_with_papers(1)
    # Conferences; their awards with entry counts; the newest conference's levels with
    # their entries, its papers and their authors (the latest winners).
    assert_queries("/en/", 5)
    for _ in range(HOME_CONFERENCES + 1):
        _award_with_papers(2, conference=_award_with_papers(2).conference)

    response = assert_queries("/en/", 5)
    assert len(response.context["conferences"]) == HOME_CONFERENCES
    assert [len(c.listed_awards) for c in response.context["conferences"]] == [2, 2, 2, 2, 2]


@pytest.mark.django_db
def test_conference_queries_do_not_grow_with_awards_and_papers(assert_queries):
    one = _award_with_papers(1)
    _other_papers(one.conference, 1)
    # The conference; awards; their entries; the count of other papers and their page;
    # then for the papers of both lists together (catalogue/listing.py): authors,
    # links, and the other papers' award badges.
    assert_queries(one.conference.get_absolute_url(), 8)

    many = _award_with_papers(15)
    _award_with_papers(4, conference=many.conference)
    _other_papers(many.conference, LIST_PAGE_SIZE + 10)
    url = many.conference.get_absolute_url()

    first = assert_queries(url, 8)
    second = assert_queries(f"{url}page/2/", 8)
    assert len(first.context["awards"]) == 2
    assert len(first.context["other_papers"]) == LIST_PAGE_SIZE
    assert len(second.context["other_papers"]) == 10


@pytest.mark.django_db
def test_award_queries_do_not_grow_with_papers(assert_queries):
    # The award; its entries, their authorships and links.
    assert_queries(_award_with_papers(1).get_absolute_url(), 4)
    many = _award_with_papers(15)
    _award_with_papers(4, conference=many.conference)

    response = assert_queries(many.get_absolute_url(), 4)
    assert len(response.context["award"].entries.all()) == 15


@pytest.mark.django_db
def test_paper_queries_do_not_grow_with_authors_links_and_awards(assert_queries):
    single = factories.paper(
        authors=[factories.author()], links=[("arxiv", "https://arxiv.org/abs/1")]
    )
    factories.award_entry(factories.award(), single)
    # The paper with its conference and venue; authorships with authors; their
    # affiliations; links; award entries (Paper.objects.for_detail()).
    assert_queries(single.get_absolute_url(), 5)

    crowded = factories.paper(
        authors=[factories.author() for _ in range(12)],
        affiliations=[factories.institution(), factories.institution()],
        links=[
            (kind, "https://example.org/") for kind in ("arxiv", "pmlr", "openreview", "poster")
        ],
    )
    for _ in range(3):
        factories.award_entry(factories.award(), crowded)

    assert_queries(crowded.get_absolute_url(), 5)


@pytest.mark.django_db
def test_author_queries_do_not_grow_with_papers(assert_queries):
    # The author with the count of their papers; a page of authorships, their
    # affiliations, the papers' authors and award entries; the institutions over the
    # years; the co-authors.
    assert_queries(_author_with_papers(1).get_absolute_url(), 7)
    prolific = _author_with_papers(LIST_PAGE_SIZE + 3)

    first = assert_queries(prolific.get_absolute_url(), 7)
    second = assert_queries(f"{prolific.get_absolute_url()}page/2/", 7)
    assert len(first.context["papers"]) == LIST_PAGE_SIZE
    assert len(second.context["papers"]) == 3


@pytest.mark.django_db
def test_author_page_counts_and_pages_only_published_papers(client):
    # The count read with the author (with_published_papers()) leaves out drafts and the
    # papers of unpublished conferences, as the list itself does.
    person = _author_with_papers(LIST_PAGE_SIZE + 1)
    draft_conference = factories.conference(status=Status.DRAFT)
    for fields in ({"status": Status.DRAFT}, {"conference": draft_conference}):
        factories.paper(authors=[person], **fields)

    first = client.get(person.get_absolute_url())
    last = client.get(f"{person.get_absolute_url()}page/2/")

    assert first.context["page_obj"].paginator.count == LIST_PAGE_SIZE + 1
    assert len(last.context["papers"]) == 1
    assert f"of {LIST_PAGE_SIZE + 1} papers" in first.content.decode()
    assert client.get(f"{person.get_absolute_url()}page/3/").status_code == 404


# Bounded pages ------------------------------------------------------------------


@pytest.mark.django_db
def test_conference_page_lists_every_award_and_pages_the_other_papers(client):
    award = _award_with_papers(3)
    _other_papers(award.conference, LIST_PAGE_SIZE + 1)
    url = award.conference.get_absolute_url()

    first = client.get(url)
    last = client.get(f"{url}page/2/")

    for response in (first, last):
        assert [len(shown.entries.all()) for shown in response.context["awards"]] == [3]
    titles = [p.title_en for p in [*first.context["other_papers"], *last.context["other_papers"]]]
    assert len(titles) == len(set(titles)) == LIST_PAGE_SIZE + 1
    text = visible_text(first.content.decode())
    assert f"1–{LIST_PAGE_SIZE} of {LIST_PAGE_SIZE + 1} papers, by title" in text
    assert "Page 1 of 2" in text
    assert f'<a href="{url}page/2/" rel="next">Next page</a>' in first.content.decode()
    chinese = visible_text(client.get(f"/zh-hans{url[3:]}").content.decode())
    assert f"第 1–{LIST_PAGE_SIZE} 篇，共 {LIST_PAGE_SIZE + 1} 篇论文，按标题排列" in chinese


@pytest.mark.django_db
def test_conference_page_counts_its_other_papers(assert_queries):
    award = _award_with_papers(2)
    url = award.conference.get_absolute_url()
    # Every paper awarded: counted, and then no page to read.
    none = assert_queries(url, 6)
    _other_papers(award.conference, LIST_PAGE_SIZE + 3)

    last = assert_queries(f"{url}page/2/", 8)

    assert none.context["page_obj"].paginator.count == 0
    assert last.context["page_obj"].paginator.count == LIST_PAGE_SIZE + 3
    assert len(last.context["other_papers"]) == 3


@pytest.mark.django_db
def test_short_lists_have_no_page_links(client):
    award = _award_with_papers(1)
    _other_papers(award.conference, 2)

    html = client.get(award.conference.get_absolute_url()).content.decode()

    assert 'class="pagination"' not in html
    assert "papers, by title" not in html


@pytest.mark.django_db
@pytest.mark.parametrize("page", ["page/0/", "page/3/", "page/x/", "page/1.5/", "?page=x"])
def test_conference_and_author_pages_out_of_range_are_404(client, page):
    award = _award_with_papers(1)
    _other_papers(award.conference, LIST_PAGE_SIZE + 1)
    author = _author_with_papers(LIST_PAGE_SIZE + 1)

    for url in (award.conference.get_absolute_url(), author.get_absolute_url()):
        response = client.get(f"{url}{page}")
        assert response.status_code == 404
        assert "<h1>Page not found</h1>" in response.content.decode()


# What the pages say ------------------------------------------------------------


def test_test_of_time_paper_names_where_published_and_where_awarded(icml, client):
    english = visible_text(
        client.get("/en/papers/trust-region-policy-optimization/").content.decode()
    )
    chinese = visible_text(
        client.get("/zh-hans/papers/trust-region-policy-optimization/").content.decode()
    )

    assert "Published at ICML 2015, Lille, PMLR, volume 37, pp. 1889–1897" in english
    assert "Awards ICML 2025 Test of Time Award (Honourable mention)" in english
    assert "发表于 ICML 2015，里尔，PMLR 第 37 卷，第 1889–1897 页" in chinese
    assert "奖项 ICML 2025 时间检验奖（荣誉提及）" in chinese


def test_paper_lists_authors_in_order_with_affiliations(client, db):
    first, second = factories.author(name="Ada Zed"), factories.author(name="Bo Alpha")
    paper = factories.paper(
        authors=[first, second],
        affiliations=[
            factories.institution(name_en="Princeton University", name_zh_hans="普林斯顿大学")
        ],
    )

    english = visible_text(client.get(paper.get_absolute_url()).content.decode())
    chinese = visible_text(client.get(f"/zh-hans/papers/{paper.slug}/").content.decode())

    assert "Ada Zed (Princeton University) Bo Alpha (Princeton University)" in english
    assert "Ada Zed（普林斯顿大学） Bo Alpha（普林斯顿大学）" in chinese


def test_paper_page_shows_changes_to_its_prefetched_lists_on_the_next_request(client, db):
    """The page's prefetches are built once per process (catalogue.models.
    paper_detail_prefetches): each request still reads its own paper's current rows, in
    either language first."""
    first = factories.paper(authors=[factories.author(name="Ada Zed")])
    second = factories.paper(authors=[factories.author(name="Bo Alpha")])
    chinese_first = visible_text(client.get(f"/zh-hans/papers/{first.slug}/").content.decode())
    english_second = visible_text(client.get(f"/en/papers/{second.slug}/").content.decode())
    authorship = first.authorships.get()
    authorship.set_affiliations([factories.institution(name_en="Lille University")])
    PaperLink.objects.create(paper=first, kind="arxiv", url="https://arxiv.org/abs/1")
    factories.award_entry(factories.award(name_en="Best Paper Award"), first)

    english_first = visible_text(client.get(f"/en/papers/{first.slug}/").content.decode())

    assert ("Ada Zed" in chinese_first, "Ada Zed" in english_second) == (True, False)
    assert "Ada Zed (Lille University)" in english_first
    assert "arXiv" in english_first and "Best Paper Award" in english_first


def test_conference_page_lists_winners_before_honourable_mentions(client, db):
    award = factories.award()
    mention = factories.paper(conference=award.conference, title_en="Mentioned paper")
    winner = factories.paper(conference=award.conference, title_en="Winning paper")
    factories.award_entry(award, mention, level="honourable-mention")
    factories.award_entry(award, winner, level="winner", position=5)

    text = visible_text(client.get(award.conference.get_absolute_url()).content.decode())

    assert text.index("Winner Winning paper") < text.index("Honourable mention Mentioned paper")


NOTICE = (
    '<p class="untranslated-notice" role="note">本页部分内容尚无中文译文，以英文原文显示，'
    "并以虚线下划线或左侧竖线标出。</p>"
)


def test_missing_chinese_abstract_falls_back_visibly_to_english(client, db):
    paper = factories.paper(abstract_en="Only in English.", abstract_zh_hans="", title_zh_hans="")

    html = client.get(f"/zh-hans/papers/{paper.slug}/").content.decode()

    assert '<div lang="en" class="untranslated"><p>Only in English.</p></div>' in html
    assert f'<h1><span lang="en" class="untranslated">{paper.title_en}</span></h1>' in html
    # Said once, at the top of the page's content, and never as a label in the text.
    assert html.count(NOTICE) == 1
    assert html.index(NOTICE) < html.index("<h1>")
    assert "英文原文）" not in html


def test_english_page_never_shows_chinese_fallback(client, db):
    paper = factories.paper(
        abstract_en="", abstract_zh_hans="只有中文。", summary_zh_hans="中文导读。"
    )

    html = client.get(paper.get_absolute_url()).content.decode()

    assert "只有中文" not in html
    assert "中文导读" not in html
    assert "Abstract" not in visible_text(html)


@pytest.mark.parametrize(
    "url",
    [
        "/en/",
        "/en/conferences/icml-2025/",
        "/en/conferences/icml-2025/awards/test-of-time/",
        "/en/papers/collabllm/",
        "/en/authors/michael-i-jordan/",
        "/en/papers/no-such-paper/",
        "/en/venues/icml/awards/test-of-time/",
        "/en/conferences/",
        "/en/venues/",
        "/en/awards/",
        "/en/authors/",
        "/en/search/?q=learning",
        "/en/search/?year=abc",
    ],
)
def test_english_pages_have_no_chinese(icml, client, url):
    text = visible_text(client.get(url).content.decode(), skip_languages=["zh-hans"])

    assert CJK.findall(text) == []


@pytest.mark.parametrize(
    "url",
    [
        "/zh-hans/",
        "/zh-hans/conferences/icml-2025/",
        "/zh-hans/conferences/icml-2015/",
        "/zh-hans/conferences/icml-2025/awards/test-of-time/",
        "/zh-hans/papers/collabllm/",
        "/zh-hans/papers/near-optimal-decision-trees-split-second/",
        "/zh-hans/authors/michael-i-jordan/",
        "/zh-hans/papers/no-such-paper/",
        "/zh-hans/venues/icml/awards/test-of-time/",
        "/zh-hans/conferences/",
        "/zh-hans/venues/",
        "/zh-hans/awards/",
        "/zh-hans/authors/",
        "/zh-hans/search/?q=learning",
        "/zh-hans/search/?year=abc&q=" + "x" * 201,
    ],
)
def test_chinese_pages_have_no_english_labels(icml, client, url):
    text = visible_text(client.get(url).content.decode(), skip_languages=["en"])
    labels = {
        entry.msgid
        for entry in polib.pofile(str(CATALOGUE))
        if entry.msgstr != entry.msgid
        and any(c.isalpha() for c in entry.msgid)
        and "%" not in entry.msgid
    }
    # Interface labels are whole words: "Award" must not match inside "Awards".
    words = set(text.replace("，", " ").replace("：", " ").split())
    phrases = [label for label in labels if " " in label.strip() and label in text]

    assert sorted(labels & words) == []
    assert phrases == []


@pytest.mark.no_database
def test_chinese_catalogue_is_complete():
    catalogue = polib.pofile(str(CATALOGUE))

    assert [entry.msgid for entry in catalogue.untranslated_entries()] == []
    assert [entry.msgid for entry in catalogue.fuzzy_entries()] == []


@pytest.mark.no_database
def test_chinese_catalogue_holds_every_message_of_the_code(tmp_path):
    """docs/architecture.md's ``makemessages`` and ``compilemessages`` commands, run as
    written on a copy of the code and the catalogue, add no message and drop none, and
    compile. Added: a string marked for translation since the catalogue was last made,
    shown in English on the Chinese pages (the test above reads the committed catalogue
    only, so it cannot see it). Dropped: a message the code uses where makemessages
    cannot find it (inside an f-string, or one of Django's own), whose translation the
    next run of the command would lose."""
    for name in ("manage.py", "awardsite", *settings.PROJECT_APPS, "templates", "locale"):
        source = settings.BASE_DIR / name
        if source.is_dir():
            shutil.copytree(source, tmp_path / name, ignore=shutil.ignore_patterns("*.pyc"))
        else:
            shutil.copy(source, tmp_path / name)
    (tmp_path / ".venv").symlink_to(Path(sys.prefix))
    compiled = (tmp_path / CATALOGUE.relative_to(settings.BASE_DIR)).with_suffix(".mo")
    compiled.unlink(missing_ok=True)
    block = doc_block("docs/architecture.md", "translation")
    environment = {key: value for key, value in os.environ.items() if not key.startswith("DJANGO_")}
    result = subprocess.run(  # noqa: S603
        ["bash", "-euo", "pipefail", "-c", block],
        cwd=tmp_path,
        env=environment,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert compiled.is_file()

    made = polib.pofile(str(tmp_path / CATALOGUE.relative_to(settings.BASE_DIR)))
    made = {(entry.msgctxt, entry.msgid) for entry in made}
    committed = {(entry.msgctxt, entry.msgid) for entry in polib.pofile(str(CATALOGUE))}
    assert {
        "added": sorted(made - committed, key=str),
        "dropped": sorted(committed - made, key=str),
    } == {
        "added": [],
        "dropped": [],
    }


# Languages and 404s -----------------------------------------------------------


@pytest.mark.parametrize(
    ("accept_language", "prefix"),
    [
        ("zh-CN", "/zh-hans/"),
        ("zh-SG", "/zh-hans/"),
        ("zh-Hans-CN", "/zh-hans/"),
        ("zh-hans", "/zh-hans/"),
        ("en-GB,en;q=0.8", "/en/"),
        ("fr-FR", "/en/"),
    ],
)
def test_root_redirects_by_accept_language(client, db, accept_language, prefix):
    response = client.get("/", headers={"accept-language": accept_language})

    assert response.status_code == 302
    assert response["Location"] == prefix


def test_language_switcher_keeps_the_page(icml, client):
    html = client.get("/en/papers/collabllm/").content.decode()

    assert (
        '<a href="/zh-hans/papers/collabllm/" hreflang="zh-hans" lang="zh-hans">简体中文</a>'
        in html
    )


@pytest.mark.parametrize("language", ["en", "zh-hans"])
@pytest.mark.parametrize(
    "path",
    [
        "conferences/nope/",
        "conferences/icml-2025/awards/nope/",
        "conferences/nope/awards/test-of-time/",
        "conferences/icml-2015/awards/test-of-time/",
        "papers/nope/",
        "authors/nope/",
        "no/such/page/",
    ],
)
def test_unknown_slugs_are_404_in_the_visitors_language(icml, client, language, path):
    response = client.get(f"/{language}/{path}")

    assert response.status_code == 404
    heading = {"en": "<h1>Page not found</h1>", "zh-hans": "<h1>页面不存在</h1>"}[language]
    assert heading in response.content.decode()


# Drafts ---------------------------------------------------------------------


def test_draft_paper_is_hidden_everywhere(client, db):
    award = factories.award()
    shown = factories.paper(conference=award.conference, title_en="Shown paper")
    draft = factories.paper(
        conference=award.conference,
        title_en="Draft paper",
        status=Status.DRAFT,
        authors=[factories.author()],
    )
    factories.award_entry(award, shown)
    factories.award_entry(award, draft)

    assert client.get(draft.get_absolute_url()).status_code == 404
    assert client.get(draft.authorships.get().author.get_absolute_url()).status_code == 404
    for url in ["/en/", award.conference.get_absolute_url(), award.get_absolute_url()]:
        text = visible_text(client.get(url).content.decode())
        assert "Draft paper" not in text
    assert "1 paper" in visible_text(client.get("/en/").content.decode())


def test_draft_award_and_conference_are_404(client, db):
    draft_award = factories.award(status=Status.DRAFT)
    draft_conference = factories.conference(status=Status.DRAFT)
    paper = factories.paper(conference=draft_conference)

    assert client.get(draft_award.get_absolute_url()).status_code == 404
    assert client.get(draft_conference.get_absolute_url()).status_code == 404
    assert client.get(paper.get_absolute_url()).status_code == 404
    assert draft_conference.name_en not in client.get("/en/").content.decode()


def test_favicon_redirects_to_the_static_file(client):
    response = client.get("/favicon.ico")

    assert response.status_code == 301
    assert response["Location"] == "/static/favicon.ico"


# Award levels, names in both languages, editions without awards (issue 9) ------------


def _imaginary_conference(**fields):
    """The made-up Conference on Imaginary Learning 2031 (CIL): its name is the same in
    both languages, so its Chinese name is left empty."""
    venue = fields.pop("venue", None) or factories.venue(
        slug="cil", acronym="CIL", name_en="Conference on Imaginary Learning"
    )
    values = {
        "venue": venue,
        "slug": "cil-2031",
        "year": 2031,
        "name_en": "CIL 2031",
        "name_zh_hans": "",
        "city_en": "Nowhere Bay",
        "city_zh_hans": "",
        "country_en": "Atlantis",
        "country_zh_hans": "",
        "proceedings_en": "Imaginary Proceedings, volume 1",
        "proceedings_zh_hans": "",
    }
    return factories.conference(**{**values, **fields})


def _levelled_award(conference):
    """A best paper award with a winner, two runners-up and a finalist."""
    award = factories.award(
        conference=conference, slug="best", name_en="Best Paper Award", name_zh_hans=""
    )
    for slug, title, position in [
        ("finalist", "Final Thoughts", 1),
        ("runner-up", "Second Thoughts", 2),
        ("winner", "First Thoughts", 1),
        ("runner-up", "Other Thoughts", 1),
    ]:
        paper = factories.paper(conference=conference, title_en=title, title_zh_hans="")
        factories.award_entry(award, paper, level=slug, position=position)
    return award


def test_award_page_shows_each_level_under_its_label_top_level_first(client, db):
    award = _levelled_award(_imaginary_conference())

    english = visible_text(client.get(award.get_absolute_url()).content.decode())
    chinese = visible_text(client.get(f"/zh-hans{award.get_absolute_url()[3:]}").content.decode())

    assert (
        english.index("Winner First Thoughts")
        < english.index("Runners-up Other Thoughts")
        < english.index("Second Thoughts")
        < english.index("Finalist Final Thoughts")
    )
    assert (
        chinese.index("获奖论文 First Thoughts")
        < chinese.index("亚军论文 Other Thoughts")
        < chinese.index("入围论文 Final Thoughts")
    )


def test_badges_name_the_level_except_the_top_one(client, db):
    award = _levelled_award(_imaginary_conference())
    runner_up = award.entries.get(paper__title_en="Other Thoughts").paper
    winner = award.entries.get(paper__title_en="First Thoughts").paper

    runner_up_text = visible_text(client.get(runner_up.get_absolute_url()).content.decode())
    winner_text = visible_text(client.get(winner.get_absolute_url()).content.decode())

    assert "Awards CIL 2031 Best Paper Award (Runner-up)" in runner_up_text
    assert "Awards CIL 2031 Best Paper Award" in winner_text
    assert "(Winner)" not in winner_text


def test_chinese_page_marks_untranslated_prose_but_not_names(client, db):
    award = _levelled_award(_imaginary_conference())

    html = client.get(f"/zh-hans/conferences/{award.conference.slug}/").content.decode()

    # The name, the same in both languages, is shown unmarked in the heading and breadcrumb.
    assert '<h1><span lang="en">CIL 2031</span></h1>' in html
    assert '<li aria-current="page"><span lang="en">CIL 2031</span></li>' in html
    # The untranslated award name is marked quietly; the page says so once, at the top.
    assert '<span lang="en" class="untranslated">Best Paper Award</span>' in html
    assert html.count(NOTICE) == 1
    assert html.index(NOTICE) < html.index("<h1>")
    assert "（英文原文）" not in html


def test_chinese_award_index_marks_an_untranslated_award_name(client, db):
    award = factories.award(name_en="Best Paper Award", name_zh_hans="")
    factories.award_entry(award, factories.paper())

    html = client.get("/zh-hans/awards/").content.decode()

    assert '<span lang="en" class="untranslated">Best Paper Award</span></a>' in html
    assert html.count(NOTICE) == 1
    assert html.index(NOTICE) < html.index("<h1>")


def test_chinese_award_index_of_translated_names_has_no_notice(client, db):
    factories.award_entry(factories.award(), factories.paper())

    html = client.get("/zh-hans/awards/").content.decode()

    assert "奖项" in html
    assert 'class="untranslated' not in html
    assert "untranslated-notice" not in html


def test_chinese_page_without_untranslated_prose_has_no_notice(client, db):
    conference = _imaginary_conference()
    factories.award_entry(factories.award(conference=conference), factories.paper())

    html = client.get(f"/zh-hans/conferences/{conference.slug}/").content.decode()

    assert 'class="untranslated' not in html
    assert "untranslated-notice" not in html


def test_english_page_has_no_untranslated_notice(client, db):
    award = _levelled_award(_imaginary_conference())

    html = client.get(award.conference.get_absolute_url()).content.decode()

    assert "untranslated" not in html


def test_conference_meta_parts_are_direct_children_for_the_separator(client, db):
    """The CSS puts " · " between the direct spans only (static/css/site.css); names
    inside them are spans too and must not get one."""
    conference = _imaginary_conference()
    factories.award_entry(factories.award(conference=conference), factories.paper())
    css = (settings.BASE_DIR / "static" / "css" / "site.css").read_text()

    html = client.get(f"/zh-hans/conferences/{conference.slug}/").content.decode()

    assert ".conference-meta > span + span::before" in css
    assert ".conference-meta span + span" not in css
    assert (
        '<span><span lang="en">Nowhere Bay</span>，<span lang="en">Atlantis</span></span>' in html
    )


def test_home_page_leaves_out_editions_without_awards(client, db):
    earlier = _imaginary_conference(slug="cil-2021", year=2021, name_en="CIL 2021")
    later = _imaginary_conference(venue=earlier.venue)
    honoured = factories.paper(conference=earlier, title_en="An Old Imaginary Result")
    factories.award_entry(factories.award(conference=later, name_en="Test of Time"), honoured)

    home = visible_text(client.get("/en/").content.decode())
    paper = client.get(honoured.get_absolute_url()).content.decode()
    venue = client.get("/en/venues/cil/").content.decode()

    assert "CIL 2031" in home
    assert "CIL 2021" not in home
    assert "No awards of this conference" not in home
    assert f'href="{earlier.get_absolute_url()}"' in paper
    assert f'href="{earlier.get_absolute_url()}"' in venue
    assert f'href="{later.get_absolute_url()}"' in venue
    assert "No awards of its own listed; 1 paper published there" in visible_text(venue)


def test_venue_page_in_chinese_and_404s(client, db):
    conference = _imaginary_conference()
    factories.award_entry(factories.award(conference=conference), factories.paper())
    factories.venue(slug="empty-venue")

    chinese = visible_text(client.get("/zh-hans/venues/cil/").content.decode())

    assert "历届会议" in chinese
    assert "CIL 2031 1 个奖项" in chinese
    assert client.get("/en/venues/empty-venue/").status_code == 404
    assert client.get("/en/venues/no-such-venue/").status_code == 404


@pytest.mark.django_db
def test_venue_queries_do_not_grow_with_editions(client, django_assert_num_queries):
    venue = factories.venue(slug="cil")
    factories.award(conference=factories.conference(venue=venue))
    # The venue, then its editions with their counts.
    with django_assert_num_queries(2):
        assert client.get("/en/venues/cil/").status_code == 200
    for _ in range(5):
        factories.award(conference=factories.conference(venue=venue))

    with django_assert_num_queries(2):
        assert client.get("/en/venues/cil/").status_code == 200


def test_new_link_kinds_are_shown_in_their_order(client, db):
    paper = factories.paper(
        links=[
            ("slides", "https://slides.example.org/"),
            ("proceedings", "https://proceedings.example.org/"),
            ("dataset", "https://data.example.org/"),
            ("video", "https://video.example.org/"),
            ("project", "https://project.example.org/"),
        ]
    )

    text = visible_text(client.get(paper.get_absolute_url()).content.decode())

    assert "Read the paper Proceedings Project page Dataset Video Slides" in text


@pytest.mark.parametrize(
    ("pages", "shown"),
    [
        ("448-456", "448–456"),
        ("448--456", "448–456"),
        ("448 - 456", "448–456"),
        ("e1\u2010e12", "e1–e12"),
        ("1889–1897", "1889–1897"),
        ("12", "12"),
        ("", ""),
    ],
)
def test_page_ranges_are_shown_with_an_en_dash(pages, shown):
    from pages.templatetags.awards import page_range

    assert page_range(pages) == shown


# Award badges (issue 10) -----------------------------------------------------------


def test_badges_take_their_tier_from_the_levels_rank_top_level_first(client, db):
    """A paper with entries at three levels of three awards: each badge's tier is its
    level's rank in its own award (1 for the top level, 2 for the next, 3 below), and
    the top-level badges come first."""
    paper = factories.paper()
    for slug, level in [
        ("third", "honourable-mention"),
        ("second", "runner-up"),
        ("first", "winner"),
    ]:
        award = factories.award(slug=slug, name_en=f"{slug.title()} Award")
        for other in ("winner", "runner-up", "honourable-mention"):
            factories.award_level(award, other)
        factories.award_entry(award, paper, level=level)

    html = client.get(paper.get_absolute_url()).content.decode()

    tiers = re.findall(r'<span class="badge tier-(\d)"><svg class="icon" aria-hidden="true"', html)
    assert tiers == ["1", "2", "3"]
    text = visible_text(html)
    assert text.index("First Award") < text.index("Second Award") < text.index("Third Award")


def test_level_tier_clamps_ranks_to_three_tiers():
    from pages.templatetags.awards import level_tier

    assert [level_tier(rank) for rank in (None, 0, 1, 2, 5)] == [1, 1, 2, 3, 3]


def test_award_level_headings_carry_their_tier(client, db):
    award = _levelled_award(_imaginary_conference())

    html = client.get(award.get_absolute_url()).content.decode()

    assert re.findall(r'<section class="award-level (tier-\d)', html) == [
        "tier-1",
        "tier-2",
        "tier-3",
    ]


# Index pages and navigation (issue 10) ----------------------------------------------


@pytest.mark.django_db
def test_conference_index_queries_do_not_grow_with_conferences(assert_queries):
    _award_with_papers(1)
    # The conferences with their venues and counts.
    assert_queries("/en/conferences/", 1)
    venue = factories.venue()
    for _ in range(4):
        _award_with_papers(2, conference=factories.conference(venue=venue))
    _other_papers(factories.conference(venue=venue), 2)

    response = assert_queries("/en/conferences/", 1)
    # One, four, the one of the other papers and the one of their awards elsewhere.
    assert len(response.context["conferences"]) == 7


@pytest.mark.django_db
def test_venue_index_queries_do_not_grow_with_venues(assert_queries):
    _award_with_papers(1)
    # The venues with their counts and years; their editions.
    assert_queries("/en/venues/", 2)
    for _ in range(4):
        venue = factories.venue()
        _award_with_papers(1, conference=factories.conference(venue=venue))
        _award_with_papers(1, conference=factories.conference(venue=venue))

    response = assert_queries("/en/venues/", 2)
    assert len(response.context["venues"]) == 5


@pytest.mark.django_db
def test_award_index_queries_do_not_grow_with_awards(assert_queries):
    _award_with_papers(1)
    # The awards with their conferences, venues and counts of papers; the newest
    # editions' entries; their papers' authors;
    # the kinds of award with their counts of awards (pages/templatetags/award_kinds.py).
    assert_queries("/en/awards/", 4)
    venue = factories.venue()
    kinds = [AwardKind.objects.create(slug=slug, name_en=slug) for slug in ("best", "other")]
    for year in (2030, 2031, 2032):
        conference = factories.conference(venue=venue, year=year)
        _award_with_papers(2, conference=conference)
        factories.award_entry(
            factories.award(conference=conference, slug="best", kind=kinds[year % 2]),
            factories.paper(),
        )

    response = assert_queries("/en/awards/", 4)
    html = response.content.decode()
    assert html.count('<a class="index-name"') == 5 + 2
    best = re.findall(r'<a href="/en/conferences/[^/"]+/awards/best/">(\d+)</a>', html)
    assert best == ["2032", "2031", "2030"]


@pytest.mark.django_db
def test_author_index_queries_do_not_grow_with_authors(assert_queries):
    from pages.views import AUTHOR_PAGE_SIZE

    _author_with_papers(1)
    # The letters in use; the count; the page.
    assert_queries("/en/authors/", 3)
    factories.paper(authors=[factories.author() for _ in range(AUTHOR_PAGE_SIZE + 5)])

    first = assert_queries("/en/authors/", 3)
    last = assert_queries("/en/authors/page/2/", 3)
    assert len(first.context["authors"]) == AUTHOR_PAGE_SIZE
    assert len(last.context["authors"]) == 7


@pytest.mark.django_db
def test_author_letter_queries_do_not_grow_with_authors(assert_queries):
    from pages.views import AUTHOR_PAGE_SIZE

    factories.paper(authors=[factories.author(slug="a-0001", name="Ann Abbott")])
    # The letters in use; the count; the page.
    assert_queries("/en/authors/letter/a/", 3)
    factories.paper(
        authors=[
            factories.author(slug=f"a-{n:03d}", name=f"Ann Abbott{n:03d}")
            for n in range(AUTHOR_PAGE_SIZE)
        ]
    )
    assert_queries("/en/authors/letter/a/", 3)
    assert_queries("/en/authors/letter/a/page/2/", 3)


def test_author_index_orders_names_of_every_script_a_to_z(client, db):
    """Names are ordered by their romanised family name: Ágnes Tóth with T, 王 (wang)
    with W."""
    names = {"zhang-wei": "张伟", "agnes-toth": "Ágnes Tóth", "wang-fang": "王芳", "bo-li": "Bo Li"}
    factories.paper(
        authors=[factories.author(slug=slug, name=name) for slug, name in names.items()]
    )
    factories.author(slug="no-paper", name="Nobody Published")

    response = client.get("/en/authors/")
    by_letter = client.get("/en/authors/letter/w/")

    assert [author.name for author in response.context["authors"]] == [
        "Bo Li",
        "Ágnes Tóth",
        "王芳",
        "张伟",
    ]
    assert [author.name for author in by_letter.context["authors"]] == ["王芳"]
    letters = {item["code"]: item["used"] for item in response.context["letters"]}
    assert (letters["l"], letters["t"], letters["n"], letters["w"], letters["z"]) == (
        True,
        True,
        False,
        True,
        True,
    )
    html = response.content.decode()
    assert '<a href="/en/authors/letter/w/">W <small>1</small></a>' in html
    assert '<span class="unused">N</span>' in html


def test_author_index_letters_in_use_are_those_of_published_authors(client, db):
    """A letter (or the digits) is in use when a published author's family name starts
    with it: an author whose only paper is a draft, or who has none, does not count."""
    factories.paper(
        authors=[
            factories.author(slug="bo-li", name="Li Bo"),
            factories.author(slug="3d-lab", name="3D Lab", family_name="3D Lab"),
            factories.author(slug="zoe", name="Zoe"),
        ]
    )
    factories.paper(authors=[factories.author(slug="carl", name="Carl")], status=Status.DRAFT)
    factories.author(slug="dora", name="Dora")

    used = {item["code"] for item in client.get("/en/authors/").context["letters"] if item["used"]}
    factories.paper(authors=[factories.author(slug="anna", name="Anna")], status=Status.DRAFT)
    Author.objects.filter(slug="3d-lab").update(has_published_paper=False)
    fewer = {item["code"] for item in client.get("/en/authors/").context["letters"] if item["used"]}

    assert used == {"b", "z", "0"}
    assert fewer == {"b", "z"}


@pytest.mark.parametrize(
    "url", ["letter/ab/", "letter/%C3%A9/", "?letter=ab", "?letter=%C3%A9", "page/9/", "?page=9"]
)
def test_author_index_unknown_letter_or_page_is_404(client, db, url):
    factories.paper(authors=[factories.author()])

    assert client.get(f"/en/authors/{url}", follow=True).status_code == 404


def test_index_pages_group_by_venue_in_both_languages(icml, client):
    conferences = visible_text(client.get("/zh-hans/conferences/").content.decode())
    awards = visible_text(client.get("/en/awards/").content.decode())
    venues = visible_text(client.get("/zh-hans/venues/").content.decode())

    assert "3 个奖项 11 篇获奖论文 收录 16 篇论文" in conferences
    assert conferences.index("ICML 2025") < conferences.index("ICML 2015")
    assert "Outstanding Paper Award 2025 6 papers" in awards
    assert awards.index("Outstanding Paper Award") < awards.index("Test of Time Award")
    assert "ICML 2 届，2015–2025 年" in venues


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_header_leads_to_every_index_page(icml, client, language):
    html = client.get(f"/{language}/papers/collabllm/").content.decode()
    index = client.get(f"/{language}/authors/").content.decode()

    for page in ("conferences", "awards", "authors", "venues"):
        assert f'<a href="/{language}/{page}/"' in html
    assert f'<a href="/{language}/authors/" aria-current="page">' in index


@pytest.mark.parametrize(
    ("url", "crumbs"),
    [
        ("/en/conferences/icml-2025/", ["/en/", "/en/conferences/"]),
        (
            "/en/conferences/icml-2025/awards/test-of-time/",
            ["/en/", "/en/conferences/", "/en/conferences/icml-2025/"],
        ),
        ("/en/papers/collabllm/", ["/en/", "/en/conferences/", "/en/conferences/icml-2025/"]),
        ("/en/authors/michael-i-jordan/", ["/en/", "/en/authors/"]),
        ("/en/venues/icml/", ["/en/", "/en/venues/"]),
        ("/en/venues/icml/awards/test-of-time/", ["/en/", "/en/awards/"]),
        ("/en/authors/letter/j/", ["/en/", "/en/authors/"]),
    ],
)
def test_every_breadcrumb_leads_to_a_page(icml, client, url, crumbs):
    html = client.get(url).content.decode()
    trail = re.search(r'<nav class="breadcrumbs wrap"[^>]*>(.*?)</nav>', html).group(1)

    links = re.findall(r'<a href="([^"]+)"', trail)
    assert links == crumbs
    for link in links:
        assert client.get(link).status_code == 200
    assert trail.count('aria-current="page"') == 1


def test_author_page_shows_affiliations_over_time_and_coauthors(client, db):
    person = factories.author(name="Ada Person")
    friend = factories.author(name="Often Together")
    once = factories.author(name="Only Once")
    princeton = factories.institution(name_en="Princeton University", name_zh_hans="普林斯顿大学")
    google = factories.institution(name_en="Google", name_zh_hans="")
    for year, institution, authors in [
        (2015, princeton, [person, friend]),
        (2018, princeton, [person, friend, once]),
        (2025, google, [friend, person]),
    ]:
        factories.paper(
            conference=factories.conference(year=year),
            authors=authors,
            affiliations=[institution],
        )
    factories.paper(  # a draft: neither its institution nor its co-author counts
        status="draft",
        authors=[person, factories.author(name="Draft Friend")],
        affiliations=[factories.institution(name_en="Hidden Lab")],
    )

    english = visible_text(client.get(person.get_absolute_url()).content.decode())
    chinese = visible_text(client.get(f"/zh-hans{person.get_absolute_url()[3:]}").content.decode())

    assert "Affiliations 2025 Google 2015–2018 Princeton University" in english
    assert "Co-authors Often Together 3 papers Only Once Papers" in english
    assert "Hidden Lab" not in english
    assert "Draft Friend" not in english
    assert "所属机构 2025 Google 2015–2018 普林斯顿大学" in chinese
    assert "合作者 Often Together 3 篇论文 Only Once" in chinese


def test_home_shows_the_most_recent_conferences_and_links_to_the_index(client, db):
    conferences = [
        factories.award_entry(factories.award(), factories.paper()).award.conference
        for _ in range(HOME_CONFERENCES + 1)
    ]
    oldest = min(conferences, key=lambda conference: conference.year)
    index = '<p class="more-conferences"><a href="/en/conferences/">'

    english = client.get("/en/").content.decode()
    chinese = client.get("/zh-hans/").content.decode()
    oldest.awards.all().delete()
    without_it = client.get("/en/").content.decode()

    shown = [c for c in conferences if c != oldest]
    assert [c.name_en in english for c in shown] == [True] * HOME_CONFERENCES
    assert oldest.get_absolute_url() not in english
    assert f"{index}Every conference, the earlier ones included</a></p>" in english
    assert "所有会议，包括更早的会议</a></p>" in chinese
    # As many conferences as the page shows: no link, nothing left out.
    assert [c.name_en in without_it for c in shown] == [True] * HOME_CONFERENCES
    assert "more-conferences" not in without_it


def test_home_lists_each_award_with_its_number_of_papers_in_both_languages(client, db):
    single = factories.award(name_en="Single Award", name_zh_hans="单篇奖")
    double = factories.award(
        conference=single.conference, name_en="Double Award", name_zh_hans="", position=2
    )
    factories.award_entry(single, factories.paper(conference=single.conference))
    for _ in range(2):
        factories.award_entry(double, factories.paper(conference=single.conference))

    urls = {}
    for language in ("en", "zh-hans"):
        with translation.override(language):
            urls[language] = single.get_absolute_url()
    english = client.get("/en/").content.decode()
    chinese = client.get("/zh-hans/").content.decode()

    assert f'<a href="{urls["en"]}">Single Award</a>' in english
    assert "Single Award 1 paper" in visible_text(english)
    assert "Double Award 2 papers" in visible_text(english)
    assert f'<a href="{urls["zh-hans"]}">单篇奖</a>' in chinese
    assert "单篇奖 1 篇论文" in visible_text(chinese)
    # A name without a Chinese version is shown in English, marked as untranslated.
    assert '<span lang="en" class="untranslated">Double Award</span>' in chinese
    assert "Double Award 2 篇论文" in visible_text(chinese)


def test_conference_page_heads_each_award_section_with_its_linked_name(client, db):
    first = factories.award(slug="best-paper", name_en="Best Paper", name_zh_hans="最佳论文")
    second = factories.award(
        conference=first.conference,
        slug="test-of-time",
        name_en="Test of Time",
        name_zh_hans="",
        position=1,
    )
    for award in (first, second):
        factories.award_entry(award, factories.paper(conference=first.conference))
    url, award_url = first.conference.get_absolute_url(), first.get_absolute_url()

    html = client.get(url).content.decode()
    chinese = client.get(f"/zh-hans{url[3:]}").content.decode()

    assert html.index('<section class="award" aria-labelledby="award-best-paper">') < html.index(
        '<section class="award" aria-labelledby="award-test-of-time">'
    )
    assert f'<h2 id="award-best-paper"><a href="{award_url}">Best Paper</a></h2>' in html
    assert f'<a href="/zh-hans{award_url[3:]}">最佳论文</a></h2>' in chinese
    # An award's name without a translation is shown in English, marked as untranslated.
    assert '<h2 id="award-test-of-time"><a href="/zh-hans' in chinese
    assert '<span lang="en" class="untranslated">Test of Time</span></a></h2>' in chinese
    assert 'class="untranslated-notice"' in chinese
    assert "No awards of this conference are listed here yet." not in html


def test_conference_page_without_awards_says_so(client, db):
    conference = factories.conference()
    factories.paper(conference=conference, title_en="A paper without award")

    text = visible_text(client.get(conference.get_absolute_url()).content.decode())

    assert "No awards of this conference are listed here yet." in text
    assert "A paper without award" in text
    assert (
        'class="award" aria-labelledby="award-'
        not in client.get(conference.get_absolute_url()).content.decode()
    )


@pytest.mark.django_db
def test_head_of_a_public_page_answers_as_get_without_a_body(client):
    head, get = client.head("/en/venues/"), client.get("/en/venues/")

    assert head.status_code == get.status_code == 200
    assert head.content == b""
    assert head["Content-Type"] == get["Content-Type"]


@pytest.mark.django_db
def test_home_shows_the_newest_conferences_winners_not_its_mentions(client):
    older = _award_with_papers(2)
    newest = _award_with_papers(4, conference=factories.conference(year=older.conference.year + 1))
    winners = newest.entries.filter(level__slug="winner").values_list("paper__title_en", flat=True)
    mentions = newest.entries.exclude(level__slug="winner").values_list(
        "paper__title_en", flat=True
    )

    html = client.get("/en/").content.decode()
    cards = html[html.index('<ul class="winners">') : html.index("</ul>", html.index("winners"))]

    assert sorted(winners) and all(title in cards for title in winners)
    assert not any(title in cards for title in mentions)
    assert not any(entry.paper.title_en in cards for entry in older.entries.all())
    assert f'href="{newest.get_absolute_url()}"' in cards


@pytest.mark.django_db
def test_conference_page_links_to_each_award_and_the_other_papers(client):
    award = _award_with_papers(1)
    second = factories.award(conference=award.conference)
    _award_with_papers(1, conference=award.conference)
    _other_papers(award.conference, 1)

    html = client.get(award.conference.get_absolute_url()).content.decode()
    jump = html[html.index('<nav class="jump"') : html.index("</nav>", html.index('class="jump"'))]

    for slug in (award.slug, second.slug):
        assert f'href="#award-{slug}"' in jump and f'id="award-{slug}"' in html
    assert 'href="#other-papers"' in jump and 'id="other-papers"' in html


def test_author_index_letters_and_orders_authors_by_family_name(client, db):
    """John Schulman under S; a family name of two words (Fischer Abaigar) under its
    first; a Chinese name by its family name, written first."""
    factories.paper(
        authors=[
            factories.author(slug="john-schulman", name="John Schulman"),
            factories.author(
                slug="unai-fischer-abaigar",
                name="Unai Fischer Abaigar",
                given_name="Unai",
                family_name="Fischer Abaigar",
            ),
            factories.author(slug="fischer-zed", name="Zed Fischer"),
            factories.author(slug="wei-zhang", name="张伟", given_name="伟", family_name="张"),
        ]
    )

    response = client.get("/en/authors/")
    under_s = client.get("/en/authors/letter/s/")
    under_j = client.get("/en/authors/letter/j/")

    assert [author.slug for author in response.context["authors"]] == [
        "fischer-zed",
        "unai-fischer-abaigar",
        "john-schulman",
        "wei-zhang",
    ]
    assert [author.slug for author in under_s.context["authors"]] == ["john-schulman"]
    assert under_j.status_code == 200
    assert list(under_j.context["authors"]) == []
    html = response.content.decode()
    assert '<a href="/en/authors/unai-fischer-abaigar/">Fischer Abaigar, Unai</a>' in html
    assert '<a href="/en/authors/wei-zhang/">张伟</a>' in html


def test_author_page_shows_the_name_in_native_script(client, db):
    factories.paper(
        authors=[factories.author(slug="zhang-wei", name="Wei Zhang", native_name="张伟")]
    )

    html = client.get("/en/authors/zhang-wei/").content.decode()

    assert '<h1>Wei Zhang <span class="native-name">张伟</span></h1>' in html


@pytest.mark.django_db
def test_a_translated_title_has_the_title_as_published_under_it(client):
    paper = factories.paper(title_en="Dreaming in $K$ Gradients", title_zh_hans="梦中的梯度")
    untranslated = factories.paper(title_en="Only in English", title_zh_hans="")
    original = '<p class="original-title" lang="en">Dreaming in <math'

    chinese = client.get(f"/zh-hans/papers/{paper.slug}/").content.decode()
    english = client.get(f"/en/papers/{paper.slug}/").content.decode()
    fallback = client.get(f"/zh-hans/papers/{untranslated.slug}/").content.decode()

    assert original in chinese
    assert 'class="original-title"' not in english
    assert 'class="original-title"' not in fallback
