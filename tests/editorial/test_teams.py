"""Venue teams: an editor edits only the conferences, awards and papers of the venues whose
teams they are on, at every admin address and action; a site-wide editor edits them all."""

import datetime
import io

import pytest
import reversion
from django.contrib.auth.models import Group, Permission
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from reversion.models import Version

from catalogue.models import Author, Award, Paper, PaperLink, Status, Venue
from editorial.models import Team
from editorial.roles import EDITORS, TEAM_EDITORS, create_editor, sync_editors_group
from tests import factories

PASSWORD = "a-long-editor-passphrase"
# Queries of the "What changed" page and of the teams' changelist, whatever their size.
QUERIES_OF_CHANGES = 12
QUERIES_OF_TEAMS = 6


def _saved_twice(obj, field, values=None):
    """Two versions of ``obj`` (a new value of ``field`` each: ``values``, or the value
    with " (1)", then " (2)" added), as the admin records them."""
    for value in values or [f"{getattr(obj, field)} (1)", f"{getattr(obj, field)} (1) (2)"]:
        with reversion.create_revision():
            setattr(obj, field, value)
            obj.save()
    return list(Version.objects.get_for_object(obj).order_by("pk"))


@pytest.fixture
def icml(db):
    """ICML's draft conference, award, paper, entry, authorship and link, each twice saved."""
    venue = factories.venue(slug="icml", acronym="ICML")
    conference = factories.conference(venue=venue, status=Status.DRAFT, name_en="ICML 2031")
    paper = factories.paper(
        conference=conference,
        status=Status.DRAFT,
        title_en="Secret ICML paper",
        authors=[factories.author(name="Ada Lovelace")],
        links=[("arxiv", "https://arxiv.org/abs/2501.00001")],
    )
    award = factories.award(conference=conference, status=Status.DRAFT, name_en="ICML prize")
    entry = factories.award_entry(award, paper)
    objects = {
        "venue": venue,
        "conference": conference,
        "paper": paper,
        "award": award,
        "awardentry": entry,
        "authorship": paper.authorships.get(),
        "paperlink": paper.links.get(),
    }
    changes = {"awardentry": ("position", [1, 2]), "authorship": ("position", [1, 2])}
    changes["paperlink"] = ("url", [f"https://arxiv.org/abs/2501.0000{n}" for n in (2, 3)])
    for name, obj in objects.items():
        field, values = changes.get(name, ("title_en" if name == "paper" else "name_en", None))
        _saved_twice(obj, field, values)
    return objects


@pytest.fixture
def neurips(db):
    venue = factories.venue(slug="neurips", acronym="NeurIPS")
    return factories.conference(venue=venue, status=Status.DRAFT, name_en="NeurIPS 2031")


def _login(client, user):
    client.force_login(user)
    return client


@pytest.fixture
def team_client(client, icml):
    # Publishers: the publish actions are scoped by venue too (the right alone is review's).
    return _login(
        client, create_editor("ada", "ada@example.org", PASSWORD, venues=["icml"], publisher=True)
    )


@pytest.fixture
def other_client(client, icml, neurips):
    return _login(
        client, create_editor("bo", "bo@example.org", PASSWORD, venues=["neurips"], publisher=True)
    )


@pytest.fixture
def site_client(client, icml):
    return _login(client, create_editor("cy", "cy@example.org", PASSWORD, publisher=True))


# The models scoped by venue and an object address of each (``{pk}`` of the ICML object).
SCOPED = ["venue", "conference", "paper", "award", "awardentry", "authorship", "paperlink"]
OBJECT_PAGES = ["{pk}/change/", "{pk}/delete/", "{pk}/history/"]


def _versions(obj):
    return list(Version.objects.get_for_object(obj).order_by("pk"))


def _pages(name, obj):
    """Every admin address of ``obj`` that shows it or its history."""
    first, second = _versions(obj)[:2]
    urls = [f"/admin/papers/{name}/{page.format(pk=obj.pk)}" for page in OBJECT_PAGES]
    compare = f"?version_id1={first.pk}&version_id2={second.pk}"
    urls.append(f"/admin/papers/{name}/{obj.pk}/history/compare/{compare}")
    urls.append(f"/admin/papers/{name}/{obj.pk}/history/{first.pk}/")
    return urls


@pytest.mark.parametrize("name", SCOPED)
def test_an_editor_of_another_venue_is_refused_every_object_page(other_client, icml, name):
    for url in _pages(name, icml[name]):
        response = other_client.get(url)
        assert response.status_code == 404, url
        assert str(icml[name]) not in response.content.decode(), url


