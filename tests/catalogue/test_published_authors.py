"""Whether an author has a published paper (``Author.has_published_paper``,
catalogue/published_authors.py) follows every change that can alter it: saves, deletions,
the admin, restores, ``loaddata`` and ``import_conference``; the migration fills it; the
A-Z index of authors reads it (no join to the authorships) and is retired from the page
cache by the changes it follows."""

import io
import json
import threading

import pytest
import reversion
from django.core.management import call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext
from reversion.models import Version

from catalogue.models import Author, Authorship, Paper, Status
from catalogue.published_authors import has_published_paper_rule, refresh_published_authors
from tests import factories
from tests.editorial.test_admin import _change_url, _form_data
from tests.editorial.test_edits import FIXTURE, _open, _saved
from tests.importing.test_importing import obj, run, small_fixture, write
from tests.pagecache.test_caching import cached_twice, fetch, text

PASSWORD = "a-long-editor-passphrase"


def flagged():
    """The slugs of the authors whose column says they have a published paper, after
    checking that the column agrees with the rule for every author."""
    kept = set(Author.objects.filter(has_published_paper=True).values_list("slug", flat=True))
    rule = set(Author.objects.filter(has_published_paper_rule()).values_list("slug", flat=True))
    assert kept == rule
    return kept


@pytest.fixture
def editor_client(client, db):
    """An editor who may publish (the tests publish, unpublish and recover)."""
    from editorial.roles import create_editor

    client.force_login(create_editor("editor", "editor@example.org", PASSWORD, publisher=True))
    return client


# Saves and deletions ------------------------------------------------------------------


def test_follows_a_papers_status_and_conference(db):
    ann, bob = factories.author(slug="ann"), factories.author(slug="bob")
    factories.author(slug="cat")  # no paper at all
    paper = factories.paper(authors=[ann, bob])
    assert flagged() == {"ann", "bob"}

    paper.status = Status.DRAFT
    paper.save(update_fields=["status"])
    assert flagged() == set()

    paper.status = Status.PUBLISHED
    paper.save()
    assert flagged() == {"ann", "bob"}

    paper.conference = factories.conference(status=Status.DRAFT)
    paper.save()
    assert flagged() == set()

    paper.conference.status = Status.PUBLISHED
    paper.conference.save()
    assert flagged() == {"ann", "bob"}

    paper.conference.status = Status.DRAFT
    paper.conference.save(update_fields=["status"])
    assert flagged() == set()


def test_a_second_published_paper_keeps_the_author_in(db):
    ann = factories.author(slug="ann")
    first, second = factories.paper(authors=[ann]), factories.paper(authors=[ann])

    first.status = Status.DRAFT
    first.save()
    assert flagged() == {"ann"}
    second.delete()
    assert flagged() == set()


def test_follows_authorships_added_moved_changed_and_removed(db):
    ann, bob, cat = (factories.author(slug=slug) for slug in ("ann", "bob", "cat"))
    paper = factories.paper(authors=[ann])
    draft = factories.paper(status=Status.DRAFT)

    added = Authorship.objects.create(paper=paper, author=bob, position=2)
    assert flagged() == {"ann", "bob"}

    paper.authorships.move_aside()  # reordering changes nothing
    for authorship, position in zip(paper.ordered_authorships, (2, 1), strict=True):
        authorship.position = position
        authorship.save()
    assert flagged() == {"ann", "bob"}

    added.refresh_from_db()
    added.author = cat  # another author in the same place: the former one is out
    added.save()
    assert flagged() == {"ann", "cat"}

    added.paper = draft
    added.save(update_fields=["paper"])
    assert flagged() == {"ann"}

    Authorship.objects.create(paper=paper, author=bob, position=3)
    Authorship.objects.get(paper=paper, author=bob).delete()
    assert flagged() == {"ann"}

    paper.delete()
    assert flagged() == set()


def test_an_author_saved_from_a_stale_instance_keeps_the_stored_value(db):
    ann = factories.author(slug="ann")
    stale = Author.objects.get(pk=ann.pk)
    factories.paper(authors=[ann])

    stale.name = "Ann Renamed"
    stale.save()

    assert flagged() == {"ann"}


