"""The published folder switched in one step: ``publish_site DIR`` builds each run in a
new folder of ``DIR.versions/`` and then makes ``DIR`` a symbolic link to it, by renaming
a new link over the old one (``os.replace``: atomic on POSIX). A web server whose root
is ``DIR`` serves the previous version whole until that rename and the new one after,
and a run that fails, runs out of disk or is killed leaves ``DIR`` as it was.

A new version starts as hard links to every file of the live one (its unchanged pages,
static and media files, and files put there by hand), so a re-publish after one edit
stays quick and takes no room for what it keeps; the publisher replaces a file by a new
one (``publishing.files._replace``), never writes into one, so the live version's files
never change. The version it replaces is kept for rollback; older ones, and the
folders of runs that were killed, are removed after the switch.
"""

import datetime
import os
import shutil
from pathlib import Path

from publishing.files import PublishError


class Versions:
    """The versions of the live folder ``directory`` (a path; made a symbolic link to
    its current version, relative, so the parent folder may move)."""

    def __init__(self, directory):
        self.live = Path(directory).absolute()
        self.folder = self.live.with_name(self.live.name + ".versions")

    def begin(self):
        """Make a new version's folder, holding hard links to every file of the live
        folder (none if there is none yet), and return its path. Raises PublishError
        when it cannot be made (an unwritable place, a full disk)."""
        stamp = datetime.datetime.now(datetime.UTC).strftime("%Y%m%dT%H%M%S.%fZ")
        build = self.folder / stamp
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            if self.live.is_dir():
                shutil.copytree(self.live, build, symlinks=True, copy_function=os.link)
            else:
                build.mkdir()
        except shutil.Error as error:  # copytree's errors, one a file: the first says why
            self.discard(build)
            source, _target, why = error.args[0][0]
            raise PublishError(f"Cannot link {source} into {build}: {why}.") from None
        except OSError as error:
            self.discard(build)
            raise PublishError(f"Cannot write to {self.folder}: {error.strerror}.") from error
        return build

    def switch(self, build):
        """Make the live folder a link to ``build`` in one rename; return the version it
        replaced (a path, or None), to keep for rollback. A live folder that is not a
        link (an earlier release's layout, or the first run into a folder made by hand)
        is first moved among the versions: the one moment it is missing is between two
        renames. Raises OSError when the link cannot be made, the live folder then as it
        was."""
        link = self.live.with_name(f".{self.live.name}.{os.getpid()}.link")
        link.unlink(missing_ok=True)
        os.symlink(os.path.relpath(build, self.live.parent), link)
        previous = moved = None
        if self.live.is_symlink():
            previous = self.live.resolve()
        elif self.live.exists():
            moved = self.folder / f"{build.name}.before"
            os.rename(self.live, moved)
            previous = moved.resolve()
        try:
            os.replace(link, self.live)
        except OSError:
            link.unlink(missing_ok=True)
            if moved is not None:
                os.rename(moved, self.live)
            raise
        return previous

    def prune(self, keep):
        """Remove every version but those of ``keep`` (paths; None ignored): older
        versions and the folders of killed runs. What cannot be removed is left."""
        keep = {Path(path).resolve() for path in keep if path is not None}
        try:
            for version in self.folder.iterdir():
                if version.resolve() not in keep:
                    shutil.rmtree(version, ignore_errors=True)
        except OSError:
            pass  # the switch is done; the next run tries again

    def discard(self, build):
        """Remove the folder of a run that did not switch (``build``)."""
        shutil.rmtree(build, ignore_errors=True)
