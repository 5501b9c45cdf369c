"""The compact conference file (importing/compact/): import, checks, round trip.

The conference is made up: "Conference on Imaginary Learning 2031" (tests/data/cil-2031.yaml).
"""

import datetime
import io
import json
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from catalogue.models import (
    Author,
    Authorship,
    Award,
    AwardEntry,
    AwardLevel,
    ImportRecord,
    Institution,
    Paper,
    PaperLink,
)
from importing import bibtex
from importing.fields import FixtureInvalid, Problem

DATA = Path(__file__).parents[1] / "data"
CIL = DATA / "cil-2031.yaml"


def run(*args):
    """Run import_conference; return its standard output."""
    out = io.StringIO()
    call_command("import_conference", *[str(arg) for arg in args], stdout=out, stderr=io.StringIO())
    return out.getvalue()


def problems_of(path):
    """The problem lines import_conference prints for ``path`` (it must fail)."""
    err = io.StringIO()
    with pytest.raises(CommandError, match="nothing was written"):
        call_command("import_conference", str(path), stdout=io.StringIO(), stderr=err)
    return err.getvalue().strip().splitlines()


def write(tmp_path, text, name="conference.yaml"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def export(slug, path, *args):
    path.parent.mkdir(parents=True, exist_ok=True)
    call_command(
        "export_conference",
        slug,
        "-o",
        str(path),
        *args,
        stdout=io.StringIO(),
        stderr=io.StringIO(),
    )
    return path.read_bytes()


def tables():
    """The rows the importer writes, to compare before and after."""
    models = [Author, Authorship, AwardEntry, AwardLevel, Institution, Paper, PaperLink]
    return {model.__name__: list(model.objects.order_by("pk").values()) for model in models}


SMALL = """\
conference:
  venue: {acronym: CIL, name: Conference on Imaginary Learning}
  name: CIL 2031
  year: 2031
  status: published
awards:
  - name: Best Paper Award
    levels:
      - {name: Winner, name_plural: Winners}
    entries:
      winner: [daydreams]
papers:
  - key: daydreams
    title: Learning Sparse Daydreams
    authors:
      - {name: Ada Example, affiliations: [Atlantis Institute of Technology]}
      - Bo Sample
    links:
      code: https://code.example.org/daydreams
"""


# --- the done-when conference ---------------------------------------------------------


def test_cil_2031_fits_in_under_200_lines_and_imports_seven_papers_49_authors_4_levels(db):
    lines = CIL.read_text(encoding="utf-8").splitlines()

    output = run(CIL)

    assert len(lines) < 200
    assert output.splitlines()[-1] == "140 created, 0 updated, 0 unchanged."
    assert Paper.objects.count() == 7
    assert AwardEntry.objects.count() == 7
    assert Author.objects.count() == 49
    assert Authorship.objects.count() == 52
    assert AwardLevel.objects.count() == 4


def test_cil_2031_keeps_author_order_affiliation_order_links_and_derived_slugs(db):
    run(CIL)

    paper = Paper.objects.get(slug="dreaming-in-imaginary-gradients")
    authors = [a.author.slug for a in paper.authorships.order_by("position")]
    lin = Authorship.objects.get(paper=paper, author__slug="lin-xiaoyu")
    levels = AwardLevel.objects.filter(award__slug="best-paper").order_by("position")

    assert authors[:3] == ["aino-karkkainen", "bo-sample", "lin-xiaoyu"]
    assert [row.institution.slug for row in lin.affiliation_rows.all()] == ["eldoria", "northwind"]
    assert lin.author.other_names == "林晓雨"
    assert Author.objects.get(slug="josiah-carberry").orcid == "0000-0002-1825-0097"
    assert dict(paper.links.values_list("kind", "url")) == {
        "proceedings": "https://proceedings.cil.example.org/2031/1",
        "code": "https://code.example.org/imaginary-gradients",
    }
    assert [(level.slug, level.position) for level in levels] == [("winner", 1), ("runner-up", 2)]
    assert paper.status == "published"  # the conference's status, not written on the paper
    # Aino Kärkkäinen writes two papers: one person, matched by name.
    assert Author.objects.get(slug="aino-karkkainen").authorships.count() == 2


def test_cil_2031_reimport_is_a_noop(db):
    run(CIL)
    before = tables()
    records = list(ImportRecord.objects.values_list("key", "values"))

    output = run(CIL)

    assert output.splitlines()[-1] == (
        f"Nothing to change: the database already matches {CIL} (140 objects)."
    )
    assert tables() == before
    assert list(ImportRecord.objects.values_list("key", "values")) == records


def test_cil_2031_dry_run_lists_the_changes_and_writes_nothing(db):
    output = run(CIL, "--dry-run")

    assert 'create papers.author ["aino-karkkainen"]' in output.splitlines()
    assert output.splitlines()[-1].endswith("Dry run: nothing was written.")
    assert Paper.objects.count() == 0


@pytest.mark.parametrize(
    ("args", "name"),
    [
        (("--format", "compact"), "cil-2031.yaml"),
        (("--format", "compact"), "cil-2031.json"),
        ((), "cil-2031.json"),  # the fixture format, from a compact import
    ],
)
def test_export_flush_import_export_is_byte_identical(tmp_path, transactional_db, args, name):
    run(CIL)
    first = export("cil-2031", tmp_path / "first" / name, *args)

    call_command("flush", "--noinput")
    assert Paper.objects.count() == 0
    run(tmp_path / "first" / name)
    second = export("cil-2031", tmp_path / "second" / name, *args)

    assert second == first
    assert Author.objects.count() == 49


def test_compact_export_of_shipped_conference_round_trips(tmp_path, transactional_db):
    """ICML 2025 with its ICML 2015 test-of-time papers: every field survives."""
    call_command("loaddata", "icml", verbosity=0)
    fixture = export("icml-2025", tmp_path / "before.json")
    export("icml-2025", tmp_path / "icml.yaml", "--format", "compact")

    call_command("flush", "--noinput")
    run(tmp_path / "icml.yaml")

    assert export("icml-2025", tmp_path / "after.json") == fixture


def test_award_announcement_date_round_trips_in_both_formats(tmp_path, transactional_db):
    run(CIL)
    Award.objects.filter(slug="best-paper").update(announced_on=datetime.date(2031, 7, 17))
    yaml_text = export("cil-2031", tmp_path / "first.yaml", "--format", "compact")
    fixture = export("cil-2031", tmp_path / "first.json")

    call_command("flush", "--noinput")
    run(tmp_path / "first.yaml")

    assert b"\n  announced_on: 2031-07-17\n" in yaml_text  # a date, unquoted
    assert b'"announced_on": "2031-07-17"' in fixture
    assert export("cil-2031", tmp_path / "second.yaml", "--format", "compact") == yaml_text
    assert export("cil-2031", tmp_path / "second.json") == fixture
    assert Award.objects.get(slug="best-paper").announced_on == datetime.date(2031, 7, 17)


def test_compact_export_is_yaml_with_authors_on_one_line(tmp_path, db):
    run(CIL)

    text = export("cil-2031", tmp_path / "out.yaml", "--format", "compact").decode()

    assert text.startswith("conference:\n  venue:\n    acronym: CIL\n")
    assert "  - Bo Sample\n" in text
    assert (
        "  - {name: Lin Xiaoyu, other_names: 林晓雨, affiliations: [University of Eldoria, "
        "Northwind Research]}\n"
    ) in text
    assert "  start_date: 2031-07-14\n" in text
    assert "status" not in text.split("papers:")[1]  # every paper has the conference's


# --- the kind of file is told by its content ----------------------------------------


def test_compact_file_is_recognised_by_content_whatever_its_name(tmp_path, db):
    path = write(tmp_path, SMALL, name="conference.txt")

    run(path)

    assert Paper.objects.get().slug == "learning-sparse-daydreams"


def test_compact_file_in_json_imports_like_yaml(tmp_path, db):
    import yaml

    path = write(tmp_path, json.dumps(yaml.safe_load(SMALL)), name="conference")

    run(path)

    assert list(Author.objects.values_list("slug", flat=True)) == ["ada-example", "bo-sample"]


def test_bare_bibtex_file_is_refused_with_the_way_to_name_it(tmp_path, db):
    path = write(tmp_path, "% from dblp\n@inproceedings{smith2031,\n  title={X},\n}\n", "p.txt")

    lines = problems_of(path)

    assert lines[0] == (
        f"{path}: this is a BibTeX file: it holds papers, but not their conference or "
        "awards. Name it from a compact conference file (docs/compact-format.md) and "
        "import that, e.g."
    )
    assert lines[2:4] == [
        "    bibtex: p.txt",
        "    papers: [{key: smith2031}]    # or leave papers out to take every entry",
    ]


# --- matching people and institutions -----------------------------------------------


def test_loose_name_match_accepted_as_new_is_reported_in_the_dry_run_and_never_merged(tmp_path, db):
    Author.objects.create(slug="ada-example", name="Adá Exámple")
    path = write(tmp_path, SMALL)

    dry = run(path, "--dry-run", "--accept-new")
    run(path, "--accept-new")
    again = run(path)

    assert (
        f"possible duplicate: {path}:16:9, papers[1].authors[1]: 'Ada Example' may be the same "
        "person as 'Adá Exámple' (ada-example, in the database); imported as a new author "
        "ada-example-2. To make them one, write slug: ada-example (or the same ORCID)"
    ) in dry.splitlines()
    assert sorted(Author.objects.values_list("slug", "name")) == [
        ("ada-example", "Adá Exámple"),
        ("ada-example-2", "Ada Example"),
        ("bo-sample", "Bo Sample"),
    ]
    assert "possible duplicate" not in again  # now an exact name
    assert again.splitlines()[-1].startswith("Nothing to change")


def test_loose_institution_match_accepted_as_new_is_reported_and_not_merged(tmp_path, db):
    Institution.objects.create(
        slug="atlantis-institute-of-technology", name_en="ATLANTIS  Institute of Technology"
    )
    path = write(tmp_path, SMALL)

    output = run(path, "--accept-new")

    assert (
        f"possible duplicate: {path}:16:44, papers[1].authors[1].affiliations[1]: 'Atlantis "
        "Institute of Technology' may be the same institution as 'ATLANTIS  Institute of "
        "Technology' (atlantis-institute-of-technology, in the database); imported as a new "
        "institution atlantis-institute-of-technology-2. To make them one, write "
        "atlantis-institute-of-technology here"
    ) in output.splitlines()
    assert Institution.objects.count() == 2


def test_author_is_matched_by_orcid_before_name(tmp_path, db):
    Author.objects.create(slug="a-example", name="A. Example", orcid="0000-0002-1825-0097")
    path = write(
        tmp_path,
        SMALL.replace("- {name: Ada Example,", "- {name: Ada Example, orcid: 0000-0002-1825-0097,"),
    )

    output = run(path)

    # Created outside an import, so its name counts as an editor's: kept, and said so.
    assert (
        'conflict papers.author ["a-example"] name: an editor changed it since the last '
        'import; kept "A. Example", the file has "Ada Example" (--overwrite takes the '
        "file's value)"
    ) in output.splitlines()
    assert "possible duplicate" not in output
    assert Authorship.objects.get(position=1).author.slug == "a-example"
    assert Author.objects.count() == 2


def test_author_is_matched_by_exact_name_to_an_existing_slug(tmp_path, db):
    Author.objects.create(slug="sample-bo", name="Bo Sample")
    path = write(tmp_path, SMALL)

    run(path)

    assert Authorship.objects.get(position=2).author.slug == "sample-bo"
    assert Author.objects.count() == 2


def test_details_written_at_a_later_paper_still_name_one_person(tmp_path, db):
    text = SMALL + (
        "  - title: A Second Daydream\n"
        "    authors:\n"
        "      - {name: Bo Sample, slug: bo-s, homepage: https://bo.example.org/}\n"
    )

    run(write(tmp_path, text))

    assert list(Author.objects.values_list("slug", "homepage")) == [
        ("ada-example", ""),
        ("bo-s", "https://bo.example.org/"),
    ]


def test_two_people_of_one_name_in_the_database_need_a_slug(tmp_path, db):
    Author.objects.create(slug="bo-sample", name="Bo Sample")
    Author.objects.create(slug="bo-sample-2", name="Bo Sample")

    lines = problems_of(write(tmp_path, SMALL))

    assert lines == [
        f"{tmp_path / 'conference.yaml'}:17:9, papers[1].authors[2]: 2 authors are named "
        "'Bo Sample' (bo-sample, bo-sample-2): write the slug (or ORCID) of this one"
    ]


def test_editors_change_is_kept_on_reimport(tmp_path, db):
    path = write(tmp_path, SMALL)
    run(path)
    Paper.objects.filter(slug="learning-sparse-daydreams").update(title_en="Edited Daydreams")

    output = run(path)

    assert "conflict papers.paper" in output
    assert Paper.objects.get().title_en == "Edited Daydreams"


# --- errors name the compact file's places ----------------------------------------


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        (
            "- Bo Sample",
            "- {name: Bo Sample, orcid: 0000-0002-1825-0098}",
            '17:27, papers[1].authors[2].orcid: "0000-0002-1825-0098" is not an ORCID iD: four '
            "groups of four digits (the last may be X) with a valid check digit, e.g. "
            "0000-0002-1825-0097",
        ),
        (
            "code: https://code.example.org/daydreams",
            "code: not a url",
            "19:7, papers[1].links.code: Enter a valid URL.",
        ),
        (
            "code: https://code.example.org/daydreams",
            "homepage: https://code.example.org/daydreams",
            '19:7, papers[1].links.homepage: "homepage" is not allowed; the values are pmlr, '
            "proceedings, openreview, arxiv, poster, pdf, doi, project, code, dataset, video, "
            "slides",
        ),
        (
            "winner: [daydreams]",
            "champion: [daydreams]",
            "11:7, awards[1].entries.champion: unknown level; this award's levels are winner",
        ),
        (
            "winner: [daydreams]",
            "winner: [nightmares]",
            "11:16, awards[1].entries.winner[1]: no paper has the key or slug 'nightmares', in "
            "this "
            "file or in the database",
        ),
        ("  year: 2031\n", "", "1:1, conference.year: required field missing"),
        (
            "  year: 2031\n",
            "  year: soon\n",
            "4:3, conference.year: expected a whole number, got a string",
        ),
        (
            "    title: Learning Sparse Daydreams\n",
            "    titel: Learning Sparse Daydreams\n",
            "14:5, papers[1].titel: unknown key; the keys here are slug, title, title_zh_hans, "
            "abstract, abstract_zh_hans, summary, summary_zh_hans, pages, image, image_alt, "
            "image_alt_zh_hans, status, key, conference, authors, links",
        ),
    ],
)
def test_problem_names_its_place_in_the_compact_file(tmp_path, db, old, new, expected):
    assert old in SMALL
    path = write(tmp_path, SMALL.replace(old, new))

    lines = problems_of(path)

    assert lines[0] == f"{path}:{expected}"
    assert Paper.objects.count() == 0


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        (
            "conference:\n  venue: {acronym: CIL, name: Conference on Imaginary Learning}\n"
            "  name: CIL 2031\n  year: 2031\n  status: published\n",
            "",
            "1:1, conference: missing: every compact file names its conference",
        ),
        (
            "papers:\n",
            "  - name: Best Paper Award\n    levels: [{name: Winner, name_plural: Winners}]\n"
            "papers:\n",
            "12:5, awards[2]: the award best-paper-award is already listed at awards[1]",
        ),
        (
            "      - {name: Winner, name_plural: Winners}\n",
            "      - Winner\n",
            "9:9, awards[1].levels[1]: expected a mapping (name: value, ...), got a string",
        ),
        (
            "    title: Learning Sparse Daydreams\n",
            "",
            "13:5, papers[1].title: missing: write a title (the slug is made from it)",
        ),
    ],
)
def test_one_mistake_is_one_problem(tmp_path, db, old, new, expected):
    """Nothing is reported as a consequence of a part that already failed: no paper
    without its conference, no entry of a level that failed, no echo of an award."""
    assert old in SMALL
    path = write(tmp_path, SMALL.replace(old, new))

    assert problems_of(path) == [f"{path}:{expected}"]


