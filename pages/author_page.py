"""The author page's person, institutions and co-authors, read by prepared queries.

As on the paper page (pages/paper_page.py), building the author page's querysets
(the person's look-up, the institutions with their years, the co-authors with their
counts) took more of the request than the database did (benchmarks/server_time.py
--profile author). The same queries are built once per process here
(pages/prepared.py) and give the same model instances, with the same annotations, so
the template reads them unchanged. The page's papers are ``listing.AuthorPapers``.
"""

from django.db.models import Count, F, Max, Min
from django.http import Http404
from django.utils.translation import gettext as _

from catalogue.models import Author, Authorship, Institution, published_q
from pages.paper_page import Columns, instance
from pages.prepared import PreparedQuery

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


# The institutions (``Institution.objects.of_author()``) and co-authors
# (``Author.objects.coauthors_of()``) of many authors at once (publish_site renders
# many author pages together: publishing/site.py): each row also names the author
# (``of_author``) it belongs to, the rows grouped by author, each author's in the order
# of those querysets. The author page reads its one author's with them too, so a
# published page and the live one read the same rows. The authors' own authorships (or
# papers) are named by a subquery too: without it SQLite's planner started from every
# published paper, 0.5 to 1.6 s for 200 authors at 5,000 papers instead of 1 to 20 ms.
def _institutions_of_authors(authors):
    years = "affiliation_rows__authorship__paper__conference__year"
    return (
        Institution.objects.filter(
            published_q("affiliation_rows__authorship__paper__"),
            affiliation_rows__authorship__in=Authorship.objects.filter(author__in=authors).values(
                "pk"
            ),
            affiliation_rows__authorship__author__in=authors,
        )
        .rewrite(False)
        .values(*INSTITUTION.keys, of_author=F("affiliation_rows__authorship__author"))
        .annotate(first_year=Min(years), last_year=Max(years))
        .order_by("of_author", "-last_year", "-first_year", "slug")
    )


def _coauthors_of_authors(authors, limit):
    people = (
        Author.objects.filter(
            published_q("authorships__paper__"),
            authorships__paper__in=Authorship.objects.filter(author__in=authors).values("paper"),
            authorships__paper__authorships__author__in=authors,
        )
        .values(*AUTHOR.keys, of_author=F("authorships__paper__authorships__author"))
        .exclude(pk=F("of_author"))
        .annotate(shared=Count("authorships__paper", distinct=True))
        .order_by("of_author", "-shared", "slug")
    )
    return people[:limit] if limit else people


INSTITUTIONS_OF_AUTHORS = PreparedQuery(_institutions_of_authors, lists=["authors"])
# ``limit`` (a key): in the SQL for one author; for many, each author's first ``limit``.
COAUTHORS_OF_AUTHORS = PreparedQuery(_coauthors_of_authors, lists=["authors"], keys=["limit"])


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
    return institutions_of_many([author])[author.pk]


def coauthors_of(author, limit):
    """``Author.objects.coauthors_of(author, limit=limit)`` as a list (one query), each
    with ``shared``."""
    return coauthors_of_many([author], limit)[author.pk]


def authors_for_pages(slugs):
    """``{slug: author}`` of each of ``slugs`` that ``author_for_page()`` finds, as it
    gives it (with ``published_papers``), in one query for them all (publish_site)."""
    slugs = list(slugs)
    # The authorships by a subquery too, as in the queries above (26 ms for 50 authors
    # at 5,000 papers on SQLite without it).
    authorships = Authorship.objects.filter(author__slug__in=slugs).values("pk")
    rows = (
        Author.objects.filter(
            published_q("authorships__paper__"), authorships__in=authorships, slug__in=slugs
        )
        .values(*AUTHOR.keys)
        .annotate(published_papers=Count("authorships"))
        .order_by()
    )
    authors = {}
    for values in rows:
        author = instance(AUTHOR, values)
        author.published_papers = values["published_papers"]
        authors[author.slug] = author
    return authors


def _by_author(rows, authors, limit=None):
    """{author's pk: [instance, ...]} of rows of ``*_OF_AUTHORS`` (grouped by
    ``of_author``), at most ``limit`` each; an empty list for an author without any."""
    grouped = {author.pk: [] for author in authors}
    for values in rows:
        group = grouped[values["of_author"]]
        if limit is None or len(group) < limit:
            group.append(values)
    return grouped


def institutions_of_many(authors):
    """``{author's pk: institutions_of(author)}`` of each of ``authors`` (one query)."""
    grouped = _by_author(INSTITUTIONS_OF_AUTHORS(authors=[a.pk for a in authors]), authors)
    result = {}
    for pk, rows in grouped.items():
        result[pk] = []
        for values in rows:
            institution = instance(INSTITUTION, values)
            institution.first_year = values["first_year"]
            institution.last_year = values["last_year"]
            result[pk].append(institution)
    return result


def coauthors_of_many(authors, limit):
    """``{author's pk: coauthors_of(author, limit)}`` of each of ``authors`` (one query;
    for one author, the limit is the query's)."""
    pks = [author.pk for author in authors]
    one = len(set(pks)) == 1
    rows = COAUTHORS_OF_AUTHORS(authors=pks, limit=limit if one else None)
    result = {}
    for pk, group in _by_author(rows, authors, limit).items():
        result[pk] = []
        for values in group:
            person = instance(AUTHOR, values)
            person.shared = values["shared"]
            result[pk].append(person)
    return result
