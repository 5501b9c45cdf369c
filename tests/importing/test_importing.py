"""import_conference and export_conference: the checks, the plan, the round trip."""

import copy
import io
import json
from pathlib import Path

import pytest
from django.core.exceptions import ValidationError
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import connection
from PIL import Image

from catalogue.models import (
    Affiliation,
    Author,
    Authorship,
    Award,
    AwardEntry,
    AwardLevel,
    Conference,
    ImportRecord,
    Institution,
    Paper,
    PaperLink,
    Status,
    Venue,
)
from importing.fields import FixtureInvalid
from importing.images import prepare_image
from importing.pipeline import import_fixture
from importing.reading import read_fixture, read_objects
from tests.scripts import load

DATA = Path(__file__).parents[1] / "data"
MODELS = [
    Venue,
    Conference,
    Institution,
    Author,
    Paper,
    Authorship,
    PaperLink,
    Award,
    AwardLevel,
    AwardEntry,
    ImportRecord,
]


def snapshot():
    """Every row of every table the importer writes, to compare before and after."""
    tables = {model.__name__: list(model.objects.order_by("pk").values()) for model in MODELS}
    tables["affiliations"] = sorted(
        Affiliation.objects.values_list("authorship_id", "institution_id", "position")
    )
    return tables


def small_fixture():
    """A valid new conference: venue, conference, 2 authors, 1 paper, 1 award, 1 level."""
    return [
        {"model": "papers.venue", "fields": {"slug": "tv", "acronym": "TV", "name_en": "Test"}},
        {
            "model": "papers.conference",
            "fields": {
                "venue": ["tv"],
                "slug": "tv-2030",
                "year": 2030,
                "name_en": "TV 2030",
                "name_zh_hans": "",
                "start_date": "2030-05-01",
                "end_date": "2030-05-03",
                "website": "https://tv.example.org/",
                "status": "published",
            },
        },
        {"model": "papers.institution", "fields": {"slug": "inst", "name_en": "Inst"}},
        {"model": "papers.author", "fields": {"slug": "ann", "name": "Ann A"}},
        {"model": "papers.author", "fields": {"slug": "bob", "name": "Bob B"}},
        {
            "model": "papers.paper",
            "fields": {
                "slug": "p1",
                "title_en": "Paper One",
                "title_zh_hans": "论文一",
                "conference": ["tv-2030"],
                "status": "published",
            },
        },
        {
            "model": "papers.authorship",
            "fields": {"paper": ["p1"], "author": ["ann"], "position": 1, "affiliations": []},
        },
        {
            "model": "papers.authorship",
            "fields": {
                "paper": ["p1"],
                "author": ["bob"],
                "position": 2,
                "affiliations": [["inst"]],
            },
        },
        {
            "model": "papers.paperlink",
            "fields": {"paper": ["p1"], "kind": "code", "url": "https://code.example.org/p1"},
        },
        {
            "model": "papers.award",
            "fields": {"conference": ["tv-2030"], "slug": "best", "name_en": "Best Paper"},
        },
        {
            "model": "papers.awardentry",
            "fields": {
                "award": ["tv-2030", "best"],
                "paper": ["p1"],
                "level": ["tv-2030", "best", "winner"],
            },
        },
        {
            "model": "papers.awardlevel",
            "fields": {
                "award": ["tv-2030", "best"],
                "slug": "winner",
                "name_en": "Winner",
                "name_plural_en": "Winners",
            },
        },
    ]


def write(tmp_path, objects, name="fixture.json"):
    path = tmp_path / name
    path.write_text(json.dumps(objects, ensure_ascii=False), encoding="utf-8")
    return path


