"""Export a conference as a fixture that ``import_conference`` reads back unchanged.

For moving a conference between sites, reviewing it as text, or keeping it under
version control: export, flush, import and export again give the same bytes. The
logic is in :mod:`papers.exporting`; the format is in ``docs/fixture-format.md``.
"""

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from papers.exporting import ExportError, export_conference
from papers.models import Conference


class Command(BaseCommand):
    help = (
        "Write a conference, its awards, papers, authors, institutions and links as a "
        "fixture (JSON, natural keys); images go to images/ next to the file."
    )

    def add_arguments(self, parser):
        parser.add_argument("slug", help="the conference's slug, e.g. icml-2025")
        parser.add_argument("-o", "--output", help="the file to write (default: standard output)")

    def handle(self, *args, slug, output, **options):
        """Export conference ``slug`` to ``output`` (or standard output).

        Raises ``CommandError`` for an unknown slug, two images with one file name, or
        when the conference has images and no ``--output`` says where to put them. A
        stored image that cannot be read is left out, with a warning on standard error.
        """
        try:
            exported = export_conference(slug)
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
