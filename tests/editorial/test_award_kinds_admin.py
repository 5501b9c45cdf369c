"""Award kinds in the admin: site-wide, like a venue. A site-wide editor adds and
changes kinds; an editor on a venue's team sees them and chooses one for an award of
their venue, but neither adds, changes nor deletes a kind (editorial/teams.py)."""

import pytest

from catalogue.models import AwardKind
from editorial.roles import create_editor
from tests import factories

PASSWORD = "a-long-editor-passphrase"
KINDS = "/admin/papers/awardkind/"


@pytest.fixture
def kind(db):
    return AwardKind.objects.create(slug="test-of-time", name_en="Test of time award")


def _editor(client, name, venues=()):
    client.force_login(create_editor(name, f"{name}@example.org", PASSWORD, venues=venues))
    return client


def test_site_wide_editor_adds_a_kind(client, kind):
    _editor(client, "cy")

    response = client.post(
        f"{KINDS}add/",
        {
            "slug": "",
            "name_en": "Best paper award",
            "name_zh_hans": "最佳论文奖",
            "description_en": "",
            "description_zh_hans": "",
            "position": "1",
        },
    )

    assert response.status_code == 302
    added = AwardKind.objects.get(slug="best-paper-award")
    assert (added.name_en, added.name_zh_hans) == ("Best paper award", "最佳论文奖")


def test_team_editor_sees_kinds_but_does_not_add_change_or_delete_them(client, kind):
    factories.venue(slug="icml")
    _editor(client, "ada", venues=["icml"])

    listing = client.get(KINDS)
    change_page = client.get(f"{KINDS}{kind.pk}/change/")
    posted = client.post(
        f"{KINDS}{kind.pk}/change/", {"slug": "renamed", "name_en": "Renamed", "position": "0"}
    )

    assert listing.status_code == 200
    assert "Test of time award" in listing.content.decode()
    assert 'name="_save"' not in change_page.content.decode()  # a read-only view
    assert posted.status_code == 403
    assert client.get(f"{KINDS}add/").status_code == 403
    assert client.get(f"{KINDS}{kind.pk}/delete/").status_code == 403
    assert AwardKind.objects.get().slug == "test-of-time"


def test_team_editor_chooses_a_kind_for_their_award(client, kind):
    award = factories.award(conference=factories.conference(venue=factories.venue(slug="icml")))
    _editor(client, "ada", venues=["icml"])

    html = client.get(f"/admin/papers/award/{award.pk}/change/").content.decode()
    found = client.get(
        "/admin/autocomplete/",
        {"app_label": "papers", "model_name": "award", "field_name": "kind", "term": "time"},
    ).json()

    assert 'name="kind"' in html
    assert [result["text"] for result in found["results"]] == ["Test of time award"]


def test_kinds_changelist_queries_do_not_grow(client, kind, django_assert_num_queries):
    _editor(client, "cy")
    client.get(KINDS)  # the session and permissions cached as on any later page
    with django_assert_num_queries(11):
        assert client.get(KINDS).status_code == 200
    for n in range(10):
        AwardKind.objects.create(slug=f"kind-{n}", name_en=f"Kind {n}")
    with django_assert_num_queries(11):
        assert client.get(KINDS).status_code == 200
