"""Which pages a re-publish renders again (publishing/changes.py, issue 12).

The strong tests render every object page of the shipped content in both languages
before and after an edit, with the test client, and check that each page whose HTML
changed is one ``affected()`` names: a dependency rule missing from the module fails
them. The precise tests check that an edit does not name pages it cannot change.
"""

import datetime

import pytest
import reversion
from django.db import connection
from django.test import override_settings
from django.urls import reverse
from django.utils import translation

from catalogue.models import (
    Affiliation,
    Author,
    Authorship,
    Award,
    AwardEntry,
    AwardKind,
    AwardLevel,
    Conference,
    Institution,
    Paper,
    PaperLink,
    Status,
    Venue,
)
from catalogue.published_authors import refresh_published_authors
from pages import sitemaps
from pages.sitemaps import SITEMAPS, part_count
from publishing import changes as publish_changes
from publishing.changes import Affected, affected, read, snapshot, write
from tests import factories

LANGUAGES = ("en", "zh-hans")


# --- The strong form: every page whose HTML changed is named. -------------------------


def object_pages():
    """(URL name with its namespace, kwargs) of every published object's pages (detail,
    citations, downloads, the API's conference) and of the A-Z of authors."""
    papers = _slugs(Paper.objects.published())
    conferences = _slugs(Conference.objects.published())
    pages = [("papers:author-list", {})]
    # Pages about the whole site that Affected follows finer than "any change".
    pages += [("sitemap", {}), ("robots-txt", {}), ("api-v1:index", {})]
    pages += [("api-v1:openapi-json", {})]
    pages += [("sitemap-section", {"section": section}) for section in SITEMAPS]
    pages += [
        ("sitemap-section-page", {"section": section, "page": page})
        for section in SITEMAPS
        for page in range(2, part_count(section) + 1)
    ]
    pages += [("opendata-site-compact", {})]
    pages += [("papers:venue-detail", {"slug": s}) for s in _slugs(Venue.objects.published())]
    for slug in conferences:
        pages.append(("papers:conference-detail", {"slug": slug}))
        pages.append(("papers:conference-citation", {"slug": slug, "fmt": "bib"}))
        pages.append(("opendata-conference-csv", {"slug": slug}))
        pages.append(("opendata-conference-compact", {"slug": slug}))
        pages.append(("api-v1:conference", {"slug": slug}))
    pages += [("papers:paper-detail", {"slug": s}) for s in papers]
    pages += [("papers:paper-citation", {"slug": s, "fmt": "ris"}) for s in papers]
    pages += [("papers:author-detail", {"slug": s}) for s in _slugs(Author.objects.published())]
    pages += [("papers:award-kind", {"slug": s}) for s in _slugs(AwardKind.objects.published())]
    awards = Award.objects.published().values_list(
        "conference__slug", "slug", "conference__venue__slug"
    )
    for conference, slug, venue in awards:
        pages.append(("papers:award-detail", {"conference_slug": conference, "slug": slug}))
        pages.append(
            ("papers:award-citation", {"conference_slug": conference, "slug": slug, "fmt": "bib"})
        )
        pages.append(("papers:award-series", {"venue_slug": venue, "slug": slug}))
    return pages


def _slugs(queryset):
    return list(queryset.values_list("slug", flat=True))


def render_pages(client, pages):
    """{(URL name, kwargs as a tuple, language): body} of ``pages`` that answer 200, in
    each language (once for those outside the language prefixes)."""
    bodies = {}
    for name, kwargs in pages:
        for language in LANGUAGES if name.startswith("papers:") else LANGUAGES[:1]:
            with translation.override(language):
                url = reverse(name, kwargs=kwargs)
            response = client.get(url)
            if response.status_code == 200:
                body = b"".join(response) if response.streaming else response.content
                bodies[(name.split(":")[-1], tuple(sorted(kwargs.items())), language)] = body
    return bodies


