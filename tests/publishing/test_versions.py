"""``publish_site`` builds each version beside the live folder and switches to it in one
step (publishing/versions.py): a failure, a full disk or a kill leaves the previous site
whole, the previous version is kept for rollback and older ones are removed."""

import errno
import os
import subprocess
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from catalogue.models import Paper
from publishing import changes as publish_changes
from publishing import files as publish_files
from publishing import site as publishing
from publishing.versions import Versions
from tests.test_docs import doc_block

SITE_URL = "https://awards.example.org"
TITLE = "A title changed after the first publish"


@pytest.fixture
def publish(settings, tmp_path):
    """Runs publish_site into tmp_path/"awardsite"; returns the live folder."""
    settings.SITE_URL = SITE_URL
    settings.STATIC_ROOT = tmp_path / "collected"
    settings.MEDIA_ROOT = tmp_path / "media"
    site = tmp_path / "awardsite"

    def run():
        call_command("publish_site", str(site), stdout=StringIO())
        return site

    return run


def tree(folder):
    """{path: bytes} of every file under ``folder``, its own records included."""
    return {
        str(path.relative_to(folder)): path.read_bytes()
        for path in sorted(folder.rglob("*"))
        if path.is_file()
    }


def versions(site):
    return sorted(path.name for path in site.with_name(site.name + ".versions").iterdir())


def edit_a_paper(title=TITLE):
    paper = Paper.objects.published().order_by("slug").first()
    paper.title_en = title
    paper.save()
    return f"en/papers/{paper.slug}/index.html"


def test_the_live_folder_links_the_new_version_and_keeps_the_last(icml, publish):
    site = publish()
    first = site.resolve()
    assert site.is_symlink() and not os.path.isabs(os.readlink(site))
    assert versions(site) == [first.name]
    page = edit_a_paper()

    publish()

    second = site.resolve()
    assert versions(site) == [first.name, second.name]
    assert TITLE in (site / page).read_text()
    # The last version, kept for rollback, is as it was: its files were never written
    # into, though the new version's unchanged files are links to them.
    assert TITLE not in (first / page).read_text()
    assert (first / "robots.txt").samefile(second / "robots.txt")  # kept: linked, not copied
    edit_a_paper("A third title")

    publish()

    assert versions(site) == [second.name, site.resolve().name]


def test_a_folder_made_by_hand_becomes_the_version_before(icml, publish, tmp_path):
    site = tmp_path / "awardsite"
    site.mkdir()
    (site / "CNAME").write_text("awards.example.org")

    publish()

    assert site.is_symlink()
    assert (site / "CNAME").read_text() == "awards.example.org"
    (before,) = [name for name in versions(site) if name.endswith(".before")]
    assert tree(site.with_name("awardsite.versions") / before) == {"CNAME": b"awards.example.org"}


def test_a_page_that_fails_leaves_the_previous_site_whole(icml, publish, monkeypatch):
    site = publish()
    before, live = tree(site), site.resolve()
    edit_a_paper()
    route = publishing.Route("paper-detail", "papers", func=lambda: [{"slug": "no-such-paper"}])
    routes = publishing.routes()
    monkeypatch.setattr(publishing, "routes", lambda: [*routes, route])

    with pytest.raises(CommandError, match="/en/papers/no-such-paper/ answered 404") as error:
        publish()

    assert str(error.value).endswith(f"{site} is left as it was.")
    assert site.resolve() == live
    assert tree(site) == before
    assert versions(site) == [live.name]  # the unfinished version is removed


def no_space(calls):
    """A stand-in for a function that runs ``calls`` times, then finds the disk full."""

    def patch(original):
        done = []

        def full(*args, **kwargs):
            if len(done) == calls:
                raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
            done.append(True)
            return original(*args, **kwargs)

        return full

    return patch


@pytest.mark.parametrize(
    ("where", "name", "calls"),
    [
        (os, "link", 10),  # linking the live version's files into the new one
        (publish_files, "_replace", 3),  # writing the changed pages
        (publish_changes, "write", 0),  # writing the snapshot, the last file
    ],
    ids=["link", "pages", "snapshot"],
)
def test_a_full_disk_ends_in_one_line_and_leaves_the_previous_site_whole(
    icml, publish, monkeypatch, where, name, calls
):
    site = publish()
    before, live = tree(site), site.resolve()
    edit_a_paper()
    monkeypatch.setattr(where, name, no_space(calls)(getattr(where, name)))

    with pytest.raises(CommandError) as error:
        publish()

    message = str(error.value)
    assert "No space left on device" in message and "\n" not in message
    assert message.endswith(f"{site} is left as it was.")
    assert tree(site) == before
    assert versions(site) == [live.name]


class Killed(BaseException):
    """Stands for SIGKILL: nothing runs after it, no clean-up either."""


def test_a_killed_publish_leaves_the_previous_site_whole(icml, publish, monkeypatch):
    site = publish()
    before, live = tree(site), site.resolve()
    page = edit_a_paper()
    replace = publish_files._replace

    def killed(target, body):
        if len(written) == 3:
            raise Killed
        written.append(target)
        replace(target, body)

    written = []
    with monkeypatch.context() as killing:
        killing.setattr(publish_files, "_replace", killed)
        killing.setattr(Versions, "discard", lambda self, build: None)
        with pytest.raises(Killed):
            publish()

    assert tree(site) == before
    assert len(versions(site)) == 2  # the killed run's folder, beside the live one
    publish()  # the next run publishes, and removes the killed run's folder
    assert TITLE in (site / page).read_text()
    assert versions(site) == [live.name, site.resolve().name]


def test_rollback_runs_as_written(icml, publish, tmp_path):
    """docs/operations.md's rollback lines, as written but for the folder: the live
    folder links the version before again."""
    site = publish()
    first = site.resolve()
    page = edit_a_paper()
    publish()
    block = doc_block("docs/operations.md", "publish-rollback")
    assert block.count("/srv") == 1

    result = subprocess.run(  # noqa: S603 - bash with the docs' own lines
        ["bash", "-euo", "pipefail", "-c", block.replace("/srv", str(tmp_path))],
        capture_output=True,
        text=True,
        timeout=60,
    )

    assert result.returncode == 0, result.stderr
    assert site.resolve() == first and site.is_symlink()
    assert TITLE not in (site / page).read_text()