def test_a_save_that_changes_no_source_refreshes_nobody(db, monkeypatch):
    paper = factories.paper(authors=[factories.author()])
    calls = []
    monkeypatch.setattr(
        "catalogue.published_authors.refresh_published_authors", lambda *args: calls.append(args)
    )

    paper.title_en = "Another title"
    paper.save(update_fields=["title_en"])
    paper.save()  # status and conference as stored
    paper.conference.save()

    assert calls == []


def test_refresh_of_every_author_puts_back_what_an_update_left(db):
    ann = factories.author(slug="ann")
    paper = factories.paper(authors=[ann])
    Paper.objects.filter(pk=paper.pk).update(status=Status.DRAFT)  # sends no signal
    assert Author.objects.get(slug="ann").has_published_paper

    assert refresh_published_authors() == 1
    assert flagged() == set()


def _two_edits_at_once(first_paper, second_paper, wait_for_writers):
    """Two transactions, each on its own connection: the first unpublishes
    ``first_paper`` and refreshes its authors, then holds its transaction open while
    the second publishes ``second_paper`` and refreshes its authors; the first commits
    0.5 s after the second began (or when it ended). Each edit is a ``QuerySet.update()``
    and a refresh, the importer's way. ``wait_for_writers`` False replaces
    ``ContentGeneration.objects.wait_for_other_writers()`` with nothing in both (what the
    refresh was without it)."""
    from django.db import connections, transaction

    from catalogue.models.bookkeeping import ContentGenerationQuerySet

    first_refreshed, second_began, second_done = (threading.Event() for _ in range(3))
    errors = []

    def edit(paper, status, refreshed, wait_before_commit):
        try:
            with transaction.atomic():
                Paper.objects.filter(pk=paper.pk).update(status=status)
                if refreshed is second_began:
                    second_began.set()
                refresh_published_authors(
                    Authorship.objects.filter(paper=paper.pk).values("author_id")
                )
                refreshed.set()
                if wait_before_commit:
                    wait_before_commit.wait(timeout=0.5)
        except Exception as error:  # reported by the test, not lost in the thread
            errors.append(error)
        finally:
            connections.close_all()

    original = ContentGenerationQuerySet.wait_for_other_writers
    if not wait_for_writers:
        ContentGenerationQuerySet.wait_for_other_writers = lambda self: None
    try:
        first = threading.Thread(
            target=edit, args=(first_paper, Status.DRAFT, first_refreshed, second_done)
        )
        first.start()
        assert first_refreshed.wait(timeout=10)
        second = threading.Thread(
            target=edit, args=(second_paper, Status.PUBLISHED, second_began, None)
        )
        second.start()
        second.join(timeout=0.5)
        second_done.set()
        first.join(timeout=30)
        second.join(timeout=30)
    finally:
        ContentGenerationQuerySet.wait_for_other_writers = original
    assert errors == []


@pytest.mark.skipif(connection.vendor != "postgresql", reason="SQLite has one writer at a time")
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("wait_for_writers", [True, False], ids=["as-kept", "without-waiting"])
def test_two_editors_at_once_leave_the_right_value(wait_for_writers):
    """Editor A unpublishes one of Ann's two papers while editor B publishes the other
    (PostgreSQL, READ COMMITTED): Ann has a published paper at the end. Without waiting
    for the other writer, each transaction worked the column out from the other's old
    rows and the last to commit (A) left False: the second case shows that this test
    sees the race it guards against."""
    ann = factories.author(slug="ann")
    conference = factories.conference()
    published = factories.paper(authors=[ann], conference=conference)
    draft = factories.paper(authors=[ann], conference=conference, status=Status.DRAFT)
    assert flagged() == {"ann"}

    _two_edits_at_once(published, draft, wait_for_writers)

    assert Paper.objects.get(pk=draft.pk).status == Status.PUBLISHED
    kept = Author.objects.get(pk=ann.pk).has_published_paper
    assert kept is wait_for_writers  # True is right; False is the race, without waiting


def test_loaddata_follows(db, tmp_path):
    conference = factories.conference()
    ann = factories.author(slug="ann")
    paper = factories.paper(conference=conference, status=Status.DRAFT)
    path = tmp_path / "data.json"
    path.write_text(
        json.dumps(
            [
                {
                    "model": "papers.authorship",
                    "fields": {"paper": paper.pk, "author": ann.pk, "position": 1},
                },
                {
                    "model": "papers.paper",
                    "pk": paper.pk,
                    "fields": {
                        "slug": paper.slug,
                        "title_en": "Loaded",
                        "conference": conference.pk,
                        "status": "published",
                    },
                },
            ]
        )
    )

    call_command("loaddata", str(path), verbosity=0)

    assert flagged() == {"ann"}


