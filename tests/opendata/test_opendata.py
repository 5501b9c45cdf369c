"""Whole downloads as CSV tables and the Open data page (opendata/downloads.py)."""

import csv
import datetime
import io
import json
import re
import zipfile

import pytest
from django.core.cache import caches
from django.core.management import call_command
from django.db.models import Q

from catalogue.models import Author, Award, Conference, Paper, PaperLink, Status
from importing.exporting import export_conference
from tests import factories
from tests.opendata.datapackages import rows, unzip

TABLES = ["authors", "authorships", "awards", "entries", "institutions", "papers"]


def _awarded_conference():
    """A conference whose award went to one of its papers and to a paper of an earlier
    edition, with another paper of its own, and a draft paper."""
    award = factories.award()
    conference = award.conference
    institution = factories.institution(name_zh_hans="")
    own = factories.paper(
        conference=conference,
        authors=[factories.author(), factories.author()],
        affiliations=[institution],
        links=[(PaperLink.Kind.ARXIV, "https://arxiv.org/abs/2501.00001")],
        title_zh_hans="",
    )
    earlier = factories.paper(authors=[factories.author()])
    other = factories.paper(conference=conference)
    draft = factories.paper(conference=conference, status=Status.DRAFT)
    factories.award_entry(award, own, level="winner")
    factories.award_entry(award, earlier, level="honourable-mention")
    return conference, award, own, earlier, other, draft


@pytest.mark.django_db
def test_site_download_holds_every_table_dated_without_a_licence_by_default(client):
    conference, award, own, earlier, other, draft = _awarded_conference()

    files = unzip(client.get("/data/awardsite-csv.zip"))

    assert sorted(files) == sorted(
        ["README.txt", "datapackage.json", *(f"{table}.csv" for table in TABLES)]
    )
    today = datetime.date.today().isoformat()
    assert f"Date: {today}" in files["README.txt"]
    assert "Licence" not in files["README.txt"]
    package = json.loads(files["datapackage.json"])
    assert package["created"] == f"{today}T00:00:00Z" and "licenses" not in package
    assert sorted(r["slug"] for r in rows(files, "papers")) == sorted(
        [own.slug, earlier.slug, other.slug]
    )
    assert [(r["award"], r["paper"], r["level"]) for r in rows(files, "entries")] == [
        (award.slug, own.slug, "winner"),
        (award.slug, earlier.slug, "honourable-mention"),
    ]


@pytest.mark.django_db
def test_download_columns_follow_the_datapackage_and_keep_languages_apart(client):
    conference, award, own, *_ = _awarded_conference()

    files = unzip(client.get(f"/data/conferences/{conference.slug}-csv.zip"))

    package = json.loads(files["datapackage.json"])
    for resource in package["resources"]:
        header = files[resource["path"]].splitlines()[0].split(",")
        assert header == [field["name"] for field in resource["schema"]["fields"]]
    paper = next(r for r in rows(files, "papers") if r["slug"] == own.slug)
    assert (paper["title_en"], paper["title_zh_hans"]) == (own.title_en, "")
    assert paper["link_arxiv"] == "https://arxiv.org/abs/2501.00001"
    (institution,) = rows(files, "institutions")
    assert institution["name_zh_hans"] == ""
    authorships = [r for r in rows(files, "authorships") if r["paper"] == own.slug]
    assert [r["position"] for r in authorships] == ["1", "2"]
    assert {r["affiliations"] for r in authorships} == {institution["slug"]}


@pytest.mark.django_db
def test_authors_table_gives_the_names_as_citations_split_them(client):
    split = factories.author(
        name="Unai Fischer Abaigar", given_name="Unai", family_name="Fischer Abaigar"
    )
    team = factories.author(name="OpenFict Team", given_name="", family_name="OpenFict Team")
    chinese = factories.author(name="Wei Zhang", native_name="张伟")
    factories.paper(authors=[split, team, chinese])

    files = unzip(client.get("/data/awardsite-csv.zip"))

    columns = ("name", "given_name", "family_name", "name_suffix", "native_name")
    assert sorted(tuple(row[c] for c in columns) for row in rows(files, "authors")) == [
        ("OpenFict Team", "", "OpenFict Team", "", ""),
        ("Unai Fischer Abaigar", "Unai", "Fischer Abaigar", "", ""),
        ("Wei Zhang", "Wei", "Zhang", "", "张伟"),
    ]