def test_unknown_top_level_key_lists_the_keys(tmp_path, db):
    path = write(tmp_path, SMALL + "venue: {acronym: X}\n")

    assert problems_of(path) == [
        f"{path}:20:1, venue: unknown key at the top; the keys are conference, other_conferences, "
        "bibtex, proceedings, institutions, kinds, awards, papers"
    ]


def test_same_person_twice_on_one_paper_is_one_problem(tmp_path, db):
    path = write(tmp_path, SMALL.replace("- Bo Sample", "- Ada Example"))

    assert problems_of(path) == [
        f"{path}:17:9, papers[1].authors[2]: the same person (ada-example) is listed twice on "
        "this paper"
    ]


def test_relocate_keeps_problems_without_an_object():
    from importing.compact.reader import CompactDocument, relocate

    problem = Problem("x.yaml", "cannot read the file")

    assert relocate(CompactDocument(Path("x.yaml")), [problem]) == [problem]


# --- BibTeX ----------------------------------------------------------------------------


BIB_ENTRIES = [
    {
        "key": "sample2031daydreams",
        "title": "Learning Sparse Daydreams",
        "authors": [{"name": "Ada Example"}, {"name": "Bo Sample"}],
        "year": 2031,
        "pages": "25-36",
        "links": {
            "doi": "https://doi.example.org/10.0000/cil.3",
            "code": "https://old.example.org",
        },
    },
    {
        "key": "mori2031wishful",
        "title": "Self-Supervised Wishful Thinking",
        "authors": [{"name": "Yuki Mori"}],
        "year": 2031,
        "pages": "",
        "links": {},
    },
]


