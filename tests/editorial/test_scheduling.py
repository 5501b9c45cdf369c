"""Publishing at an hour: ``manage.py publish_scheduled`` publishes what is due, once, in
the history as published on schedule by whoever scheduled it, with the page, the feed and
the static site following."""

import datetime
import io
import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.utils import timezone
from reversion.models import Version

from catalogue.models import Award, Conference, Status
from editorial import scheduling
from editorial.roles import create_editor
from tests import factories
from tests.browser_form import browser_post_data

ROOT = Path(__file__).resolve().parents[2]
PASSWORD = "a-long-editor-passphrase"
SITE_URL = "https://awards.example.org"


@pytest.fixture
def publisher(db):
    return create_editor("li", "li@example.org", PASSWORD, publisher=True)


def _scheduled(factory=factories.award, minutes=-1, **fields):
    """An item ready for review, scheduled by li ``minutes`` from now (past: due)."""
    when = timezone.now() + datetime.timedelta(minutes=minutes)
    return factory(status=Status.REVIEW, publish_at=when, scheduled_by="li", **fields)


def _run(*args):
    out = io.StringIO()
    call_command("publish_scheduled", *args, stdout=out)
    return out.getvalue()


def _comments(obj):
    versions = Version.objects.get_for_object(obj).select_related("revision__user")
    return [
        (version.revision.user and version.revision.user.username, version.revision.comment)
        for version in reversed(versions)
    ]


def test_a_due_award_is_published_and_the_history_names_who_scheduled_it(publisher):
    award = _scheduled(name_en="Best Paper")
    when = award.publish_at.astimezone(datetime.UTC).strftime("%Y-%m-%d %H:%M")

    out = _run()

    award.refresh_from_db()
    assert (award.status, award.publish_at, award.scheduled_by) == (Status.PUBLISHED, None, "")
    assert out == f"Published award {award}.\n"
    assert _comments(award) == [
        ("li", f"Published on schedule (publish at {when} UTC), as scheduled by li.")
    ]


def test_an_award_not_due_yet_is_left_as_it_is(publisher):
    award = _scheduled(minutes=5)

    assert _run() == ""

    award.refresh_from_db()
    assert (award.status, award.scheduled_by) == (Status.REVIEW, "li")
    assert _comments(award) == []


def test_dry_run_lists_what_is_due_and_publishes_nothing(publisher):
    award = _scheduled()
    _scheduled(minutes=5)

    assert _run("--dry-run") == f"Would publish award {award}.\n"

    award.refresh_from_db()
    assert award.status == Status.REVIEW


def test_an_item_published_and_unpublished_in_between_is_not_published(client, publisher):
    award = _scheduled(minutes=5)
    client.force_login(publisher)
    for action in ("publish", "unpublish"):
        client.post("/admin/papers/award/", {"action": action, "_selected_action": [award.pk]})

    published = scheduling.publish_due(timezone.now() + datetime.timedelta(minutes=10))

    award.refresh_from_db()
    assert (published, award.status, award.publish_at) == ([], Status.DRAFT, None)


def test_an_award_published_on_the_conference_form_and_returned_to_draft_is_not_published(
    client, publisher
):
    """Published through the conference form's inline, then returned to draft on its own
    form: its schedule went when it was published."""
    award = _scheduled(minutes=5)
    client.force_login(publisher)
    conference_url = f"/admin/papers/conference/{award.conference.pk}/change/"
    data = browser_post_data(client.get(conference_url), "conference_form")
    data["awards-0-status"] = Status.PUBLISHED
    assert client.post(conference_url, data).status_code == 302
    award_url = f"/admin/papers/award/{award.pk}/change/"
    data = browser_post_data(client.get(award_url), "award_form")
    data["status"] = Status.DRAFT
    assert client.post(award_url, data).status_code == 302

    published = scheduling.publish_due(timezone.now() + datetime.timedelta(minutes=10))

    award.refresh_from_db()
    assert (published, award.status, award.publish_at) == ([], Status.DRAFT, None)


def test_a_scheduled_conference_goes_first_and_its_award_appears_in_the_feed(client, publisher):
    conference = _scheduled(factories.conference, minutes=-1)
    award = _scheduled(conference=conference, minutes=-2, name_en="Announced at four")
    feed = "/en/feeds/awards.atom"
    assert "Announced at four" not in client.get(feed).content.decode()

    published = scheduling.publish_due()

    assert published == [conference, award]
    assert client.get(award.get_absolute_url()).status_code == 200
    assert "Announced at four" in client.get(feed).content.decode()