@pytest.mark.django_db
def test_conference_download_holds_what_it_published_and_awarded(client):
    conference, award, own, earlier, other, draft = _awarded_conference()
    unrelated = factories.paper()

    files = unzip(client.get(f"/data/conferences/{conference.slug}-csv.zip"))

    slugs = sorted(r["slug"] for r in rows(files, "papers"))
    assert slugs == sorted([own.slug, earlier.slug, other.slug])
    assert unrelated.slug not in slugs and draft.slug not in slugs
    assert [r["slug"] for r in rows(files, "awards")] == [award.slug]


@pytest.mark.django_db
def test_download_names_the_licence_when_one_is_set(client, settings):
    settings.DATA_LICENCE = "CC BY 4.0"
    conference, *_ = _awarded_conference()

    files = unzip(client.get(f"/data/conferences/{conference.slug}-csv.zip"))
    index = json.loads(client.get("/api/v1/").content)

    assert "Licence: CC BY 4.0" in files["README.txt"]
    assert json.loads(files["datapackage.json"])["licenses"] == [
        {"name": "CC BY 4.0", "title": "CC BY 4.0"}
    ]
    assert index["licence"] == "CC BY 4.0"


@pytest.mark.django_db
def test_unknown_or_draft_conference_download_is_a_404(client):
    draft = factories.conference(status=Status.DRAFT)

    assert client.get(f"/data/conferences/{draft.slug}-csv.zip").status_code == 404
    assert client.get("/data/conferences/no-such-conference-csv.zip").status_code == 404


@pytest.mark.django_db
def test_downloads_carry_an_etag_and_cors(client):
    response = client.get("/data/awardsite-csv.zip", HTTP_ORIGIN="https://elsewhere.example")

    assert response["ETag"] and response["Access-Control-Allow-Origin"] == "*"
    again = client.get("/data/awardsite-csv.zip", HTTP_IF_NONE_MATCH=response["ETag"])
    assert again.status_code == 304


@pytest.mark.django_db
@pytest.mark.parametrize("count", [1, 4])
def test_download_runs_a_fixed_number_of_queries(client, django_assert_num_queries, count):
    for _ in range(count):
        _awarded_conference()

    with django_assert_num_queries(6):
        response = client.get("/data/awardsite-csv.zip")

    assert len(rows(unzip(response), "papers")) == 3 * count  # the draft is left out


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("language", "heading", "compact"),
    [("en", "Open data", "compact format"), ("zh-hans", "开放数据", "紧凑格式")],
)
def test_open_data_page_links_the_api_and_every_download(client, language, heading, compact):
    conference, *_ = _awarded_conference()

    response = client.get(f"/{language}/open-data/")
    html = response.content.decode()

    assert response.status_code == 200
    assert f"<h1>{heading}</h1>" in html
    for url in [
        "/api/v1/",
        f"/{language}/open-data/api/",
        "/api/v1/openapi.json",
        "/data/awardsite-csv.zip",
        f"/data/conferences/{conference.slug}-csv.zip",
        "/data/awardsite-compact.zip",
        f"/data/conferences/{conference.slug}-compact.zip",
    ]:
        assert f'href="{url}"' in html
    assert compact in html


@pytest.mark.django_db
def test_footer_and_conference_page_link_the_open_data(client):
    conference, *_ = _awarded_conference()

    home = client.get("/en/").content.decode()
    page = client.get(f"/zh-hans/conferences/{conference.slug}/").content.decode()

    assert 'href="/en/open-data/"' in home
    assert 'href="/zh-hans/open-data/"' in page
    assert f'href="/data/conferences/{conference.slug}-csv.zip"' in page
    assert f'href="/data/conferences/{conference.slug}-compact.zip"' in page
    assert f'href="/api/v1/conferences/{conference.slug}"' in page


# --- the compact format (what import_conference reads) ---------------------------


def unzip_bytes(response):
    """``{file name: bytes}`` of a ZIP download (names without the archive's folder)."""
    assert response.status_code == 200
    assert response["Content-Type"] == "application/zip"
    with zipfile.ZipFile(io.BytesIO(response.content)) as archive:
        return {name.split("/", 1)[1]: archive.read(name) for name in archive.namelist()}


def extract(response, directory):
    """Write a ZIP download's files under ``directory``; return their relative names."""
    files = unzip_bytes(response)
    for name, data in files.items():
        (directory / name).parent.mkdir(parents=True, exist_ok=True)
        (directory / name).write_bytes(data)
    return sorted(files)


def exported(slug, directory, *args):
    """What ``export_conference SLUG --format compact -o DIR/SLUG.yaml`` writes:
    ``{relative name: bytes}``."""
    call_command(
        "export_conference",
        slug,
        "--format",
        "compact",
        "-o",
        str(directory / f"{slug}.yaml"),
        *args,
        stdout=io.StringIO(),
        stderr=io.StringIO(),
    )
    return {
        str(path.relative_to(directory)): path.read_bytes()
        for path in directory.rglob("*")
        if path.is_file()
    }