@pytest.fixture
def bibtex_stand_in(monkeypatch):
    """A stand-in for importing.bibtex's parser: the interface only.

    ``parse_bibtex(text, *, source)`` returns BIB_ENTRIES and records its calls.
    """
    calls = []

    def parse_bibtex(text, *, source):
        calls.append((text, source))
        if "broken" in text:
            raise FixtureInvalid([Problem(source, "line 1: an entry without a key")])
        return [dict(entry, authors=list(entry["authors"])) for entry in BIB_ENTRIES]

    monkeypatch.setattr(bibtex, "parse_bibtex", parse_bibtex)
    return calls


BIB_COMPACT = """\
conference:
  venue: {acronym: CIL, name: Conference on Imaginary Learning}
  name: CIL 2031
  year: 2031
bibtex: papers.bib
awards:
  - name: Best Paper Award
    levels: [{name: Winner, name_plural: Winners}]
    entries: {winner: [sample2031daydreams]}
papers:
  - key: sample2031daydreams
    title_zh_hans: 学习稀疏白日梦
    authors:
      - {affiliations: [Atlantis Institute of Technology]}
      - {orcid: 0000-0002-1825-0097}
    links: {code: https://code.example.org/daydreams}
"""


def test_bibtex_papers_take_the_files_additions(tmp_path, db, bibtex_stand_in):
    (tmp_path / "papers.bib").write_text("@inproceedings{sample2031daydreams,}\n")
    path = write(tmp_path, BIB_COMPACT)

    run(path)

    paper = Paper.objects.get()
    first, second = paper.authorships.order_by("position")
    assert bibtex_stand_in == [
        ("@inproceedings{sample2031daydreams,}\n", str(tmp_path / "papers.bib"))
    ]
    assert (paper.slug, paper.title_en, paper.title_zh_hans, paper.pages) == (
        "learning-sparse-daydreams",
        "Learning Sparse Daydreams",
        "学习稀疏白日梦",
        "25-36",
    )
    assert [first.author.name, second.author.name] == ["Ada Example", "Bo Sample"]
    assert [i.slug for i in first.affiliations.all()] == ["atlantis-institute-of-technology"]
    assert second.author.orcid == "0000-0002-1825-0097"
    assert dict(paper.links.values_list("kind", "url")) == {
        "doi": "https://doi.example.org/10.0000/cil.3",
        "code": "https://code.example.org/daydreams",
    }
    assert AwardEntry.objects.get().paper == paper


