"""Award kinds in the open data: each award's ``kind`` in the API, the API's filter by
kind, and the kind's slug and names in the awards table of the CSV downloads."""

import pytest

from catalogue.models import AwardKind
from tests import factories
from tests.opendata.datapackages import rows, unzip


@pytest.fixture
def awards(db):
    kind = AwardKind.objects.create(
        slug="test-of-time", name_en="Test of time award", name_zh_hans="时间检验奖"
    )
    conference = factories.conference(slug="icml-2031", year=2031)
    given = factories.award(conference=conference, slug="test-of-time", kind=kind, position=1)
    plain = factories.award(conference=conference, slug="prize", position=2)
    return given, plain


def test_api_names_each_awards_kind_and_filters_by_it(client, awards):
    every = client.get("/api/v1/awards").json()["items"]
    of_kind = client.get("/api/v1/awards?kind=test-of-time").json()["items"]
    one = client.get("/api/v1/awards/icml-2031/test-of-time").json()

    assert [(award["slug"], award["kind"]) for award in every] == [
        ("test-of-time", "test-of-time"),
        ("prize", None),
    ]
    assert [award["slug"] for award in of_kind] == ["test-of-time"]
    assert one["kind"] == "test-of-time"
    assert client.get("/api/v1/awards?kind=nope").json()["items"] == []


def test_csv_awards_table_has_the_kind_and_its_names(client, awards):
    files = unzip(client.get("/data/conferences/icml-2031-csv.zip"))

    table = {
        row["slug"]: (row["kind"], row["kind_name_en"], row["kind_name_zh_hans"])
        for row in rows(files, "awards")
    }

    assert table == {
        "test-of-time": ("test-of-time", "Test of time award", "时间检验奖"),
        "prize": ("", "", ""),
    }
