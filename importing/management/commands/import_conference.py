"""Import a conference without losing editors' work: unlike ``loaddata`` (which overwrites
and stops at the first error) it checks the whole file, writes nothing unless all is valid,
shows what it would change (``--dry-run``), keeps editors' changes unless ``--overwrite``."""

import json
from argparse import ArgumentTypeError

from django.core.management.base import BaseCommand, CommandError
from django.template.defaultfilters import pluralize

from importing.fields import FixtureInvalid, format_key
from importing.files import MAX_FILE_SIZE
from importing.pipeline import import_fixture
from importing.planning import DELETED


def _short(value, limit=60):
    """``value`` as JSON, cut to about ``limit`` characters with "…"; a string keeps its
    closing quote (``"sha256:f750…"``), so the two values of a conflict stay apart."""
    text = json.dumps(value, ensure_ascii=False)
    if len(text) <= limit:
        return text
    if isinstance(value, str):
        return json.dumps(value[: limit - 3] + "…", ensure_ascii=False)
    return text[: limit - 1] + "…"


def _megabytes(value):
    """``--max-file-size``: a whole number of megabytes (MiB) of at least 1, in bytes."""
    if not value.isdigit() or int(value) < 1:
        raise ArgumentTypeError(f"expected a whole number of megabytes, at least 1, not {value!r}")
    return int(value) * 2**20


class Command(BaseCommand):
    help = (
        "Check a conference fixture (JSON or YAML, natural keys) or a compact conference "
        "file and import it in one transaction. Exits non-zero, writing nothing, if "
        "any object is invalid."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "path",
            help="a fixture (a list of objects) or a compact conference file, JSON or YAML",
        )
        parser.add_argument(
            "--dry-run",
            action="store_true",
            help="print what would be created, updated or left unchanged, and write nothing",
        )
        parser.add_argument(
            "--max-file-size",
            type=_megabytes,
            default=MAX_FILE_SIZE,
            metavar="MB",
            help=(
                "refuse a file (the fixture or compact file, its .bib file) larger than this "
                f"many megabytes (MiB); default {MAX_FILE_SIZE // 2**20}"
            ),
        )
        parser.add_argument(
            "--accept-new",
            action="store_true",
            help=(
                "import each new author or institution whose name is close to one in the "
                "database as new (printed as a possible duplicate) instead of asking whether "
                "that one is meant"
            ),
        )
        parser.add_argument(
            "--overwrite",
            action="store_true",
            help="take the file's value also for fields an editor changed since the last import",
        )

    def handle(
        self, *args, path, dry_run, overwrite, max_file_size, accept_new, verbosity, **options
    ):
        """Import ``path``, printing a line per object and a summary (``--verbosity 0``: only
        possible duplicates and editors' changes kept; 2: also each changed field and unchanged
        objects, as a dry run). ``CommandError`` (status 1) lists every problem, nothing
        written; a new name close to a known one is one, unless ``--accept-new``."""
        try:
            plan = import_fixture(
                path,
                overwrite=overwrite,
                dry_run=dry_run,
                max_bytes=max_file_size,
                accept_new=accept_new,
            )
        except FixtureInvalid as error:
            for problem in error.problems:
                self.stderr.write(self.style.ERROR(str(problem)))
            count = len(error.problems)
            raise CommandError(
                f"{count} problem{pluralize(count)} in {path}; nothing was written."
            ) from None
        would = "would be " if dry_run else ""
        document = plan.fixture.document
        for note in document.notes if document is not None else ():
            self.stdout.write(self.style.WARNING(f"possible duplicate: {note}"))
        for change in plan.changes:
            name = f"{change.item.label} {format_key(change.item.key)}"
            if change.action == DELETED:  # as a conflict: shown at every verbosity
                if change.deleted_with is None:
                    why = "an editor deleted it since the last import"
                else:
                    label, key = change.deleted_with
                    why = f"it belongs to {label} {format_key(key)}, which an editor deleted"
                self.stdout.write(
                    self.style.NOTICE(
                        f"deleted {name}: {why}; not created again (--overwrite creates it)"
                    )
                )
            elif not verbosity and not dry_run:
                pass  # only the conflicts below
            elif change.action == "create":
                self.stdout.write(self.style.SUCCESS(f"create {name}"))
            elif change.action == "update":
                fields = ", ".join(change.changes)
                self.stdout.write(self.style.WARNING(f"update {name}: {fields}"))
                if dry_run or verbosity >= 2:
                    for field, (old, new) in change.changes.items():
                        self.stdout.write(f"    {field}: {_short(old)} -> {_short(new)}")
            elif dry_run or verbosity >= 2:
                self.stdout.write(f"unchanged {name}")
            for field, (kept, offered) in change.conflicts.items():
                self.stdout.write(
                    self.style.NOTICE(
                        f"conflict {name} {field}: an editor changed it since the last "
                        f"import; kept {_short(kept)}, the file has {_short(offered)} "
                        "(--overwrite takes the file's value)"
                    )
                )
        for leftover in plan.removed if verbosity or dry_run else ():
            self.stdout.write(self.style.WARNING(f"remove {leftover}: the file no longer lists it"))
        for leftover in plan.kept_additions:  # as a conflict: shown at every verbosity
            self.stdout.write(
                self.style.NOTICE(f"kept {leftover}: an editor added it; the file does not list it")
            )
        for warning in plan.warnings:
            self.stdout.write(self.style.WARNING(f"not visible: {warning}"))
        created, updated = plan.count("create"), plan.count("update")
        removed, added = len(plan.removed), len(plan.kept_additions)
        unchanged, deleted = plan.count("unchanged"), plan.count(DELETED)
        conflicts = sum(len(change.conflicts) for change in plan.conflicts)
        kept = f"; {conflicts} editor change{pluralize(conflicts)} kept" if conflicts else ""
        if deleted:
            kept += f"; {deleted} object{pluralize(deleted)} editors deleted not created again"
        if added:
            kept += f"; {added} added by editors kept"
        if not verbosity and not dry_run:
            return
        # Nothing written, or nothing but editors' changes kept: say so in words.
        untouched = not created and not updated and not removed and not added
        if untouched and deleted:
            summary = f"No object {would}created or updated: {unchanged} unchanged{kept}."
        elif untouched and conflicts:
            # Not "already matches": the kept fields differ from the file.
            fields = f"{conflicts} field{pluralize(conflicts)}"
            summary = (
                f"No object changed: {path} matches the database ({unchanged} objects) "
                f"except {fields} an editor changed, kept (use --overwrite to take the "
                "file's values)."
            )
        elif untouched:
            summary = (
                f"Nothing to change: the database already matches {path} ({unchanged} objects)."
            )
        else:
            removed = f", {removed} {would}removed" if removed else ""
            summary = (
                f"{created} {would}created, {updated} {would}updated, {unchanged} unchanged"
                f"{removed}{kept}."
            )
            summary += " Dry run: nothing was written." if dry_run else ""
        self.stdout.write(self.style.SUCCESS(summary))
