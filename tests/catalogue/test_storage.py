"""The media storage (catalogue/storage.py): a file is whole or absent, even on a full disk."""

import errno
import os
import stat
from contextlib import contextmanager
from unittest import mock

import pytest
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage

pytestmark = pytest.mark.no_database  # see the marker in pyproject.toml

_real_fdopen = os.fdopen


class _FileOnAFullDisk:
    """An open file whose ``write`` writes half of what it is given, then raises
    OSError ENOSPC, as a write that meets a full disk."""

    def __init__(self, file):
        self._file = file

    def write(self, data):
        self._file.write(data[: len(data) // 2])
        self._file.flush()
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    def __getattr__(self, name):
        return getattr(self._file, name)


@contextmanager
def full_disk():
    """A full disk under MEDIA_ROOT for the block: each file Django's FileSystemStorage
    writes is created, then its write fails half-way with OSError ENOSPC (the storage
    writes through ``os.fdopen``)."""
    with mock.patch(
        "django.core.files.storage.filesystem.os.fdopen",
        lambda fd, *args, **kwargs: _FileOnAFullDisk(_real_fdopen(fd, *args, **kwargs)),
    ):
        yield


def _files(folder):
    """Every file under ``folder``, as paths relative to it (hidden ones too)."""
    return sorted(str(path.relative_to(folder)) for path in folder.rglob("*") if path.is_file())


def test_a_write_on_a_full_disk_leaves_no_file_and_raises(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path

    with full_disk(), pytest.raises(OSError) as failure:
        default_storage.save("cards/a-card.png", ContentFile(b"\x89PNG" + b"x" * 4000))

    assert failure.value.errno == errno.ENOSPC
    assert _files(tmp_path) == []


def test_a_saved_file_is_whole_named_and_permitted_as_djangos(settings, tmp_path):
    """The file is written whole under its name, never over another (Django's next free
    name), with Django's permissions, and nothing else is left in its folder."""
    settings.MEDIA_ROOT = tmp_path

    first = default_storage.save("papers/teaser.png", ContentFile(b"first"))
    second = default_storage.save("papers/teaser.png", ContentFile(b"second"))

    assert first == "papers/teaser.png"
    assert second.startswith("papers/teaser_") and second.endswith(".png")
    assert [(tmp_path / name).read_bytes() for name in (first, second)] == [b"first", b"second"]
    assert _files(tmp_path) == sorted([first, second])
    mode = stat.S_IMODE((tmp_path / first).stat().st_mode)
    assert mode == settings.FILE_UPLOAD_PERMISSIONS == 0o644


def test_a_file_saves_again_after_the_disk_had_filled(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path
    with full_disk(), pytest.raises(OSError):
        default_storage.save("cards/a-card.png", ContentFile(b"card"))

    name = default_storage.save("cards/a-card.png", ContentFile(b"card"))

    assert name == "cards/a-card.png"
    assert _files(tmp_path) == ["cards/a-card.png"]
