"""What text fields may hold (catalogue/text.py): titles and names on one line, long text
within a length limit, as model validators that the admin and the importer both apply."""

import json
import re
from pathlib import Path

import pytest
from django.apps import apps
from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import MaxLengthValidator
from django.db import models
from django.utils import translation

from catalogue import text
from catalogue.models import (
    Author,
    Award,
    AwardKind,
    AwardLevel,
    Conference,
    Institution,
    Paper,
    Venue,
)
from editorial.roles import create_editor
from tests import factories
from tests.editorial.test_admin import _form_data
from tests.importing.test_compact import SMALL, problems_of
from tests.importing.test_compact import write as write_compact
from tests.importing.test_importing import obj, run_failing, small_fixture, snapshot, write

# Every line boundary of str.splitlines: the brief's CR, LF, U+0085, U+2028 and U+2029,
# CRLF, and the vertical tab, form feed and separators U+001C to U+001E.
LINE_BREAKS = ["\n", "\r", "\r\n", "\x85", "\u2028", "\u2029", "\v", "\f", "\x1c", "\x1d", "\x1e"]
# The one-line fields the issue names: (model, column, its verbose name), every language.
TITLES_AND_NAMES = [
    (Paper, "title_en", "title"),
    (Paper, "title_zh_hans", "title"),
    (Conference, "name_en", "name"),
    (Conference, "name_zh_hans", "name"),
    (Award, "name_en", "name"),
    (Award, "name_zh_hans", "name"),
    (AwardLevel, "name_en", "name"),
    (AwardLevel, "name_plural_zh_hans", "name for several papers"),
    (Venue, "name_en", "name"),
    (Venue, "name_zh_hans", "name"),
    (Author, "name", "name"),
    (Institution, "name_en", "name"),
    (Institution, "name_zh_hans", "name"),
]
# Each long text field and its limit in characters (catalogue/text.py says why).
LIMITS = {
    (Paper, "abstract"): 10_000,
    (Paper, "summary"): 20_000,
    (Conference, "description"): 10_000,
    (Award, "description"): 10_000,
    (AwardKind, "description"): 10_000,
    (Author, "other_names"): 4_000,
}


def _instance(model):
    """A saved, valid object of ``model``."""
    if model is AwardLevel:
        return factories.award_level(factories.award())
    makers = {
        Paper: factories.paper,
        Conference: factories.conference,
        Award: factories.award,
        AwardKind: lambda: AwardKind.objects.create(slug="test-of-time", name_en="Test of time"),
        Venue: factories.venue,
        Author: factories.author,
        Institution: factories.institution,
    }
    return makers[model]()


def _catalogue_fields():
    return [
        (model, field)
        for model in apps.get_app_config("papers").get_models()
        for field in model._meta.fields
    ]


# The rule on the model ---------------------------------------------------------------


@pytest.mark.parametrize("line_break", LINE_BREAKS)
@pytest.mark.parametrize(("model", "column", "label"), TITLES_AND_NAMES)
def test_a_line_break_in_a_title_or_name_is_refused_naming_the_field(
    db, model, column, label, line_break
):
    instance = _instance(model)
    instance.full_clean()  # valid as made
    setattr(instance, column, f"First line{line_break}second line")

    with pytest.raises(ValidationError) as refusal:
        instance.full_clean()

    errors = refusal.value.error_dict
    assert [error.message % error.params for error in errors[column]] == [
        f"“{label}” must be on one line: remove the line break."
    ]
    assert [error.code for error in errors[column]] == ["line_break"]
    # The translated field itself shows the active language's column (English).
    assert set(errors) <= {column, column.removesuffix("_en")}


def test_one_line_message_is_translated(db):
    paper = factories.paper(title_zh_hans="第一行\n第二行")

    with translation.override("zh-hans"):
        with pytest.raises(ValidationError) as refusal:
            paper.full_clean()
        messages = refusal.value.message_dict["title_zh_hans"]

    assert messages == ["“标题”必须写在一行内：请删除换行。"]


def test_every_title_and_name_column_is_one_line():
    """Every CharField of the catalogue's that editors or files write holds one line:
    its own fields (text.CharField) refuse a line break in every language's column, and
    Django's slugs, URLs and choices cannot hold one anyway."""
    without = [
        f"{model.__name__}.{field.name}"
        for model, field in _catalogue_fields()
        if isinstance(field, models.CharField)
        and field.editable
        and not isinstance(field, models.SlugField | models.URLField)
        and not field.choices
        and not any(isinstance(v, text.OneLineValidator) for v in field.validators)
    ]

    # ImportRecord is the importer's bookkeeping, never an editor's or a file's text.
    assert without == ["ImportRecord.model", "ImportRecord.key", "ImportRecord.source"]


def test_every_long_text_has_a_length_limit():
    """Each editable TextField has Django's MaxLengthValidator with its documented limit
    (derived and bookkeeping text, never written by hand, has none)."""
    limits = {
        (model, getattr(field, "translated_field", field).name): [
            validator.limit_value
            for validator in field.validators
            if isinstance(validator, MaxLengthValidator)
        ]
        for model, field in _catalogue_fields()
        if isinstance(field, models.TextField) and field.editable
    }

    assert limits == {key: [limit] for key, limit in LIMITS.items()}