# The admin ------------------------------------------------------------------------


def test_admin_actions_publish_and_unpublish(editor_client):
    paper = factories.paper(authors=[factories.author(slug="ann")], status=Status.DRAFT)
    conference = paper.conference

    for action, model, pk, expected in [
        ("publish", "paper", paper.pk, {"ann"}),
        ("unpublish", "conference", conference.pk, set()),
        ("publish", "conference", conference.pk, {"ann"}),
        ("unpublish", "paper", paper.pk, set()),
    ]:
        response = editor_client.post(
            f"/admin/papers/{model}/", {"action": action, "_selected_action": [pk]}
        )
        assert response.status_code == 302
        assert flagged() == expected, (action, model)


def test_admin_paper_form_adds_and_removes_authors(editor_client):
    ann, bob = factories.author(slug="ann"), factories.author(slug="bob")
    paper = factories.paper(authors=[ann])
    data = _form_data(editor_client.get(_change_url(paper)))
    data["authorships-0-DELETE"] = "on"
    data["authorships-TOTAL_FORMS"] = "2"
    data["authorships-1-author"] = str(bob.pk)
    data["authorships-1-position"] = "2"

    response = editor_client.post(_change_url(paper), data)

    assert response.status_code == 302, response.context and response.context["errors"]
    assert flagged() == {"bob"}


def test_admin_delete_and_recover_of_a_paper(editor_client):
    ann = factories.author(slug="ann")
    paper = factories.paper(authors=[ann])
    with reversion.create_revision():
        paper.save()

    response = editor_client.post(f"/admin/papers/paper/{paper.pk}/delete/", {"post": "yes"})
    assert response.status_code == 302
    assert flagged() == set()

    version = Version.objects.get_deleted(Paper).get(object_id=str(paper.pk))
    url = f"/admin/papers/paper/recover/{version.pk}/"
    _saved(editor_client.post(url, _open(editor_client, url, "paper")))
    assert flagged() == {"ann"}


def test_restoring_an_old_version_of_an_author_keeps_the_column(editor_client):
    """Versions do not hold the column: a version saved while the author had no
    published paper does not take them out of the index when restored."""
    ann = factories.author(slug="ann", name="Ann Old")
    with reversion.create_revision():
        ann.save()
    factories.paper(authors=[ann])
    ann.name = "Ann New"
    ann.save()
    old = Version.objects.get_for_object(ann).order_by("pk").first()
    assert "has_published_paper" not in old.field_dict
    url = f"/admin/papers/author/{ann.pk}/history/{old.pk}/"

    _saved(editor_client.post(url, _open(editor_client, url, "author")))

    assert Author.objects.get(pk=ann.pk).name == "Ann Old"
    assert flagged() == {"ann"}


# import_conference ------------------------------------------------------------------


def test_import_conference_follows(db, tmp_path):
    objects = small_fixture()
    run(write(tmp_path, objects))
    assert flagged() == {"ann", "bob"}

    obj(objects, "papers.paper", slug="p1")["fields"]["status"] = "draft"
    run(write(tmp_path, objects))
    assert flagged() == set()

    obj(objects, "papers.paper", slug="p1")["fields"]["status"] = "published"
    obj(objects, "papers.conference", slug="tv-2030")["fields"]["status"] = "draft"
    run(write(tmp_path, objects))
    assert flagged() == set()

    obj(objects, "papers.conference", slug="tv-2030")["fields"]["status"] = "published"
    objects.append({"model": "papers.author", "fields": {"slug": "cat", "name": "Cat C"}})
    objects.append(
        {
            "model": "papers.authorship",
            "fields": {"paper": ["p1"], "author": ["cat"], "position": 3, "affiliations": []},
        }
    )
    run(write(tmp_path, objects))
    assert flagged() == {"ann", "bob", "cat"}


def test_import_of_the_shipped_conference(db):
    call_command("import_conference", str(FIXTURE), stdout=io.StringIO(), stderr=io.StringIO())
    assert len(flagged()) > 0


