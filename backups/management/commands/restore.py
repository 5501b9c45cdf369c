"""Load an archive written by ``backup`` into a migrated installation: every row and
media file back, all or nothing, even when killed (rules: backups.archives.restore_backup)."""

from django.core.management.base import BaseCommand, CommandError

from backups.archives import BackupError, restore_backup


class Command(BaseCommand):
    help = (
        "Load an archive written by `backup` into this installation, which must be "
        "migrated and hold no content (or add --force to replace its content)."
    )

    def add_arguments(self, parser):
        parser.add_argument("path", help="the archive written by `backup`")
        parser.add_argument(
            "--force",
            action="store_true",
            help=(
                "replace the content of an installation that is not empty: every row is "
                "deleted first, and media files named in the archive are overwritten"
            ),
        )

    def handle(self, *args, path, force, **options):
        """Restore ``path`` (with ``force``, over existing content). Raises ``CommandError``
        (one line) for whatever ``restore_backup`` refuses, leaving the site as it was, and
        after finishing an earlier restore that was killed past its commit instead."""
        try:
            manifest = restore_backup(path, force=force)
        except BackupError as error:
            raise CommandError(str(error)) from None
        self.stdout.write(self.style.SUCCESS(f"Restored {path} (made {manifest['created']})."))
