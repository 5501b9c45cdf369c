"""Derived columns (a model's ``derived_columns``): values worked out from its other
fields and stored (a search text, a lead), at every save, by the importer
(:func:`refresh_changed`), and by :func:`refresh` after a ``QuerySet.update()``."""

from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class DerivedColumn:
    """One derived value: ``sources(model)`` names what it is worked out from,
    ``columns(model)`` where it is stored; ``refresh(instance)`` sets it (not saved)."""

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
    """``pre_save`` receiver: refresh every derived column of ``instance``, at raw saves
    (``loaddata``, restores) too."""
    refresh(instance)


class DerivedColumnsMixin:
    """A save limited by ``update_fields`` to a source writes what is derived from it too."""

    def save(self, *args, update_fields=None, **kwargs):
        if update_fields is not None:
            model = type(self)
            update_fields = set(update_fields)
            for derived in of(model):
                if update_fields.intersection(derived.sources(model)):
                    update_fields.update(derived.columns(model))
        super().save(*args, update_fields=update_fields, **kwargs)
