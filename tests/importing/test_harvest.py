"""The harvest route (importing/harvest.py): a compact file whose awards name their papers
by title, matched against the whole proceedings file it names (``proceedings:``).

The conference is made up: CIL 2031 (tests/data/harvest/cil-2031-harvest.yaml), its proceedings
2,000 invented entries around its seven awarded papers (tests/data/harvest/make_proceedings.py).
"""

import io
import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from django.core.management import call_command

from catalogue.models import Author, AwardEntry, AwardLevel, Paper, PaperLink
from importing.fields import FixtureInvalid
from importing.pipeline import import_fixture

DATA = Path(__file__).parents[1] / "data" / "harvest"
HARVEST = DATA / "cil-2031-harvest.yaml"
BIB = DATA / "cil-2031-proceedings.bib"
CSL = DATA / "cil-2031-proceedings.json"
HEAD = """\
conference:
  venue: {acronym: CIL, name: Conference on Imaginary Learning}
  name: CIL 2031
  year: 2031
  status: published
"""
AWARDED_TITLES = [
    "Dreaming in Imaginary Gradients",
    "A Census of Unicorns with Provable Guarantees",
    "Learning \\(k\\)-Sparse Daydreams",
    "Scaling Laws for Castles in the Air",
    "Counterfactual Mirages and Where to Find Them",
    "Benchmarks That Do Not Exist",
    "Self-Supervised Wishful Thinking",
]


def award_list(tmp_path, entries, proceedings=BIB, extra=""):
    """A compact file in ``tmp_path`` beside a copy of ``proceedings``, with one award
    of one level (winner) listing ``entries`` (YAML list items, one a line)."""
    shutil.copy(proceedings, tmp_path / proceedings.name)
    items = "".join(f"        - {entry}\n" for entry in entries)
    path = tmp_path / "awards.yaml"
    path.write_text(
        f"{HEAD}proceedings: {proceedings.name}\n{extra}awards:\n  - name: Best Paper Award\n"
        "    levels: [{name: Winner, name_plural: Winners}]\n"
        f"    entries:\n      winner:\n{items}",
        encoding="utf-8",
    )
    return path


def problems(path):
    """The problems import_fixture reports for ``path``, as text."""
    with pytest.raises(FixtureInvalid) as caught:
        import_fixture(path)
    return [str(problem) for problem in caught.value.problems]


def awarded_titles():
    return list(
        AwardEntry.objects.order_by("award__position", "level__position", "position").values_list(
            "paper__title_en", flat=True
        )
    )


def test_proceedings_hold_two_thousand_entries_in_both_formats():
    """The test data is the size the route is for: thousands of entries."""
    assert (
        len(re.findall(r"^@inproceedings\{", BIB.read_text(encoding="utf-8"), re.M | re.I)) == 2000
    )
    assert CSL.read_text(encoding="utf-8").count('"id": ') == 2000


def test_harvest_example_is_at_most_25_lines_and_imports_seven_papers(db):
    lines = HARVEST.read_text(encoding="utf-8").splitlines()

    import_fixture(HARVEST)

    assert len(lines) <= 25
    assert sorted(Paper.objects.values_list("title_en", flat=True)) == sorted(AWARDED_TITLES)
    assert AwardLevel.objects.count() == 4
    assert AwardEntry.objects.count() == 7
    assert Author.objects.count() == 49
    assert awarded_titles() == AWARDED_TITLES


def test_harvest_takes_the_entrys_authors_pages_and_links(db):
    import_fixture(HARVEST)

    paper = Paper.objects.get(title_en="Scaling Laws for Castles in the Air")
    assert paper.pages == "37-48"
    assert list(paper.authorships.order_by("position").values_list("author__name", flat=True)) == [
        "Diego Alcántara",
        "Amara Okafor",
        "Jun-seo Park",
        "Clara Weißmann",
        "Ravi Shankar Iyer",
        "Mirela Popescu",
        "Aino Kärkkäinen",
    ]
    assert dict(PaperLink.objects.filter(paper=paper).values_list("kind", "url")) == {
        "proceedings": "https://proceedings.cil.example.org/2031/4",
        "project": "https://castles.example.org/",
    }


def test_harvest_command_imports_then_finds_nothing_to_change(db):
    out = io.StringIO()
    call_command("import_conference", str(HARVEST), stdout=out)
    call_command("import_conference", str(HARVEST), stdout=out)

    assert "Nothing to change" in out.getvalue().splitlines()[-1]


def test_harvest_matches_ignoring_case_accents_braces_and_punctuation(tmp_path, db):
    path = award_list(
        tmp_path,
        [
            "LEARNING K SPARSE DAYDREAMS",  # "Learning {$k$}-Sparse Daydreams"
            "Dreaming in Imaginäry Gradients",
            '"Scaling laws, for castles in the air!"',
        ],
    )

    import_fixture(path)

    assert awarded_titles() == [AWARDED_TITLES[2], AWARDED_TITLES[0], AWARDED_TITLES[3]]


