"""Write the whole installation, database and media files, into one archive.

A site that goes public needs a way back after a lost disk or a bad change: this is it,
together with ``restore``. The archive format, what goes in and what is left out are
described in :mod:`backups.archives`.
"""

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
        """Write the archive at ``path``, replacing a file of that name only once complete.

        Prints the number of database rows and media files saved. Raises
        ``CommandError`` when the database cannot be read or ``path`` cannot be written.
        """
        try:
            manifest = write_backup(path)
        except BackupError as error:
            raise CommandError(str(error)) from None
        files = len(manifest["members"]) - 1
        self.stdout.write(
            self.style.SUCCESS(f"Wrote {path}: the database and {files} media file(s).")
        )
