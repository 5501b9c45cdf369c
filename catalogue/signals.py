"""Signals, and the side effects of a change.

``content_changed``: sent inside the transaction of a change to what public pages show
that no model signal announced (the importer's bulk writes, share cards). Optional
arguments, iterables of primary keys: ``papers`` whose matched text and share cards
must follow, ``authors`` whose published papers may have changed. The page cache and the
share cards (drawn after commit) listen too.

:func:`after_commit` runs a side effect of a change (a share card, thumbnails) once the
change commits, and never lets its failure (a full disk, a title Pillow cannot draw)
turn the committed change into an error page: it is logged, the command that makes the
side effect redoes it, and :func:`failed_side_effects` collects it for the admin's warning.
"""

import logging
from contextlib import contextmanager
from contextvars import ContextVar
from functools import partial

from django.db import transaction
from django.dispatch import Signal

logger = logging.getLogger(__name__)

content_changed = Signal()

# The list of the innermost failed_side_effects() block open in this thread (or task).
_failures = ContextVar("failed_side_effects", default=None)


def after_commit(func, *, warning, using=None):
    """Call ``func()`` once the transaction open on ``using`` commits (at once outside
    one; never if it rolls back). An exception it raises is logged with its traceback
    and ``warning`` (what an editor is told: what failed, and the command that will do
    it) is added to the list of the open :func:`failed_side_effects` block; it is never
    raised, as the change is committed and an error page would say it was not."""
    transaction.on_commit(partial(_run, func, warning), using=using)


def _run(func, warning):
    try:
        func()
    except Exception:  # any failure: the change stands, the command does it later
        logger.exception("After a committed change: %s", warning)
        failures = _failures.get()
        if failures is not None:
            failures.append(warning)


@contextmanager
def failed_side_effects():
    """A block yielding a list, to which each :func:`after_commit` side effect that fails
    while the block is open (in this thread or task) adds its ``warning``; a failure
    inside a nested block goes to that block's list only."""
    token = _failures.set([])
    try:
        yield _failures.get()
    finally:
        _failures.reset(token)
