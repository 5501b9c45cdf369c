"""The media storage (``STORAGES["default"]``): uploads, thumbnails and share cards."""

import contextlib
import os
import posixpath
import uuid

from django.core.files import File
from django.core.files.storage import FileSystemStorage


class StagedFile(File):
    """A file already written beside its final name, which Django's ``_save`` moves into
    place with ``file_move_safe`` (a rename) as it moves a large upload's temporary file."""

    def temporary_file_path(self):
        return self.name


class WholeFileSystemStorage(FileSystemStorage):
    """Django's FileSystemStorage whose files appear whole or not at all. Each is written
    first under a temporary name in its own folder (``.<random>.part``), by Django's
    own ``_save``, then renamed to its name; when the writing fails (a full disk: OSError
    ENOSPC) the temporary file is deleted and the error raised, so no empty or partial
    file is ever left under a name a page or a command would take for a whole one.
    Names, folders, permissions and never overwriting stay Django's."""

    def _save(self, name, content):
        folder = posixpath.dirname(str(name).replace("\\", "/"))
        staging = posixpath.join(folder, f".{uuid.uuid4().hex}.part")
        try:
            staging = super()._save(staging, content)
            return super()._save(name, StagedFile(None, name=self.path(staging)))
        finally:
            with contextlib.suppress(FileNotFoundError):
                os.remove(self.path(staging))  # gone once moved; else what was written
