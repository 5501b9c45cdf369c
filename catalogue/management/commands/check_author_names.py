"""List the authors whose given and family names are a guess worth checking: the split
was made from the name as published (catalogue/names.py) and the name has more than two
words (initials aside), a particle ("van", "de"), only capitals, or Chinese, Japanese or
Korean script. An editor checks each on the author's admin page; once the fields differ
from the guess, the author is not listed again. Reads only.
"""

from django.core.management.base import BaseCommand
from django.template.defaultfilters import pluralize

from catalogue import names
from catalogue.models import Author


class Command(BaseCommand):
    help = (
        "List the authors whose given and family names were guessed from a name that may "
        "be split wrongly (more than two words, a particle, capitals, CJK script)."
    )

    def handle(self, **options):
        """Print one line per author to check (slug: name -> the guessed split (reasons)),
        in the author index's order, then their number. Writes nothing; exit status 0."""
        authors = Author.objects.order_by("sort_name", "slug")
        fields = ("slug", "name", "given_name", "family_name", "name_suffix")
        count = 0
        for author, reasons in names.to_check(authors.only(*fields).iterator(chunk_size=500)):
            count += 1
            split = f"given “{author.given_name}”, family “{author.family_name}”"
            if author.name_suffix:
                split += f", suffix “{author.name_suffix}”"
            because = ", ".join(str(reason) for reason in reasons)
            self.stdout.write(f"{author.slug}: {author.name} -> {split} ({because})")
        self.stdout.write(self.style.SUCCESS(f"{count} name{pluralize(count)} to check."))