def test_bibtex_without_papers_list_takes_every_entry(tmp_path, db, bibtex_stand_in):
    (tmp_path / "papers.bib").write_text("@inproceedings{x,}\n")
    text = BIB_COMPACT.split("papers:\n")[0]

    run(write(tmp_path, text))

    assert sorted(Paper.objects.values_list("slug", flat=True)) == [
        "learning-sparse-daydreams",
        "self-supervised-wishful-thinking",
    ]


def test_bibtex_problems_name_the_key_and_the_author_count(tmp_path, db, bibtex_stand_in):
    (tmp_path / "papers.bib").write_text("@inproceedings{x,}\n")
    text = (
        BIB_COMPACT.replace("      - {orcid: 0000-0002-1825-0097}\n", "") + "  - key: nobody2031\n"
    )
    path = write(tmp_path, text)

    assert problems_of(path) == [
        f"{path}:13:5, papers[1].authors: 1 authors here, 2 in papers.bib for sample2031daydreams: "
        "list them all, in the same order (leave out a name to keep BibTeX's)",
        f"{path}:16:5, papers[2].key: no entry with the key 'nobody2031' in papers.bib",
    ]  # and nothing about the award naming the first: one problem per mistake


def test_bibtex_parse_problems_are_reported_as_they_come(tmp_path, db, bibtex_stand_in):
    (tmp_path / "papers.bib").write_text("broken")
    path = write(tmp_path, BIB_COMPACT.split("awards:")[0])

    assert problems_of(path) == [f"{tmp_path / 'papers.bib'}: line 1: an entry without a key"]