# The shipped content's pages as they are rendered before any edit, kept from the first
# test that renders them: loading the content gives the same rows (and pks) each time,
# so its pages are the same, and each test renders half as many.
_shipped_pages = {}
# The pages an edit of the shipped content changes, kept the same way by the edit: the
# tests that take a rule out of publishing/changes.py run an edit that another test
# runs too, and the rule changes what ``affected()`` names, never what a page shows.
_shipped_changes = {}


def changed_pages(client, edit, shipped=False):
    """The pages whose HTML ``edit()`` changed (a page that exists only before or after
    is left out: the publisher writes or removes it by its URL), and the Affected.
    ``shipped``: the database holds the shipped content as loaded, unchanged."""
    before_snapshot = snapshot()
    if shipped and (connection.vendor, edit) in _shipped_changes:
        edit()
        changed = _shipped_changes[connection.vendor, edit]
    else:
        changed = _render_changes(client, edit, shipped)
        if shipped:
            _shipped_changes[connection.vendor, edit] = changed
    return changed, affected(before_snapshot, snapshot())


def _render_changes(client, edit, shipped):
    pages = object_pages()
    if shipped:
        if connection.vendor not in _shipped_pages:
            _shipped_pages[connection.vendor] = render_pages(client, pages)
        before = _shipped_pages[connection.vendor]
    else:
        before = render_pages(client, pages)
    edit()
    # The same pages again, and no more: only a page rendered before can have changed
    # (a page the edit adds, e.g. at a new slug, is not compared).
    after = render_pages(client, pages)
    return sorted(key for key, body in after.items() if key in before and before[key] != body)


def missed_pages(client, edit):
    """The pages whose HTML ``edit()`` changed but that ``affected()`` does not name,
    the pages whose HTML changed, and the Affected."""
    changed, pages_affected = changed_pages(client, edit, shipped=True)
    missed = [key for key in changed if not pages_affected.covers(key[0], dict(key[1]))]
    return missed, changed, pages_affected


def _paper(slug="trust-region-policy-optimization"):
    return Paper.objects.get(slug=slug)


def _edit_paper_title():
    Paper.objects.filter(slug="trust-region-policy-optimization").update(
        title_en="A new title", title_zh_hans="新标题"
    )


def _edit_author_name():
    Author.objects.filter(slug="john-schulman").update(name="John Q. Schulman")


def _add_authorship():
    # An author of a 2025 paper joins a 2015 paper: new co-authors on both sides.
    author = Authorship.objects.filter(paper__slug="collabllm").order_by("position")[0].author
    Authorship.objects.create(paper=_paper(), author=author, position=99)


def _remove_authorship():
    Authorship.objects.filter(paper=_paper()).order_by("position").last().delete()


def _add_affiliation():
    authorship = Authorship.objects.filter(paper=_paper()).order_by("position").first()
    Affiliation.objects.create(
        authorship=authorship, institution=Institution.objects.get(slug="google"), position=9
    )


def _rename_institution():
    Institution.objects.filter(slug="uc-berkeley").update(name_en="Berkeley", name_zh_hans="伯克利")


def _add_award_entry():
    award = Award.objects.get(slug="outstanding-paper")
    AwardEntry.objects.create(
        award=award,
        paper=Paper.objects.exclude(award_entries__award=award).order_by("slug").first(),
        level=award.levels.get(slug="winner"),
        position=9,
    )


def _remove_award_entry():
    AwardEntry.objects.filter(award__slug="outstanding-paper").first().delete()


def _rename_level():
    AwardLevel.objects.filter(slug="honourable-mention").update(name_en="Runner-up")


def _rename_award():
    Award.objects.filter(slug="test-of-time").update(name_en="Lasting Impact Award")


def _rename_conference():
    Conference.objects.filter(slug="icml-2015").update(name_en="ICML '15", city_en="Lille-sur-Mer")


def _rename_venue():
    Venue.objects.filter(slug="icml").update(acronym="ICML!", name_en="The ICML")