def run(*args):
    """Run import_conference; return (stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    call_command("import_conference", *[str(arg) for arg in args], stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def run_failing(path, *args):
    """Run import_conference on a bad file; return its stderr lines (one per problem)."""
    err = io.StringIO()
    with pytest.raises(CommandError, match="nothing was written"):
        call_command("import_conference", str(path), *args, stdout=io.StringIO(), stderr=err)
    return err.getvalue().strip().splitlines()


def obj(objects, model, **match):
    """The fixture object of ``model`` whose fields include ``match``."""
    return next(
        o
        for o in objects
        if o["model"] == model and all(o["fields"].get(k) == v for k, v in match.items())
    )


@pytest.fixture
def media(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"
    return settings.MEDIA_ROOT


@pytest.fixture
def before(icml):
    """The database (the shipped ICML content) before a failing import."""
    return snapshot()


def png_bytes(size=(8, 8)):
    buffer = io.BytesIO()
    Image.new("RGB", size, (200, 10, 10)).save(buffer, "PNG")
    return buffer.getvalue()


# --- every kind of error: a clear message, and the database unchanged ---------------


def test_import_invalid_json_names_line_and_writes_nothing(tmp_path, before):
    path = tmp_path / "bad.json"
    path.write_text('[{"model": "papers.venue", "fields": {]', encoding="utf-8")

    lines = run_failing(path)

    assert lines == [
        f"{path}:1:39: invalid JSON: Expecting property name enclosed in double quotes"
    ]
    assert snapshot() == before


def test_import_invalid_yaml_is_reported(tmp_path, before):
    path = tmp_path / "bad.yaml"
    path.write_text("- model: papers.venue\n  fields: {slug: [\n", encoding="utf-8")

    lines = run_failing(path)

    assert lines == [
        f"{path}:3:1: invalid YAML: expected the node content, but found '<stream end>'"
    ]
    assert snapshot() == before


def test_import_not_utf8_names_the_byte(tmp_path, before):
    path = tmp_path / "latin1.json"
    path.write_bytes('[{"model": "papers.author", "fields": {"name": "Müller"}}]'.encode("latin-1"))

    lines = run_failing(path)

    assert lines == [f"{path}: not UTF-8: byte 49 (line 1) cannot be decoded"]
    assert snapshot() == before


def test_import_unknown_model_names_the_object(tmp_path, before):
    objects = small_fixture() + [{"model": "auth.user", "fields": {"username": "x"}}]

    lines = run_failing(write(tmp_path, objects))

    assert len(lines) == 1
    assert lines[0].startswith(f"{tmp_path / 'fixture.json'}, object 13: unknown model 'auth.user'")
    assert snapshot() == before


def test_import_unknown_field_names_object_and_field(tmp_path, before):
    objects = small_fixture()
    obj(objects, "papers.paper", slug="p1")["fields"]["subtitle_en"] = "x"

    lines = run_failing(write(tmp_path, objects))

    assert len(lines) == 1
    assert lines[0].startswith(
        f"{tmp_path / 'fixture.json'}, object 6, papers.paper [\"p1\"], field 'subtitle_en': "
        "unknown field for papers.paper; its fields are slug, title_en"
    )
    assert snapshot() == before


def test_import_missing_required_field(tmp_path, before):
    objects = small_fixture()
    del obj(objects, "papers.paper", slug="p1")["fields"]["title_en"]

    lines = run_failing(write(tmp_path, objects))

    assert lines == [
        f"{tmp_path / 'fixture.json'}, object 6, papers.paper [\"p1\"], field 'title_en': "
        "required field missing"
    ]
    assert snapshot() == before


def test_import_refuses_an_orcid_with_a_wrong_check_digit(tmp_path, before):
    objects = small_fixture()
    obj(objects, "papers.author", slug="ann")["fields"]["orcid"] = "0000-0002-1825-0098"

    lines = run_failing(write(tmp_path, objects))

    assert lines == [
        f"{tmp_path / 'fixture.json'}, object 4, papers.author [\"ann\"], field 'orcid': "
        "Enter an ORCID iD as ORCID writes it: four groups of four digits (the last may be "
        "X) joined by hyphens, e.g. 0000-0002-1825-0097, with a valid check digit."
    ]
    assert snapshot() == before


def test_import_blank_required_field(tmp_path, before):
    objects = small_fixture()
    obj(objects, "papers.author", slug="ann")["fields"]["name"] = ""

    lines = run_failing(write(tmp_path, objects))

    assert lines == [
        f"{tmp_path / 'fixture.json'}, object 4, papers.author [\"ann\"], field 'name': "
        "This field cannot be blank."
    ]
    assert snapshot() == before


@pytest.mark.parametrize(
    ("model", "match", "name", "value", "message"),
    [
        ("papers.conference", {}, "year", "2030", "expected a whole number, got a string"),
        ("papers.paper", {}, "title_en", 42, "expected a string, got a number"),
        # Parsed objects are a dict subclass; named as any mapping, not by their class.
        ("papers.paper", {}, "title_en", {"a": 1}, "expected a string, got a mapping"),
        (
            "papers.conference",
            {},
            "start_date",
            [],
            "expected a date written YYYY-MM-DD, got a list",
        ),
        (
            "papers.paper",
            {},
            "conference",
            "tv-2030",
            "expected the natural key of a papers.conference: a list of 1 non-empty "
            'string(s), got "tv-2030"',
        ),
        ("papers.award", {}, "position", True, "expected a whole number, got true/false"),
        (
            "papers.authorship",
            {"position": 2},
            "affiliations",
            "inst",
            "expected a list of natural keys, got a string",
        ),
        (
            "papers.paper",
            {},
            "status",
            "public",
            '"public" is not allowed; the values are draft, review, published',
        ),
    ],
)
def test_import_wrong_type_names_object_and_field(
    tmp_path, before, model, match, name, value, message
):
    objects = small_fixture()
    target = obj(objects, model, **match)
    target["fields"][name] = value

    lines = run_failing(write(tmp_path, objects))

    assert len(lines) == 1
    assert lines[0].endswith(f"field {name!r}: {message}")
    assert f"object {objects.index(target) + 1}, {model} " in lines[0]
    assert snapshot() == before


def test_import_duplicate_natural_key(tmp_path, before):
    objects = small_fixture()
    objects.append(copy.deepcopy(obj(objects, "papers.author", slug="bob")))

    lines = run_failing(write(tmp_path, objects))

    assert lines == [
        f'{tmp_path / "fixture.json"}, object 13, papers.author ["bob"]: '
        "duplicate natural key: object 5 has the same key"
    ]
    assert snapshot() == before


def test_import_reference_to_nothing(tmp_path, before):
    objects = small_fixture()
    obj(objects, "papers.authorship", position=2)["fields"]["affiliations"] = [["nowhere"]]

    lines = run_failing(write(tmp_path, objects))

    assert lines == [
        f'{tmp_path / "fixture.json"}, object 8, papers.authorship ["p1", "bob"], '
        "field 'affiliations': refers to papers.institution [\"nowhere\"], which is neither "
        "in this file nor in the database"
    ]
    assert snapshot() == before


def test_import_reference_to_the_database_is_accepted(tmp_path, icml):
    objects = small_fixture()
    obj(objects, "papers.authorship", position=2)["fields"]["author"] = ["sergey-ioffe"]

    import_fixture(write(tmp_path, objects))

    assert list(Paper.objects.get(slug="p1").authors.order_by("slug")) == [
        Author.objects.get(slug="ann"),
        Author.objects.get(slug="sergey-ioffe"),
    ]


def test_import_invalid_date(tmp_path, before):
    objects = small_fixture()
    obj(objects, "papers.conference")["fields"]["start_date"] = "2030-02-30"

    lines = run_failing(write(tmp_path, objects))

    assert lines == [
        f'{tmp_path / "fixture.json"}, object 2, papers.conference ["tv-2030"], '
        "field 'start_date': “2030-02-30” value has the correct format (YYYY-MM-DD) but "
        "it is an invalid date."
    ]
    assert snapshot() == before


def test_import_end_date_before_start(tmp_path, before):
    objects = small_fixture()
    obj(objects, "papers.conference")["fields"]["end_date"] = "2030-04-30"

    lines = run_failing(write(tmp_path, objects))

    assert lines == [
        f'{tmp_path / "fixture.json"}, object 2, papers.conference ["tv-2030"], '
        "field 'end_date': The end date is before the start date "
        "(start_date 2030-05-01, end_date 2030-04-30)."
    ]
    assert snapshot() == before


def test_import_second_edition_in_the_same_year(tmp_path, before):
    objects = small_fixture()
    conference = obj(objects, "papers.conference")["fields"]
    conference.update(venue=["icml"], year=2025)

    lines = run_failing(write(tmp_path, objects))

    assert lines == [
        f'{tmp_path / "fixture.json"}, object 2, papers.conference ["tv-2030"], '
        "field 'year': This venue already has a conference in this year: year 2025 is also "
        'that of papers.conference ["icml-2025"] (in the database, not in this file: list it '
        "with its new values, or delete it in the admin)."
    ]
    assert snapshot() == before


def test_import_malformed_url(tmp_path, before):
    objects = small_fixture()
    obj(objects, "papers.paperlink")["fields"]["url"] = "htp//code.example.org"

    lines = run_failing(write(tmp_path, objects))

    assert lines == [
        f'{tmp_path / "fixture.json"}, object 9, papers.paperlink ["p1", "code"], '
        "field 'url': Enter a valid URL."
    ]
    assert snapshot() == before


def test_import_duplicate_author_positions(tmp_path, before):
    objects = small_fixture()
    obj(objects, "papers.authorship", position=2)["fields"]["position"] = 1

    lines = run_failing(write(tmp_path, objects))

    name = tmp_path / "fixture.json"
    assert lines == [
        f'{name}, object 7, papers.authorship ["p1", "ann"], field \'position\': '
        "Another author of this paper has this position: position 1 is also that of "
        'object 8 (papers.authorship ["p1", "bob"]).',
        f'{name}, object 8, papers.authorship ["p1", "bob"], field \'position\': '
        "Another author of this paper has this position: position 1 is also that of "
        'object 7 (papers.authorship ["p1", "ann"]).',
    ]
    assert snapshot() == before


def test_import_two_levels_of_an_award_at_one_position(tmp_path, before):
    objects = small_fixture()
    objects.append(
        {
            "model": "papers.awardlevel",
            "fields": {
                "award": ["tv-2030", "best"],
                "slug": "runner-up",
                "name_en": "Runner-up",
                "name_plural_en": "Runners-up",
            },
        }
    )

    lines = run_failing(write(tmp_path, objects))

    name = tmp_path / "fixture.json"
    assert lines == [
        f'{name}, object 12, papers.awardlevel ["tv-2030", "best", "winner"], '
        "field 'position': Another level of this award has this position: position 0 is "
        'also that of object 13 (papers.awardlevel ["tv-2030", "best", "runner-up"]).',
        f'{name}, object 13, papers.awardlevel ["tv-2030", "best", "runner-up"], '
        "field 'position': Another level of this award has this position: position 0 is "
        'also that of object 12 (papers.awardlevel ["tv-2030", "best", "winner"]).',
    ]
    assert snapshot() == before


def test_import_missing_author_position(tmp_path, before):
    objects = small_fixture()
    obj(objects, "papers.authorship", position=2)["fields"]["position"] = 3

    lines = run_failing(write(tmp_path, objects))

    assert lines == [
        f'{tmp_path / "fixture.json"}, object 8, papers.authorship ["p1", "bob"], '
        "field 'position': positions on paper [\"p1\"] are 1, 3: 2 missing "
        "(they run 1, 2, 3, ... without gaps)"
    ]
    assert snapshot() == before


def test_import_author_positions_count_the_database(tmp_path, before):
    """An authorship in the database that the file leaves out keeps its place."""
    objects = [
        {
            "model": "papers.authorship",
            "fields": {
                "paper": ["trust-region-policy-optimization"],
                "author": ["jake-snell"],
                "position": 1,
            },
        }
    ]

    lines = run_failing(write(tmp_path, objects))

    assert lines == [
        f"{tmp_path / 'fixture.json'}, object 1, papers.authorship "
        '["trust-region-policy-optimization", "jake-snell"], field \'position\': '
        "Another author of this paper has this position: position 1 is also that of "
        'papers.authorship ["trust-region-policy-optimization", "john-schulman"] (in the '
        "database, not in this file: list it with its new values, or delete it in the admin)."
    ]
    assert snapshot() == before


@pytest.mark.parametrize(
    ("name", "message"),
    [
        (
            "title_fr",
            "unknown language suffix 'fr': the languages are written title_en or title_zh_hans",
        ),
        (
            "title_zh",
            "unknown language suffix 'zh': the languages are written title_en or title_zh_hans",
        ),
        ("title", "'title' is translated: write title_en and title_zh_hans"),
    ],
)
def test_import_unknown_language_suffix(tmp_path, before, name, message):
    objects = small_fixture()
    obj(objects, "papers.paper")["fields"][name] = "Titre"

    lines = run_failing(write(tmp_path, objects))

    assert lines == [
        f'{tmp_path / "fixture.json"}, object 6, papers.paper ["p1"], field {name!r}: {message}'
    ]
    assert snapshot() == before


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (None, "the image file 'images/teaser.png' does not exist next to the fixture"),
        (b"", "the image file is empty"),
        (
            b"GIF89a but not really an image",
            "This file is not an image that can be shown: upload a PNG, JPEG, GIF or WebP.",
        ),
        (
            b"\x89PNG" + b"0" * (5 * 1024 * 1024),
            "The image is 5.0\xa0MB; the limit is 5.0\xa0MB.",
        ),
        (
            b'<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg"/>',
            "SVG drawings are not accepted: upload a PNG, JPEG, GIF or WebP image.",
        ),
    ],
    ids=["missing", "empty", "not-an-image", "too-large", "svg"],
)
def test_import_bad_image(tmp_path, before, media, content, message):
    if content is not None:
        (tmp_path / "images").mkdir()
        (tmp_path / "images" / "teaser.png").write_bytes(content)
    objects = small_fixture()
    paper = obj(objects, "papers.paper")["fields"]
    paper.update(image="images/teaser.png", image_alt_en="A figure", image_alt_zh_hans="一张图")

    lines = run_failing(write(tmp_path, objects))

    assert lines == [
        f"{tmp_path / 'fixture.json'}, object 6, papers.paper [\"p1\"], field 'image': {message}"
    ]
    assert snapshot() == before
    assert not media.exists()


def test_import_image_needs_a_description_in_both_languages(tmp_path, before, media):
    """The admin's rule (Paper.clean), applied to the values the paper would have."""
    (tmp_path / "teaser.png").write_bytes(png_bytes())
    objects = small_fixture()
    obj(objects, "papers.paper")["fields"].update(image="teaser.png", image_alt_en="A figure")

    lines = run_failing(write(tmp_path, objects))

    assert lines == [
        f'{tmp_path / "fixture.json"}, object 6, papers.paper ["p1"], '
        "field 'image_alt_zh_hans': Describe the image for readers who cannot see it."
    ]
    assert snapshot() == before