def test_bibtex_path_must_stay_beside_the_file(tmp_path, db, bibtex_stand_in):
    path = write(tmp_path, BIB_COMPACT.replace("bibtex: papers.bib", "bibtex: ../papers.bib"))

    assert problems_of(path) == [
        f"{path}:5:1, bibtex: '../papers.bib' must be a path relative to this file, inside its "
        "folder"
    ]


# --- the documentation -------------------------------------------------------------

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs" / "compact-format.md"


def test_docs_show_the_whole_example_file():
    docs = DOCS.read_text(encoding="utf-8")

    assert f"```yaml\n{CIL.read_text(encoding='utf-8')}```" in docs
    assert "(docs/compact-format.md)" in (ROOT / "README.md").read_text(encoding="utf-8")
    assert "(compact-format.md)" in (ROOT / "docs" / "fixture-format.md").read_text(
        encoding="utf-8"
    )


def test_docs_show_the_whole_bibtex_fed_example():
    docs = DOCS.read_text(encoding="utf-8")

    assert f"```bibtex\n{(DATA / 'cil-2031.bib').read_text(encoding='utf-8')}```" in docs
    assert f"```yaml\n{(DATA / 'cil-2031-bib.yaml').read_text(encoding='utf-8')}```" in docs


def test_bibtex_fed_cil_2031_is_the_same_conference(tmp_path, transactional_db):
    """The same papers from a .bib file give the same objects, so the same pages."""
    run(CIL)
    from_yaml = export("cil-2031", tmp_path / "yaml" / "cil-2031.yaml", "--format", "compact")
    call_command("flush", "--noinput")

    output = run(DATA / "cil-2031-bib.yaml")

    from_bib = export("cil-2031", tmp_path / "bib" / "cil-2031.yaml", "--format", "compact")

    assert output.splitlines()[-1] == "140 created, 0 updated, 0 unchanged."
    # The same but for each paper's key, its citation key (what a re-import finds it by).
    assert b"  key: karkkainen31a\n" in from_bib
    assert without_keys(from_bib) == without_keys(from_yaml)


