"""Queries built once and run again with other values (pages/prepared.py)."""

import pytest
from django.db import connection

from catalogue.models import Authorship, AwardEntry, Paper, Status
from pages.prepared import PreparedQuery
from tests import factories


def _papers(count):
    return [factories.paper(authors=[factories.author(), factories.author()]) for _ in range(count)]


def test_prepared_query_gives_the_querysets_rows_for_each_run(db, django_assert_num_queries):
    papers = _papers(4)
    names = PreparedQuery(
        lambda papers: Authorship.objects.filter(paper__in=papers).names_in_order(),
        lists=["papers"],
    )

    for chosen in ([papers[0]], papers[1:], [papers[3], papers[0], papers[3]]):
        keys = [paper.pk for paper in chosen]
        expected = list(Authorship.objects.filter(paper__in=keys).names_in_order())
        with django_assert_num_queries(1):
            rows = names(papers=keys)
        assert rows == expected
        assert len(rows) == 2 * len(set(keys))


def test_prepared_values_query_gives_dicts_with_scalar_and_fixed_values(db):
    first, second = factories.award(), factories.award()
    for award in (first, second):
        factories.award_entry(award, factories.paper())
    factories.award_entry(first, factories.paper(status=Status.DRAFT))
    entries = PreparedQuery(
        lambda award: (
            AwardEntry.objects.filter(award=award, paper__status=Status.PUBLISHED)
            .order_by("pk")
            .values("award_id", "paper__slug")
        )
    )

    for award in (first, second, first):
        expected = list(
            AwardEntry.objects.filter(award=award, paper__status=Status.PUBLISHED)
            .order_by("pk")
            .values("award_id", "paper__slug")
        )
        assert entries(award=award.pk) == expected
        assert len(expected) == 1


def test_prepared_query_with_an_empty_list_runs_no_query(db, django_assert_num_queries):
    names = PreparedQuery(
        lambda papers: Authorship.objects.filter(paper__in=papers).names_in_order(),
        lists=["papers"],
    )

    with django_assert_num_queries(0):
        assert names(papers=[]) == []


def test_prepared_query_sends_a_list_as_one_array_on_postgresql(db):
    """On PostgreSQL ``IN (%s, ...)`` becomes ``= ANY(%s::bigint[])``: one parameter (the
    text of an array literal) and the same SQL however long the list (psycopg parses
    again every query of more than 50 parameters), with the rows of the ``IN`` list,
    ``NOT IN`` included."""
    if connection.vendor != "postgresql":
        pytest.skip("PostgreSQL only (make test-postgres)")
    papers = _papers(3)
    kept = PreparedQuery(
        lambda papers: (
            Paper.objects.filter(pk__in=papers).order_by("pk").rewrite(False).values_list("pk")
        ),
        lists=["papers"],
    )
    others = PreparedQuery(
        lambda papers: (
            Paper.objects.exclude(pk__in=papers).order_by("pk").rewrite(False).values_list("pk")
        ),
        lists=["papers"],
    )
    listed = [papers[0].pk, *range(10**6, 10**6 + 60)]
    sent = []

    def record(execute, sql, params, many, context):
        sent.append((sql, params))
        return execute(sql, params, many, context)

    with connection.execute_wrapper(record):
        assert kept(papers=listed) == [(papers[0].pk,)]
        assert kept(papers=[papers[2].pk, papers[1].pk]) == [(papers[1].pk,), (papers[2].pk,)]
        assert others(papers=listed) == [(papers[1].pk,), (papers[2].pk,)]

    assert [len(params) for _sql, params in sent] == [1, 1, 1]
    assert sent[0][0] == sent[1][0]
    assert all(" = ANY(%s::bigint[])" in sql and " IN (" not in sql for sql, _params in sent)
    assert sent[1][1] == [f"{{{papers[2].pk},{papers[1].pk}}}"]  # an array literal


def test_prepared_query_refuses_model_instances(db):
    papers = PreparedQuery(lambda conference: Paper.objects.filter(conference=conference))

    with pytest.raises(ValueError, match="values"):  # instances, or modeltranslation's rows
        papers(conference=1)


def test_prepared_query_refuses_a_parameter_it_cannot_find(db):
    authorships = PreparedQuery(lambda paper: Authorship.objects.values("pk"))

    with pytest.raises(ValueError, match="not found"):
        authorships(paper=1)


def test_prepared_query_takes_a_string_compared_as_it_is(db):
    papers = [factories.paper() for _ in range(3)]
    by_slug = PreparedQuery(
        lambda slug: Paper.objects.filter(slug=slug).rewrite(False).values("pk", "slug"),
        texts=["slug"],
    )

    for paper in (papers[2], papers[0], papers[2]):
        assert by_slug(slug=paper.slug) == [{"pk": paper.pk, "slug": paper.slug}]
    assert by_slug(slug="no-such-paper") == []
    # Quotes and SQL in a value are a parameter's, never the query's.
    assert by_slug(slug="x' OR '1'='1") == []


def test_prepared_query_puts_texts_whole_and_in_like_patterns_escaped(db):
    """Text parameters: compared whole (a slug) or inside a ``LIKE`` pattern, where
    wildcards and the escape character of one run's text match only themselves."""
    conference = factories.conference()
    titles = ["100% sure", "100 sure", "a_b", "axb", "back\\slash", "Jiménez"]
    for title in titles:
        factories.paper(conference=conference, title_en=title)
    factories.paper(title_en="100% sure elsewhere")
    matching = PreparedQuery(
        lambda conference, text: (
            Paper.objects.filter(conference__slug=conference, title_en__contains=text)
            .order_by("title_en")
            .rewrite(False)
            .values_list("title_en")
        ),
        texts=["conference", "text"],
    )

    for text in ["100%", "a_b", "_", "\\", "%", "é", "sure", "nothing"]:
        expected = list(
            Paper.objects.filter(conference__slug=conference.slug, title_en__contains=text)
            .order_by("title_en")
            .values_list("title_en")
        )
        assert matching(conference=conference.slug, text=text) == expected
    assert matching(conference=conference.slug, text="100%") == [("100% sure",)]
    assert matching(conference=conference.slug, text="_") == [("a_b",)]


def test_prepared_query_refuses_a_text_its_lookup_changes(db):
    # The text is part of a longer value: no run's text could be put in its place.
    starting = PreparedQuery(
        lambda text: Paper.objects.filter(slug__regex=text + "x$").rewrite(False).values("pk"),
        texts=["text"],
    )

    with pytest.raises(ValueError, match="changed"):
        starting(text="a")