def test_import_image_is_stored_normalised_like_an_upload(tmp_path, db, media):
    """Same rules as the admin: a GIF becomes a PNG, named after its content."""
    buffer = io.BytesIO()
    Image.new("P", (6, 6)).save(buffer, "GIF")
    (tmp_path / "teaser.gif").write_bytes(buffer.getvalue())
    objects = small_fixture()
    obj(objects, "papers.paper")["fields"].update(
        image="teaser.gif", image_alt_en="A figure", image_alt_zh_hans="一张图"
    )
    path = write(tmp_path, objects)

    import_fixture(path)
    plan = import_fixture(path)

    paper = Paper.objects.get(slug="p1")
    assert paper.image.name == "papers/teaser.png"
    with Image.open(media / paper.image.name) as stored:
        assert stored.format == "PNG"
    assert not plan.writes_anything


def test_prepare_image_refuses_a_format_browsers_do_not_show():
    buffer = io.BytesIO()
    Image.new("RGB", (4, 4)).save(buffer, "TIFF")

    with pytest.raises(ValidationError, match="TIFF images are not accepted"):
        prepare_image(buffer.getvalue(), "figure.tiff")


def test_prepare_image_names_the_file_after_its_content():
    name, data = prepare_image(png_bytes(), "figure.txt")

    assert (name, Image.open(io.BytesIO(data)).format) == ("figure.png", "PNG")


def test_import_empty_slug_is_refused(tmp_path, before):
    """The admin may leave a slug blank (it makes one); a fixture must name its objects."""
    objects = small_fixture()
    obj(objects, "papers.author", slug="ann")["fields"]["slug"] = ""

    lines = run_failing(write(tmp_path, objects))

    assert lines[0] == (
        f"{tmp_path / 'fixture.json'}, object 4, papers.author [\"\"], field 'slug': "
        "part of the natural key: it cannot be empty"
    )
    assert snapshot() == before


def test_import_reports_every_problem_at_once(tmp_path, before):
    objects = small_fixture()
    obj(objects, "papers.conference")["fields"]["website"] = "not a url"
    obj(objects, "papers.paper")["fields"]["title_de"] = "Titel"
    del obj(objects, "papers.author", slug="bob")["fields"]["name"]
    objects.append({"model": "papers.paper", "pk": 3, "fields": {"slug": "p9"}})

    with pytest.raises(FixtureInvalid) as raised:
        import_fixture(write(tmp_path, objects))

    assert [(p.index, p.label, p.key, p.field) for p in raised.value.problems] == [
        (2, "papers.conference", ("tv-2030",), "website"),
        (5, "papers.author", ("bob",), "name"),
        (6, "papers.paper", ("p1",), "title_de"),
        (13, "papers.paper", None, None),
        (13, "papers.paper", ("p9",), "title_en"),
        (13, "papers.paper", ("p9",), "conference"),
    ]
    assert len(run_failing(write(tmp_path, objects))) == 6
    assert snapshot() == before


def test_import_fixture_raises_with_every_problem(tmp_path, db):
    objects = small_fixture()
    obj(objects, "papers.paperlink")["fields"]["url"] = "nope"
    obj(objects, "papers.award")["fields"]["position"] = -1

    with pytest.raises(FixtureInvalid) as raised:
        import_fixture(write(tmp_path, objects))

    assert [(problem.label, problem.field) for problem in raised.value.problems] == [
        ("papers.paperlink", "url"),
        ("papers.award", "position"),
    ]


# --- what a valid import does --------------------------------------------------------


def test_import_creates_everything_with_references_in_any_order(tmp_path, db):
    """Award entries before their award and paper, authorships before their authors."""
    objects = list(reversed(small_fixture()))

    out, _ = run(write(tmp_path, objects))

    paper = Paper.objects.get(slug="p1")
    assert [(a.author.slug, a.position) for a in paper.ordered_authorships] == [
        ("ann", 1),
        ("bob", 2),
    ]
    assert list(paper.authorships.get(author__slug="bob").affiliations.all()) == [
        Institution.objects.get(slug="inst")
    ]
    assert list(AwardEntry.objects.values_list("award__slug", "paper__slug", "level__slug")) == [
        ("best", "p1", "winner")
    ]
    assert paper.conference.start_date.isoformat() == "2030-05-01"
    assert out.splitlines()[-1] == "12 created, 0 updated, 0 unchanged."


def test_import_analyses_the_tables_it_wrote_on_postgresql(tmp_path, db):
    """PostgreSQL plans from statistics that only ANALYZE (or autovacuum, later) makes:
    after an import they count the rows it wrote, in its models' tables and in the
    tables of their many-to-many relations (affiliations)."""
    if connection.vendor != "postgresql":
        pytest.skip("PostgreSQL only (make test-postgres)")
    tables = [Affiliation._meta.db_table, Paper._meta.db_table]
    with connection.cursor() as cursor:
        cursor.execute(f"ANALYZE {', '.join(tables)}")  # the statistics of empty tables

    import_fixture(write(tmp_path, small_fixture()))

    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT relname, reltuples FROM pg_class WHERE relname = ANY(%s) ORDER BY relname",
            [tables],
        )
        assert cursor.fetchall() == [(tables[0], 1.0), (tables[1], 1.0)]


def test_import_leaves_new_objects_draft_unless_published(tmp_path, db):
    import_fixture(write(tmp_path, small_fixture()))

    assert Award.objects.get(slug="best").status == "draft"
    assert Paper.objects.get(slug="p1").status == "published"


def test_import_dry_run_writes_nothing_and_lists_every_object(tmp_path, icml, media):
    path = DATA / "example-2026.json"
    import_fixture(DATA / "example-2016.json")
    before = snapshot()

    out, _ = run(path, "--dry-run")

    lines = out.splitlines()
    assert lines[:2] == [
        'create papers.conference ["example-2026"]',
        'create papers.institution ["example-institute"]',
    ]
    assert len(lines) == 18
    assert (
        lines[-1]
        == "17 would be created, 0 would be updated, 0 unchanged. Dry run: nothing was written."
    )
    assert snapshot() == before
    assert not (media / "papers").exists()