def without_keys(exported):
    """A compact export's lines but the papers' keys."""
    return [line for line in exported.splitlines() if not line.startswith(b"  key: ")]


def run_docs_block(tmp_path, marker):
    """Run the sh block after ``<!-- marker -->`` in docs/compact-format.md as written,
    on a fresh database; return the completed process (its stdout ends with OUT=...)."""
    import os
    import re
    import subprocess

    docs = DOCS.read_text(encoding="utf-8")
    block = re.search(rf"<!-- {marker} -->\n```sh\n(.*?)```", docs, re.DOTALL).group(1)
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("DJANGO_", "DATABASE_URL"))
    }
    env.update(DATABASE_URL=f"sqlite:///{tmp_path}/docs.sqlite3", TMPDIR=str(tmp_path))
    python = str(ROOT / ".venv" / "bin" / "python")
    subprocess.run(
        [python, "manage.py", "migrate", "--noinput", "--verbosity", "0"],
        cwd=ROOT,
        env={**env, "DJANGO_INSECURE_DEV": "true"},
        check=True,
        capture_output=True,
    )

    return subprocess.run(
        ["bash", "-euo", "pipefail", "-c", block + 'echo "OUT=$OUT"\n'],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
    )


def test_docs_bibtex_commands_run_as_written(tmp_path):

    result = run_docs_block(tmp_path, "compact-bibtex-commands")

    assert result.returncode == 0, result.stdout + result.stderr
    assert "140 created, 0 updated, 0 unchanged." in result.stdout.splitlines()