@pytest.mark.parametrize("name", SCOPED)
def test_an_editor_of_the_team_opens_every_object_page(team_client, icml, name):
    for url in _pages(name, icml[name]):
        # Venues are added and deleted by site-wide editors only.
        expected = 403 if (name, url.endswith("/delete/")) == ("venue", True) else 200
        assert team_client.get(url).status_code == expected, url


@pytest.mark.parametrize("name", SCOPED)
def test_a_site_wide_editor_opens_every_object_page(site_client, icml, name):
    for url in _pages(name, icml[name]):
        assert site_client.get(url).status_code == 200, url


@pytest.mark.parametrize("name", SCOPED)
def test_changelists_list_only_the_teams_venues(team_client, other_client, icml, name):
    listed = other_client.get(f"/admin/papers/{name}/").context["cl"].result_list
    assert icml[name] not in list(listed)
    team_client.force_login(Team.objects.get(venue=icml["venue"]).members.get())
    listed = team_client.get(f"/admin/papers/{name}/").context["cl"].result_list
    assert list(listed) == [icml[name]]


def test_site_wide_editor_lists_every_venue(site_client, icml, neurips):
    listed = site_client.get("/admin/papers/conference/").context["cl"].result_list
    assert sorted(c.name_en for c in listed) == ["ICML 2031 (1) (2)", "NeurIPS 2031"]


def test_another_venues_editor_cannot_post_a_change_or_a_delete(other_client, icml):
    paper = icml["paper"]
    change = other_client.post(f"/admin/papers/paper/{paper.pk}/change/", {"title_en": "Mine"})
    delete = other_client.post(f"/admin/papers/paper/{paper.pk}/delete/", {"post": "yes"})

    assert (change.status_code, delete.status_code) == (404, 404)
    paper.refresh_from_db()
    assert paper.title_en == "Secret ICML paper (1) (2)"


def test_another_venues_editor_cannot_restore_a_version(other_client, icml):
    paper = icml["paper"]
    first = _versions(paper)[0]

    response = other_client.post(f"/admin/papers/paper/{paper.pk}/history/{first.pk}/", {})

    assert response.status_code == 404
    paper.refresh_from_db()
    assert paper.title_en == "Secret ICML paper (1) (2)"


def test_a_version_of_another_model_is_not_restored_through_this_one(team_client, icml, neurips):
    """django-reversion looks a version up by its object id alone: a NeurIPS conference's
    version must not be reverted through an ICML paper of the same id."""
    other = _saved_twice(neurips, "name_en")[0]
    paper = icml["paper"]
    Version.objects.filter(pk=other.pk).update(object_id=str(paper.pk))

    response = team_client.get(f"/admin/papers/paper/{paper.pk}/history/{other.pk}/")

    assert response.status_code == 404


def test_publish_action_skips_another_venues_items(other_client, icml):
    paper = icml["paper"]

    other_client.post("/admin/papers/paper/", {"action": "publish", "_selected_action": [paper.pk]})

    paper.refresh_from_db()
    assert paper.status == Status.DRAFT


@pytest.mark.parametrize("action", ["publish", "unpublish"])
def test_the_teams_editor_publishes_and_unpublishes(team_client, icml, action):
    paper = icml["paper"]
    if action == "unpublish":
        Paper.objects.filter(pk=paper.pk).update(status=Status.PUBLISHED)

    response = team_client.post(
        "/admin/papers/paper/", {"action": action, "_selected_action": [paper.pk]}
    )

    assert response.status_code == 302
    paper.refresh_from_db()
    assert paper.status == (Status.PUBLISHED if action == "publish" else Status.DRAFT)


def test_add_form_offers_and_accepts_only_the_teams_conferences(team_client, icml, neurips):
    form = team_client.get("/admin/papers/award/add/").context["adminform"].form
    assert list(form.fields["conference"].queryset) == [icml["conference"]]

    response = team_client.post(
        "/admin/papers/award/add/",
        {"conference": neurips.pk, "slug": "stolen", "name_en": "Stolen", "position": 0},
    )

    assert response.status_code == 200
    assert "conference" in response.context["adminform"].form.errors
    assert not Award.objects.filter(slug="stolen").exists()


def test_inline_award_choices_are_the_teams(team_client, icml, neurips):
    factories.award(conference=neurips, name_en="NeurIPS prize")
    paper = icml["paper"]

    response = team_client.get(f"/admin/papers/paper/{paper.pk}/change/")

    formsets = {f.formset.prefix: f.formset for f in response.context["inline_admin_formsets"]}
    entries = formsets["award_entries"]
    assert list(entries.forms[0].fields["award"].queryset) == [icml["award"]]
    assert "NeurIPS prize" not in response.content.decode()


