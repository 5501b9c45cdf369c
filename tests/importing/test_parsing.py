"""Mistakes caught where they are (importing/parsing.py): a YAML file's problems name its
line and column, an impossible date is a problem of its field, the hint for a bare BibTeX
file is a compact file that imports."""

import datetime
import textwrap

from catalogue.models import Conference
from tests.importing.test_compact import SMALL, problems_of, run, write
from tests.importing.test_people import docs_text_blocks

YEAR = "  year: 2031\n"


def test_yaml_syntax_error_names_line_column_and_where_its_part_began(tmp_path, db):
    path = write(tmp_path, "conference:\n  name: [CIL 2031\n")

    assert problems_of(path) == [
        f"{path}:3:1: invalid YAML: expected ',' or ']', but got '<stream end>' (while "
        "parsing a flow sequence at line 2 column 9); close the list with ]"
    ]


def test_colon_in_an_unquoted_title_says_to_quote_it(tmp_path, db):
    old = "    title: Learning Sparse Daydreams\n"
    path = write(tmp_path, SMALL.replace(old, "    title: BERT: Pre-training Daydreams\n"))

    assert problems_of(path) == [
        f"{path}:14:16: invalid YAML: mapping values are not allowed here; a colon and a "
        'space inside a value start another: put the value in quotes (title: "A: B")'
    ]


def test_tab_indentation_says_to_indent_with_spaces(tmp_path, db):
    path = write(tmp_path, SMALL.replace("  year: 2031\n", "\tyear: 2031\n"))

    assert problems_of(path) == [
        f"{path}:4:1: invalid YAML: found character '\\t' that cannot start any token; "
        "indent with spaces: YAML does not accept tabs"
    ]


def test_unquoted_impossible_date_is_refused_at_its_field(tmp_path, db):
    path = write(tmp_path, SMALL.replace(YEAR, YEAR + "  start_date: 2024-12-32\n"))

    assert problems_of(path) == [
        f"{path}:5:3, conference.start_date: “2024-12-32” value has the correct format "
        "(YYYY-MM-DD) but it is an invalid date."
    ]
    assert Conference.objects.count() == 0


def test_unquoted_impossible_date_in_a_yaml_fixture_is_a_problem_not_a_traceback(tmp_path, db):
    path = write(
        tmp_path,
        "- model: papers.conference\n"
        "  fields: {venue: [cil], slug: cil-2031, name_en: CIL 2031, year: 2031,\n"
        "           start_date: 2031-02-30}\n",
        "fixture.yaml",
    )

    assert (
        f"{path}, object 1, papers.conference [\"cil-2031\"], field 'start_date': "
        "“2031-02-30” value has the correct format (YYYY-MM-DD) but it is an invalid date."
    ) in problems_of(path)


def test_unquoted_valid_dates_are_still_read(tmp_path, db):
    dates = "  start_date: 2031-07-14\n  end_date: 2031-07-18\n"
    run(write(tmp_path, SMALL.replace(YEAR, YEAR + dates)))

    conference = Conference.objects.get()
    assert (conference.start_date, conference.end_date) == (
        datetime.date(2031, 7, 14),
        datetime.date(2031, 7, 18),
    )


def test_lone_surrogate_in_a_compact_file_names_its_place_and_line(tmp_path, db):
    path = write(tmp_path, SMALL.replace("name: CIL 2031", 'name: "CIL \\ud800"'))

    assert problems_of(path) == [
        f"{path}:3:3, conference.name: the text holds a lone surrogate (an escape such as "
        "\\ud800 that is half of a UTF-16 pair, not a character); write the character itself "
        "or its full pair"
    ]


BIB = """\
@inproceedings{mori2031wishful,
  title = {Self-Supervised Wishful Thinking},
  author = {Mori, Yuki},
  booktitle = {Proceedings of CIL 2031},
  year = {2031},
}
"""


def test_bare_bibtex_hint_is_a_compact_file_that_imports_beside_it(tmp_path, db):
    bib = write(tmp_path, BIB, "papers.bib")
    hint = problems_of(bib)[1:4]

    output = run(write(tmp_path, textwrap.dedent("\n".join(hint)) + "\n"), "--dry-run")

    assert hint[2].startswith("    papers: [{key: mori2031wishful}]")
    assert 'create papers.paper ["self-supervised-wishful-thinking"]' in output.splitlines()


# Each example line of docs/compact-format.md's "Problems", and the change to SMALL that
# makes it (a file named conference.yaml).
DOCUMENTED = [
    ("- Bo Sample", "- {name: Bo Sample, orcid: 0000-0002-1825-0098}"),
    ("code: https://code.example.org/daydreams", "homepage: https://code.example.org/daydreams"),
    ("winner: [daydreams]", "champion: [daydreams]"),
    ("    title: Learning Sparse Daydreams\n", ""),
    ("title: Learning Sparse Daydreams", "title: BERT: Pre-training Daydreams"),
    (SMALL, "conference:\n  name: [CIL 2031\n"),
    (YEAR, "\tyear: 2031\n"),
]


def test_docs_show_problems_as_printed(tmp_path, db):
    shown = []
    for old, new in DOCUMENTED:
        assert old in SMALL
        path = write(tmp_path, SMALL.replace(old, new))
        shown.append(problems_of(path)[0].replace(str(path), "conference.yaml"))

    located, unreadable = docs_text_blocks("## Problems")

    assert shown == located + unreadable


def test_reference_problem_names_the_other_referrers_by_their_places(tmp_path, db):
    papers = "".join(
        f"  - {{title: Daydream {n}, conference: nips-2014, authors: [Bo Sample]}}\n"
        for n in (2, 3, 4)
    )
    path = write(tmp_path, SMALL + papers)

    assert problems_of(path) == [
        f'{path}:20:25, papers[2].conference: refers to papers.conference ["nips-2014"], '
        "which is neither in this file nor in the database (papers[3], papers[4] refer to it "
        "too)"
    ]
