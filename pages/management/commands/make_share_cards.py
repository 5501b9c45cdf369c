"""Draw the share cards (``og:image``) of papers without a teaser (pages/cards.py).

Exists because the importer writes in bulk, without the signals that draw a card when an
editor saves (``make data`` runs it after each import), and to draw every card again
after a change of font or design. A paper's outdated cards are deleted.
"""

from django.core.management.base import BaseCommand

from catalogue.models import Paper
from pages.cards import make_cards


class Command(BaseCommand):
    help = (
        "Draw the missing share cards (1200 x 630 PNG, one per language) of every paper "
        "without a teaser image, in the media storage under cards/."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--dry-run", action="store_true", help="List the cards to draw, draw nothing."
        )

    def handle(self, dry_run, **options):
        drawn = []
        papers = Paper.objects.filter(image="").for_detail().order_by("slug")
        for paper in papers.iterator(chunk_size=500):
            drawn += make_cards(paper, dry_run=dry_run)
        if options["verbosity"] == 0:
            return
        for name in drawn:
            self.stdout.write(f"{'would draw' if dry_run else 'drew'} {name}", self.style.HTTP_INFO)
        verb = "Would draw" if dry_run else "Drew"
        self.stdout.write(self.style.SUCCESS(f"{verb} {len(drawn)} share cards."))