def test_docs_commands_run_as_written(tmp_path):
    """The sh block of docs/compact-format.md, on a fresh database, exactly as written."""
    result = run_docs_block(tmp_path, "compact-commands")

    assert result.returncode == 0, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    assert (
        "140 would be created, 0 would be updated, 0 unchanged. Dry run: nothing was written."
        in lines
    )
    assert "140 created, 0 updated, 0 unchanged." in lines
    assert (
        "Nothing to change: the database already matches tests/data/cil-2031.yaml (140 objects)."
        in lines
    )
    out = Path(lines[-1].removeprefix("OUT="))
    assert sorted(path.name for path in out.iterdir()) == [
        "cil-2031-fixture.json",
        "cil-2031.json",
        "cil-2031.yaml",
    ]
    assert (
        json.loads((out / "cil-2031.json").read_text(encoding="utf-8"))["conference"]["year"]
        == 2031
    )


def test_given_and_family_names_are_read_and_written_back_where_not_guessed(tmp_path, db):
    text = SMALL.replace(
        "      - Bo Sample\n",
        "      - Bo Sample\n"
        "      - {name: Unai Fischer Abaigar, given_name: Unai, family_name: Fischer Abaigar}\n",
    )
    run(write(tmp_path, text))

    unai = Author.objects.get(name="Unai Fischer Abaigar")
    bo = Author.objects.get(name="Bo Sample")
    yaml_text = export("cil-2031", tmp_path / "out.yaml", "--format", "compact").decode()

    assert (unai.given_name, unai.family_name) == ("Unai", "Fischer Abaigar")
    assert (bo.given_name, bo.family_name) == ("Bo", "Sample")
    assert "  - {name: Unai Fischer Abaigar, given_name: Unai, family_name: Fischer Abaigar}\n" in (
        yaml_text
    )
    assert "  - Bo Sample\n" in yaml_text
