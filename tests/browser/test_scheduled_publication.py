"""Issue 30's walk: an award announced at an hour, from a draft to the public page, the
feed and the static site, by two editors of the venue's team (one asks for review, a
publisher schedules it in her own time zone), published by ``publish_scheduled`` as cron
runs it, while an editor of another venue's team is refused at every step."""

import datetime
import io
import zoneinfo

import pytest
from django.core.management import call_command
from django.utils import timezone
from reversion.models import Version

from catalogue.models import Award, Conference, Status
from editorial.roles import create_editor
from tests import factories
from tests.browser.conftest import EDITOR_PASSWORD

pytestmark = pytest.mark.browser

NAME = "Announced at four"
ZONE = "Asia/Shanghai"  # the publisher's browser: eight hours ahead of the server's UTC


@pytest.fixture
def contexts(browser):
    """New browser contexts (each its own cookies), closed before the live server stops
    (a keep-alive connection of an open one is served after the test database is gone)."""
    made = []
    yield lambda **options: made.append(browser.new_context(**options)) or made[-1]
    for context in made:
        context.close()


def logged_in(contexts, site, username, **options):
    """A new browser context's page logged in to the admin as ``username``."""
    page = contexts(**options).new_page()
    page.goto(f"{site}/admin/login/")
    page.fill("#id_username", username)
    page.fill("#id_password", EDITOR_PASSWORD)
    page.click("input[type=submit]")
    page.wait_for_url(f"{site}/admin/")
    return page


def refused_everywhere(page, site, award):
    """The other team's editor: no change, history or preview page, not in the list."""
    change = f"{site}/admin/papers/award/{award.pk}/change/"
    for url in (change, f"{change}../history/", f"{site}{award.get_absolute_url()}?preview"):
        assert page.goto(url).status == 404, url
    page.goto(f"{site}/admin/papers/award/")
    assert page.locator(f"input[name=_selected_action][value='{award.pk}']").count() == 0
    assert NAME not in page.content()


def test_an_award_scheduled_by_its_team_is_published_at_its_hour(
    contexts, page, site, settings, tmp_path, monkeypatch
):
    settings.SITE_URL = "https://awards.example.org"
    settings.STATIC_ROOT = tmp_path / "collected"
    settings.MEDIA_ROOT = tmp_path / "media"
    conference = Conference.objects.get(slug="icml-2025")
    award = factories.award(conference=conference, name_en=NAME, status=Status.DRAFT)
    other = factories.venue(slug="neurips", acronym="NeurIPS", name_en="NeurIPS")
    create_editor("writer", "", EDITOR_PASSWORD, venues=[conference.venue.slug])
    create_editor("approver", "", EDITOR_PASSWORD, venues=[conference.venue.slug], publisher=True)
    create_editor("outsider", "", EDITOR_PASSWORD, venues=[other.slug], publisher=True)
    outsider = logged_in(contexts, site, "outsider")
    refused_everywhere(outsider, site, award)

    # The writer, who may not publish, asks for review.
    writer = logged_in(contexts, site, "writer")
    writer.goto(f"{site}/admin/papers/award/")
    writer.check(f"input[name=_selected_action][value='{award.pk}']")
    writer.select_option("select[name=action]", "ask_for_review")
    writer.click("button[name=index]")
    writer.wait_for_selector(".messagelist .success")
    award.refresh_from_db()
    assert award.status == Status.REVIEW
    assert writer.locator("select[name=action] option[value=publish]").count() == 0
    refused_everywhere(outsider, site, award)

    # The publisher schedules it for 16:00 tomorrow in her time zone.
    approver = logged_in(contexts, site, "approver", timezone_id=ZONE)
    approver.goto(f"{site}/admin/papers/award/{award.pk}/change/")  # the zone's cookie set
    approver.reload()
    local = timezone.now().astimezone(zoneinfo.ZoneInfo(ZONE))
    hour = (local + datetime.timedelta(days=1)).replace(hour=16, minute=0, second=0)
    approver.fill("input[name=publish_time_0]", hour.strftime("%Y-%m-%d"))
    approver.fill("input[name=publish_time_1]", "16:00:00")
    approver.click("input[name=_continue]")
    approver.wait_for_selector(".messagelist .success")
    award.refresh_from_db()
    assert award.status == Status.REVIEW
    assert award.publish_at == hour.replace(microsecond=0)
    assert award.scheduled_by == "approver"
    refused_everywhere(outsider, site, award)

    # Nothing public before the hour: not the page, not the feed.
    assert page.goto(f"{site}{award.get_absolute_url()}").status == 404
    assert NAME not in page.goto(f"{site}/en/feeds/awards.atom").text()
    out = io.StringIO()
    call_command("publish_scheduled", "--publish-site", str(tmp_path / "site"), stdout=out)
    award.refresh_from_db()
    assert award.status == Status.REVIEW

    # A minute past the hour, cron runs the command: the page, the feed, the static site.
    scheduled = award.publish_at
    later = scheduled + datetime.timedelta(minutes=1)
    monkeypatch.setattr(timezone, "now", lambda: later)
    call_command("publish_scheduled", "--publish-site", str(tmp_path / "site"), stdout=out)
    award.refresh_from_db()
    assert (award.status, award.publish_at) == (Status.PUBLISHED, None)
    public = page.goto(f"{site}{award.get_absolute_url()}")
    assert public.status == 200
    assert NAME in page.locator("h1").inner_text()
    assert NAME in page.goto(f"{site}/en/feeds/awards.atom").text()
    static = tmp_path / "site" / award.get_absolute_url().strip("/") / "index.html"
    assert NAME in static.read_text(encoding="utf-8")

    # The history says who asked, who scheduled and that it was published on schedule.
    comments = [
        (version.revision.user.username, version.revision.comment)
        for version in Version.objects.get_for_object(Award.objects.get(pk=award.pk))
    ]
    when = scheduled.astimezone(datetime.UTC).strftime("%Y-%m-%d %H:%M")
    assert comments[0] == (
        "approver",
        f"Published on schedule (publish at {when} UTC), as scheduled by approver.",
    )
    assert [user for user, _comment in comments[1:]] == ["approver", "writer"]
    refused_everywhere(outsider, site, award)
