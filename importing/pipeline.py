"""Read, check and apply a conference fixture (``manage.py import_conference``).

The format is Django's fixture format with natural keys, as ``fixtures/icml.json``
uses it and ``docs/fixture-format.md`` documents it: a list of
``{"model": "papers.<name>", "fields": {...}}`` objects, in JSON or YAML.

Three steps, none of which writes until the last:

1. :func:`read_fixture` parses the file and checks every object and field through
   Django's own field machinery (``Field.clean``: types, lengths, slugs, URLs,
   choices, dates), natural keys, references (to the file or the database) and
   images. It collects every problem instead of stopping at the first.
2. :func:`plan_import` compares the file with the database and with what the last
   import set (:class:`~catalogue.models.ImportRecord`): a field whose database value
   differs from the last imported one was changed by an editor, and is kept
   (a *conflict*) unless ``overwrite`` is true. It checks the model constraints on
   the values the database would end up with.
3. :func:`apply_plan` writes the plan with bulk queries inside one transaction, with
   a first history version of every object it creates (:func:`record_history`).

:func:`import_fixture` runs the three and raises :class:`FixtureInvalid` (carrying
every :class:`Problem`) before anything is written.

Modules: ``fields`` (the models and fields a fixture may write), ``images``,
``reading`` (step 1), ``planning`` (step 2), ``applying`` (step 3), ``compact`` (the
compact conference file, turned into fixture objects before step 1 checks them),
``bibtex`` (papers read from a BibTeX file for a compact file).
"""

from django.db import transaction

from importing.applying import apply_plan, record_history
from importing.compact import relocate
from importing.fields import FIXTURE_MODELS, FixtureInvalid, Problem, field_specs, format_key
from importing.images import prepare_image, store_image
from importing.planning import Plan, database_value, plan_import
from importing.reading import Fixture, read_fixture, read_objects

__all__ = [
    "FIXTURE_MODELS",
    "Fixture",
    "FixtureInvalid",
    "Plan",
    "Problem",
    "apply_plan",
    "prepare_image",
    "database_value",
    "field_specs",
    "format_key",
    "import_fixture",
    "plan_import",
    "read_fixture",
    "read_objects",
    "record_history",
    "store_image",
]


def import_fixture(path, *, overwrite=False, dry_run=False):
    """Read, check, compare and (unless ``dry_run``) apply the fixture at ``path``.

    Returns the :class:`Plan`. Raises :class:`FixtureInvalid` listing every problem
    found, having written nothing.
    """
    fixture = read_fixture(path)
    # Compare and write in one transaction, so that an editor's save in between
    # cannot be overwritten unseen.
    with transaction.atomic():
        plan = plan_import(fixture, overwrite=overwrite)
        if plan.problems:  # named by the compact file's places, if it is one
            raise FixtureInvalid(relocate(fixture.document, plan.problems))
        if not dry_run and plan.writes_anything:
            apply_plan(plan, source=str(path))
        elif not dry_run:  # objects imported before the importer wrote history
            record_history(plan.changes, str(path))
    return plan
