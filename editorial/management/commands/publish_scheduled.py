"""``manage.py publish_scheduled``: publish the conferences and awards whose "publish at"
has come, run each minute by cron or a systemd timer (docs/operations.md).

Why: awards are announced at an hour (a plenary session), and nobody should have to be at
the admin at that minute. The page, the feed and the page cache follow the model signals
of each publication, as after the admin's publish action; with ``--publish-site DIR`` the
static site is brought up to date too (``publish_site DIR``), when something was published.
"""

from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError
from django.utils import timezone

from editorial import scheduling


class Command(BaseCommand):
    help = (
        "Publish every conference and award whose publish time has come, each in the "
        "history as published on schedule by the editor who scheduled it. With "
        "--publish-site DIR, run publish_site DIR afterwards when something was published."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--publish-site",
            metavar="DIR",
            default="",
            help="The static site's folder, brought up to date with publish_site DIR "
            "after something was published (its --site-url is DJANGO_SITE_URL).",
        )
        parser.add_argument(
            "--dry-run", action="store_true", help="List what is due; publish nothing."
        )

    def handle(self, *args, publish_site, dry_run, verbosity, **options):
        """Publish what is due and print one line for each item. Raises CommandError
        (exit status 1) when publish_site fails: what was published stays published, and
        the message says so and names the command to run again."""
        if dry_run:
            for obj in scheduling.due(timezone.now()):
                self.stdout.write(f"Would publish {obj._meta.verbose_name} {obj}.")
            return
        published = scheduling.publish_due()
        for obj in published:
            self.stdout.write(self.style.SUCCESS(f"Published {obj._meta.verbose_name} {obj}."))
        if not published or not publish_site:
            return
        try:
            call_command("publish_site", publish_site, verbosity=min(verbosity, 1))
        except CommandError as error:
            raise CommandError(
                f"{len(published)} item(s) published, but the static site in {publish_site} "
                f"is not up to date: {error} Run publish_site {publish_site} again."
            ) from error