def _rename_award_kind():
    AwardKind.objects.filter(slug="test-of-time").update(name_en="Test-of-time award")


def _edit_link():
    link = PaperLink.objects.filter(paper__conference__slug="icml-2025").first()
    PaperLink.objects.filter(pk=link.pk).update(url="https://example.org/moved")


def _unpublish_paper():
    paper = Paper.objects.filter(award_entries__isnull=False, conference__slug="icml-2015").first()
    Paper.objects.filter(pk=paper.pk).update(status=Status.DRAFT)


def _unpublish_award():
    Award.objects.filter(slug="outstanding-position-paper").update(status=Status.DRAFT)


def _delete_paper():
    paper = Paper.objects.filter(conference__slug="icml-2025").first()
    AwardEntry.objects.filter(paper=paper).delete()
    paper.delete()


def _raw_sql_title():
    with connection.cursor() as cursor:
        cursor.execute(
            "UPDATE papers_paper SET title_en = %s WHERE slug = %s",
            ["Changed behind the ORM's back", "trust-region-policy-optimization"],
        )


EDITS = {
    "paper title": _edit_paper_title,
    "author name": _edit_author_name,
    "authorship added": _add_authorship,
    "authorship removed": _remove_authorship,
    "affiliation added": _add_affiliation,
    "institution renamed": _rename_institution,
    "award entry added": _add_award_entry,
    "award entry removed": _remove_award_entry,
    "level renamed": _rename_level,
    "award renamed": _rename_award,
    "conference renamed": _rename_conference,
    "venue renamed": _rename_venue,
    "award kind renamed": _rename_award_kind,
    "link edited": _edit_link,
    "paper unpublished": _unpublish_paper,
    "award unpublished": _unpublish_award,
    "paper deleted": _delete_paper,
    "raw SQL": _raw_sql_title,
}


@pytest.mark.parametrize("edit", EDITS.values(), ids=EDITS.keys())
def test_affected_names_every_page_whose_html_changed(client, icml, edit):
    missed, changed, pages_affected = missed_pages(client, edit)
    assert missed == []
    assert changed != []  # the edit shows somewhere, or the test would prove nothing
    assert pages_affected.site


def test_affected_misses_pages_when_a_rule_is_missing(client, icml, monkeypatch):
    # The strong test fails when a rule is missing: without an author's name in the
    # hashes, the papers that print the name are missed.
    monkeypatch.setattr(publish_changes, "UNHASHED", {*publish_changes.UNHASHED, "name"})
    missed, _changed, _affected = missed_pages(client, _edit_author_name)
    slug = (("slug", "trust-region-policy-optimization"),)
    assert ("paper-detail", slug, "en") in missed


def test_affected_names_every_sitemap_part_whose_urls_changed(client, icml, monkeypatch):
    # 20 URLs a part: the shipped papers and authors take several parts each.
    # Not from the shipped pages rendered before (other parts): rendered here, before.
    monkeypatch.setattr(sitemaps._Sitemap, "limit", 20)
    changed, pages_affected = changed_pages(
        client, lambda: Paper.objects.filter(slug=_paper().slug).update(slug="trpo")
    )
    assert [key for key in changed if not pages_affected.covers(key[0], dict(key[1]))] == []
    assert ("sitemap-section-page", (("page", 2), ("section", "papers")), "en") in changed
    assert not pages_affected.covers("sitemap-section-page", {"section": "authors", "page": 2})


def _add_homonym_author():
    # A draft's author, named as a published one: compact files must now tell them apart.
    author = _paper().authorships.order_by("position").first().author
    Author.objects.create(name=author.name)


def _add_homonym_institution():
    institution = Institution.objects.published().order_by("slug").first()
    Institution.objects.create(name_en=institution.name_en)


