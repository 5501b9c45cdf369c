"""Edits are never lost or corrupted: line endings and empty text, untouched saves,
concurrent saves, the history of imported objects, and restoring or recovering an
object with what belongs to it."""

import importlib
import io
import json
from pathlib import Path
from types import SimpleNamespace

import pytest
import reversion
from django.apps import apps
from django.contrib.admin.models import LogEntry
from django.core.management import call_command
from django.db import connection, models
from django.db.migrations.loader import MigrationLoader
from django.test import Client
from reversion.models import Revision, Version

from catalogue.models import (
    Author,
    Authorship,
    Award,
    AwardEntry,
    Conference,
    ImportRecord,
    Paper,
    PaperLink,
)
from catalogue.text import TextFormField
from editorial.history import mirrored_fields
from editorial.roles import create_editor
from tests import factories
from tests.browser_form import browser_post_data

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "icml.json"
PASSWORD = "a-long-editor-passphrase"


@pytest.fixture
def editor(db):
    """An editor who may publish too: recovering a deleted published object publishes it
    again, which needs the publish right (tests/editorial/test_review.py)."""
    return create_editor("editor", "editor@example.org", PASSWORD, publisher=True)


@pytest.fixture
def editor_client(client, editor):
    client.force_login(editor)
    return client


@pytest.fixture
def other_client(db):
    """A second editor, in a browser of their own."""
    client = Client()
    client.force_login(create_editor("other", "other@example.org", PASSWORD))
    return client


def _import(*args):
    out = io.StringIO()
    call_command("import_conference", str(FIXTURE), *args, stdout=out, stderr=io.StringIO())
    return out.getvalue()


def _columns(obj):
    """Every stored field of ``obj`` but modeltranslation's mirrors of the active language."""
    model = type(obj)
    names = [field.attname for field in model._meta.concrete_fields]
    names = [name for name in names if name not in mirrored_fields(model)]
    return model.objects.filter(pk=obj.pk).values(*names).get()


def _url(obj, view="change"):
    return f"/admin/papers/{obj._meta.model_name}/{obj.pk}/{view}/"


def _open(client, url, model_name):
    """The POST data a browser would send from the form at ``url`` (textareas in CRLF)."""
    response = client.get(url)
    assert response.status_code == 200
    return browser_post_data(response, f"{model_name}_form")


def _saved(response):
    assert response.status_code == 302, response.context and response.context["errors"]
    return response


def _multi_paragraph_paper():
    return Paper.objects.exclude(summary_zh_hans="").filter(summary_zh_hans__contains="\n\n")[0]


# Line endings and empty text -------------------------------------------------------------


def test_every_text_field_gets_the_normalising_form_field():
    """Also modeltranslation's columns, so a new field cannot forget it."""
    for model in apps.get_app_config("papers").get_models():
        if model is ImportRecord:
            continue
        for field in model._meta.concrete_fields:
            if isinstance(field, models.URLField):
                continue  # a URL is not prose: Django's URLField form field
            if not field.editable:
                continue  # never in a form (the search text, catalogue/search.py)
            formfield = field.formfield()
            plain_text = type(formfield).__name__ in {"CharField", "TextFormField"}
            if field.get_internal_type() in {"CharField", "TextField"} and plain_text:
                assert isinstance(formfield, TextFormField), f"{model.__name__}.{field.name}"


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_untouched_paper_save_changes_nothing(editor_client, settings, language):
    _import()
    editor_client.cookies[settings.LANGUAGE_COOKIE_NAME] = language
    paper = _multi_paragraph_paper()
    before = _columns(paper)
    versions = Version.objects.get_for_object(paper).count()
    data = _open(editor_client, _url(paper), "paper")
    assert "\r\n\r\n" in data["summary_zh_hans"][0]  # what a browser sends

    _saved(editor_client.post(_url(paper), data))

    assert _columns(paper) == before
    assert "\r" not in Paper.objects.get(pk=paper.pk).summary_zh_hans
    assert Version.objects.get_for_object(paper).count() == versions
    assert not LogEntry.objects.exists()
    output = _import("--verbosity", "2")
    assert "conflict" not in output
    assert "update " not in output