def test_the_page_cache_follows_a_scheduled_publication(client, settings, publisher):
    """The page cached while the award was a draft is not served after it is published."""
    settings.PAGE_CACHE_ENABLED = True
    award = _scheduled(name_en="Cached before")
    page = award.conference.get_absolute_url()
    assert "Cached before" not in client.get(page).content.decode()

    scheduling.publish_due()

    assert "Cached before" in client.get(page).content.decode()


def test_the_static_site_is_published_after_a_scheduled_publication(settings, tmp_path, publisher):
    settings.SITE_URL = SITE_URL
    settings.STATIC_ROOT = tmp_path / "collected"
    settings.MEDIA_ROOT = tmp_path / "media"
    award = _scheduled()
    site = tmp_path / "site"

    _run("--publish-site", str(site))

    page = site / award.get_absolute_url().strip("/") / "index.html"
    assert award.name_en in page.read_text(encoding="utf-8")


def test_a_failed_static_publish_leaves_the_database_published_and_says_so(tmp_path, publisher):
    award = _scheduled()
    not_a_folder = tmp_path / "site"
    not_a_folder.write_text("a file where the site's folder should be")

    with pytest.raises(CommandError) as failure:
        _run("--publish-site", str(not_a_folder))

    award.refresh_from_db()
    assert award.status == Status.PUBLISHED
    message = str(failure.value)
    assert message.startswith(f"1 item(s) published, but the static site in {not_a_folder}")
    assert message.endswith(f"Run publish_site {not_a_folder} again.")


def test_nothing_due_runs_no_static_publish(tmp_path, publisher):
    not_a_folder = tmp_path / "site"
    not_a_folder.write_text("publish_site would fail here")

    assert _run("--publish-site", str(not_a_folder)) == ""


# Two runs at once ------------------------------------------------------------------------

SCHEDULE_TEN = """
import datetime
from django.utils import timezone
from catalogue.models import Status
from tests import factories
from tests.browser_form import browser_post_data
conference = factories.conference()
past = timezone.now() - datetime.timedelta(minutes=1)
for n in range(10):
    factories.award(conference=conference, status=Status.REVIEW, publish_at=past, scheduled_by="li")
"""


@pytest.mark.no_database
def test_two_runs_at_once_publish_each_item_once(tmp_path):
    """Two processes on one database (a file, as in production): each due award is
    published by one of them, with one revision."""
    environment = {
        **os.environ,
        "DATABASE_URL": f"sqlite:///{tmp_path}/site.sqlite3",
        "DJANGO_INSECURE_DEV": "true",
    }
    manage = [sys.executable, "manage.py"]
    for command in (["migrate", "--noinput", "-v0"], ["shell", "--no-imports", "-c", SCHEDULE_TEN]):
        subprocess.run([*manage, *command], cwd=ROOT, env=environment, check=True)

    runs = [
        subprocess.Popen(  # noqa: S603  # our own manage.py
            [*manage, "publish_scheduled"],
            cwd=ROOT,
            env=environment,
            stdout=subprocess.PIPE,
            text=True,
        )
        for _ in range(2)
    ]
    outputs = [run.communicate(timeout=300)[0] for run in runs]

    assert [run.returncode for run in runs] == [0, 0]
    lines = sorted(line for output in outputs for line in output.splitlines())
    assert len(lines) == 10 and len(set(lines)) == 10
    count = (
        "from reversion.models import Revision;"
        "print(Revision.objects.filter(comment__startswith='Published on schedule').count())"
    )
    result = subprocess.run(
        [*manage, "shell", "--no-imports", "-c", count],
        cwd=ROOT,
        env=environment,
        check=True,
        capture_output=True,
        text=True,
    )
    assert result.stdout == "10\n"


def test_due_lists_conferences_then_awards_earliest_first(db):
    later = _scheduled(minutes=-1)
    earlier = _scheduled(minutes=-5)
    conference = _scheduled(factories.conference, minutes=-1)
    _scheduled(minutes=5)
    factories.award(status=Status.PUBLISHED)

    assert scheduling.due(timezone.now()) == [conference, earlier, later]
    assert list(Conference.objects.due(timezone.now())) == [conference]
    assert list(Award.objects.due(timezone.now())) == [earlier, later]