@pytest.mark.django_db
def test_conference_compact_download_is_what_export_conference_writes(client, tmp_path):
    conference, award, own, earlier, other, draft = _awarded_conference()
    draft.delete()  # so the command (which also writes unpublished content) matches

    files = unzip_bytes(client.get(f"/data/conferences/{conference.slug}-compact.zip"))

    readme = files.pop("README.txt").decode()
    assert files == exported(conference.slug, tmp_path)
    assert f"Date: {datetime.date.today().isoformat()}" in readme
    assert "Licence" not in readme
    assert f"import_conference {conference.slug}-compact/{conference.slug}.yaml" in readme


@pytest.mark.django_db
def test_compact_download_holds_only_published_content(client, settings):
    settings.DATA_LICENCE = "CC BY 4.0"
    conference, award, own, earlier, other, draft = _awarded_conference()
    draft_award = factories.award(conference=conference, status=Status.DRAFT)
    factories.award_entry(draft_award, other, level="winner")
    awarded_draft = factories.paper(status=Status.DRAFT)
    factories.award_entry(award, awarded_draft, level="winner")

    files = unzip_bytes(client.get(f"/data/conferences/{conference.slug}-compact.zip"))
    text = files[f"{conference.slug}.yaml"].decode()

    def named(slug):
        return re.search(rf"(?<![\w-]){re.escape(slug)}(?![\w-])", text) is not None

    assert all(named(shown.slug) for shown in [own, earlier, other])
    assert not any(named(hidden.slug) for hidden in [draft, awarded_draft])
    assert named(award.name_en) and not named(draft_award.name_en)  # awards go by name
    assert "Licence: CC BY 4.0" in files["README.txt"].decode()


@pytest.mark.django_db
def test_unknown_or_draft_conference_compact_download_is_a_404(client):
    draft = factories.conference(status=Status.DRAFT)

    assert client.get(f"/data/conferences/{draft.slug}-compact.zip").status_code == 404
    assert client.get("/data/conferences/no-such-conference-compact.zip").status_code == 404


@pytest.mark.django_db
def test_site_compact_download_has_a_file_per_conference_with_published_awards(client):
    conference, *_ = _awarded_conference()
    factories.conference()  # no awards: left out
    hidden = factories.award(status=Status.DRAFT).conference  # only a draft award: left out
    draft = factories.award(conference=factories.conference(status=Status.DRAFT)).conference

    files = unzip_bytes(client.get("/data/awardsite-compact.zip"))

    assert sorted(files) == sorted(["README.txt", f"{conference.slug}/{conference.slug}.yaml"])
    assert hidden.slug not in files["README.txt"].decode()
    assert draft.slug not in files["README.txt"].decode()


@pytest.mark.django_db
def test_compact_downloads_carry_an_etag_and_cors(client):
    conference, *_ = _awarded_conference()
    for url in ["/data/awardsite-compact.zip", f"/data/conferences/{conference.slug}-compact.zip"]:
        response = client.get(url, HTTP_ORIGIN="https://elsewhere.example")

        assert response["ETag"] and response["Access-Control-Allow-Origin"] == "*"
        assert client.get(url, HTTP_IF_NONE_MATCH=response["ETag"]).status_code == 304


def pages(client, urls):
    """``{url: HTML}`` of ``urls`` in both languages, rendered afresh (no page cache)."""
    for cache in caches.all():
        cache.clear()
    answers = {}
    for url in urls:
        for language in ["en", "zh-hans"]:
            response = client.get(f"/{language}{url.removeprefix('/en')}")
            assert response.status_code == 200, url
            answers[f"{language}:{url}"] = response.content.decode()
    return answers


def conference_urls(*slugs):
    """The pages of conferences ``slugs``: each conference, its awards, the published
    papers published or awarded there, and their authors."""
    conferences = list(Conference.objects.filter(slug__in=slugs))
    papers = (
        Paper.objects.published()
        .filter(Q(conference__in=conferences) | Q(award_entries__award__conference__in=conferences))
        .distinct()
    )
    return sorted(
        {
            *(conference.get_absolute_url() for conference in conferences),
            *(
                award.get_absolute_url()
                for award in Award.objects.filter(conference__in=conferences)
            ),
            *(paper.get_absolute_url() for paper in papers),
            *(author.get_absolute_url() for author in Author.objects.filter(papers__in=papers)),
        }
    )