def test_import_dry_run_shows_updates_and_unchanged(tmp_path, db):
    objects = small_fixture()
    path = write(tmp_path, objects)
    import_fixture(path)
    obj(objects, "papers.paper")["fields"]["title_en"] = "Paper One, revised"
    path = write(tmp_path, objects)
    before = snapshot()

    out, _ = run(path, "--dry-run")

    lines = out.splitlines()
    index = lines.index('update papers.paper ["p1"]: title_en')
    assert lines[index + 1] == '    title_en: "Paper One" -> "Paper One, revised"'
    assert 'unchanged papers.author ["ann"]' in lines
    assert (
        lines[-1]
        == "0 would be created, 1 would be updated, 11 unchanged. Dry run: nothing was written."
    )
    assert snapshot() == before


def test_import_twice_changes_nothing_and_says_so(tmp_path, db, media):
    path = DATA / "example-2016.json"
    run(path)
    before = snapshot()

    out, _ = run(path)

    assert out == f"Nothing to change: the database already matches {path} (6 objects).\n"
    assert snapshot() == before


def test_import_applies_a_changed_file(tmp_path, db):
    objects = small_fixture()
    import_fixture(write(tmp_path, objects))
    obj(objects, "papers.paper")["fields"]["title_zh_hans"] = "论文一（修订）"
    obj(objects, "papers.authorship", position=2)["fields"]["affiliations"] = []

    out, _ = run(write(tmp_path, objects))

    assert Paper.objects.get(slug="p1").title_zh_hans == "论文一（修订）"
    assert not Authorship.objects.get(author__slug="bob").affiliations.exists()
    assert out.splitlines()[-1] == "0 created, 2 updated, 10 unchanged."


def test_import_swaps_author_positions(tmp_path, db):
    objects = small_fixture()
    import_fixture(write(tmp_path, objects))
    obj(objects, "papers.authorship", position=1)["fields"]["position"] = 3
    obj(objects, "papers.authorship", position=2)["fields"]["position"] = 1
    obj(objects, "papers.authorship", position=3)["fields"]["position"] = 2

    import_fixture(write(tmp_path, objects))

    assert [a.author.slug for a in Paper.objects.get(slug="p1").ordered_authorships] == [
        "bob",
        "ann",
    ]


def test_import_keeps_an_editors_change_and_lists_the_conflict(tmp_path, db):
    objects = small_fixture()
    path = write(tmp_path, objects)
    import_fixture(path)
    Paper.objects.filter(slug="p1").update(title_zh_hans="编辑修改的标题")
    before = snapshot()

    out, _ = run(path)

    assert Paper.objects.get(slug="p1").title_zh_hans == "编辑修改的标题"
    assert out.splitlines() == [
        'conflict papers.paper ["p1"] title_zh_hans: an editor changed it since the last '
        'import; kept "编辑修改的标题", the file has "论文一" (--overwrite takes the '
        "file's value)",
        f"No object changed: {path} matches the database (12 objects) except 1 field an "
        "editor changed, kept (use --overwrite to take the file's values).",
    ]
    assert snapshot() == before


def test_a_long_kept_value_is_shortened_inside_its_quotes(tmp_path, db):
    path = write(tmp_path, small_fixture())
    import_fixture(path)
    Paper.objects.filter(slug="p1").update(title_zh_hans="sha256:" + "f750" * 20)

    out, _ = run(path, "--verbosity", 0)

    assert out.splitlines() == [
        'conflict papers.paper ["p1"] title_zh_hans: an editor changed it since the last '
        f'import; kept "sha256:{"f750" * 12}f7…", the file has "论文一" (--overwrite takes '
        "the file's value)",
    ]


def test_verbosity_0_prints_only_what_needs_an_editors_eye(tmp_path, db):
    path = write(tmp_path, small_fixture())

    assert run(path, "--verbosity", 0) == ("", "")
    assert Paper.objects.filter(slug="p1").exists()

    Paper.objects.filter(slug="p1").update(title_zh_hans="编辑修改的标题")
    out, _ = run(path, "--verbosity", 0)

    assert out.splitlines() == [
        'conflict papers.paper ["p1"] title_zh_hans: an editor changed it since the last '
        'import; kept "编辑修改的标题", the file has "论文一" (--overwrite takes the '
        "file's value)",
    ]


def test_import_keeps_an_editors_change_when_the_file_changes_too(tmp_path, db):
    objects = small_fixture()
    import_fixture(write(tmp_path, objects))
    Author.objects.filter(slug="ann").update(name="Ann Editor")
    obj(objects, "papers.author", slug="ann")["fields"]["name"] = "Ann File"
    obj(objects, "papers.author", slug="bob")["fields"]["name"] = "Bob File"

    plan = import_fixture(write(tmp_path, objects))

    assert dict(Author.objects.values_list("slug", "name")) == {
        "ann": "Ann Editor",
        "bob": "Bob File",
    }
    assert [(c.item.key, c.conflicts) for c in plan.conflicts] == [
        (("ann",), {"name": ("Ann Editor", "Ann File")})
    ]


def test_import_overwrite_takes_the_files_value(tmp_path, db):
    path = write(tmp_path, small_fixture())
    import_fixture(path)
    Paper.objects.filter(slug="p1").update(title_zh_hans="编辑修改的标题")

    out, _ = run(path, "--overwrite")

    assert Paper.objects.get(slug="p1").title_zh_hans == "论文一"
    assert out.splitlines()[-1] == "0 created, 1 updated, 11 unchanged."
    assert run(path)[0] == f"Nothing to change: the database already matches {path} (12 objects).\n"


def test_import_keeps_values_never_imported_but_fills_empty_ones(tmp_path, icml):
    """loaddata or an editor set these; the importer has no record of them."""
    objects = [
        {
            "model": "papers.author",
            "fields": {
                "slug": "jake-snell",
                "name": "J. Snell",
                "homepage": "https://j.example.org/",
            },
        }
    ]

    plan = import_fixture(write(tmp_path, objects))

    author = Author.objects.get(slug="jake-snell")
    assert (author.name, author.homepage) == ("Jake Snell", "https://j.example.org/")
    assert plan.conflicts[0].conflicts == {"name": ("Jake Snell", "J. Snell")}


def test_import_yaml_gives_the_same_objects_as_json(tmp_path, db):
    import yaml

    path = tmp_path / "fixture.yaml"
    objects = small_fixture()
    obj(objects, "papers.conference")["fields"].pop("start_date")
    text = yaml.safe_dump(objects, allow_unicode=True) + "\n"
    path.write_text(
        text.replace("end_date: '2030-05-03'", "end_date: 2030-05-03"), encoding="utf-8"
    )

    import_fixture(path)

    conference = Conference.objects.get(slug="tv-2030")
    assert (conference.start_date, str(conference.end_date)) == (None, "2030-05-03")
    assert Paper.objects.get(slug="p1").title_zh_hans == "论文一"


# --- the documented example, the round trip and the shipped fixtures ---------------------


def test_documented_example_imports(icml, media):
    run(DATA / "example-2016.json")

    out, _ = run(DATA / "example-2026.json")

    conference = Conference.objects.get(slug="example-2026")
    assert list(conference.awards.values_list("slug", "name_en", "name_zh_hans")) == [
        ("best-example-paper", "Best Example Paper Award", "最佳示例论文奖"),
        ("test-of-time", "Example Test of Time Award", "示例时间检验奖"),
    ]
    test_of_time = AwardEntry.objects.get(award__slug="test-of-time", award__conference=conference)
    assert test_of_time.paper.conference.slug == "example-2016"
    paper = Paper.objects.get(slug="learning-from-examples")
    assert [a.author.slug for a in paper.ordered_authorships] == ["bo-sample", "ada-example"]
    assert Author.objects.get(slug="ada-example").papers.count() == 3
    assert paper.image.name == "papers/learning-from-examples.png"
    with Image.open(media / paper.image.name) as stored:
        assert (stored.format, stored.size) == ("PNG", (64, 48))
    assert out.splitlines()[-1] == "17 created, 0 updated, 0 unchanged."


def test_documented_example_is_the_one_in_the_docs():
    docs = (Path(__file__).parents[2] / "docs" / "fixture-format.md").read_text(encoding="utf-8")
    example = (DATA / "example-2026.json").read_text(encoding="utf-8")

    assert example.strip() in docs