def test_a_fixture_correction_arrives_after_an_untouched_save(editor_client, tmp_path):
    _import()
    paper = _multi_paragraph_paper()
    _saved(editor_client.post(_url(paper), _open(editor_client, _url(paper), "paper")))
    corrected = paper.summary_zh_hans.replace("\n\n", "\n\n（更正）", 1)
    objects = json.loads(FIXTURE.read_text(encoding="utf-8"))
    for item in objects:
        if item["model"] == "papers.paper" and item["fields"]["slug"] == paper.slug:
            item["fields"]["summary_zh_hans"] = corrected
    path = tmp_path / "icml.json"
    path.write_text(json.dumps(objects, ensure_ascii=False), encoding="utf-8")

    out = io.StringIO()
    call_command("import_conference", str(path), stdout=out)

    assert "conflict" not in out.getvalue()
    assert Paper.objects.get(pk=paper.pk).summary_zh_hans == corrected


def test_untouched_conference_save_keeps_its_awards_inline_text(editor_client):
    _import()
    award = Award.objects.get(slug="test-of-time")
    Award.objects.filter(pk=award.pk).update(description_zh_hans="第一段。\n\n第二段。")
    conference = award.conference
    before = (_columns(conference), _columns(award))

    _saved(
        editor_client.post(_url(conference), _open(editor_client, _url(conference), "conference"))
    )

    assert (_columns(conference), _columns(award)) == before
    assert (
        not Revision.objects.filter(version__object_id=str(conference.pk))
        .exclude(comment__startswith="import_conference")
        .exists()
    )


def test_typed_text_is_stored_with_lf_and_empty_text_as_empty(editor_client):
    person = factories.author(name="Ann Example")
    data = _open(editor_client, _url(person), "author")
    data["other_names"] = ["A. Example\r\nAnn E.\rA. E."]

    _saved(editor_client.post(_url(person), data))

    assert Author.objects.get(pk=person.pk).other_names == "A. Example\nAnn E.\nA. E."


def test_a_new_paper_stores_empty_translations_as_empty_strings(editor_client):
    conference = factories.conference()
    data = {
        "title_en": "A New Paper",
        "conference": conference.pk,
        "status": "draft",
        "authorships-TOTAL_FORMS": 0,
        "authorships-INITIAL_FORMS": 0,
        "links-TOTAL_FORMS": 0,
        "links-INITIAL_FORMS": 0,
        "award_entries-TOTAL_FORMS": 0,
        "award_entries-INITIAL_FORMS": 0,
        "_save": "Save",
    }

    _saved(editor_client.post("/admin/papers/paper/add/", data))

    stored = _columns(Paper.objects.get(title_en="A New Paper"))
    assert stored["title_zh_hans"] == stored["summary_en"] == stored["image_alt_zh_hans"] == ""


def test_migration_repairs_crlf_and_null_text(db):
    paper = factories.paper()
    Paper.objects.filter(pk=paper.pk).update(
        summary_en="One.\r\n\r\nTwo.\rThree.", title_zh_hans=None, image_alt_en=None
    )
    migration = importlib.import_module(
        "catalogue.migrations.0005_repair_line_endings_and_empty_text"
    )
    # Its function run on today's schema: it repairs whatever text columns the state has.
    loader = MigrationLoader(connection)
    state = loader.project_state(loader.graph.leaf_nodes("papers")[0])

    migration.repair_text(state.apps, SimpleNamespace(connection=connection))

    stored = _columns(paper)
    assert stored["summary_en"] == "One.\n\nTwo.\nThree."
    assert stored["title_zh_hans"] == stored["image_alt_en"] == ""