@pytest.mark.parametrize(
    ("model_name", "field_name", "source"),
    [("conference", "venue", "venue"), ("paper", "conference", "conference")],
)
def test_autocomplete_offers_only_the_teams_objects(
    other_client, icml, neurips, model_name, field_name, source
):
    response = other_client.get(
        "/admin/autocomplete/",
        {"app_label": "papers", "model_name": model_name, "field_name": field_name, "term": ""},
    )

    ids = [result["id"] for result in response.json()["results"]]
    expected = neurips.venue if source == "venue" else neurips
    assert ids == [str(expected.pk)]


def test_the_teams_editor_autocompletes_its_papers(team_client, icml, neurips):
    factories.paper(conference=neurips, title_en="NeurIPS paper")

    response = team_client.get(
        "/admin/autocomplete/",
        {"app_label": "papers", "model_name": "awardentry", "field_name": "paper", "term": ""},
    )

    assert [result["id"] for result in response.json()["results"]] == [str(icml["paper"].pk)]


def test_list_filters_name_only_the_teams_conferences(other_client, icml, neurips):
    factories.paper(conference=neurips)

    html = other_client.get("/admin/papers/paper/").content.decode()

    assert "NeurIPS 2031" in html
    assert "ICML 2031" not in html


@pytest.mark.parametrize("kind", ["conference", "award", "paper"])
def test_preview_is_the_teams_only(client, icml, neurips, kind):
    url = f"{icml[kind].get_absolute_url()}?preview=1"
    _login(client, create_editor("bo", "bo@example.org", PASSWORD, venues=["neurips"]))
    assert client.get(url).status_code == 404
    _login(client, create_editor("ada", "ada@example.org", PASSWORD, venues=["icml"]))
    assert client.get(url).status_code == 200
    _login(client, create_editor("cy", "cy@example.org", PASSWORD))
    assert client.get(url).status_code == 200


def test_citation_preview_is_the_teams_only(other_client, icml):
    url = f"{icml['paper'].get_absolute_url()}cite.bib?preview=1"

    assert other_client.get(url).status_code == 404


def _delete_link(client, icml):
    link = icml["paperlink"]
    url = f"/admin/papers/paperlink/{link.pk}/delete/"
    assert client.post(url, {"post": "yes"}).status_code == 302
    return Version.objects.get_deleted(PaperLink).get()


def test_recover_list_and_recover_are_the_teams_only(client, icml, neurips):
    _login(client, create_editor("ada", "ada@example.org", PASSWORD, venues=["icml"]))
    deleted = _delete_link(client, icml)
    _login(client, create_editor("bo", "bo@example.org", PASSWORD, venues=["neurips"]))

    listing = client.get("/admin/papers/paperlink/recover/")
    recover = client.post(f"/admin/papers/paperlink/recover/{deleted.pk}/", {})

    assert listing.status_code == 200
    assert list(listing.context["deleted"]) == []
    assert recover.status_code == 404
    assert not PaperLink.objects.exists()


def test_the_teams_editor_recovers_its_deleted_link(team_client, icml):
    deleted = _delete_link(team_client, icml)

    listing = team_client.get("/admin/papers/paperlink/recover/")
    form = team_client.get(f"/admin/papers/paperlink/recover/{deleted.pk}/")

    assert list(listing.context["deleted"]) == [deleted]
    assert form.status_code == 200


def test_a_version_of_another_model_is_not_recovered_through_this_one(team_client, icml):
    version = _versions(icml["paper"])[0]

    assert team_client.get(f"/admin/papers/paperlink/recover/{version.pk}/").status_code == 404


def test_venues_are_added_and_deleted_by_site_wide_editors_only(team_client, icml):
    assert team_client.get("/admin/papers/venue/add/").status_code == 403
    venue = icml["venue"]
    assert team_client.get(f"/admin/papers/venue/{venue.pk}/change/").status_code == 200


def test_people_are_shared_changed_by_every_editor_deleted_by_site_wide_ones(
    team_client, other_client, icml
):
    author = Author.objects.get(name="Ada Lovelace")

    assert other_client.get(f"/admin/papers/author/{author.pk}/change/").status_code == 200
    assert other_client.get(f"/admin/papers/author/{author.pk}/delete/").status_code == 403


