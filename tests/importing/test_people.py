"""A new author or institution close to one in the database is a "did you mean ..." that
the file answers (``slug:``, ``new: true``) or ``import_conference --accept-new`` does
(importing/compact/people.py)."""

from pathlib import Path

import pytest

from catalogue.models import Author, Institution
from tests.importing.test_compact import SMALL, problems_of, run, write

ADA = "{name: Ada Example,"
ATLANTIS = "Atlantis Institute of Technology"
TYPO = "Atlantis Institute of Technolgy"
ACCEPT = "(import_conference --accept-new takes every such name as new)"


@pytest.mark.parametrize(
    ("known", "written"),
    [
        ("Ada Example", "Ada Exampel"),  # two letters swapped: one edit
        ("Ada Example", "Ada Exmple"),  # one letter left out
        ("A. Example", "Ada Example"),  # the same family name and initials
        ("Example, Ada", "Ada Example"),
        ("Adá Exámple", "Ada Example"),  # the same but for accents
        ("Example Ada", "Ada Example"),  # family name first, as proceedings may write it
    ],
)
def test_new_author_close_to_one_in_the_database_is_a_did_you_mean(tmp_path, db, known, written):
    Author.objects.create(slug="ada-example", name=known)
    path = write(tmp_path, SMALL.replace(ADA, "{name: " + written + ","))

    assert problems_of(path) == [
        f"{path}:16:9, papers[1].authors[1]: {written!r} is new, but close to ada-example "
        f"{known!r} (in the database): did you mean that person? Write slug: ada-example "
        f"(or the same ORCID) if so, or new: true if not {ACCEPT}"
    ]
    assert Author.objects.count() == 1


def test_did_you_mean_lists_every_close_author(tmp_path, db):
    Author.objects.create(slug="ada-example", name="Adá Exámple")
    Author.objects.create(slug="a-example", name="A. Example")
    path = write(tmp_path, SMALL)

    assert problems_of(path) == [
        f"{path}:16:9, papers[1].authors[1]: 'Ada Example' is new, but close to a-example "
        "'A. Example' (in the database) and ada-example 'Adá Exámple' (in the database): did "
        "you mean one of them? Write the slug (or ORCID) of the one you mean if so, or new: "
        f"true if not {ACCEPT}"
    ]


@pytest.mark.parametrize(
    ("known", "written"),
    [
        ("Ada Example", "Ida Exemplar"),  # three edits in eleven letters
        ("Ada Example", "Bo Example"),  # the same family name, other initials
        ("Bo Li", "Bo Lu"),  # one edit in five letters
    ],
)
def test_new_author_not_close_to_anyone_is_imported(tmp_path, db, known, written):
    Author.objects.create(slug="known", name=known)

    output = run(write(tmp_path, SMALL.replace(ADA, "{name: " + written + ",")))

    assert "possible duplicate" not in output
    assert Author.objects.filter(name=written).count() == 1


def test_slug_names_the_existing_author_meant(tmp_path, db):
    Author.objects.create(slug="ada-example", name="Ada Example")

    run(write(tmp_path, SMALL.replace(ADA, "{name: Ada Example, slug: ada-example,")))
    run(write(tmp_path, SMALL.replace(ADA, "{name: Ada Exampel, slug: ada-example,")))

    assert list(Author.objects.values_list("slug", flat=True)) == ["ada-example", "bo-sample"]


def test_new_true_imports_another_person_without_a_note(tmp_path, db):
    Author.objects.create(slug="ada-example", name="Ada Example")
    path = write(tmp_path, SMALL.replace(ADA, "{name: Ada Exampel, new: true,"))

    output = run(path)
    again = run(path)

    assert "possible duplicate" not in output
    assert sorted(Author.objects.values_list("slug", "name")) == [
        ("ada-exampel", "Ada Exampel"),
        ("ada-example", "Ada Example"),
        ("bo-sample", "Bo Sample"),
    ]
    assert again.splitlines()[-1].startswith("Nothing to change")


def test_new_must_be_true_or_false(tmp_path, db):
    path = write(tmp_path, SMALL.replace(ADA, "{name: Ada Example, new: sure,"))

    assert problems_of(path) == [
        f"{path}:16:29, papers[1].authors[1].new: expected true or false, got a string"
    ]


def test_accept_new_imports_close_authors_as_new_with_a_note(tmp_path, db):
    Author.objects.create(slug="ada-example", name="Ada Example")
    path = write(tmp_path, SMALL.replace(ADA, "{name: Ada Exampel,"))

    output = run(path, "--accept-new")

    assert (
        f"possible duplicate: {path}:16:9, papers[1].authors[1]: 'Ada Exampel' may be the "
        "same person as 'Ada Example' (ada-example, in the database); imported as a new "
        "author ada-exampel. To make them one, write slug: ada-example (or the same ORCID)"
    ) in output.splitlines()
    assert Author.objects.count() == 3


