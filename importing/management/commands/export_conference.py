"""Export a conference as a fixture that ``import_conference`` reads back unchanged, to
move it between sites, review it as text or keep it under version control (export,
flush, import and export again give the same bytes). Logic: :mod:`importing.exporting`."""

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from catalogue.models import Conference
from importing.exporting import ExportError, export_conference


class Command(BaseCommand):
    help = (
        "Write a conference, its awards, papers, authors, institutions and links as a "
        "fixture (JSON, natural keys) or a compact conference file (YAML, or JSON when "
        "the output file ends in .json); images go to images/ next to the file."
    )

    def add_arguments(self, parser):
        parser.add_argument("slug", nargs="?", help="the conference's slug, e.g. icml-2025")
        parser.add_argument(
            "--list",
            action="store_true",
            dest="list_slugs",
            help="print the slug of every conference, published or draft, one a line, "
            "and export nothing",
        )
        parser.add_argument("-o", "--output", help="the file to write (default: standard output)")
        parser.add_argument(
            "--format",
            choices=["fixture", "compact"],
            default="fixture",
            help="fixture (default): one object per row, as import_conference reads it; "
            "compact: written around papers (docs/compact-format.md)",
        )

    def handle(self, *args, slug, output, format, list_slugs, **options):
        """Export conference ``slug`` to ``output`` (else standard output) in ``format``
        (compact: JSON for ``.json``), or with ``--list`` print every slug. ``CommandError``:
        unknown slug, not one of slug and --list, two images of a name, images to stdout."""
        if list_slugs:
            if slug is not None:
                raise CommandError("--list exports nothing: give either a slug or --list")
            for each in Conference.objects.order_by("slug").values_list("slug", flat=True):
                self.stdout.write(each)
            return
        if slug is None:
            raise CommandError("name the conference to export (its slug), or give --list")
        try:
            as_json = output is not None and output.lower().endswith(".json")
            exported = export_conference(slug, format=format, as_json=as_json)
        except Conference.DoesNotExist:
            raise CommandError(f"no conference with the slug {slug!r}") from None
        except ExportError as error:
            raise CommandError(str(error)) from None
        for warning in exported.warnings:
            self.stderr.write(self.style.WARNING(f"warning: {warning}"))
        if output is None:
            if exported.images:
                raise CommandError(
                    "this conference has images: name an output file with -o so they "
                    "can be written next to it"
                )
            self.stdout.write(exported.text)
            return
        path = Path(output)
        path.write_text(exported.text, encoding="utf-8")
        for relative, data in exported.images.items():
            target = path.parent / relative
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
        self.stderr.write(
            self.style.SUCCESS(
                f"Wrote {path} and {len(exported.images)} image(s)."
                if exported.images
                else f"Wrote {path}."
            )
        )