def test_an_editor_without_a_team_or_the_right_edits_nothing(client, icml, django_user_model):
    user = create_editor("dee", "dee@example.org", PASSWORD, venues=["icml"])
    Team.objects.get(venue=icml["venue"]).members.remove(user)
    _login(client, user)

    assert list(client.get("/admin/papers/paper/").context["cl"].result_list) == []
    assert client.get(f"/admin/papers/paper/{icml['paper'].pk}/change/").status_code == 404


def test_missing_chinese_count_counts_the_teams_items(other_client, icml):
    Paper.objects.filter(pk=icml["paper"].pk).update(title_zh_hans="")

    response = other_client.get("/admin/papers/paper/")

    assert response.context["missing_chinese_count"] == 0


# Managing teams ------------------------------------------------------------------


def test_team_admin_is_for_superusers_only(client, site_client, icml, django_user_model):
    assert site_client.get("/admin/editorial/team/").status_code == 403
    admin = django_user_model.objects.create_superuser("root", "root@example.org", PASSWORD)
    _login(client, admin)
    assert client.get("/admin/editorial/team/").status_code == 200
    assert client.get("/admin/editorial/team/add/").status_code == 200


def test_create_editor_puts_the_editor_on_the_named_teams(icml, neurips):
    user = create_editor("ada", "ada@example.org", PASSWORD, venues=["icml", "neurips"])

    assert list(user.groups.values_list("name", flat=True)) == [TEAM_EDITORS]
    assert sorted(Team.objects.filter(members=user).values_list("venue__slug", flat=True)) == [
        "icml",
        "neurips",
    ]
    assert not user.has_perm("editorial.edit_every_venue")


def test_venue_editors_group_has_exactly_the_content_permissions(icml):
    create_editor("ada", "ada@example.org", PASSWORD, venues=["icml"])
    group = Group.objects.get(name=TEAM_EDITORS)
    group.permissions.clear()

    sync_editors_group()

    granted = set(group.permissions.values_list("content_type__app_label", "codename"))
    content = Permission.objects.filter(content_type__app_label="papers").exclude(
        codename__startswith="publish_"  # the Publishers group's alone
    )
    # And the admin's import page (importing/admin.py), scoped to their venues.
    imports = {("editorial", "import_conference")}
    assert granted == set(content.values_list("content_type__app_label", "codename")) | imports


def test_an_editor_without_venues_is_site_wide(db):
    user = create_editor("cy", "cy@example.org", PASSWORD)

    assert list(user.groups.values_list("name", flat=True)) == [EDITORS]
    assert user.has_perm("editorial.edit_every_venue")


def test_create_editor_command_names_the_venues(icml, neurips, monkeypatch):
    monkeypatch.setattr("sys.stdin", io.StringIO(f"{PASSWORD}\n"))
    out = io.StringIO()

    call_command(
        "create_editor",
        "ada",
        "--venue",
        "icml",
        "--venue",
        "neurips",
        "--password-stdin",
        stdout=out,
    )

    assert (
        out.getvalue()
        == "Created editor ada in the Venue editors group, on the teams of ICML, NeurIPS.\n"
    )
    assert Venue.objects.filter(team__members__username="ada").count() == 2


def test_create_editor_command_refuses_an_unknown_venue(db, monkeypatch):
    monkeypatch.setattr("sys.stdin", io.StringIO(f"{PASSWORD}\n"))

    with pytest.raises(CommandError, match="No venue with the slug 'nope'"):
        call_command("create_editor", "ada", "--venue", "nope", "--password-stdin")

    assert not Team.objects.exists()


# What changed ----------------------------------------------------------------------


def test_what_changed_lists_the_teams_week_with_compare_links(team_client, icml, neurips):
    _saved_twice(neurips, "name_en")
    paper = icml["paper"]
    first, second = _versions(paper)[:2]

    response = team_client.get("/admin/editorial/team/changes/")

    html = response.content.decode()
    assert response.status_code == 200
    assert [venue.slug for venue, _rows in response.context["venues"]] == ["icml"]
    compare = f"/admin/papers/paper/{paper.pk}/history/compare/"
    assert f'href="{compare}?version_id1={first.pk}&amp;version_id2={second.pk}"' in html
    assert "NeurIPS 2031" not in html


def test_what_changed_leaves_out_older_changes(team_client, icml):
    Version.objects.get_for_object(icml["paper"]).first().revision.__class__.objects.update(
        date_created=timezone.now() - datetime.timedelta(days=8)
    )

    response = team_client.get("/admin/editorial/team/changes/")

    assert response.context["venues"] == [(icml["venue"], [])]