@pytest.mark.parametrize(("model", "name"), list(LIMITS))
def test_text_over_its_limit_is_refused_and_at_its_limit_accepted(db, model, name):
    instance = _instance(model)
    limit = LIMITS[(model, name)]
    column = f"{name}_zh_hans" if model is not Author else name
    setattr(instance, column, "x" * limit)
    instance.full_clean()
    setattr(instance, column, "x" * (limit + 1))

    with pytest.raises(ValidationError) as refusal:
        instance.full_clean()

    assert refusal.value.message_dict == {
        column: [f"Ensure this value has at most {limit} characters (it has {limit + 1})."]
    }


def test_documented_limits_are_the_code_limits():
    """docs/compact-format.md and docs/editors.md give each limit as the code has it."""
    for document in ("docs/compact-format.md", "docs/editors.md"):
        docs = (Path(settings.BASE_DIR) / document).read_text(encoding="utf-8")
        for (model, name), limit in LIMITS.items():
            line = rf"^ *\| {model._meta.verbose_name}'s `{name}` [^\n]*\| {limit:,} \|"
            assert re.search(line, docs, re.MULTILINE), (document, model, name)


# The admin ---------------------------------------------------------------------------


@pytest.fixture
def editor_client(client, db):
    client.force_login(create_editor("editor", "editor@example.org", "a-long-passphrase"))
    return client


@pytest.mark.parametrize(
    ("model", "column", "label"),
    [
        (Paper, "title_en", "title"),
        (Paper, "title_zh_hans", "title"),
        (Conference, "name_en", "name"),
        (Award, "name_zh_hans", "name"),
        (Venue, "name_en", "name"),
        (Author, "name", "name"),
        (Institution, "name_zh_hans", "name"),
    ],
)
def test_admin_refuses_a_line_break_in_a_title_or_name(editor_client, model, column, label):
    instance = _instance(model)
    url = f"/admin/papers/{model._meta.model_name}/{instance.pk}/change/"
    stored = model.objects.values().get(pk=instance.pk)
    data = _form_data(editor_client.get(url))
    data[column] = "First line\u2028second line"

    response = editor_client.post(url, data)

    assert response.status_code == 200
    assert response.context["adminform"].form.errors == {
        column: [f"“{label}” must be on one line: remove the line break."]
    }
    assert model.objects.values().get(pk=instance.pk) == stored


def test_admin_refuses_an_abstract_over_the_limit(editor_client):
    paper = factories.paper()
    url = f"/admin/papers/paper/{paper.pk}/change/"
    data = _form_data(editor_client.get(url))
    limit = LIMITS[(Paper, "abstract")]
    data["abstract_zh_hans"] = "摘" * (limit + 1)

    response = editor_client.post(url, data)

    assert response.status_code == 200
    assert response.context["adminform"].form.errors == {
        "abstract_zh_hans": [
            f"Ensure this value has at most {limit} characters (it has {limit + 1})."
        ]
    }
    assert Paper.objects.get(pk=paper.pk).abstract_zh_hans == paper.abstract_zh_hans


# The importer ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("model", "match", "column", "label"),
    [
        ("papers.paper", {"slug": "p1"}, "title_en", "title"),
        ("papers.venue", {"slug": "tv"}, "name_zh_hans", "name"),
        ("papers.author", {}, "name", "name"),
    ],
)
def test_import_refuses_a_line_break_naming_the_field_and_writes_nothing(
    tmp_path, db, model, match, column, label
):
    before = snapshot()
    objects = small_fixture()
    found = obj(objects, model, **match)
    found["fields"][column] = "First line\nsecond line"
    index = objects.index(found) + 1

    lines = run_failing(write(tmp_path, objects))

    assert lines[0].startswith(f"{tmp_path / 'fixture.json'}, object {index}, {model} ")
    assert lines[0].endswith(
        f", field '{column}': “{label}” must be on one line: remove the line break."
    )
    assert snapshot() == before


def test_import_refuses_an_abstract_over_the_limit(tmp_path, db):
    before = snapshot()
    objects = small_fixture()
    limit = LIMITS[(Paper, "abstract")]
    obj(objects, "papers.paper", slug="p1")["fields"]["abstract_en"] = "x" * (limit + 1)

    lines = run_failing(write(tmp_path, objects))

    assert lines == [
        f"{tmp_path / 'fixture.json'}, object 6, papers.paper [\"p1\"], field 'abstract_en': "
        f"Ensure this value has at most {limit} characters (it has {limit + 1})."
    ]
    assert snapshot() == before


def test_compact_file_names_the_place_of_a_title_with_a_line_break(tmp_path, db):
    """A YAML folded title (``title: >``) ends in a line break: refused, with its place."""
    old = "    title: Learning Sparse Daydreams\n"
    assert old in SMALL
    path = write_compact(tmp_path, SMALL.replace(old, "    title: >\n      Learning Sparse\n"))

    lines = problems_of(path)

    assert lines[0] == (
        f"{path}:14:5, papers[1].title: “title” must be on one line: remove the line break."
    )
    assert Paper.objects.count() == 0


def test_fixture_examples_hold_no_line_break_in_a_title_or_name():
    """The shipped content and the test conferences pass the new rule as they are."""
    data = Path(settings.BASE_DIR)
    files = [data / "fixtures" / "icml.json", *sorted((data / "tests" / "data").glob("*.json"))]
    broken = [
        (path.name, item["model"], name)
        for path in files
        for item in json.loads(path.read_text(encoding="utf-8"))
        for name, value in item["fields"].items()
        if isinstance(value, str)
        and value.splitlines() not in ([], [value])
        and name.removesuffix("_en").removesuffix("_zh_hans") in {"title", "name", "name_plural"}
    ]

    assert broken == []
