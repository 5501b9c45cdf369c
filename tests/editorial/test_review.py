"""Review before publishing: draft -> ready for review -> published, the publish right
(the Publishers group), who asked and who published in the history, restores that would
publish, and the schedule's field in the editor's time zone."""

import datetime
import zoneinfo

import pytest
import reversion
from django.contrib.auth.models import Group, Permission
from django.utils import timezone
from reversion.models import Version

from catalogue.models import Award, Conference, Paper, Status
from editorial.roles import EDITORS, PUBLISHERS, create_editor
from editorial.timezones import COOKIE, zone_named
from tests import factories
from tests.browser_form import browser_post_data

PASSWORD = "a-long-editor-passphrase"
BERLIN = zoneinfo.ZoneInfo("Europe/Berlin")


@pytest.fixture
def editor(db):
    return create_editor("mei", "mei@example.org", PASSWORD)


@pytest.fixture
def publisher(db):
    return create_editor("li", "li@example.org", PASSWORD, publisher=True)


@pytest.fixture
def editor_client(client, editor):
    client.force_login(editor)
    return client


@pytest.fixture
def publisher_client(client, publisher):
    client.force_login(publisher)
    return client


def _url(obj, view="change"):
    return f"/admin/papers/{obj._meta.model_name}/{obj.pk}/{view}/"


def _form(client, obj):
    response = client.get(_url(obj))
    assert response.status_code == 200
    return response, browser_post_data(response, f"{obj._meta.model_name}_form")


def _saved(response):
    assert response.status_code == 302, response.context and response.context["errors"]


def _history(obj):
    """(username, comment) of each revision of ``obj``, oldest first."""
    versions = Version.objects.get_for_object(obj).select_related("revision__user")
    return [
        (version.revision.user and version.revision.user.username, version.revision.comment)
        for version in reversed(versions)
    ]


# Roles -------------------------------------------------------------------------------


def test_publishers_group_holds_the_publish_right_and_editors_not(db):
    publish = {("papers", f"publish_{name}") for name in ("conference", "award", "paper")}

    publishers = Group.objects.get(name=PUBLISHERS)
    editors = Group.objects.get(name=EDITORS)

    assert set(publishers.permissions.values_list("content_type__app_label", "codename")) == (
        publish
    )
    granted = set(editors.permissions.values_list("content_type__app_label", "codename"))
    assert granted & publish == set()
    # Besides the papers app's: being site-wide (venue teams, editorial/teams.py), and
    # importing in the admin (importing/admin.py).
    editorial = {("editorial", "edit_every_venue"), ("editorial", "import_conference")}
    assert granted - editorial | publish == set(
        Permission.objects.filter(content_type__app_label="papers").values_list(
            "content_type__app_label", "codename"
        )
    )


def test_publisher_is_in_both_groups(publisher):
    assert sorted(publisher.groups.values_list("name", flat=True)) == [EDITORS, PUBLISHERS]
    assert publisher.has_perm("papers.publish_award")


# The status field ----------------------------------------------------------------------


def test_editor_without_the_right_is_offered_draft_and_review_only(editor_client):
    conference = factories.conference(status=Status.DRAFT)

    response, _data = _form(editor_client, conference)

    field = response.context["adminform"].form.fields["status"]
    assert [value for value, _label in field.choices] == [Status.DRAFT, Status.REVIEW]


def test_editor_asks_for_review_on_the_form_and_the_history_says_so(editor_client):
    award = factories.award(status=Status.DRAFT)
    _response, data = _form(editor_client, award)
    data["status"] = Status.REVIEW

    _saved(editor_client.post(_url(award), data))

    award.refresh_from_db()
    assert award.status == Status.REVIEW
    user, comment = _history(award)[-1]
    assert user == "mei"
    assert comment.startswith("Asked for review. Changed Status")


def test_editor_cannot_publish_through_a_forged_form(editor_client):
    award = factories.award(status=Status.REVIEW)
    _response, data = _form(editor_client, award)
    data["status"] = Status.PUBLISHED

    response = editor_client.post(_url(award), data)

    assert response.status_code == 200
    assert "status" in response.context["adminform"].form.errors
    award.refresh_from_db()
    assert award.status == Status.REVIEW


def test_editor_cannot_unpublish_a_published_item_on_its_form(editor_client):
    paper = factories.paper(status=Status.PUBLISHED)
    _response, data = _form(editor_client, paper)
    data["status"] = Status.DRAFT  # not a field of the form: the status is shown read-only

    _saved(editor_client.post(_url(paper), data))

    paper.refresh_from_db()
    assert paper.status == Status.PUBLISHED


def test_editor_cannot_publish_an_award_through_the_conference_form(editor_client):
    award = factories.award(status=Status.DRAFT)
    _response, data = _form(editor_client, award.conference)
    data["awards-0-status"] = Status.PUBLISHED

    _saved(editor_client.post(_url(award.conference), data))

    award.refresh_from_db()
    assert award.status == Status.DRAFT