def test_harvest_accepts_a_typo_confirmed_by_an_authors_family_name(tmp_path, db):
    path = award_list(
        tmp_path,
        [
            "{title: Dreaming in Imaginery Gradients, authors: [Kärkkäinen]}",
            "{title: Counterfactual Mirage and Where to Find Them, authors: Villalobos}",
        ],
    )

    import_fixture(path)

    assert awarded_titles() == [AWARDED_TITLES[0], AWARDED_TITLES[4]]


def test_harvest_refuses_a_near_title_whose_authors_do_not_match(tmp_path, db):
    path = award_list(tmp_path, ["{title: Dreaming in Imaginery Gradients, authors: [Smith]}"])

    found = problems(path)

    assert len(found) == 1
    assert found[0].startswith(f"{path}:12:11, awards[1].entries.winner[1]: ")
    assert "none of those has an author named Smith" in found[0]
    assert "“Dreaming in Imaginary Gradients” (karkkainen31a, 97)" in found[0]
    assert Paper.objects.count() == 0


def test_harvest_refuses_a_near_title_without_an_author_to_confirm_it(tmp_path, db):
    path = award_list(tmp_path, ["Dreaming in Imaginery Gradients"])

    found = problems(path)

    assert len(found) == 1
    assert "“Dreaming in Imaginary Gradients” (karkkainen31a, 97)" in found[0]
    assert "authors: [family name]" in found[0]
    assert "citation key" in found[0]


def test_harvest_refuses_an_ambiguous_title_naming_both_candidates(tmp_path, db):
    path = award_list(tmp_path, ["{title: Sparse Mirrors for Dense Wolds, authors: Arkhipova}"])

    found = problems(path)

    assert len(found) == 1
    assert "several entries" in found[0]
    assert "“Sparse Mirrors for Dense Worlds” (arkhipova31a, " in found[0]
    assert "“Sparse Mirrors for Dense Words” (arkhipova31b, " in found[0]


def test_harvest_refuses_a_missing_title_with_its_nearest_entries(tmp_path, db):
    path = award_list(tmp_path, ["Benchmarks That Do Not Exist", "A Paper Nobody Ever Wrote"])

    found = problems(path)

    assert len(found) == 1
    assert found[0].startswith(f"{path}:13:11, awards[1].entries.winner[2]: ")
    assert "“A Paper Nobody Ever Wrote” is not in cil-2031-proceedings.bib" in found[0]
    assert found[0].count("31") >= 3  # three candidates, each with its key


@pytest.mark.parametrize(
    ("entry", "said"),
    [
        ("Self-Supervised Wishful Thinking: A Study", 'written in quotes ("A: B")'),
        ("{titel: Self-Supervised Wishful Thinking}", "written in quotes"),
        ("[Self-Supervised Wishful Thinking]", "write a title"),
        ('{title: ""}', "write a title"),
    ],
)
def test_harvest_refuses_an_entry_that_is_no_title_with_its_place(tmp_path, db, entry, said):
    # An unquoted title with ": " reads as a mapping: it was a TypeError (a 500 in the
    # admin's import page).
    path = award_list(tmp_path, [entry])

    found = problems(path)

    assert len(found) == 1
    assert found[0].startswith(f"{path}:12:11, awards[1].entries.winner[1]: ")
    assert said in found[0]


def test_harvest_takes_a_citation_key_instead_of_a_title(tmp_path, db):
    path = award_list(tmp_path, ["arkhipova31b", "mori31a"])

    import_fixture(path)

    assert awarded_titles() == ["Sparse Mirrors for Dense Words", AWARDED_TITLES[2]]


def test_harvest_papers_entry_adds_to_a_harvested_paper(tmp_path, db):
    extra = "papers:\n  - {key: mori31a, title_zh_hans: 学习 k 稀疏白日梦}\n"
    path = award_list(tmp_path, ["Learning k-Sparse Daydreams"], extra=extra)

    import_fixture(path)

    assert list(Paper.objects.values_list("title_en", "title_zh_hans")) == [
        (AWARDED_TITLES[2], "学习 k 稀疏白日梦")
    ]


def test_harvest_reads_csl_json_proceedings(tmp_path, db):
    path = award_list(
        tmp_path,
        [
            "Learning k-Sparse Daydreams",
            "{title: Self-Supervised Wishfull Thinking, authors: [Eriksen]}",
        ],
        proceedings=CSL,
    )

    import_fixture(path)

    assert awarded_titles() == ["Learning k-Sparse Daydreams", AWARDED_TITLES[6]]
    paper = Paper.objects.get(title_en=AWARDED_TITLES[6])
    assert paper.pages == "73-84"
    assert [a.author.name for a in paper.authorships.order_by("position")][:2] == [
        "Magnus Eriksen",
        "Noor Siddiqui",
    ]
    assert list(PaperLink.objects.filter(paper=paper).values_list("kind", "url")) == [
        ("proceedings", "https://proceedings.cil.example.org/2031/7")
    ]


