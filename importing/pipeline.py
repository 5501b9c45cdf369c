"""Import a fixture or compact conference file (``manage.py import_conference``) in three
steps (``docs/architecture.md``): :func:`read_fixture` checks, :func:`plan_import`
compares with the database and the last import, :func:`apply_plan` writes."""

from django.db import transaction

from importing.applying import apply_plan, record_history
from importing.compact.reader import relocate
from importing.fields import FIXTURE_MODELS, FixtureInvalid
from importing.files import MAX_FILE_SIZE
from importing.images import prepare_image, store_image
from importing.planning import plan_import
from importing.reading import read_fixture

# Besides import_fixture, what the benchmarks and the pages' tests import from here.
__all__ = ["FIXTURE_MODELS", "plan_import", "prepare_image", "read_fixture", "store_image"]


def import_fixture(
    path,
    *,
    overwrite=False,
    dry_run=False,
    max_bytes=MAX_FILE_SIZE,
    accept_new=False,
    source=None,
):
    """Read, check, compare and (unless ``dry_run``) apply the fixture at ``path``; return
    the :class:`~importing.planning.Plan`. Raises :class:`FixtureInvalid` listing every
    problem, having written nothing; a file of more than ``max_bytes`` is one. With
    ``accept_new``, a new person or institution close to one in the database is imported
    as new (a note) instead of asking which is meant (a problem). ``source`` names the
    file in the history and import records (default: ``path``)."""
    source = str(path) if source is None else source
    fixture = read_fixture(path, max_bytes, accept_new)
    # Compare and write in one transaction, so that an editor's save in between
    # cannot be overwritten unseen.
    with transaction.atomic():
        plan = plan_import(fixture, overwrite=overwrite)
        if plan.problems:  # named by the compact file's places, if it is one
            raise FixtureInvalid(relocate(fixture.document, plan.problems))
        if not dry_run and plan.writes_anything:
            apply_plan(plan, source=source)
        elif not dry_run:  # objects imported before the importer wrote history
            record_history(plan.changes, source)
    return plan