def test_close_authors_within_the_file_are_a_note_not_a_problem(tmp_path, db):
    """Both are new: the file shows both spellings, and an exported conference with a Yi
    Zhang and a Yu Zhang imports again into an empty database."""
    path = write(tmp_path, SMALL.replace("- Bo Sample", "- Ada Exampel"))

    output = run(path)

    assert (
        f"possible duplicate: {path}:17:9, papers[1].authors[2]: 'Ada Exampel' may be the "
        "same person as 'Ada Example' (ada-example, at papers[1].authors[1]); imported as a "
        "new author ada-exampel. To make them one, write slug: ada-example (or the same ORCID)"
    ) in output.splitlines()
    assert Author.objects.count() == 2


def test_affiliation_close_to_an_institution_in_the_database_is_a_did_you_mean(tmp_path, db):
    Institution.objects.create(slug="atlantis", name_en=ATLANTIS)
    path = write(tmp_path, SMALL.replace(ATLANTIS, "Atlantis Institute of Technolgy"))

    assert problems_of(path) == [
        f"{path}:16:44, papers[1].authors[1].affiliations[1]: 'Atlantis Institute of "
        "Technolgy' is new, but close to atlantis 'Atlantis Institute of Technology' (in the "
        "database): did you mean that institution? Write atlantis here if so, or list "
        "'Atlantis Institute of Technolgy' under institutions with new: true if not "
        f"{ACCEPT}"
    ]
    assert Institution.objects.count() == 1


def test_institution_listed_with_new_true_is_another_institution(tmp_path, db):
    Institution.objects.create(slug="atlantis", name_en=ATLANTIS)
    text = SMALL.replace(ATLANTIS, "Atlantis Institute of Technolgy") + (
        "institutions:\n  - {name: Atlantis Institute of Technolgy, new: true}\n"
    )

    run(write(tmp_path, text))

    assert sorted(Institution.objects.values_list("slug", flat=True)) == [
        "atlantis",
        "atlantis-institute-of-technolgy",
    ]


def test_institution_listed_close_to_one_in_the_database_is_a_did_you_mean(tmp_path, db):
    Institution.objects.create(slug="atlantis", name_en=ATLANTIS)
    text = SMALL + "institutions:\n  - {name: Atlantis Institute of Technolgy}\n"

    assert problems_of(write(tmp_path, text)) == [
        f"{tmp_path / 'conference.yaml'}:21:5, institutions[1]: 'Atlantis Institute of "
        "Technolgy' is new, but close to atlantis 'Atlantis Institute of Technology' (in the "
        "database): did you mean that institution? Write slug: atlantis if so, or new: true "
        f"if not {ACCEPT}"
    ]


def docs_text_blocks(after):
    """The ``text`` blocks of docs/compact-format.md after the heading ``after``, until
    the next heading of its level or above, each as a list of lines."""
    docs = (Path(__file__).resolve().parents[2] / "docs" / "compact-format.md").read_text(
        encoding="utf-8"
    )
    section = docs.split(after, 1)[1].split("\n## ", 1)[0]
    return [
        block.split("```", 1)[0].strip().splitlines() for block in section.split("```text\n")[1:]
    ]


def test_docs_show_the_did_you_mean_as_printed(tmp_path, db):
    Author.objects.create(slug="ada-example", name="Ada Example")
    Institution.objects.create(slug="atlantis", name_en=ATLANTIS)
    text = SMALL.replace(ADA, "{name: Ada Exampel,").replace(ATLANTIS, TYPO)
    path = write(tmp_path, text)

    problems = problems_of(path)
    output = run(path, "--accept-new", "--dry-run")

    shown = [line.replace(str(path), "conference.yaml") for line in problems]
    noted = [line.replace(str(path), "conference.yaml") for line in output.splitlines()]
    asked, accepted = docs_text_blocks("### Did you mean ...?")
    assert shown == asked
    assert accepted[0] in noted


def test_a_person_named_by_slug_keeps_the_sites_name_not_the_bibtex_spelling(tmp_path, db):
    # The answer to a "did you mean" for an author of a BibTeX entry: the site's person.
    # Taking the entry's name renamed that person to the proceedings' misspelling.
    data = Path(__file__).parents[1] / "data"
    # She came in with an earlier conference, as an import brings people.
    earlier = SMALL.replace("CIL 2031", "CIL 2030").replace("year: 2031", "year: 2030")
    run(write(tmp_path, earlier.replace(ADA, "{name: Aino Kärkäinen, slug: aino-karkainen,")))
    (tmp_path / "cil-2031.bib").write_bytes((data / "cil-2031.bib").read_bytes())
    text = (data / "cil-2031-bib.yaml").read_text(encoding="utf-8")
    # Her two papers' author mappings: of karkkainen31a, and papers[4]'s seventh.
    lines = text.splitlines(keepends=True)
    for number in (51, 87):
        assert lines[number - 1] == "      - {affiliations: [ait]}\n"
        lines[number - 1] = "      - {slug: aino-karkainen, affiliations: [ait]}\n"
    text = "".join(lines)
    path = write(tmp_path, text)

    run(path)

    author = Author.objects.get(slug="aino-karkainen")
    assert (author.name, author.family_name) == ("Aino Kärkäinen", "Kärkäinen")
    assert author.authorships.count() == 3  # her CIL 2030 paper and two of CIL 2031
    assert not Author.objects.filter(name="Aino Kärkkäinen").exists()