def test_harvest_keeps_the_name_split_csl_json_gives(tmp_path, db):
    """A family name of two words and a particle arrive as CSL-JSON writes them, not as
    the last-word guess ("Abaigar"), nor without the particle ("Mihaela Schaar")."""
    proceedings = tmp_path / "source" / "small-proceedings.json"
    proceedings.parent.mkdir()
    proceedings.write_text(
        json.dumps(
            [
                {
                    "id": "abaigar31a",
                    "title": "Identifying the Worst-Off",
                    "author": [
                        {"family": "Fischer Abaigar", "given": "Unai"},
                        {
                            "family": "Schaar",
                            "given": "Mihaela",
                            "non-dropping-particle": "van der",
                        },
                    ],
                }
            ]
        ),
        encoding="utf-8",
    )
    path = award_list(tmp_path, ["Identifying the Worst-Off"], proceedings=proceedings)

    import_fixture(path)

    authors = Author.objects.order_by("sort_name").values_list("name", "given_name", "family_name")
    assert list(authors) == [
        ("Unai Fischer Abaigar", "Unai", "Fischer Abaigar"),
        ("Mihaela van der Schaar", "Mihaela", "van der Schaar"),
    ]


def test_harvest_leaves_a_papers_value_that_is_no_list_to_the_reader(tmp_path, db):
    path = award_list(tmp_path, ["mori31a"], extra="papers: {key: mori31a}\n")

    found = problems(path)

    assert found == [
        f"{path}:7:1, papers: expected a list, got a mapping",
        f"{path}:13:11, awards[1].entries.winner[1]: no paper has the key or slug 'mori31a', in "
        "this file or in the database",
    ]


def test_harvest_refuses_proceedings_with_bibtex(tmp_path, db):
    path = award_list(tmp_path, ["mori31a"], extra="bibtex: cil-2031-proceedings.bib\n")

    found = problems(path)

    assert found == [
        f"{path}:6:1, proceedings: write either proceedings (match awards by title) or "
        "bibtex (papers by citation key), not both"
    ]


def test_harvest_problem_shows_the_nearest_titles_as_text_not_latex(tmp_path, db):
    path = award_list(tmp_path, ["Learning to Daydream"])

    found = problems(path)

    assert "the nearest: “Learning \\(k\\)-Sparse Daydreams” (mori31a, 77); " in found[0]


DOCS = Path(__file__).parents[2] / "docs" / "harvest.md"


def docs_block(language, marker=None):
    """The first ``language`` block of docs/harvest.md (after ``<!-- marker -->``)."""
    text = DOCS.read_text(encoding="utf-8")
    after = f"<!-- {marker} -->\n" if marker else ""
    return re.search(rf"{re.escape(after)}```{language}\n(.*?)```", text, re.DOTALL).group(1)


def test_docs_harvest_example_is_the_test_file():
    assert docs_block("yaml") == HARVEST.read_text(encoding="utf-8")


def test_docs_harvest_problem_is_the_one_reported(tmp_path, db):
    shutil.copy(BIB, tmp_path / BIB.name)
    path = tmp_path / HARVEST.name
    text = HARVEST.read_text(encoding="utf-8")
    path.write_text(
        text.replace(
            "{title: Self-Supervised Wishfull Thinking, authors: [Eriksen]}",
            "Self-Supervised Wishfull Thinking",
        ),
        encoding="utf-8",
    )

    found = problems(path)

    assert [line.replace(f"{tmp_path}/", "") for line in found] == docs_block("text").splitlines()


def test_docs_harvest_commands_run_as_written(tmp_path):
    """The sh block after <!-- harvest-commands -->, on a fresh database, as written."""
    block = docs_block("sh", "harvest-commands")
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("DJANGO_", "DATABASE_URL"))
    }
    env.update(DATABASE_URL=f"sqlite:///{tmp_path}/docs.sqlite3", TMPDIR=str(tmp_path))
    root, python = DOCS.parents[1], str(DOCS.parents[1] / ".venv" / "bin" / "python")
    migrate = [python, "manage.py", "migrate", "--noinput", "--verbosity", "0"]
    subprocess.run(
        migrate,
        cwd=root,
        env={**env, "DJANGO_INSECURE_DEV": "true"},
        check=True,
        capture_output=True,
    )

    result = subprocess.run(
        ["bash", "-euo", "pipefail", "-c", block], cwd=root, env=env, capture_output=True, text=True
    )

    assert result.returncode == 0, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    assert (
        "135 would be created, 0 would be updated, 0 unchanged. Dry run: nothing was written."
        in lines
    )
    assert "135 created, 0 updated, 0 unchanged." in lines
