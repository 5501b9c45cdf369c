"""Draw the share cards (``og:image``) of papers without a teaser (pages/cards.py).

Exists to draw the cards of an import of more papers than ``cards.IMPORT_CARDS_MAX``
(a smaller import draws its own once it commits; ``make data`` runs it after each
import), the cards an editor's change or an import could not (a full disk, or
``DJANGO_SHARE_CARDS_ON_SAVE`` off), to draw again a card left empty or damaged, and to
draw every card again after a change of font or design. A paper's outdated cards are deleted.
"""

from django.core.management.base import BaseCommand, CommandError
from django.template.defaultfilters import pluralize

from catalogue.models import Paper
from pages.cards import make_cards


class Command(BaseCommand):
    help = (
        "Draw the missing, empty or damaged share cards (1200 x 630 PNG, one per language) "
        "of every paper without a teaser image, in the media storage under cards/."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--dry-run", action="store_true", help="List the cards to draw, draw nothing."
        )

    def handle(self, dry_run, **options):
        """Draw the cards and print a summary. A paper whose cards cannot be drawn (a
        full disk: OSError) is printed and the others are still drawn; then
        ``CommandError`` (exit status 1) says how many failed."""
        drawn, failed = [], []
        papers = Paper.objects.filter(image="").for_detail().order_by("slug")
        for paper in papers.iterator(chunk_size=500):
            try:
                drawn += make_cards(paper, dry_run=dry_run)
            except (OSError, ValueError) as error:
                failed.append(f"{paper.slug}: {error}")
        for line in failed:
            self.stderr.write(self.style.ERROR(line))
        if options["verbosity"]:
            for name in drawn:
                verb = "would draw" if dry_run else "drew"
                self.stdout.write(f"{verb} {name}", self.style.HTTP_INFO)
            verb = "Would draw" if dry_run else "Drew"
            self.stdout.write(self.style.SUCCESS(f"{verb} {len(drawn)} share cards."))
        if failed:
            count = len(failed)
            raise CommandError(f"The cards of {count} paper{pluralize(count)} could not be drawn.")
