"""Write the whole installation, database and media files, into one archive: with
``restore``, the way back after a lost disk or a bad change (format: backups.archives)."""

from django.core.management.base import BaseCommand, CommandError

from backups.archives import BackupError, write_backup


class Command(BaseCommand):
    help = (
        "Write the database (as database-independent JSON) and every media file into one "
        "gzip-compressed tar archive at PATH; `restore PATH` loads it."
    )

    def add_arguments(self, parser):
        parser.add_argument("path", help="the archive to write, e.g. awardsite.tar.gz")

    def handle(self, *args, path, **options):
        """Write the archive at ``path`` and print how many media files it holds. Raises
        ``CommandError`` when the database cannot be read or ``path`` cannot be written."""
        try:
            manifest = write_backup(path)
        except BackupError as error:
            raise CommandError(str(error)) from None
        files = len(manifest["members"]) - 1
        self.stdout.write(
            self.style.SUCCESS(f"Wrote {path}: the database and {files} media file(s).")
        )
