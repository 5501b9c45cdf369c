"""A ``restore --force`` killed at each of its steps (backups/staging.py) leaves the old
site or the new one, database and media alike, once the next restore has finished or
dropped what the killed one left beside MEDIA_ROOT."""

import io
import os

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from backups import archives
from backups.staging import MediaStaging
from catalogue.models import Paper
from tests.backups.test_backups import media_files, row_counts


class Killed(BaseException):
    """Stands for SIGKILL: raised at a step, and by every clean-up after it."""


def site_state(media):
    """What a visitor and an editor see: the papers' titles and images, how many rows
    each model has, and every media file (None: no media folder)."""
    papers = list(Paper.objects.order_by("slug").values_list("slug", "title_en", "image"))
    return papers, row_counts(), media_files(media) if media.is_dir() else None


@pytest.fixture
def old_and_new(archive, media):
    """(old, new): the site edited after its backup ``archive`` was made, and the site
    that restoring it with --force must give: the backup's rows and media files, and the
    media file added since (restore leaves other files alone)."""
    papers, counts, files = site_state(media)
    slug = "trust-region-policy-optimization"
    Paper.objects.filter(slug=slug).update(title_en="Edited after the backup")
    image = Paper.objects.get(slug=slug).image.name
    (media / image).write_bytes(b"other bytes under the backup's name")
    (media / "papers" / "added-after-the-backup.png").write_bytes(b"a later upload")
    old = site_state(media)
    new = (papers, counts, {**files, "papers/added-after-the-backup.png": b"a later upload"})
    assert old != new and image in files
    return old, new


def kill_after(calls):
    """A stand-in for a step that runs it ``calls`` times, then is killed."""

    def patch(original):
        done = []

        def step(*args, **kwargs):
            if len(done) == calls:
                raise Killed(original.__name__)
            done.append(True)
            return original(*args, **kwargs)

        return step

    return patch


def kill_when_done(original):
    """A stand-in for a step that runs it, then is killed."""

    def step(*args, **kwargs):
        original(*args, **kwargs)
        raise Killed(original.__name__)

    return step


# (where, what, patch, whether the database has committed when it is killed)
STEPS = [
    (archives, "_copy", kill_after(1), False),  # streaming the second member
    (MediaStaging, "keep_others", kill_after(0), False),  # linking the files left alone
    (archives, "_load", kill_when_done, False),  # rows loaded, in the transaction
    (MediaStaging, "ready", kill_when_done, False),  # journal written, not committed
    (MediaStaging, "swap", kill_after(0), True),  # committed, media not moved
    (os, "rename", kill_after(1), True),  # old media moved aside, new not in place
    (MediaStaging, "discard", kill_after(0), True),  # swapped, work folder not removed
]


@pytest.mark.parametrize(
    ("where", "name", "patch", "committed"),
    STEPS,
    ids=[f"{getattr(where, '__name__', where)}.{name}" for where, name, _p, _c in STEPS],
)
def test_a_restore_killed_at_any_step_leaves_the_old_site_or_the_new_one(
    archive, media, old_and_new, monkeypatch, where, name, patch, committed
):
    old, new = old_and_new
    discard = MediaStaging.discard
    with monkeypatch.context() as killing:
        killing.setattr(where, name, patch(getattr(where, name)))
        if name != "discard":  # killed: no clean-up runs either
            killing.setattr(MediaStaging, "discard", kill_after(0)(discard))
        with pytest.raises(Killed):
            call_command("restore", str(archive), force=True, stdout=io.StringIO())

    papers, counts, files = site_state(media)
    if not committed:  # the old site whole; the work folder beside it is not the site's
        assert (papers, counts, files) == old
    else:  # the new rows; the media folder is put in place by the next restore
        assert (papers, counts) == new[:2]
    assert (media.parent / ".media.restore").is_dir()

    # The next restore first finishes (committed) or drops (not) the killed one's work.
    if committed:
        with pytest.raises(CommandError, match="stopped after its database was committed"):
            call_command("restore", str(archive), force=True, stdout=io.StringIO())
    else:
        call_command("restore", str(archive), force=True, stdout=io.StringIO())
    assert site_state(media) == new
    assert not (media.parent / ".media.restore").exists()
