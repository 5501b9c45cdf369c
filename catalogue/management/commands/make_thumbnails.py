"""Make the missing thumbnails of every paper's teaser image: they are made when a save
commits, so images stored before a size joined ``settings.THUMBNAIL_ALIASES`` lack it,
and a save whose thumbnails failed (a full disk) lacks them all. An empty or unreadable
thumbnail is made again.
"""

from django.core.management.base import BaseCommand, CommandError
from django.template.defaultfilters import pluralize
from easy_thumbnails.engine import NoSourceGenerator
from easy_thumbnails.exceptions import InvalidImageFormatError

from catalogue.images import make_thumbnails
from catalogue.models import Paper


class Command(BaseCommand):
    help = (
        "Make every size in THUMBNAIL_ALIASES for each paper's teaser image that lacks "
        "one, or whose file is empty or unreadable; whole thumbnails are kept."
    )

    def handle(self, **options):
        """Make the thumbnails and print a summary; a missing or unreadable image is
        printed and, after all others, raises ``CommandError`` (exit status 1)."""
        papers = Paper.objects.exclude(image="").only("slug", "image").order_by("slug")
        done, failed = 0, []
        for paper in papers.iterator(chunk_size=500):
            if not paper.image.storage.exists(paper.image.name):
                failed.append(f"{paper.slug}: {paper.image.name}: the file is missing")
                continue
            try:
                make_thumbnails(paper.image.storage, paper.image.name)
            except (OSError, InvalidImageFormatError, NoSourceGenerator) as error:  # unreadable
                failed.append(f"{paper.slug}: {paper.image.name}: {error}")
                continue
            done += 1
        for line in failed:
            self.stderr.write(self.style.ERROR(line))
        if options["verbosity"]:
            message = f"Thumbnails complete for {done} image{pluralize(done)}."
            self.stdout.write(self.style.SUCCESS(message))
        if failed:
            raise CommandError(f"{len(failed)} image{pluralize(failed)} could not be read.")