# The migration ----------------------------------------------------------------------

BEFORE_COLUMN = [("papers", "0020_drop_unused_search_text_indexes")]


@pytest.mark.django_db(transaction=True)
def test_migration_fills_the_column_and_goes_back(migrate_to):
    old = migrate_to(BEFORE_COLUMN)
    venue = old.get_model("papers", "Venue").objects.create(slug="v", acronym="V", name="V")
    Conference_ = old.get_model("papers", "Conference")
    Paper_ = old.get_model("papers", "Paper")
    Author_ = old.get_model("papers", "Author")
    Authorship_ = old.get_model("papers", "Authorship")
    shown = Conference_.objects.create(venue=venue, slug="v-2030", year=2030, status="published")
    hidden = Conference_.objects.create(venue=venue, slug="v-2031", year=2031, status="draft")
    papers = {
        slug: Paper_.objects.create(slug=slug, title=slug, conference=conference, status=status)
        for slug, conference, status in [
            ("out", shown, "published"),
            ("draft", shown, "draft"),
            ("at-draft", hidden, "published"),
        ]
    }
    for slug, paper in [("ann", "out"), ("bob", "draft"), ("cat", "at-draft"), ("ann2", "out")]:
        author = Author_.objects.create(slug=slug, name=slug)
        Authorship_.objects.create(paper=papers[paper], author=author, position=1 + len(slug))
    Author_.objects.create(slug="dan", name="dan")

    migrate_to()
    assert flagged() == {"ann", "ann2"}

    migrate_to(BEFORE_COLUMN)
    with connection.cursor() as cursor:
        columns = connection.introspection.get_table_description(cursor, "papers_author")
    assert "has_published_paper" not in {column.name for column in columns}
    migrate_to()
    assert flagged() == {"ann", "ann2"}


# The pages that read it ---------------------------------------------------------------

INDEX_PAGES = [
    "/en/authors/",
    "/en/authors/page/2/",
    "/zh-hans/authors/letter/a/",
    "/en/authors/letter/b/",
    "/sitemap-authors.xml",
]


@pytest.mark.django_db
@pytest.mark.parametrize("url", INDEX_PAGES)
def test_index_pages_read_the_column_not_the_authorships(client, url):
    from pages.views import AUTHOR_PAGE_SIZE

    factories.paper(
        authors=[factories.author(slug=f"a-{n:03d}") for n in range(AUTHOR_PAGE_SIZE + 1)]
    )
    factories.paper(authors=[factories.author(slug="zed")], status=Status.DRAFT)

    with CaptureQueriesContext(connection) as queries:
        response = client.get(url)

    assert response.status_code == 200
    # Which authors are listed, and how many, come from the column; the authorships are
    # read only for each listed author's number of awarded papers (with_awarded_papers).
    reading = [query["sql"] for query in queries if "papers_authorship" in query["sql"]]
    assert all('"awarded_papers"' in sql for sql in reading), reading
    if url.startswith("/sitemap"):
        assert not reading
    body = b"".join(response.streaming_content) if response.streaming else response.content
    assert b"/zed/" not in body


@pytest.mark.django_db
def test_a_published_paper_shows_its_new_author_in_the_cached_index(settings, editor_client):
    from django.core.cache import caches
    from django.test import Client

    from pagecache.caching import forget_generation

    settings.PAGE_CACHE_ENABLED = True
    settings.PAGE_CACHE_GENERATION_TTL = 3600  # as tests/pagecache does: see there
    caches["default"].clear()
    forget_generation()
    visitor = Client()
    factories.paper(authors=[factories.author(slug="ann", name="Ann Shown")])
    draft = factories.paper(
        authors=[factories.author(slug="bob", name="Bob Hidden")], status=Status.DRAFT
    )
    for url in ("/en/authors/", "/en/authors/letter/h/"):
        assert "Hidden, Bob" not in text(cached_twice(visitor, url))

    response = editor_client.post(
        "/admin/papers/paper/", {"action": "publish", "_selected_action": [draft.pk]}
    )
    assert response.status_code == 302

    for url in ("/en/authors/", "/en/authors/letter/h/"):
        shown, queries = fetch(visitor, url)
        assert "Hidden, Bob" in text(shown) and queries > 1
    caches["default"].clear()
