"""Derived columns: values a model stores that are worked out from its other fields.

A paper's search text (catalogue/search.py) and its lead (catalogue/leads.py) are stored so
that no visitor's request works them out again. A model names its derived columns in
``derived_columns``, a tuple of :class:`DerivedColumn`; this module keeps every one of
them in step by one mechanism, however many a model has:

- :func:`keep_derived_columns`, a ``pre_save`` receiver connected for each such model
  in ``PapersConfig.ready()``: ``save()``, ``loaddata`` and django-reversion's restore
  (raw saves, which call no ``save()`` method) all refresh them;
- :class:`DerivedColumnsMixin`, whose ``save()`` widens ``update_fields`` that name a
  source field with the columns derived from it;
- :func:`refresh` and :func:`refresh_changed`, which the importer calls around its bulk
  queries (importing/applying.py), since bulk queries send no signal.

``QuerySet.update()`` of a source field refreshes nothing: call :func:`refresh` on the
instances and save them.
"""

from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class DerivedColumn:
    """One derived value of a model.

    ``sources(model)``: the names (fields and their per-language columns) it is worked
    out from; ``columns(model)``: the names of the columns it is stored in;
    ``refresh(instance)``: sets those columns on ``instance`` from its sources (does not
    save).
    """

    name: str
    sources: Callable
    columns: Callable
    refresh: Callable


def of(model):
    """The :class:`DerivedColumn` declarations of ``model`` (a model class); () for none."""
    return getattr(model, "derived_columns", ())


def refresh(instance):
    """Set every derived column of ``instance`` from its sources (not saved)."""
    for derived in of(type(instance)):
        derived.refresh(instance)


def refresh_changed(instance, changed):
    """Refresh the derived columns of ``instance`` that ``changed`` (names of fields or
    columns) is a source of (not saved); returns the set of column names refreshed."""
    model = type(instance)
    written = set()
    for derived in of(model):
        if set(derived.sources(model)).intersection(changed):
            derived.refresh(instance)
            written.update(derived.columns(model))
    return written


def keep_derived_columns(sender, instance, raw=False, **kwargs):
    """``pre_save`` receiver: refresh every derived column of ``instance`` before every
    save, raw saves (``loaddata``, django-reversion's restore) included."""
    refresh(instance)


class DerivedColumnsMixin:
    """For models with ``derived_columns``: a save limited by ``update_fields`` to a
    source field writes the columns derived from it too (the ``pre_save`` receiver has
    refreshed them)."""

    def save(self, *args, update_fields=None, **kwargs):
        if update_fields is not None:
            model = type(self)
            update_fields = set(update_fields)
            for derived in of(model):
                if update_fields.intersection(derived.sources(model)):
                    update_fields.update(derived.columns(model))
        super().save(*args, update_fields=update_fields, **kwargs)
