"""Stored versions follow the models (editorial/history_upgrade.py), and a restore that
would delete a level still in use says so instead of failing with a server error."""

import json

import pytest
import reversion
from django.apps import apps
from django.contrib.contenttypes.models import ContentType
from django.contrib.messages import get_messages
from django.db.migrations import Migration
from django.utils import timezone
from reversion.models import Revision, Version

from catalogue.models import Award, AwardEntry
from editorial.history_upgrade import upgrade_after_migrate, upgrade_versions
from editorial.roles import create_editor
from tests import factories
from tests.browser_form import browser_post_data


@pytest.fixture
def editor_client(client, db):
    client.force_login(create_editor("editor", "editor@example.org", "a-long-passphrase-1"))
    return client


def _old_revision(*objects_and_fields):
    """A revision of ``(object, stored fields)`` pairs, as an earlier release stored them."""
    revision = Revision.objects.create(date_created=timezone.now(), comment="Initial version")
    for obj, fields in objects_and_fields:
        data = [{"model": obj._meta.label_lower, "pk": obj.pk, "fields": fields}]
        Version.objects.create(
            revision=revision,
            object_id=str(obj.pk),
            content_type=ContentType.objects.get_for_model(obj),
            db="default",
            format="json",
            serialized_data=json.dumps(data),
            object_repr=str(obj),
        )
    return revision


def _old_award_revision(award, entry):
    """A revision as the release before award levels were rows stored it (catalogue 0003):
    the award with modeltranslation's mirror ``name``, its entry's level a slug."""
    award_fields = {
        "conference": award.conference_id,
        "slug": award.slug,
        "name": "The old name",
        "name_en": "The old name",
        "name_zh_hans": "旧名",
        "description": "",
        "description_en": "",
        "description_zh_hans": "",
        "position": 0,
        "status": award.status,
    }
    entry_fields = {"award": award.pk, "paper": entry.paper_id, "level": "winner", "position": 0}
    return _old_revision((award, award_fields), (entry, entry_fields))


def _award_with_an_old_revision():
    award = factories.award()
    entry = factories.award_entry(
        award, factories.paper(conference=award.conference), "honourable-mention"
    )
    winner = factories.award_level(award, "winner")
    return award, entry, winner, _old_award_revision(award, entry)


def test_upgrade_gives_an_old_entry_its_level_and_the_revision_the_awards_levels(db):
    award, entry, winner, revision = _award_with_an_old_revision()

    assert upgrade_versions() == (2, 2)

    stored = {v.content_type.model: v for v in revision.version_set.all()}
    assert stored["awardentry"].field_dict["level_id"] == winner.pk
    fields = json.loads(stored["award"].serialized_data)[0]["fields"]
    assert ("name" in fields, fields["name_en"], fields["announced_on"]) == (
        False,
        "The old name",
        None,
    )
    levels = revision.version_set.filter(content_type__model="awardlevel")
    assert sorted(levels.values_list("object_id", flat=True)) == sorted(
        str(pk) for pk in award.levels.values_list("pk", flat=True)
    )
    assert upgrade_versions() == (0, 0)


def test_an_old_authorships_affiliations_restore_in_their_recorded_order(db):
    """Before affiliations were rows, an authorship's version listed its institutions."""
    second, first = factories.institution(), factories.institution()  # first: the larger key
    paper = factories.paper(authors=[factories.author()], affiliations=[second])
    authorship = paper.authorships.get()
    fields = {
        "paper": paper.pk,
        "author": authorship.author_id,
        "position": 1,
        "affiliations": [first.pk, second.pk],
    }
    revision = _old_revision((authorship, fields))

    assert upgrade_versions() == (1, 2)
    revision.revert(delete=True)

    rows = authorship.affiliation_rows.order_by("position", "pk")
    assert list(rows.values_list("institution", "position")) == [(first.pk, 1), (second.pk, 2)]
    stored = revision.version_set.get(content_type__model="authorship")
    assert "affiliations" not in json.loads(stored.serialized_data)[0]["fields"]


def test_an_upgraded_old_award_version_opens_and_restores(editor_client):
    award, entry, winner, revision = _award_with_an_old_revision()
    upgrade_versions()
    version = revision.version_set.get(content_type__model="award")
    url = f"/admin/papers/award/{award.pk}/history/{version.pk}/"

    response = editor_client.get(url)
    assert response.status_code == 200
    response = editor_client.post(url, browser_post_data(response, "award_form"))

    assert response.status_code == 302
    assert Award.objects.get(pk=award.pk).name_en == "The old name"
    assert AwardEntry.objects.get(pk=entry.pk).level == winner


def test_a_restore_that_would_delete_a_level_in_use_says_why(editor_client):
    award = factories.award()
    entry = factories.award_entry(award, factories.paper(conference=award.conference))
    with reversion.create_revision():
        award.save()  # the award, its level "winner" and its entry
    entry.level = factories.award_level(award, "runner-up")
    entry.save()
    version = Version.objects.get_for_object(award).get()

    response = editor_client.get(f"/admin/papers/award/{award.pk}/history/{version.pk}/")

    assert (response.status_code, response["Location"]) == (302, "/admin/papers/award/")
    [message] = [str(message) for message in get_messages(response.wsgi_request)]
    assert "restricted foreign keys" in message
    assert AwardEntry.objects.get(pk=entry.pk).level.slug == "runner-up"


def test_versions_are_upgraded_after_a_migrate_that_applied_a_migration(db):
    _award_with_an_old_revision()
    catalogue = apps.get_app_config("papers")
    backwards = [(Migration("0024_x", catalogue.label), True)]
    forwards = [(Migration("0002_y", "auth"), False)]

    assert upgrade_after_migrate(catalogue, plan=None) is None  # a flush
    assert upgrade_after_migrate(catalogue, plan=[]) is None
    assert upgrade_after_migrate(catalogue, plan=backwards) is None
    assert upgrade_after_migrate(catalogue, plan=forwards) == (2, 2)


def test_an_author_stored_before_given_and_family_names_restores_with_the_split(
    editor_client,
):
    author = factories.author(
        name="Unai Fischer Abaigar", given_name="Unai", family_name="Fischer Abaigar"
    )
    old_fields = {"slug": author.slug, "name": "John Schulman", "other_names": ""}
    old_fields |= {"homepage": "", "orcid": ""}
    revision = _old_revision((author, old_fields))
    upgrade_versions()
    version = revision.version_set.get()
    url = f"/admin/papers/author/{author.pk}/history/{version.pk}/"
    # Stored as the migration split every author.
    assert (version.field_dict["given_name"], version.field_dict["family_name"]) == (
        "John",
        "Schulman",
    )

    response = editor_client.get(url)
    assert response.status_code == 200
    response = editor_client.post(url, browser_post_data(response, "author_form"))

    assert response.status_code == 302
    author.refresh_from_db()
    assert (author.name, author.given_name, author.family_name) == (
        "John Schulman",
        "John",
        "Schulman",
    )
    assert author.sort_name == "schulman john"