def test_publisher_publishes_on_the_form_and_the_history_says_who(publisher_client):
    conference = factories.conference(status=Status.REVIEW)
    _response, data = _form(publisher_client, conference)
    data["status"] = Status.PUBLISHED

    _saved(publisher_client.post(_url(conference), data))

    conference.refresh_from_db()
    assert conference.status == Status.PUBLISHED
    user, comment = _history(conference)[-1]
    assert (user, comment.split(". ")[0]) == ("li", "Published")


# Actions -----------------------------------------------------------------------------


def _action(client, model_name, action, *objects):
    return client.post(
        f"/admin/papers/{model_name}/",
        {"action": action, "_selected_action": [obj.pk for obj in objects]},
    )


def test_editor_has_the_review_action_but_not_the_publish_ones(editor_client):
    response = editor_client.get("/admin/papers/award/")

    actions = [value for value, _label in response.context["action_form"].fields["action"].choices]
    assert actions == ["", "delete_selected", "ask_for_review"]


def test_editor_cannot_run_the_publish_action(editor_client):
    award = factories.award(status=Status.REVIEW)

    response = _action(editor_client, "award", "publish", award)

    award.refresh_from_db()
    assert award.status == Status.REVIEW
    assert response.status_code == 302  # "No action selected": the list again


def test_review_then_publish_records_who_asked_and_who_published(client, editor, publisher):
    award = factories.award(status=Status.DRAFT)
    client.force_login(editor)
    _action(client, "award", "ask_for_review", award)
    client.force_login(publisher)

    _action(client, "award", "publish", award)

    award.refresh_from_db()
    assert award.status == Status.PUBLISHED
    assert _history(award) == [("mei", "Asked for review."), ("li", "Published.")]
    html = client.get(_url(award, "history")).content.decode()
    assert "<td>Asked for review.</td>" in html and "<td>Published.</td>" in html


def test_unpublish_needs_the_right_and_clears_a_schedule(publisher_client):
    later = timezone.now() + datetime.timedelta(days=1)
    published = factories.award(status=Status.PUBLISHED)
    scheduled = factories.award(status=Status.REVIEW, publish_at=later, scheduled_by="li")

    _action(publisher_client, "award", "unpublish", published, scheduled)

    rows = Award.objects.filter(pk__in=[published.pk, scheduled.pk]).order_by("pk")
    assert list(rows.values_list("status", "publish_at", "scheduled_by")) == [
        (Status.DRAFT, None, ""),
        (Status.DRAFT, None, ""),
    ]


# Ready for review is not public ----------------------------------------------------------


def test_an_item_ready_for_review_is_not_public(client, db):
    conference = factories.conference(status=Status.REVIEW)
    paper = factories.paper(conference=factories.conference(), status=Status.REVIEW)
    award = factories.award(status=Status.REVIEW)

    assert client.get(conference.get_absolute_url()).status_code == 404
    assert client.get(paper.get_absolute_url()).status_code == 404
    assert client.get(award.get_absolute_url()).status_code == 404
    assert list(Conference.objects.published()) == [award.conference, paper.conference]
    assert list(Paper.objects.published()) == []
    assert list(Award.objects.published()) == []


# Restoring and recovering ----------------------------------------------------------------


def _revision_of(obj, user):
    with reversion.create_revision():
        reversion.set_user(user)
        obj.save()
    return Version.objects.get_for_object(obj).first()


def test_editor_cannot_restore_a_published_version(editor_client, editor):
    award = factories.award(status=Status.PUBLISHED)
    version = _revision_of(award, editor)
    Award.objects.filter(pk=award.pk).update(status=Status.DRAFT)
    url = f"/admin/papers/award/{award.pk}/history/{version.pk}/"
    data = browser_post_data(editor_client.get(url), "award_form")

    response = editor_client.post(url, data, follow=True)

    award.refresh_from_db()
    assert award.status == Status.DRAFT
    assert "needs the publish right" in response.content.decode()


def test_editor_cannot_recover_a_deleted_published_award(editor_client, editor):
    award = factories.award(status=Status.PUBLISHED)
    version = _revision_of(award, editor)
    award.delete()
    url = f"/admin/papers/award/recover/{version.pk}/"
    data = browser_post_data(editor_client.get(url), "award_form")

    editor_client.post(url, data)

    assert not Award.objects.exists()


def test_editor_recovers_a_deleted_draft_award(editor_client, editor):
    award = factories.award(status=Status.DRAFT)
    version = _revision_of(award, editor)
    award.delete()
    url = f"/admin/papers/award/recover/{version.pk}/"
    data = browser_post_data(editor_client.get(url), "award_form")

    _saved(editor_client.post(url, data))

    assert list(Award.objects.values_list("status", flat=True)) == [Status.DRAFT]


def test_publisher_restores_a_published_version(publisher_client, publisher):
    award = factories.award(status=Status.PUBLISHED)
    version = _revision_of(award, publisher)
    Award.objects.filter(pk=award.pk).update(status=Status.DRAFT)
    url = f"/admin/papers/award/{award.pk}/history/{version.pk}/"
    data = browser_post_data(publisher_client.get(url), "award_form")

    _saved(publisher_client.post(url, data))

    award.refresh_from_db()
    assert award.status == Status.PUBLISHED