def test_restoring_a_version_through_the_form_keeps_lf(editor_client):
    _import()
    paper = _multi_paragraph_paper()
    data = _open(editor_client, _url(paper), "paper")
    data["title_en"] = ["A changed title"]
    _saved(editor_client.post(_url(paper), data))
    first = Version.objects.get_for_object(paper).order_by("pk").first()
    url = f"/admin/papers/paper/{paper.pk}/history/{first.pk}/"

    _saved(editor_client.post(url, _open(editor_client, url, "paper")))

    paper.refresh_from_db()
    assert paper.title_en != "A changed title"
    assert "\r" not in paper.summary_zh_hans
    assert "conflict" not in _import()


# Concurrent edits ------------------------------------------------------------------------


def test_a_form_opened_before_another_save_is_refused(editor_client, other_client):
    paper = factories.paper(title_en="Original title", summary_en="Original summary.")
    stale = _open(editor_client, _url(paper), "paper")
    theirs = _open(other_client, _url(paper), "paper")
    theirs["title_en"] = ["Their title"]
    _saved(other_client.post(_url(paper), theirs))
    stale["summary_en"] = ["My summary."]

    response = editor_client.post(_url(paper), stale)

    assert response.status_code == 200
    html = response.content.decode()
    assert "changed and saved by someone else" in html
    assert "Title [en]" in html
    assert "by other" in html
    paper.refresh_from_db()
    assert (paper.title_en, paper.summary_en) == ("Their title", "Original summary.")
    # The refused form kept the input and a new token: saving again is deliberate.
    again = browser_post_data(response, "paper_form")
    assert again["summary_en"] == ["My summary."]
    _saved(editor_client.post(_url(paper), again))
    paper.refresh_from_db()
    assert paper.summary_en == "My summary."


def test_a_changed_author_order_refuses_a_stale_paper_form(editor_client, other_client, settings):
    first, second = factories.author(name="First Author"), factories.author(name="Second Author")
    paper = factories.paper(authors=[first, second])
    stale = _open(editor_client, _url(paper), "paper")
    theirs = _open(other_client, _url(paper), "paper")
    theirs["authorships-0-position"], theirs["authorships-1-position"] = ["2"], ["1"]
    _saved(other_client.post(_url(paper), theirs))
    editor_client.cookies[settings.LANGUAGE_COOKIE_NAME] = "zh-hans"

    response = editor_client.post(_url(paper), stale)

    assert response.status_code == 200
    html = response.content.decode()
    assert "在您打开此表单之后" in html
    assert "作者署名" in html
    assert [a.author.name for a in paper.ordered_authorships] == ["Second Author", "First Author"]


def test_an_import_after_the_form_was_opened_refuses_it(editor_client, tmp_path):
    _import()
    paper = Paper.objects.get(slug="statistical-collusion-by-collectives")
    stale = _open(editor_client, _url(paper), "paper")
    text = FIXTURE.read_text(encoding="utf-8")
    changed = tmp_path / "icml.json"
    changed.write_text(text.replace(paper.title_en, "A corrected title"), encoding="utf-8")
    call_command("import_conference", str(changed), stdout=io.StringIO())

    response = editor_client.post(_url(paper), stale)

    assert response.status_code == 200
    assert Paper.objects.get(pk=paper.pk).title_en == "A corrected title"


# History: imported objects, restore and recover with what belongs to them -----------------


def test_import_writes_a_first_version_of_every_object(db):
    _import()

    for model in [Conference, Paper, Authorship, PaperLink, Award, AwardEntry, Author]:
        for obj in model.objects.all():
            versions = Version.objects.get_for_object(obj)
            assert {v.revision.comment for v in versions} == {f"import_conference {FIXTURE}"}
            # Its latest version opens a revision of its own (with what belongs to it),
            # so restoring or recovering it touches nothing else.
            latest = versions.order_by("-pk").first()
            assert latest.revision.version_set.order_by("pk").first() == latest, obj


