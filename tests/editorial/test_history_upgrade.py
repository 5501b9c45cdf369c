"""A restore that would delete a level still in use says so instead of failing with a
server error."""

import pytest
import reversion
from django.contrib.messages import get_messages
from reversion.models import Version

from catalogue.models import AwardEntry
from editorial.roles import create_editor
from tests import factories


@pytest.fixture
def editor_client(client, db):
    client.force_login(create_editor("editor", "editor@example.org", "a-long-passphrase-1"))
    return client


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