def test_round_trip_is_byte_identical(tmp_path, transactional_db, icml, media):
    # transactional_db: PostgreSQL refuses flush's TRUNCATE inside the test's
    # transaction while deferred foreign-key checks are pending.
    import_fixture(DATA / "example-2016.json")
    import_fixture(DATA / "example-2026.json")
    first = tmp_path / "first" / "example-2026.json"
    second = tmp_path / "second" / "example-2026.json"
    first.parent.mkdir()
    second.parent.mkdir()
    call_command("export_conference", "example-2026", "-o", str(first), stderr=io.StringIO())

    call_command("flush", "--noinput")
    assert Paper.objects.count() == 0
    import_fixture(first)
    call_command("export_conference", "example-2026", "-o", str(second), stderr=io.StringIO())

    assert second.read_bytes() == first.read_bytes()
    assert (second.parent / "images" / "learning-from-examples.png").read_bytes() == (
        first.parent / "images" / "learning-from-examples.png"
    ).read_bytes()
    exported = json.loads(first.read_text(encoding="utf-8"))
    paper = obj(exported, "papers.paper", slug="a-second-example")
    assert paper["fields"]["title_zh_hans"] == ""
    assert paper["fields"]["title_en"] == "A Second Example"


def test_export_of_shipped_conference_is_the_shipped_fixture(tmp_path, icml):
    """Everything that belongs to ICML 2025, including the ICML 2015 papers it honoured."""
    out = io.StringIO()

    call_command("export_conference", "icml-2025", stdout=out)

    shipped = json.loads((Path(__file__).parents[2] / "fixtures" / "icml.json").read_text())

    def canonical(objects):
        return sorted(json.dumps(o, sort_keys=True, ensure_ascii=False) for o in objects)

    assert canonical(json.loads(out.getvalue())) == canonical(shipped)


def test_export_unknown_conference_is_an_error(db):
    with pytest.raises(CommandError, match="no conference with the slug 'nope'"):
        call_command("export_conference", "nope")


def test_export_list_names_every_conference_drafts_too(icml):
    Conference.objects.filter(slug="icml-2015").update(status=Status.DRAFT)
    out = io.StringIO()

    call_command("export_conference", "--list", stdout=out)

    assert out.getvalue().splitlines() == ["icml-2015", "icml-2025"]
    for args in (["--list", "icml-2025"], []):
        with pytest.raises(CommandError, match="--list"):
            call_command("export_conference", *args)


def test_export_with_images_needs_an_output_file(icml, media):
    import_fixture(DATA / "example-2016.json")
    import_fixture(DATA / "example-2026.json")

    with pytest.raises(CommandError, match="this conference has images"):
        call_command("export_conference", "example-2026", stdout=io.StringIO())


def test_loaddata_of_shipped_fixtures_still_works_and_import_agrees(db):
    call_command("loaddata", "icml", verbosity=0)
    before = snapshot()

    plan = import_fixture(Path(__file__).parents[2] / "fixtures" / "icml.json")

    assert (plan.count("create"), plan.count("update"), plan.conflicts) == (0, 0, [])
    assert {k: v for k, v in snapshot().items() if k != "ImportRecord"} == {
        k: v for k, v in before.items() if k != "ImportRecord"
    }
    assert ImportRecord.objects.count() == 226


def test_documented_yaml_snippet_matches_the_example():
    import yaml

    docs = (Path(__file__).parents[2] / "docs" / "fixture-format.md").read_text(encoding="utf-8")
    snippet = docs.split("```yaml\n", 1)[1].split("```", 1)[0]
    example = json.loads((DATA / "example-2026.json").read_text(encoding="utf-8"))

    for written in yaml.safe_load(snippet):
        fields = {
            name: value.isoformat() if hasattr(value, "isoformat") else value
            for name, value in written["fields"].items()
        }
        key = {name: fields[name] for name in ("slug", "paper", "author") if name in fields}
        assert fields.items() <= obj(example, written["model"], **key)["fields"].items()


def test_export_leaves_out_a_missing_stored_image_and_warns(icml, media):
    """One lost file in the media storage does not stop the export of everything else."""
    from importing.exporting import export_conference

    import_fixture(DATA / "example-2016.json")
    import_fixture(DATA / "example-2026.json")
    complete = json.loads(export_conference("example-2026").text)
    (media / "papers" / "learning-from-examples.png").unlink()
    output, err = media / "out" / "out.json", io.StringIO()
    output.parent.mkdir()

    call_command("export_conference", "example-2026", "-o", str(output), stderr=err)

    assert err.getvalue().splitlines() == [
        "warning: papers.paper [\"learning-from-examples\"], field 'image': the image "
        "papers/learning-from-examples.png cannot be read (No such file or directory); "
        'it is left out (written "")',
        f"Wrote {output}.",
    ]
    assert obj(complete, "papers.paper", slug="learning-from-examples")["fields"]["image"]
    obj(complete, "papers.paper", slug="learning-from-examples")["fields"]["image"] = ""
    assert json.loads(output.read_text(encoding="utf-8")) == complete
    assert not (output.parent / "images").exists()


def test_import_field_written_twice_in_one_object(tmp_path, before):
    path = tmp_path / "twice.json"
    path.write_text(
        '[{"model": "papers.author", "fields": {"slug": "x", "name": "A", "name": "B"}}]',
        encoding="utf-8",
    )

    lines = run_failing(path)

    assert lines == [
        f"{path}, object 1, papers.author [\"x\"], field 'name': written more than once in this "
        "object"
    ]
    assert snapshot() == before


def test_import_field_written_twice_in_one_yaml_mapping(tmp_path, before):
    path = tmp_path / "twice.yaml"
    path.write_text(
        "- model: papers.author\n  fields: {slug: x, name: A, name: B}\n", encoding="utf-8"
    )

    lines = run_failing(path)

    assert lines == [
        f"{path}, object 1, papers.author [\"x\"], field 'name': written more than once in this "
        "object"
    ]
    assert snapshot() == before


def test_import_yaml_mapping_with_a_list_as_key_is_invalid_yaml(tmp_path, before):
    path = tmp_path / "odd.yaml"
    path.write_text("- model: papers.author\n  fields:\n    ? [a, b]\n    : 1\n", encoding="utf-8")

    lines = run_failing(path)

    assert lines == [
        f"{path}:3:7: invalid YAML: found unhashable key (while constructing a mapping at "
        "line 3 column 5)"
    ]
    assert snapshot() == before


def test_import_command_exits_non_zero_on_a_bad_file(tmp_path):
    """The real command line: status 1, the problem on standard error, nothing written."""
    import os
    import subprocess
    import sys

    path = write(tmp_path, [{"model": "papers.nothing", "fields": {}}])
    database = tmp_path / "db.sqlite3"
    env = {**os.environ, "DJANGO_INSECURE_DEV": "true", "DATABASE_URL": f"sqlite:///{database}"}
    manage = Path(__file__).parents[2] / "manage.py"
    subprocess.run([sys.executable, manage, "migrate", "-v0"], env=env, check=True)

    result = subprocess.run(
        [sys.executable, manage, "import_conference", path], env=env, capture_output=True, text=True
    )

    assert result.returncode == 1
    assert f"{path}, object 1: unknown model 'papers.nothing'" in result.stderr
    assert "1 problem in" in result.stderr


def test_import_updates_enter_the_admins_history(tmp_path, db):
    from reversion.models import Revision, Version

    objects = small_fixture()
    first = write(tmp_path, objects)
    import_fixture(first)
    # A revision of its own for each object, and for each affiliation row (an
    # authorship's own), so that restoring one object leaves the others alone.
    assert Revision.objects.count() == len(objects) + Affiliation.objects.count()
    obj(objects, "papers.paper")["fields"]["title_en"] = "Paper One, revised"
    path = write(tmp_path, objects)

    import_fixture(path)

    versions = Version.objects.get_for_object(Paper.objects.get(slug="p1"))
    assert [(v.field_dict["title_en"], v.revision.comment) for v in versions] == [
        ("Paper One, revised", f"import_conference {path}"),
        ("Paper One", f"import_conference {first}"),
    ]


# --- QA round: NUL characters, deep nesting, image paths, positions -------------------