def test_reimport_gives_a_first_version_to_objects_that_have_none(db):
    _import()
    Revision.objects.all().delete()

    _import()

    paper = Paper.objects.first()
    assert Version.objects.get_for_object(paper).count() == 1
    assert not Version.objects.get_for_object(paper).filter(revision__user__isnull=False).exists()
    assert _import().startswith("Nothing to change") or "conflict" not in _import()
    assert Version.objects.get_for_object(paper).count() == 1


def test_an_editors_first_change_to_an_imported_paper_can_be_undone(editor_client):
    _import()
    paper = Paper.objects.get(slug="statistical-collusion-by-collectives")
    original = paper.title_en
    data = _open(editor_client, _url(paper), "paper")
    data["title_en"] = ["An editor's title"]
    _saved(editor_client.post(_url(paper), data))
    first = Version.objects.get_for_object(paper).order_by("pk").first()
    url = f"/admin/papers/paper/{paper.pk}/history/{first.pk}/"

    _saved(editor_client.post(url, _open(editor_client, url, "paper")))

    assert Paper.objects.get(pk=paper.pk).title_en == original


def test_recovering_a_deleted_award_brings_back_its_entries(editor_client):
    _import()
    award = Award.objects.get(slug="outstanding-paper")
    entries = sorted(award.entries.values_list("paper__slug", "level", "position"))
    assert len(entries) > 1
    response = editor_client.post(_url(award, "delete"), {"post": "yes"})
    assert response.status_code == 302
    assert not Award.objects.filter(slug="outstanding-paper").exists()
    version = Version.objects.get_deleted(Award).get(object_id=str(award.pk))
    url = f"/admin/papers/award/recover/{version.pk}/"

    _saved(editor_client.post(url, _open(editor_client, url, "award")))

    recovered = Award.objects.get(slug="outstanding-paper")
    assert sorted(recovered.entries.values_list("paper__slug", "level", "position")) == entries


def test_recovering_a_deleted_paper_brings_back_authors_affiliations_and_links(editor_client):
    _import()
    paper = Paper.objects.get(slug="statistical-collusion-by-collectives")

    def belongings():
        return (
            sorted(
                (a.author.slug, a.position, tuple(sorted(i.slug for i in a.affiliations.all())))
                for a in Authorship.objects.filter(paper__slug=paper.slug)
            ),
            sorted(PaperLink.objects.filter(paper__slug=paper.slug).values_list("kind", "url")),
        )

    before = belongings()
    assert before[0] and before[1]
    assert editor_client.post(_url(paper, "delete"), {"post": "yes"}).status_code == 302
    version = Version.objects.get_deleted(Paper).get(object_id=str(paper.pk))
    url = f"/admin/papers/paper/recover/{version.pk}/"

    _saved(editor_client.post(url, _open(editor_client, url, "paper")))

    assert belongings() == before


def test_a_recovered_award_version_holds_its_entries(editor_client):
    """Whatever made the version (here the model's own save in a revision block)."""
    award = factories.award()
    for position in range(2):
        factories.award_entry(
            award, factories.paper(conference=award.conference), position=position
        )
    with reversion.create_revision():
        award.save()
    editor_client.post(_url(award, "delete"), {"post": "yes"})
    version = Version.objects.get_deleted(Award).get(object_id=str(award.pk))
    url = f"/admin/papers/award/recover/{version.pk}/"

    _saved(editor_client.post(url, _open(editor_client, url, "award")))

    assert AwardEntry.objects.filter(award__slug=award.slug).count() == 2


# Restoring or recovering one object leaves every other object alone (QA of issue 8) ------


def _edit_pages(client, paper, pages):
    data = _open(client, _url(paper), "paper")
    data["pages"] = [pages]
    _saved(client.post(_url(paper), data))


def test_recovering_an_imported_award_leaves_other_objects_alone(editor_client):
    _import()
    edited = Paper.objects.get(slug="score-matching-missing-data")
    _edit_pages(editor_client, edited, "11-22")
    award = Award.objects.get(slug="outstanding-position-paper")
    entries = sorted(award.entries.values_list("paper__slug", "position"))
    _saved(editor_client.post(_url(award, "delete"), {"post": "yes"}))
    version = Version.objects.get_deleted(Award).get(object_id=str(award.pk))
    url = f"/admin/papers/award/recover/{version.pk}/"

    _saved(editor_client.post(url, _open(editor_client, url, "award")))

    recovered = Award.objects.get(slug="outstanding-position-paper")
    assert sorted(recovered.entries.values_list("paper__slug", "position")) == entries
    edited.refresh_from_db()
    assert edited.pages == "11-22"