@pytest.mark.parametrize("edit", [_add_homonym_author, _add_homonym_institution])
def test_affected_names_the_compact_archives_a_homonym_changes(client, icml, edit):
    # No published row changed, but the compact files that named the other one by its
    # name alone now give its slug (importing/compact/writer.py).
    missed, changed, pages_affected = missed_pages(client, edit)
    assert missed == []
    assert ("opendata-site-compact", (), "en") in changed
    assert [key[0] for key in changed].count("opendata-conference-compact") >= 1
    assert not pages_affected.site and not pages_affected.conferences


def test_affected_misses_compact_archives_without_the_shared_names(client, icml, monkeypatch):
    monkeypatch.setattr(publish_changes, "NAMED_ALONE", {})
    missed, _changed, _affected = missed_pages(client, _add_homonym_author)
    assert ("opendata-site-compact", (), "en") in missed


def _edit_draft_paper():
    paper = _paper()
    Paper.objects.filter(pk=paper.pk).update(status=Status.DRAFT)
    # An update() refreshes no kept column: its authors' "has a published paper" too.
    refresh_published_authors(paper.authorships.values("author_id"))
    yield
    Paper.objects.filter(pk=paper.pk).update(title_en="A draft's new title")
    PaperLink.objects.filter(paper=paper).delete()
    Authorship.objects.filter(paper=paper).order_by("position").last().delete()


def _import_draft_conference():
    yield
    conference = factories.conference(
        venue=Venue.objects.get(slug="icml"), slug="icml-2026", status=Status.DRAFT
    )
    author = Author.objects.get(slug="michael-i-jordan")
    factories.paper(conference=conference, authors=[author, factories.author()])


@pytest.mark.parametrize(
    ("edit", "shipped"),
    [(_edit_draft_paper, False), (_import_draft_conference, True)],
    ids=["draft paper", "draft import"],
)
def test_affected_by_edits_of_drafts_is_nothing(client, icml, edit, shipped):
    # shipped: the first step changes nothing, so the shipped pages are those before.
    steps = edit()
    next(steps)  # the draft as it was published
    changed, pages_affected = changed_pages(client, lambda: next(steps, None), shipped)
    assert (changed, pages_affected) == ([], Affected())


# --- Precision: what an edit names, exactly. -------------------------------------------


@pytest.fixture
def two_papers(db):
    """Two published papers at one conference, sharing an author, one with an award."""
    venue = factories.venue(slug="icml")
    conference = factories.conference(venue=venue, slug="icml-2025")
    ada, bo, cy = (factories.author(slug=s) for s in ("ada", "bo", "cy"))
    first = factories.paper(slug="first", conference=conference, authors=[ada, bo])
    second = factories.paper(slug="second", conference=conference, authors=[bo, cy])
    award = Award.objects.create(
        conference=conference, slug="best", name_en="Best", status=Status.PUBLISHED, position=1
    )
    level = AwardLevel.objects.create(award=award, slug="winner", name_en="Winner", position=1)
    AwardEntry.objects.create(award=award, paper=first, level=level, position=1)
    return first, second


def test_affected_is_nothing_when_nothing_changed(two_papers):
    assert affected(snapshot(), snapshot()) == Affected()
    assert not affected(snapshot(), snapshot())


def test_affected_is_everything_without_an_earlier_publish(two_papers):
    assert affected(None, snapshot()) == Affected(everything=True)


def test_affected_is_everything_when_the_code_changed(two_papers):
    old = {**snapshot(), "fingerprint": "an earlier deploy"}
    assert affected(old, snapshot()) == Affected(everything=True)
    assert Affected(everything=True).covers("paper-detail", {"slug": "anything"})


def test_affected_by_a_paper_title_is_its_pages_its_authors_and_what_lists_it(two_papers):
    old = snapshot()
    Paper.objects.filter(slug="second").update(title_en="Second, retitled")
    assert affected(old, snapshot()) == Affected(
        site=True,
        venues={"icml"},
        conferences={"icml-2025"},
        papers={"second"},
        authors={"bo", "cy"},
    )


