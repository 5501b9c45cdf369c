"""Reading the importer's input files within bounds: only regular files (a FIFO would
block the import forever, a device never end), and none larger than a limit, checked
before reading and again while reading (a file that grows meanwhile)."""

import os
import stat

from django.template.defaultfilters import filesizeformat
from django.utils import translation

# The default limit on each file the importer reads (a fixture, a compact file, its
# .bib): 20 MiB. A fixture of 5,000 papers with four authors and an English abstract of
# 1,200 characters each is 16 MB; ``import_conference --max-file-size`` raises the limit.
MAX_FILE_SIZE = 20 * 1024 * 1024

# What ``stat`` calls the kinds of file the importer refuses, in its messages.
KINDS = [
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
]


class InputRefused(Exception):
    """A file the importer does not read; the message says why, in one line."""


class InputTooLarge(InputRefused):
    """A file over the limit: ``size`` (bytes, at least this many) and ``limit``."""

    def __init__(self, size, limit):
        self.size, self.limit = size, limit
        super().__init__(
            f"the file is {_size(size)}, over the limit of {_size(limit)} "
            "(import_conference --max-file-size raises it)"
        )


def read_input(path, max_bytes=MAX_FILE_SIZE):
    """The bytes of the regular file at ``path`` (symbolic links followed), at most
    ``max_bytes`` of them. Raises :class:`InputRefused` for a file that cannot be opened or
    is no regular file (a FIFO, a device, a directory: before opening it, so nothing blocks),
    :class:`InputTooLarge` for one over ``max_bytes``; reads no more than ``max_bytes + 1``."""
    with open_input(path, max_bytes) as file:
        return read_bounded(file, max_bytes + 1, max_bytes)


def open_input(path, max_bytes=MAX_FILE_SIZE):
    """The regular file at ``path`` opened for reading in binary, no larger than
    ``max_bytes`` when opened; read it with :func:`read_bounded`. Raises as :func:`read_input`."""
    try:
        _check_kind(os.stat(path).st_mode)
        # O_NONBLOCK: should a FIFO take the file's place after the check, opening it
        # does not wait for a writer; fstat below then refuses it.
        descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as error:
        raise InputRefused(f"cannot read the file: {error.strerror}") from None
    file = os.fdopen(descriptor, "rb")
    try:
        status = os.fstat(descriptor)
        _check_kind(status.st_mode)
        if status.st_size > max_bytes:
            raise InputTooLarge(status.st_size, max_bytes)
    except BaseException:
        file.close()
        raise
    return file


def read_bounded(file, size, max_bytes=MAX_FILE_SIZE):
    """Up to ``size`` bytes more of ``file`` (from :func:`open_input`). Raises
    :class:`InputTooLarge` once more than ``max_bytes`` have been read from it in all (a
    file that grew since it was opened), :class:`InputRefused` when reading fails."""
    try:
        data = file.read(size)
    except OSError as error:
        raise InputRefused(f"cannot read the file: {error.strerror}") from None
    if file.tell() > max_bytes:
        raise InputTooLarge(file.tell(), max_bytes)
    return data


def _check_kind(mode):
    """Raise :class:`InputRefused` unless ``mode`` (``st_mode``) is a regular file's."""
    if stat.S_ISREG(mode):
        return
    kind = next((name for test, name in KINDS if test(mode)), "a special file")
    raise InputRefused(f"{kind}, not a regular file: the importer reads only regular files")


def _size(count):
    """A size in bytes as people read it: "20.0 MB" (binary units, as Django shows them)."""
    with translation.override("en"):
        return filesizeformat(count).replace("\xa0", " ")