@pytest.mark.parametrize(
    ("model", "match", "name", "value", "where"),
    [
        ("papers.paper", {}, "title_en", "a\u0000b", 'object 6, papers.paper ["p1"]'),
        ("papers.author", {"slug": "ann"}, "slug", "an\u0000n", "object 4, papers.author"),
        ("papers.paper", {}, "conference", ["tv\u00002030"], 'object 6, papers.paper ["p1"]'),
        (
            "papers.authorship",
            {"position": 2},
            "affiliations",
            [["in\u0000st"]],
            'object 8, papers.authorship ["p1", "bob"]',
        ),
        ("papers.paper", {}, "image", "teaser\u0000.png", 'object 6, papers.paper ["p1"]'),
    ],
    ids=["text", "slug", "reference", "references", "image-path"],
)
@pytest.mark.parametrize("dry_run", [False, True], ids=["import", "dry-run"])
def test_import_null_character_is_refused(
    tmp_path, before, model, match, name, value, where, dry_run
):
    """PostgreSQL cannot store NUL in text: every string is checked, keys and slugs too."""
    objects = small_fixture()
    obj(objects, model, **match)["fields"][name] = value

    lines = run_failing(write(tmp_path, objects), *(["--dry-run"] if dry_run else []))

    assert f"{tmp_path / 'fixture.json'}, {where}" in lines[0]
    assert lines[0].endswith(f"field {name!r}: Null characters are not allowed.")
    assert snapshot() == before


@pytest.mark.parametrize(
    ("name", "text", "kind"),
    [
        ("deep.json", "[" * 2000 + "]" * 2000, "JSON"),
        ("deep.yaml", "[" * 2000 + "]" * 2000, "YAML"),
        ("deep.yml", "- " * 2000 + "x\n", "YAML"),
        # Parsed without trouble, but deeper than any fixture: refused before the checks.
        (
            "field.json",
            '[{"model": "papers.author", "fields": {"name": ' + "[" * 500 + "]" * 500 + "}}]",
            "JSON",
        ),
    ],
    ids=["json", "yaml-flow", "yaml-block", "deep-field"],
)
def test_import_deeply_nested_file_is_invalid(tmp_path, before, name, text, kind):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")

    lines = run_failing(path)

    assert lines == [
        f"{path}: invalid {kind}: nested too deeply (more than 20 levels of lists and objects)"
    ]
    assert snapshot() == before


def test_import_deeply_nested_file_exits_non_zero(tmp_path):
    """The real command line: no traceback, status 1."""
    import os
    import subprocess
    import sys

    path = tmp_path / "deep.json"
    path.write_text("[" * 2000 + "]" * 2000, encoding="utf-8")
    env = {**os.environ, "DJANGO_INSECURE_DEV": "true"}
    manage = Path(__file__).parents[2] / "manage.py"

    result = subprocess.run(
        [sys.executable, manage, "import_conference", "--dry-run", path],
        env=env,
        capture_output=True,
        text=True,
    )

    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    assert f"{path}: invalid JSON: nested too deeply" in result.stderr


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (
            "../../etc/passwd",
            "the image path '../../etc/passwd' leads outside the fixture's folder: the image "
            "must be in that folder or below it",
        ),
        (
            "images/../../outside.png",
            "the image path 'images/../../outside.png' leads outside the fixture's folder: "
            "the image must be in that folder or below it",
        ),
        (
            "/etc/hostname",
            "the image path '/etc/hostname' is absolute: write it relative to the fixture's folder",
        ),
        (
            "images/link.png",
            "the image path 'images/link.png' leads outside the fixture's folder: the image "
            "must be in that folder or below it",
        ),
    ],
    ids=["dot-dot", "dot-dot-in-a-folder", "absolute", "symlink-out"],
)
def test_import_image_path_must_stay_in_the_fixtures_folder(
    tmp_path, before, media, value, message
):
    folder = tmp_path / "fixture"
    (folder / "images").mkdir(parents=True)
    (tmp_path / "outside.png").write_bytes(png_bytes())  # a real image, so only the path fails
    (folder / "images" / "link.png").symlink_to(tmp_path / "outside.png")
    objects = small_fixture()
    obj(objects, "papers.paper")["fields"].update(
        image=value, image_alt_en="A figure", image_alt_zh_hans="一张图"
    )

    lines = run_failing(write(folder, objects))

    assert lines == [
        f"{folder / 'fixture.json'}, object 6, papers.paper [\"p1\"], field 'image': {message}"
    ]
    assert snapshot() == before
    assert not media.exists()


def test_import_image_path_may_use_dot_dot_and_links_inside_the_folder(tmp_path, db, media):
    (tmp_path / "images").mkdir()
    (tmp_path / "teaser.png").write_bytes(png_bytes())
    (tmp_path / "images" / "link.png").symlink_to(tmp_path / "teaser.png")
    objects = small_fixture()
    obj(objects, "papers.paper")["fields"].update(
        image="images/../images/link.png", image_alt_en="A figure", image_alt_zh_hans="一张图"
    )

    import_fixture(write(tmp_path, objects))

    assert Paper.objects.get(slug="p1").image.name == "papers/link.png"


def test_import_author_position_zero_says_positions_start_at_1(tmp_path, before):
    objects = small_fixture()
    obj(objects, "papers.authorship", position=1)["fields"]["position"] = 0
    obj(objects, "papers.authorship", position=2)["fields"]["position"] = 1

    lines = run_failing(write(tmp_path, objects))

    assert lines == [
        f'{tmp_path / "fixture.json"}, object 7, papers.authorship ["p1", "ann"], '
        "field 'position': Author positions start at 1 (position 0)."
    ]
    assert snapshot() == before


# --- award levels, link kinds and affiliation order (issue 9) -------------------------


def test_import_unknown_level_lists_the_awards_levels(tmp_path, before):
    objects = small_fixture()
    objects.append(
        {
            "model": "papers.awardlevel",
            "fields": {
                "award": ["tv-2030", "best"],
                "slug": "runner-up",
                "name_en": "Runner-up",
                "name_plural_en": "Runners-up",
                "position": 2,
            },
        }
    )
    obj(objects, "papers.awardentry")["fields"]["level"] = ["tv-2030", "best", "honorable-mention"]

    lines = run_failing(write(tmp_path, objects))

    assert lines == [
        f'{tmp_path / "fixture.json"}, object 11, papers.awardentry ["tv-2030", "best", "p1"], '
        "field 'level': refers to papers.awardlevel "
        '["tv-2030", "best", "honorable-mention"], which is neither in this file nor in the '
        'database; the award levels of papers.award ["tv-2030", "best"] are winner, runner-up'
    ]
    assert snapshot() == before


def test_import_level_of_another_award_is_refused(tmp_path, before):
    objects = small_fixture()
    obj(objects, "papers.awardentry")["fields"]["level"] = [
        "icml-2025",
        "test-of-time",
        "honourable-mention",
    ]

    lines = run_failing(write(tmp_path, objects))

    assert lines == [
        f'{tmp_path / "fixture.json"}, object 11, papers.awardentry ["tv-2030", "best", "p1"], '
        "field 'level': This level belongs to another award "
        '(level ["icml-2025", "test-of-time", "honourable-mention"]).'
    ]
    assert snapshot() == before


def test_import_accepts_every_link_kind(tmp_path, db):
    objects = small_fixture()
    kinds = ["proceedings", "project", "dataset", "video", "slides"]
    objects += [
        {
            "model": "papers.paperlink",
            "fields": {"paper": ["p1"], "kind": kind, "url": f"https://{kind}.example.org/"},
        }
        for kind in kinds
    ]

    import_fixture(write(tmp_path, objects))

    assert sorted(PaperLink.objects.values_list("kind", flat=True)) == sorted(["code", *kinds])


def test_import_keeps_affiliation_order_and_notices_a_change(tmp_path, db):
    objects = small_fixture()
    objects.append({"model": "papers.institution", "fields": {"slug": "abc", "name_en": "Abc"}})
    bob = obj(objects, "papers.authorship", position=2)
    bob["fields"]["affiliations"] = [["inst"], ["abc"]]  # not alphabetical
    import_fixture(write(tmp_path, objects))
    exported = tmp_path / "exported.json"
    call_command("export_conference", "tv-2030", "-o", str(exported), stderr=io.StringIO())

    written = obj(json.loads(exported.read_text()), "papers.authorship", position=2)
    bob["fields"]["affiliations"] = [["abc"], ["inst"]]
    out, _ = run(write(tmp_path, objects), "--dry-run")

    assert written["fields"]["affiliations"] == [["inst"], ["abc"]]
    assert 'update papers.authorship ["p1", "bob"]: affiliations' in out.splitlines()
    run(write(tmp_path, objects))
    authorship = Paper.objects.for_detail().get(slug="p1").ordered_authorships[1]
    assert [i.slug for i in authorship.affiliations.all()] == ["abc", "inst"]