def test_restoring_an_imported_version_of_one_paper_leaves_the_others_alone(editor_client):
    _import()
    edited = Paper.objects.get(slug="score-matching-missing-data")
    _edit_pages(editor_client, edited, "11-22")
    other = Paper.objects.exclude(pk=edited.pk).filter(authorships__isnull=False).first()
    _edit_pages(editor_client, other, "33-44")
    first = Version.objects.get_for_object(other).order_by("pk").first()
    url = f"/admin/papers/paper/{other.pk}/history/{first.pk}/"

    _saved(editor_client.post(url, _open(editor_client, url, "paper")))

    other.refresh_from_db()
    edited.refresh_from_db()
    assert (other.pages, edited.pages) == ("", "11-22")


def test_recovering_a_deleted_paper_after_another_papers_authors_moved(editor_client):
    _import()
    moved = Paper.objects.get(slug="trust-region-policy-optimization")
    first, second = moved.ordered_authorships[:2]
    data = _open(editor_client, _url(moved), "paper")
    for key in [k for k in data if k.endswith("-position")]:
        if data[key] == [str(first.position)]:
            data[key] = [str(second.position)]
        elif data[key] == [str(second.position)]:
            data[key] = [str(first.position)]
    _saved(editor_client.post(_url(moved), data))
    order = [a.author.slug for a in Paper.objects.get(pk=moved.pk).ordered_authorships]
    deleted = Paper.objects.exclude(pk=moved.pk).exclude(award_entries__isnull=False).first()
    _saved(editor_client.post(_url(deleted, "delete"), {"post": "yes"}))
    version = Version.objects.get_deleted(Paper).get(object_id=str(deleted.pk))
    url = f"/admin/papers/paper/recover/{version.pk}/"

    _saved(editor_client.post(url, _open(editor_client, url, "paper")))

    assert Paper.objects.filter(slug=deleted.slug).exists()
    assert [a.author.slug for a in Paper.objects.get(pk=moved.pk).ordered_authorships] == order


def test_recovering_a_deleted_paper_whose_author_was_deleted_too(editor_client):
    """The recover form opens (it was a 500: the authorship's name read its author) and
    refuses to save with a message naming what to recover first; nothing is written."""
    _import()
    paper = Paper.objects.get(slug="statistical-collusion-by-collectives")
    author = paper.ordered_authorships[0].author
    assert Authorship.objects.filter(author=author).count() == 1  # only on this paper
    _saved(editor_client.post(_url(paper, "delete"), {"post": "yes"}))
    _saved(editor_client.post(_url(author, "delete"), {"post": "yes"}))
    version = Version.objects.get_deleted(Paper).get(object_id=str(paper.pk))
    url = f"/admin/papers/paper/recover/{version.pk}/"

    response = editor_client.get(url)
    assert response.status_code == 200
    response = editor_client.post(url, _open(editor_client, url, "paper"))

    assert response.status_code == 200
    assert "was deleted after the paper. Recover the author first" in response.content.decode()
    assert not Paper.objects.filter(slug=paper.slug).exists()
    # Recovering the author first, as the message says, then the paper works.
    author_version = Version.objects.get_deleted(Author).get(object_id=str(author.pk))
    author_url = f"/admin/papers/author/recover/{author_version.pk}/"
    _saved(editor_client.post(author_url, _open(editor_client, author_url, "author")))
    _saved(editor_client.post(url, _open(editor_client, url, "paper")))
    recovered = Paper.objects.get(slug=paper.slug)
    assert recovered.ordered_authorships[0].author.slug == author.slug