def test_affected_by_an_award_entry_removed_follows_its_old_keys(two_papers):
    old = snapshot()
    AwardEntry.objects.all().delete()
    assert affected(old, snapshot()) == Affected(
        site=True,
        venues={"icml"},
        conferences={"icml-2025"},
        awards={("icml-2025", "best")},
        award_series={("icml", "best")},
        papers={"first"},
        authors={"ada", "bo"},
        # The author index counts each author's awarded papers.
        author_index=True,
    )


def test_affected_by_an_authorship_removed_names_the_author_it_named(two_papers):
    first, _second = two_papers
    old = snapshot()
    Authorship.objects.filter(paper=first, author__slug="ada").delete()
    pages = affected(old, snapshot())
    assert (pages.papers, pages.authors, pages.author_index) == ({"first"}, {"ada", "bo"}, True)


def test_affected_by_a_slug_change_names_the_old_and_the_new_page(two_papers):
    old = snapshot()
    Author.objects.filter(slug="cy").update(slug="cy-renamed")
    pages = affected(old, snapshot())
    # bo's page links to the co-author cy.
    assert pages.authors == {"bo", "cy", "cy-renamed"}
    assert pages.papers == {"second"}
    assert pages.author_index


def test_affected_by_publishing_a_draft_paper_names_its_pages(two_papers):
    first, _second = two_papers
    # Saved through the model: an update() refreshes no author's kept "has a published
    # paper" (catalogue/published_authors.py), which the snapshot of authors reads.
    first.status = Status.DRAFT
    first.save(update_fields=["status"])
    old = snapshot()
    first.status = Status.PUBLISHED
    first.save(update_fields=["status"])
    pages = affected(old, snapshot())
    assert (pages.papers, pages.authors, pages.awards, pages.author_index) == (
        {"first"},
        {"ada", "bo"},
        {("icml-2025", "best")},
        True,
    )


def test_snapshot_holds_no_draft(two_papers):
    first, _second = two_papers
    first.status = Status.DRAFT  # through the model, as above
    first.save(update_fields=["status"])
    pages = snapshot()["pages"]
    assert (list(pages["papers"]), sorted(pages["authors"])) == (["second"], ["bo", "cy"])
    # The draft's rows (its authorships, its award entry, its only author) show nowhere:
    # the snapshot is the one of a database without them.
    AwardEntry.objects.filter(paper=first).delete()
    first.delete()
    assert snapshot()["pages"] == pages


def test_affected_author_index_only_when_its_names_change(two_papers):
    old = snapshot()
    Paper.objects.filter(slug="first").update(abstract_en="Another abstract.")
    assert not affected(old, snapshot()).author_index


def test_affected_covers_routes_by_their_kwargs():
    pages = Affected(
        site=True,
        papers={"p"},
        authors={"a"},
        conferences={"c"},
        awards={("c", "w")},
        award_series={("v", "w")},
        venues={"v"},
    )
    assert [
        pages.covers("paper-citation", {"slug": "p", "fmt": "bib"}),
        pages.covers("paper-detail", {"slug": "q"}),
        pages.covers("author-detail-page", {"slug": "a", "page": 2}),
        pages.covers("opendata-conference-csv", {"slug": "c"}),
        pages.covers("award-detail", {"conference_slug": "c", "slug": "w"}),
        pages.covers("award-series", {"venue_slug": "c", "slug": "w"}),
        pages.covers("author-list-page", {"page": 2}),
        pages.covers("author-list-letter", {"letter": "a"}),
        pages.covers("home"),
        Affected().covers("home"),
    ] == [True, False, True, True, True, False, False, False, True, False]
    sitemap_parts, archives = Affected(sitemaps={"papers"}), Affected(archives={"c"})
    assert [
        sitemap_parts.covers("sitemap-section-page", {"section": "papers", "page": 2}),
        sitemap_parts.covers("sitemap-section-page", {"section": "authors", "page": 2}),
        pages.covers("opendata-conference-compact", {"slug": "c"}),
        pages.covers("opendata-conference-compact", {"slug": "d"}),
        archives.covers("opendata-conference-compact", {"slug": "c"}),
        archives.covers("opendata-conference-csv", {"slug": "c"}),
        archives.covers("opendata-site-compact"),
        archives.covers("home"),
    ] == [True, False, True, False, True, False, True, False]