def test_import_unknown_link_kind_lists_the_kinds(tmp_path, before):
    objects = small_fixture()
    obj(objects, "papers.paperlink")["fields"]["kind"] = "website"

    lines = run_failing(write(tmp_path, objects))

    assert lines == [
        f'{tmp_path / "fixture.json"}, object 9, papers.paperlink ["p1", "website"], '
        "field 'kind': "
        '"website" is not allowed; the values are pmlr, proceedings, openreview, arxiv, '
        "poster, pdf, doi, project, code, dataset, video, slides"
    ]
    assert snapshot() == before


def test_benchmark_fixture_imports(tmp_path, db):
    """`make bench-import` times a synthetic fixture: it must stay a valid one."""
    bench = load("benchmarks/import_conference.py", "bench_import_conference")

    plan = import_fixture(write(tmp_path, bench.synthetic_fixture(papers=20, authors=30)))

    assert plan.problems == []
    assert AwardEntry.objects.filter(level__slug="honourable-mention").count() == 10


# --- a lone surrogate escape (issue 8): a clear error, not a traceback ---------------

SURROGATE_MESSAGE = (
    "holds a lone surrogate (an escape such as \\ud800 that is half of a UTF-16 pair, "
    "not a character); write the character itself or its full pair"
)


def test_import_json_with_a_lone_surrogate_names_object_and_field(tmp_path, before):
    objects = small_fixture()
    obj(objects, "papers.paper")["fields"]["title_en"] = "Half \ud800 a pair"
    path = tmp_path / "surrogate.json"
    # json.dumps writes the escape "\ud800", as an editor's tool might.
    path.write_text(json.dumps(objects), encoding="utf-8")
    index = objects.index(obj(objects, "papers.paper")) + 1

    lines = run_failing(path)

    assert lines == [
        f"{path}, object {index}, papers.paper, field 'title_en': the text {SURROGATE_MESSAGE}"
    ]
    assert snapshot() == before


def test_import_yaml_with_lone_surrogates_lists_each(tmp_path, before):
    path = tmp_path / "surrogate.yaml"
    path.write_text(
        "- model: papers.venue\n"
        "  fields:\n"
        "    slug: tv\n"
        '    acronym: "TV\\udc00"\n'
        '    name_en: "Test \\ud800 venue"\n',
        encoding="utf-8",
    )

    lines = run_failing(path, "--dry-run")

    assert lines == [
        f"{path}, object 1, papers.venue, field 'acronym': the text {SURROGATE_MESSAGE}",
        f"{path}, object 1, papers.venue, field 'name_en': the text {SURROGATE_MESSAGE}",
    ]
    assert snapshot() == before


def test_import_surrogate_in_a_field_name_is_reported(tmp_path, before):
    objects = small_fixture()
    objects[0]["fields"]["\udfff"] = "x"
    path = tmp_path / "surrogate.json"
    path.write_text(json.dumps(objects), encoding="utf-8")

    lines = run_failing(path)

    assert lines == [
        f"{path}, object 1, papers.venue, field '?': the name '\\udfff' {SURROGATE_MESSAGE}"
    ]
    assert snapshot() == before


def test_import_accepts_a_full_surrogate_pair(tmp_path, db, media):
    objects = small_fixture()
    obj(objects, "papers.paper")["fields"]["title_en"] = "Maths \U0001d4af"
    path = tmp_path / "pair.json"
    path.write_text(json.dumps(objects), encoding="utf-8")  # written as \ud835\udcaf

    run(path)

    assert Paper.objects.get(slug=obj(objects, "papers.paper")["fields"]["slug"]).title_en == (
        "Maths \U0001d4af"
    )


# --- one error per mistake (issue 9, item 6) -------------------------------------------


def test_import_non_ascii_slug_is_one_error_that_suggests_a_transliteration(tmp_path, before):
    """The author's slug is refused; the authorship naming it and the position it held
    are consequences, not mistakes of their own."""
    objects = small_fixture()
    obj(objects, "papers.author", slug="ann")["fields"]["slug"] = "kynkäänniemi"
    obj(objects, "papers.authorship", position=1)["fields"]["author"] = ["kynkäänniemi"]

    lines = run_failing(write(tmp_path, objects))

    assert lines == [
        f'{tmp_path / "fixture.json"}, object 4, papers.author ["kynkäänniemi"], '
        "field 'slug': “kynkäänniemi” is not a valid slug: a slug holds only ASCII letters, "
        "digits, hyphens and underscores, so letters such as ä or é need a "
        "transliteration, e.g. “kynkaanniemi”."
    ]
    assert snapshot() == before


@pytest.mark.parametrize(
    ("slug", "suggestion"),
    [("Röttger", "rottger"), ("Dollár", "dollar"), ("Kynkäänniemi", "kynkaanniemi")],
)
def test_import_slug_message_says_ascii(tmp_path, before, slug, suggestion):
    objects = small_fixture()
    obj(objects, "papers.author", slug="bob")["fields"]["slug"] = slug

    lines = run_failing(write(tmp_path, objects))

    assert lines[0].endswith(
        f"field 'slug': “{slug}” is not a valid slug: a slug holds only ASCII letters, "
        "digits, hyphens and underscores, so letters such as ä or é need a "
        f"transliteration, e.g. “{suggestion}”."
    )


def test_import_wrong_award_key_is_one_error(tmp_path, before):
    """The award's own key differs from the one its level and entry name: one missing
    award, not one problem per reference (nor the level it implies)."""
    objects = small_fixture()
    obj(objects, "papers.award")["fields"]["slug"] = "best-paper"

    lines = run_failing(write(tmp_path, objects))

    assert lines == [
        f'{tmp_path / "fixture.json"}, object 11, papers.awardentry ["tv-2030", "best", "p1"], '
        'field \'award\': refers to papers.award ["tv-2030", "best"], which is neither in '
        'this file nor in the database; the awards of papers.conference ["tv-2030"] are '
        "best-paper (object 12 refers to it too)"
    ]
    assert snapshot() == before


def test_import_invalid_award_key_is_not_reported_again_by_its_levels_and_entries(tmp_path, before):
    objects = small_fixture()
    obj(objects, "papers.award")["fields"]["slug"] = "Best Paper"
    obj(objects, "papers.awardlevel")["fields"]["award"] = ["tv-2030", "Best Paper"]
    entry = obj(objects, "papers.awardentry")["fields"]
    entry.update(award=["tv-2030", "Best Paper"], level=["tv-2030", "Best Paper", "winner"])

    lines = run_failing(write(tmp_path, objects))

    assert lines == [
        f'{tmp_path / "fixture.json"}, object 10, papers.award ["tv-2030", "Best Paper"], '
        "field 'slug': “Best Paper” is not a valid slug: a slug holds only ASCII letters, "
        "digits, hyphens and underscores, e.g. “best-paper”."
    ]
    assert snapshot() == before


def test_import_level_of_a_missing_award_names_the_award(tmp_path, before):
    """A mistyped award inside a level's key is still reported (once), not left out."""
    objects = small_fixture()
    obj(objects, "papers.awardentry")["fields"]["level"] = ["tv-2030", "bset", "winner"]

    lines = run_failing(write(tmp_path, objects))

    assert lines == [
        f'{tmp_path / "fixture.json"}, object 11, papers.awardentry ["tv-2030", "best", "p1"], '
        'field \'level\': refers to papers.award ["tv-2030", "bset"], which is neither in '
        'this file nor in the database; the awards of papers.conference ["tv-2030"] are best'
    ]
    assert snapshot() == before


def test_import_object_with_an_invalid_key_is_named_by_what_the_file_wrote(tmp_path, before):
    """Named ["p1", "ann"] though the author is not written as a list; and the other
    author's position 2 is not called a gap for it."""
    objects = small_fixture()
    obj(objects, "papers.authorship", position=1)["fields"]["author"] = "ann"

    lines = run_failing(write(tmp_path, objects))

    assert lines == [
        f'{tmp_path / "fixture.json"}, object 7, papers.authorship ["p1", "ann"], '
        "field 'author': expected the natural key of a papers.author: a list of 1 non-empty "
        'string(s), got "ann"'
    ]
    assert snapshot() == before