def test_icml_2025_downloaded_and_imported_into_an_empty_site_gives_identical_pages(
    client, transactional_db, tmp_path
):
    call_command("loaddata", "icml", verbosity=0)
    urls = conference_urls("icml-2025")
    before = pages(client, urls)
    response = client.get("/data/conferences/icml-2025-compact.zip")

    names = extract(response, tmp_path)
    call_command("flush", "--noinput")
    assert Paper.objects.count() == 0
    call_command("import_conference", str(tmp_path / "icml-2025.yaml"), stdout=io.StringIO())

    assert "icml-2025.yaml" in names
    assert len(urls) > 40
    assert pages(client, urls) == before


@pytest.mark.parametrize("order", [1, -1])
def test_whole_site_downloaded_and_imported_in_any_order_gives_identical_pages(
    client, transactional_db, tmp_path, order
):
    """Two conferences with awards, the later one's award going to a paper of the
    earlier one: its file carries the earlier conference, and either order works."""
    conference, award, own, earlier, other, draft = _awarded_conference()
    factories.award_entry(factories.award(conference=earlier.conference), earlier, level="winner")
    urls = conference_urls(conference.slug, earlier.conference.slug)
    before = pages(client, urls)

    extract(client.get("/data/awardsite-compact.zip"), tmp_path)
    call_command("flush", "--noinput")
    files = sorted(tmp_path.glob("*/*.yaml"))[::order]
    assert len(files) == 2
    for path in files:
        call_command("import_conference", str(path), stdout=io.StringIO())

    assert pages(client, urls) == before


@pytest.mark.django_db
def test_export_keeps_unpublished_content_unless_published_only():
    conference, award, own, earlier, other, draft = _awarded_conference()

    everything = export_conference(conference.slug, format="compact").text
    published = export_conference(conference.slug, format="compact", published_only=True).text

    assert f"slug: {draft.slug}\n" in everything
    assert f"slug: {draft.slug}\n" not in published
    assert f"slug: {own.slug}\n" in published


# A comma ends a cell, a quote opens one and a line break ends a row, unless the writer
# quotes the cell (doubling the quote); a reader then gives back the same text. (Stored
# text has "\n" line breaks only: the catalogue's text fields normalise "\r\n".)
AWKWARD = 'Commas, "quotes" and ""two""\nnext line\n\nlast line, "done"'


@pytest.mark.django_db
def test_download_cell_with_comma_quote_and_newline_reads_back_unchanged(client):
    conference, award, own, *_ = _awarded_conference()
    Paper.objects.filter(pk=own.pk).update(title_en=AWKWARD, abstract_zh_hans=f"摘要，{AWKWARD}")
    author = own.authorships.first().author
    Author.objects.filter(pk=author.pk).update(name=AWKWARD)
    Award.objects.filter(pk=award.pk).update(description_en=AWKWARD)

    files = unzip(client.get(f"/data/conferences/{conference.slug}-csv.zip"))

    (paper,) = [r for r in rows(files, "papers") if r["slug"] == own.slug]
    assert (paper["title_en"], paper["abstract_zh_hans"]) == (AWKWARD, f"摘要，{AWKWARD}")
    (author_row,) = [r for r in rows(files, "authors") if r["slug"] == author.slug]
    assert author_row["name"] == AWKWARD
    (award_row,) = rows(files, "awards")
    assert award_row["description_en"] == AWKWARD
    # The awkward cells end no row early: every row has exactly the header's columns.
    for table in TABLES:
        header, *records = csv.reader(io.StringIO(files[f"{table}.csv"], newline=""))
        assert records and all(len(record) == len(header) for record in records), table


@pytest.mark.django_db
def test_datapackage_types_each_column_and_the_files_are_dated_today(client):
    conference, *_ = _awarded_conference()

    response = client.get(f"/data/conferences/{conference.slug}-csv.zip")

    files = unzip(response)
    types = {
        (resource["name"], field["name"]): field["type"]
        for resource in json.loads(files["datapackage.json"])["resources"]
        for field in resource["schema"]["fields"]
    }
    integers = {
        ("papers", "year"),
        ("authorships", "position"),
        ("awards", "year"),
        ("awards", "position"),
        ("entries", "level_position"),
        ("entries", "position"),
    }
    assert {column for column, kind in types.items() if kind == "integer"} == integers
    assert {column for column, kind in types.items() if kind == "date"} == {
        ("awards", "announced_on")
    }
    assert set(types.values()) == {"integer", "date", "string"}
    today = datetime.date.today()
    with zipfile.ZipFile(io.BytesIO(response.content)) as archive:
        stamps = {info.date_time for info in archive.infolist()}
    assert stamps == {(today.year, today.month, today.day, 0, 0, 0)}