# --- The snapshot and the fingerprint. ---------------------------------------------------


def test_snapshot_sees_a_change_made_with_raw_sql(two_papers):
    first, _second = two_papers
    old = snapshot()
    with connection.cursor() as cursor:
        cursor.execute("UPDATE papers_paper SET title_en = 'x' WHERE id = %s", [first.pk])
    pages = affected(old, snapshot())
    assert (pages.site, pages.papers, pages.sitemaps) == (True, {first.slug}, set())


def test_snapshot_survives_being_written_and_read(two_papers, tmp_path):
    content = snapshot()
    write(content, tmp_path / publish_changes.SNAPSHOT)
    assert read(tmp_path / publish_changes.SNAPSHOT) == content
    assert affected(read(tmp_path / publish_changes.SNAPSHOT), snapshot()) == Affected()


@pytest.mark.parametrize("text", ["", "not json", '{"format": 0}', '{"format": 3, "pages": 3}'])
def test_read_of_a_missing_or_broken_snapshot_is_none(tmp_path, text):
    path = tmp_path / publish_changes.SNAPSHOT
    if text:
        path.write_text(text)
    assert read(path) is None


def test_fingerprint_changes_with_a_template(settings, tmp_path):
    (tmp_path / "templates").mkdir()
    page = tmp_path / "templates" / "page.html"
    page.write_text("<p>one</p>")
    settings.BASE_DIR = tmp_path
    before = publish_changes.fingerprint()
    page.write_text("<p>two</p>")
    assert publish_changes.fingerprint() != before


def test_fingerprint_changes_with_the_published_address():
    before = publish_changes.fingerprint()
    with override_settings(SITE_URL="https://awards.example.org"):
        assert publish_changes.fingerprint() != before
    assert publish_changes.fingerprint() == before


def test_snapshot_dates_and_files_hash_stably(two_papers):
    Conference.objects.update(start_date=datetime.date(2025, 7, 14))
    assert snapshot()["pages"] == snapshot()["pages"]


def test_affected_sitemap_sections_follow_the_keys_of_their_rows(two_papers):
    old = snapshot()
    Paper.objects.filter(slug="second").update(title_en="Second, retitled")
    assert affected(old, snapshot()).sitemaps == set()  # no slug changed: no URL
    Paper.objects.filter(slug="second").update(slug="second-renamed")
    pages = affected(old, snapshot())
    assert pages.sitemaps == {"papers"}
    assert pages.covers("sitemap") and pages.covers("sitemap-section", {"section": "papers"})
    assert not pages.covers("sitemap-section", {"section": "authors"})
    assert not pages.covers("robots-txt") and not pages.covers("openapi-json")


def test_affected_sitemap_sections_follow_their_pages_last_change(two_papers):
    # The sitemap dates each page by its object's newest version (lastmod).
    old = snapshot()
    with reversion.create_revision():
        two_papers[1].save()

    pages = affected(old, snapshot())

    assert pages.sitemaps == {"papers"}
    assert pages.covers("sitemap-section", {"section": "papers"})
    assert not pages.covers("sitemap-section", {"section": "authors"})


def test_affected_misses_a_sitemap_when_its_rule_is_missing(client, icml, monkeypatch):
    # The strong test fails without the rule "a paper's slug is in the papers' sitemap".
    monkeypatch.setitem(publish_changes.SITEMAP_KINDS, "papers", None)
    missed, _changed, _affected = missed_pages(
        client, lambda: Paper.objects.filter(slug=_paper().slug).update(slug="trpo")
    )
    assert ("sitemap-section", (("section", "papers"),), "en") in missed