def test_import_problems_come_in_file_order(tmp_path, before):
    """Problems found while reading, resolving references and comparing, in one order."""
    objects = small_fixture()
    obj(objects, "papers.conference")["fields"]["end_date"] = "2030-04-30"  # compared
    obj(objects, "papers.authorship", position=1)["fields"]["affiliations"] = [["nowhere"]]
    obj(objects, "papers.paperlink")["fields"]["url"] = "nope"  # read

    with pytest.raises(FixtureInvalid) as raised:
        import_fixture(write(tmp_path, objects))

    assert [(p.index, p.field) for p in raised.value.problems] == [
        (2, "end_date"),
        (7, "affiliations"),
        (9, "url"),
    ]


def test_read_objects_checks_a_parsed_list_as_read_fixture_does(tmp_path, db):
    """The seam for objects that come from elsewhere (a compact file): same checks."""
    objects = small_fixture()
    obj(objects, "papers.paperlink")["fields"]["url"] = "nope"
    path = write(tmp_path, objects)

    from_list = read_objects(objects, source=path)

    assert [str(problem) for problem in from_list.problems] == [
        f'{path}, object 9, papers.paperlink ["p1", "code"], field \'url\': Enter a valid URL.'
    ]
    assert [str(problem) for problem in read_fixture(path).problems] == [
        str(problem) for problem in from_list.problems
    ]


# --- the models' own rules, asked by the importer (issue 9, item 9) -------------------


def test_import_two_editions_of_one_venue_in_one_year_in_the_file(tmp_path, before):
    """A unique constraint is checked across the file, not only against the database."""
    objects = small_fixture()
    second = copy.deepcopy(obj(objects, "papers.conference"))
    second["fields"].update(slug="tv-2030-b", name_en="TV 2030 again")
    objects.insert(2, second)

    lines = run_failing(write(tmp_path, objects))

    name = tmp_path / "fixture.json"
    assert lines == [
        f"{name}, object 2, papers.conference [\"tv-2030\"], field 'year': This venue already "
        "has a conference in this year: year 2030 is also that of object 3 (papers.conference "
        '["tv-2030-b"]).',
        f"{name}, object 3, papers.conference [\"tv-2030-b\"], field 'year': This venue already "
        "has a conference in this year: year 2030 is also that of object 2 (papers.conference "
        '["tv-2030"]).',
    ]
    assert snapshot() == before


def test_import_level_of_another_new_award_is_refused(tmp_path, before):
    """AwardEntry.clean() compares the unsaved award and level the file makes."""
    objects = small_fixture()
    objects += [
        {
            "model": "papers.award",
            "fields": {"conference": ["tv-2030"], "slug": "other", "name_en": "Other Award"},
        },
        {
            "model": "papers.awardlevel",
            "fields": {
                "award": ["tv-2030", "other"],
                "slug": "winner",
                "name_en": "Winner",
                "name_plural_en": "Winners",
            },
        },
    ]
    obj(objects, "papers.awardentry")["fields"]["level"] = ["tv-2030", "other", "winner"]

    lines = run_failing(write(tmp_path, objects))

    assert lines == [
        f'{tmp_path / "fixture.json"}, object 11, papers.awardentry ["tv-2030", "best", "p1"], '
        "field 'level': This level belongs to another award "
        '(level ["tv-2030", "other", "winner"]).'
    ]
    assert snapshot() == before


# Objects editors deleted since the last import are not created again ----------------


def test_import_does_not_bring_back_a_paper_an_editor_deleted(tmp_path, db):
    """Deleting is an editor's change too: the paper, and what belonged to it (its
    authorships, link and award entry went with it), stay deleted; --overwrite brings
    them back, as it takes the file's values over editors' changes."""
    objects = small_fixture()
    path = write(tmp_path, objects)
    import_fixture(path)
    AwardEntry.objects.filter(paper__slug="p1").delete()  # first: it protects the paper
    Paper.objects.get(slug="p1").delete()
    # The file grew a link for the deleted paper meanwhile: not created either.
    objects.append(
        {
            "model": "papers.paperlink",
            "fields": {"paper": ["p1"], "kind": "arxiv", "url": "https://arxiv.org/abs/2030.1"},
        }
    )
    path = write(tmp_path, objects)
    before = snapshot()

    out, _ = run(path, "--verbosity", 0)

    assert snapshot() == before
    assert out.splitlines() == [
        'deleted papers.paper ["p1"]: an editor deleted it since the last import; not '
        "created again (--overwrite creates it)",
        *[
            f'deleted {label}: it belongs to papers.paper ["p1"], which an editor deleted; '
            "not created again (--overwrite creates it)"
            for label in [
                'papers.authorship ["p1", "ann"]',
                'papers.authorship ["p1", "bob"]',
                'papers.paperlink ["p1", "code"]',
                'papers.paperlink ["p1", "arxiv"]',
                'papers.awardentry ["tv-2030", "best", "p1"]',
            ]
        ],
    ]
    assert run(path)[0].splitlines()[-1] == (
        "No object created or updated: 7 unchanged; 6 objects editors deleted not created again."
    )

    run(path, "--overwrite")

    paper = Paper.objects.get(slug="p1")
    assert [a.author.slug for a in paper.ordered_authorships] == ["ann", "bob"]
    assert paper.links.count() == 2
    assert paper.award_entries.count() == 1


def test_import_leaves_an_institution_an_editor_deleted_out_of_affiliations(tmp_path, db):
    path = write(tmp_path, small_fixture())
    import_fixture(path)
    # The editor removes the affiliation (which protects the institution), then deletes it.
    Authorship.objects.get(author__slug="bob").set_affiliations([])
    Institution.objects.get(slug="inst").delete()
    before = snapshot()

    out, _ = run(path, "--verbosity", 0)

    assert snapshot() == before
    assert not Authorship.objects.get(author__slug="bob").affiliations.exists()
    assert out.splitlines()[0] == (
        'deleted papers.institution ["inst"]: an editor deleted it since the last import; '
        "not created again (--overwrite creates it)"
    )
    assert out.splitlines()[1].startswith('conflict papers.authorship ["p1", "bob"] affiliations')


def test_an_object_never_imported_is_created_whatever_was_deleted(tmp_path, db):
    """Only what the last import wrote counts as deleted by an editor: a new paper of
    the file with the same authors is created."""
    objects = small_fixture()
    import_fixture(write(tmp_path, objects))
    AwardEntry.objects.filter(paper__slug="p1").delete()
    Paper.objects.get(slug="p1").delete()
    objects.append(
        {
            "model": "papers.paper",
            "fields": {"slug": "p2", "title_en": "Paper Two", "conference": ["tv-2030"]},
        }
    )
    objects.append(
        {
            "model": "papers.authorship",
            "fields": {
                "paper": ["p2"],
                "author": ["bob"],
                "position": 1,
                "affiliations": [["inst"]],
            },
        }
    )

    import_fixture(write(tmp_path, objects))

    assert not Paper.objects.filter(slug="p1").exists()
    assert [a.author.slug for a in Paper.objects.get(slug="p2").ordered_authorships] == ["bob"]


def test_import_versions_hold_what_reversion_would_write(tmp_path, db):
    """The importer writes its versions in bulk (editorial/history.py); each must hold the
    fields reversion's own serialisation of the same unchanged object holds, or comparing
    the import's version with an editor's later one shows differences no one made (an
    imported paper's version once held its ``authors``, which reversion leaves out as a
    many-to-many field with a through model, so every author looked removed)."""
    import reversion
    from reversion.models import Version

    import_fixture(write(tmp_path, small_fixture()))
    paper = Paper.objects.get(slug="p1")
    authorship = paper.authorships.filter(affiliation_rows__isnull=False).first()
    imported = {
        # An authorship has two, its paper's and its own: both written in bulk.
        obj: [
            json.loads(v.serialized_data)[0]["fields"] for v in Version.objects.get_for_object(obj)
        ]
        for obj in (paper, authorship)
    }

    with reversion.create_revision():
        reversion.add_to_revision(paper)
        reversion.add_to_revision(authorship)

    for obj, versions in imported.items():
        latest = json.loads(Version.objects.get_for_object(obj).first().serialized_data)
        assert versions == [latest[0]["fields"]] * len(versions), obj