def test_what_changed_says_who_what_and_when(client, icml):
    user = create_editor("ada", "ada@example.org", PASSWORD, venues=["icml"], publisher=True)
    _login(client, user)
    paper = icml["paper"]
    client.post("/admin/papers/paper/", {"action": "publish", "_selected_action": [paper.pk]})

    ((venue, rows),) = client.get("/admin/editorial/team/changes/").context["venues"]

    newest = rows[0]
    assert (newest["user"], newest["object"], newest["comment"]) == (
        user,
        str(paper),
        "Published.",
    )


def test_what_changed_is_in_chinese_and_linked_from_the_index(team_client, icml):
    index = team_client.get("/admin/", HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    page = team_client.get("/admin/editorial/team/changes/", HTTP_ACCEPT_LANGUAGE="zh-hans")

    assert 'href="/admin/editorial/team/changes/"' in index
    assert "本周更改" in page.content.decode()


def test_a_site_wide_editor_sees_every_venues_changes(site_client, icml, neurips):
    _saved_twice(neurips, "name_en")

    venues = site_client.get("/admin/editorial/team/changes/").context["venues"]

    assert [venue.slug for venue, _rows in venues] == ["icml", "neurips"]


def test_delete_selected_action_skips_another_venues_items(other_client, icml):
    link = icml["paperlink"]

    response = other_client.post(
        "/admin/papers/paperlink/",
        {"action": "delete_selected", "_selected_action": [link.pk], "post": "yes"},
    )

    assert response.status_code in {200, 302}
    assert list(PaperLink.objects.all()) == [link]


@pytest.mark.parametrize("name", SCOPED)
def test_add_forms_open_for_team_editors_but_venues(team_client, name):
    expected = 403 if name == "venue" else 200

    assert team_client.get(f"/admin/papers/{name}/add/").status_code == expected


def _queries(client, url):
    with CaptureQueriesContext(connection) as queries:
        assert client.get(url).status_code == 200
    return len(queries)


def test_what_changed_queries_do_not_grow_with_changes(team_client, icml):
    url = "/admin/editorial/team/changes/"

    def change_and_delete():
        paper = factories.paper(conference=icml["conference"], links=[("code", "https://x.org")])
        _saved_twice(paper, "title_en")
        team_client.post(f"/admin/papers/paperlink/{paper.links.get().pk}/delete/", {"post": "y"})

    change_and_delete()
    team_client.get(url)  # content types cached
    one = _queries(team_client, url)
    for _n in range(3):
        change_and_delete()

    many = _queries(team_client, url)

    assert (one, many) == (QUERIES_OF_CHANGES, QUERIES_OF_CHANGES)


def test_team_changelist_queries_do_not_grow_with_teams(client, icml, neurips, django_user_model):
    _login(client, django_user_model.objects.create_superuser("root", "r@example.org", PASSWORD))
    create_editor("ada", "ada@example.org", PASSWORD, venues=["icml"])
    one = _queries(client, "/admin/editorial/team/")
    create_editor("bo", "bo@example.org", PASSWORD, venues=["neurips", "icml"])

    many = _queries(client, "/admin/editorial/team/")

    assert (one, many) == (QUERIES_OF_TEAMS, QUERIES_OF_TEAMS)


def test_what_changed_lists_a_deletion_with_its_recover_page(team_client, icml):
    deleted = _delete_link(team_client, icml)

    ((venue, rows),) = team_client.get("/admin/editorial/team/changes/").context["venues"]

    row = rows[0]
    assert (row["comment"], row["object"], row["url"]) == (
        "Deleted.",
        str(icml["paperlink"]),
        f"/admin/papers/paperlink/recover/{deleted.pk}/",
    )


def test_what_changed_after_an_import_opens_and_its_links_work(client, db, settings):
    # The importer records a version of every object it writes, award levels included,
    # which have no admin pages of their own: such a row has no link (it was a 500).
    settings.ALLOWED_HOSTS = ["testserver"]
    call_command("import_conference", "fixtures/icml.json", verbosity=0, stdout=io.StringIO())
    _login(client, create_editor("cy", "cy@example.org", PASSWORD, publisher=True))

    response = client.get("/admin/editorial/team/changes/")

    assert response.status_code == 200
    rows = [row for _venue, rows in response.context["venues"] for row in rows]
    linked = {row["model"]: row["url"] for row in rows if row["url"]}
    assert {"conference", "award", "paper"} <= set(linked)
    assert all(client.get(url).status_code == 200 for url in linked.values())
