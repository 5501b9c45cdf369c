"""A restore's media folder, built beside MEDIA_ROOT and swapped in after the database
commits, so that a restore killed at any point leaves the old site or the new one.

The work folder ``.<media folder's name>.restore`` sits in MEDIA_ROOT's parent (one
file system: files are hard-linked and folders renamed, never copied). It holds
``database.json`` and ``media/`` (the archive's members, streamed), then links to every
media file of the site the archive does not name (left alone, as ever), and, once the
database's new rows are in the transaction, ``journal.json`` with the number the
restore sets the content generation to (``backups.archives``: higher than either site
ever had). After the commit, MEDIA_ROOT is moved to ``old/`` and ``media/`` takes its
place (two renames), and the work folder is removed. A restore that finds a work folder
first finishes or drops it (:meth:`MediaStaging.recover`): finished when the journal's
number is in the database (the commit happened), dropped otherwise (it did not: the old
rows and the old media folder are whole).
"""

import json
import os
import shutil
from pathlib import Path

JOURNAL = "journal.json"


class StagingError(Exception):
    """The media folder cannot be staged or swapped; says why, naming the path."""


class MediaStaging:
    """The work folder of a restore into ``root`` (MEDIA_ROOT; a link to a folder is
    followed, so its target is swapped): ``media`` is the new media folder, ``work``
    holds it, the staged ``database`` and the journal."""

    def __init__(self, root):
        self.root = Path(root).resolve()
        self.work = self.root.parent / f".{self.root.name}.restore"
        self.media = self.work / "media"
        self.database = self.work / "database.json"
        self.journal = self.work / JOURNAL
        self.old = self.work / "old"

    def begin(self, needed):
        """Make the empty work folder for ``needed`` bytes of members. Raises
        StagingError when one is there (:meth:`recover` first), MEDIA_ROOT is a mount
        point (it could not be renamed), or the file system has less free space."""
        try:
            self.root.parent.mkdir(parents=True, exist_ok=True)
            if self.root.is_dir() and os.stat(self.root).st_dev != os.stat(self.root.parent).st_dev:
                raise StagingError(
                    f"{self.root} is a mount point, which a restore cannot swap for the "
                    "backup's media folder: make MEDIA_ROOT a folder inside that volume"
                )
            free = shutil.disk_usage(self.root.parent).free
            if needed > free:
                raise StagingError(
                    f"the archive's members need {needed / 1e6:.1f} MB beside {self.root}, "
                    f"where {free / 1e6:.1f} MB are free"
                )
            self.work.mkdir()
            self.media.mkdir()
        except FileExistsError:
            raise StagingError(f"{self.work} is left from another restore") from None
        except OSError as error:
            raise StagingError(f"cannot stage in {self.work}: {error.strerror}") from error

    def keep_others(self, names, restored):
        """Link each file of MEDIA_ROOT named in ``names`` (storage names) but not in
        ``restored`` into the new media folder: the files the archive leaves alone."""
        for name in names:
            if name in restored:
                continue
            target = self.media / name
            target.parent.mkdir(parents=True, exist_ok=True)
            try:
                os.link(self.root / name, target)
            except OSError as error:
                raise StagingError(f"cannot link {self.root / name}: {error.strerror}") from error

    def ready(self, marker):
        """Write the journal: the restore commits with the content generation at
        ``marker`` (an int), durably (fsync) before the commit."""
        with open(self.journal, "x", encoding="utf-8") as journal:
            json.dump({"marker": marker}, journal)
            journal.flush()
            os.fsync(journal.fileno())

    def swap(self):
        """Put the new media folder in MEDIA_ROOT's place (the old one moved aside), then
        remove the work folder. Raises StagingError saying how to finish."""
        try:
            if self.media.is_dir():
                if self.root.exists() and not self.old.exists():
                    os.rename(self.root, self.old)
                os.rename(self.media, self.root)
            self.discard()
        except OSError as error:
            raise StagingError(
                f"the database is restored, but its media folder could not be moved into "
                f"place ({error.strerror}: {error.filename}): run restore again to finish"
            ) from error

    def discard(self):
        """Remove the work folder and all it holds (nothing of the site)."""
        shutil.rmtree(self.work, ignore_errors=True)

    def recover(self, committed):
        """Finish or drop a restore that stopped halfway; ``committed(marker)`` says
        whether the database holds the journal's marker. Returns "finished", "dropped"
        or None (no work folder)."""
        if not self.work.exists():
            return None
        try:
            marker = json.loads(self.journal.read_text(encoding="utf-8"))["marker"]
        except (OSError, ValueError, KeyError, TypeError):
            marker = None  # stopped before the journal was whole: never committed
        if marker is not None and committed(marker):
            self.swap()
            return "finished"
        self.discard()
        return "dropped"