def test_editor_restores_a_version_that_changes_no_status(editor_client, editor):
    award = factories.award(status=Status.DRAFT, name_en="Old name")
    version = _revision_of(award, editor)
    Award.objects.filter(pk=award.pk).update(name_en="New name")
    url = f"/admin/papers/award/{award.pk}/history/{version.pk}/"
    data = browser_post_data(editor_client.get(url), "award_form")

    _saved(editor_client.post(url, data))

    award.refresh_from_db()
    assert award.name_en == "Old name"


# The schedule's field ----------------------------------------------------------------------


def test_editor_sees_the_schedule_but_cannot_set_it(editor_client):
    later = timezone.now() + datetime.timedelta(days=1)
    award = factories.award(status=Status.DRAFT, publish_at=later, scheduled_by="li")
    response, data = _form(editor_client, award)
    assert "publish_time_0" not in data
    data["publish_time_0"], data["publish_time_1"] = "2030-01-01", "09:00:00"

    _saved(editor_client.post(_url(award), data))

    award.refresh_from_db()
    assert (award.publish_at, award.scheduled_by) == (later, "li")
    assert "li" in response.content.decode()


def test_publisher_schedules_in_the_browsers_time_zone(publisher_client):
    award = factories.award(status=Status.REVIEW)
    publisher_client.cookies[COOKIE] = "Europe/Berlin"
    _response, data = _form(publisher_client, award)
    assert data["time_zone"] == ["Europe/Berlin"]
    data["publish_time_0"], data["publish_time_1"] = "2031-07-15", "16:00:00"

    _saved(publisher_client.post(_url(award), data))

    award.refresh_from_db()
    assert award.publish_at == datetime.datetime(2031, 7, 15, 16, 0, tzinfo=BERLIN)
    assert award.publish_at == datetime.datetime(2031, 7, 15, 14, 0, tzinfo=datetime.UTC)
    assert (award.status, award.scheduled_by) == (Status.REVIEW, "li")
    user, comment = _history(award)[-1]
    assert user == "li"
    assert comment.startswith("Scheduled for ") and "(Europe/Berlin)" in comment
    response, data = _form(publisher_client, award)
    assert (data["publish_time_0"], data["publish_time_1"]) == (["2031-07-15"], ["16:00:00"])


def test_a_form_shown_in_another_time_zone_is_refused_not_misread(publisher_client):
    award = factories.award(status=Status.REVIEW)
    _response, data = _form(publisher_client, award)  # no cookie yet: UTC
    assert data["time_zone"] == ["UTC"]
    data["publish_time_0"], data["publish_time_1"] = "2031-07-15", "16:00:00"
    publisher_client.cookies[COOKIE] = "Europe/Berlin"  # the page's script set it meanwhile

    response = publisher_client.post(_url(award), data)

    assert response.status_code == 200
    assert "Europe/Berlin" in str(response.context["adminform"].form.errors["publish_time"])
    award.refresh_from_db()
    assert award.publish_at is None


def test_an_unknown_time_zone_cookie_is_ignored(publisher_client):
    award = factories.award(status=Status.REVIEW)
    publisher_client.cookies[COOKIE] = "Mars/Olympus_Mons"

    _response, data = _form(publisher_client, award)

    assert data["time_zone"] == ["UTC"]


def test_a_schedule_in_the_past_is_refused(publisher_client):
    award = factories.award(status=Status.REVIEW)
    _response, data = _form(publisher_client, award)
    data["publish_time_0"], data["publish_time_1"] = "2001-01-01", "09:00:00"

    response = publisher_client.post(_url(award), data)

    assert response.status_code == 200
    assert list(response.context["adminform"].form.errors) == ["publish_time"]


def test_publishing_on_the_form_clears_the_schedule(publisher_client):
    later = timezone.now() + datetime.timedelta(days=1)
    conference = factories.conference(status=Status.REVIEW, publish_at=later, scheduled_by="li")
    _response, data = _form(publisher_client, conference)
    data["status"] = Status.PUBLISHED
    data["publish_time_0"] = data["publish_time_1"] = ""

    _saved(publisher_client.post(_url(conference), data))

    conference.refresh_from_db()
    assert (conference.status, conference.publish_at, conference.scheduled_by) == (
        Status.PUBLISHED,
        None,
        "",
    )


@pytest.mark.parametrize("cookie", ["Asia/Shanghai", "Asia%2FShanghai"])
def test_the_zone_is_read_as_the_script_writes_it(cookie):
    """admin-timezone.js writes the zone percent-encoded (``encodeURIComponent``): read as
    it came, "Asia%2FShanghai" was unknown and the publisher's 16:00 was taken as UTC's."""
    assert zone_named(cookie) == zoneinfo.ZoneInfo("Asia/Shanghai")
