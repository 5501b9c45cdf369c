"""The author page's person, institutions and co-authors, read by prepared queries.

As on the paper page (papers/paper_page.py), building the author page's querysets
(the person's look-up, the institutions with their years, the co-authors with their
counts) took more of the request than the database did (benchmarks/server_time.py
--profile author). The same queries are built once per process here
(papers/prepared.py) and give the same model instances, with the same annotations, so
the template reads them unchanged. The page's papers are ``listing.AuthorPapers``.
"""

from django.db.models import Count
from django.http import Http404
from django.utils.translation import gettext as _

from .models import Author, Institution, published_q
from .paper_page import Columns, instance
from .prepared import PreparedQuery

AUTHOR = Columns(Author, "")
INSTITUTION = Columns(Institution, "")

# The author with the number of their published papers (``Author.objects.published()``
# is the authors for whom it is not 0): the count the page's paginator needs, read
# with the author instead of in a query of its own (one authorship per paper and author).
PUBLISHED_AUTHOR = PreparedQuery(
    lambda slug: (
        Author.objects.filter(published_q("authorships__paper__"), slug=slug)
        .values(*AUTHOR.keys)
        .annotate(published_papers=Count("authorships"))
        .order_by()
    ),
    texts=["slug"],
)
INSTITUTIONS = PreparedQuery(
    lambda author: (
        Institution.objects.of_author(author)
        .rewrite(False)
        .values(*INSTITUTION.keys, "first_year", "last_year")
    )
)
COAUTHORS = PreparedQuery(
    lambda author, limit: Author.objects.coauthors_of(Author(pk=author), limit=limit).values(
        *AUTHOR.keys, "shared"
    ),
    keys=["limit"],
)


def author_for_page(slug):
    """The author ``slug`` as ``Author.objects.published()`` gives it, with
    ``published_papers``, how many published papers they wrote (one query).

    Raises Http404 when there is no such author, or none with a published paper.
    """
    rows = PUBLISHED_AUTHOR(slug=slug)
    if not rows:
        raise Http404(
            _("No %(verbose_name)s found matching the query")
            % {"verbose_name": Author._meta.verbose_name}
        )
    author = instance(AUTHOR, rows[0])
    author.published_papers = rows[0]["published_papers"]
    return author


def institutions_of(author):
    """``Institution.objects.of_author(author)`` as a list (one query): the latest first,
    each with ``first_year`` and ``last_year``."""
    institutions = []
    for values in INSTITUTIONS(author=author.pk):
        institution = instance(INSTITUTION, values)
        institution.first_year, institution.last_year = values["first_year"], values["last_year"]
        institutions.append(institution)
    return institutions


def coauthors_of(author, limit):
    """``Author.objects.coauthors_of(author, limit=limit)`` as a list (one query), each
    with ``shared``."""
    people = []
    for values in COAUTHORS(author=author.pk, limit=limit):
        person = instance(AUTHOR, values)
        person.shared = values["shared"]
        people.append(person)
    return people
