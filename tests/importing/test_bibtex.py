"""importing/bibtex.py: papers and ordered authors from a .bib file.

Each fixture is written in the style one site exports (PMLR, dblp, the ACL Anthology,
OpenReview, arXiv); every paper, person, venue and identifier in them is made up
(volume v999, arXiv month 99, DOI prefix 10.5555 and OpenReview ids spelled FICT...).
"""

import json
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from importing.bibtex import parse_bibtex
from importing.fields import FixtureInvalid

pytestmark = pytest.mark.no_database  # see the marker in pyproject.toml

PMLR = r"""
@InProceedings{pmlr-v999-kynkaanen99a,
  title = 	 {Sparse {Sinkhorn} Flows with $\ell_1$ Transport Costs},
  author =       {Kynk\"{a}\"{a}nen, Ana and Ol\'{a}h, Bence and Fau\c{c}onnet, Camille},
  booktitle = 	 {Proceedings of the 99th International Conference on Imaginary Learning},
  pages = 	 {1012--1034},
  year = 	 {2099},
  editor = 	 {Redactor, Erin and Herausgeber, Felix},
  volume = 	 {999},
  series = 	 {Proceedings of Machine Learning Research},
  month = 	 {13--19 Jul},
  publisher =    {PMLR},
  pdf = 	 {https://raw.githubusercontent.com/mlresearch/v999/main/assets/kynkaanen99a/kynkaanen99a.pdf},
  url = 	 {https://proceedings.mlr.press/v999/kynkaanen99a.html},
  abstract = 	 {We study flows of mass under an $\ell_1$ cost, with 100\% made-up results.}
}

@InProceedings{pmlr-v999-strand99b,
  title = 	 {{T}he Right Bound for {\AA}ngstr{\"o}m-Scale Kernels},
  author =       {Str{\aa}nd, Ingrid and Wei{\ss}, J{\"o}rg and van der Velde, Jr., Pieter},
  booktitle = 	 {Proceedings of the 99th International Conference on Imaginary Learning},
  pages = 	 {2001--2017},
  year = 	 {2099},
  publisher =    {PMLR},
  pdf = 	 {https://raw.githubusercontent.com/mlresearch/v999/main/assets/strand99b/strand99b.pdf},
  url = 	 {https://proceedings.mlr.press/v999/strand99b.html}
}
"""

DBLP = r"""
@inproceedings{DBLP:conf/icil/KynkaanenOF99,
  author       = {Ana Kynk{\"{a}}{\"{a}}nen and
                  Bence Ol{\'{a}}h and
                  Camille Fau{\c{c}}onnet 0002},
  editor       = {Erin Redactor and
                  Felix Herausgeber},
  title        = {Sparse Sinkhorn Flows with {\(\ell_1\)} Transport Costs},
  booktitle    = {Ninety-ninth International Conference on Imaginary Learning, {ICIL}
                  2099, Atlantis, July 13-19, 2099},
  series       = {Proceedings of Machine Learning Research},
  volume       = {999},
  pages        = {1012--1034},
  publisher    = {{PMLR}},
  year         = {2099},
  url          = {https://proceedings.mlr.press/v999/kynkaanen99a.html},
  timestamp    = {Thu, 01 Jan 2099 00:00:00 +0100},
  biburl       = {https://dblp.org/rec/conf/icil/KynkaanenOF99.bib},
  bibsource    = {dblp computer science bibliography, https://dblp.org}
}

@proceedings{DBLP:conf/icil/2099,
  editor       = {Erin Redactor and
                  Felix Herausgeber},
  title        = {Ninety-ninth International Conference on Imaginary Learning},
  year         = {2099}
}

@inproceedings{DBLP:conf/nips/SilvaMK99,
  author       = {Jo{\~{a}}o Silvestre and
                  Mar{\'{\i}}a Mu{\~{n}}oz{-}Pe{\~{n}}a and
                  {OpenFict Team}},
  title        = {Diffusion on Graphs with {NeurIPS}-Scale Memory},
  booktitle    = {Advances in Imaginary Information Processing Systems 99},
  year         = {2099},
  url          = {http://papers.example.org/paper\_files/paper/2099/hash/0000-Abstract-Conference.html},
  biburl       = {https://dblp.org/rec/conf/nips/SilvaMK99.bib}
}

@article{DBLP:journals/corr/abs-2599-00001,
  author       = {Wren Okonkwo{-}Hale and
                  Yusuf Dah{\'{e}}},
  title        = {A Note on Unbiased Estimators},
  journal      = {CoRR},
  volume       = {abs/2599.00001},
  year         = {2099},
  url          = {https://doi.org/10.48550/arXiv.2599.00001},
  doi          = {10.48550/ARXIV.2599.00001},
  eprinttype    = {arXiv},
  eprint       = {2599.00001},
  biburl       = {https://dblp.org/rec/journals/corr/abs-2599-00001.bib}
}
"""

ACL = r"""
@inproceedings{ozturmen-etal-2099-tiny,
    title = "Tiny {T}ransformers Parse {``}Fictional{''} Sentences",
    author = "{\"O}zt{\"u}rmen, Deniz  and
      Nguy{\~{\^e}}n, Th{\d{i}}nh  and
      {\v{S}}imkov{\'a}, Lenka",
    editor = "Redactor, Erin",
    booktitle = "Proceedings of the 99th Meeting of the Imaginary Association (Volume 1)",
    month = jul,
    year = "2099",
    address = "Atlantis",
    publisher = "Imaginary Association",
    url = "https://aclanthology.org/2099.fict-long.1/",
    doi = "10.5555/v1/2099.fict-long.1",
    pages = "1--15",
    abstract = "We parse sentences that nobody wrote.",
}
"""

OPENREVIEW = r"""
@inproceedings{
kynkaanen2099scaling,
title={Scaling Laws for \$k\$-Sparse Attention},
author={Ana Kynkäänen and Zoë Ðorđević and Ren Haruto},
booktitle={The Ninety-ninth International Conference on Imaginary Representations},
year={2099},
url={https://openreview.net/forum?id=FICTid0001}
}

@misc{dahe2099unbiased,
      title={A Note on Unbiased Estimators},
      author={Yusuf Dahé and Wren Okonkwo-Hale},
      year={2099},
      eprint={2599.00001},
      archivePrefix={arXiv},
      primaryClass={cs.LG},
      url={https://arxiv.org/abs/2599.00001},
}
"""


def test_pmlr_export_gives_papers_with_display_names_and_links():
    assert parse_bibtex(PMLR, source="pmlr.bib") == [
        {
            "key": "pmlr-v999-kynkaanen99a",
            "title": r"Sparse Sinkhorn Flows with \(\ell_1\) Transport Costs",
            "authors": [
                {"name": "Ana Kynkäänen"},
                {"name": "Bence Oláh"},
                {"name": "Camille Fauçonnet"},
            ],
            "year": 2099,
            "pages": "1012-1034",
            "links": {
                "pdf": "https://raw.githubusercontent.com/mlresearch/v999/main/assets/"
                "kynkaanen99a/kynkaanen99a.pdf",
                "pmlr": "https://proceedings.mlr.press/v999/kynkaanen99a.html",
            },
        },
        {
            "key": "pmlr-v999-strand99b",
            "title": "The Right Bound for Ångström-Scale Kernels",
            "authors": [
                {"name": "Ingrid Strånd"},
                {"name": "Jörg Weiß"},
                {"name": "Pieter van der Velde Jr."},
            ],
            "year": 2099,
            "pages": "2001-2017",
            "links": {
                "pdf": "https://raw.githubusercontent.com/mlresearch/v999/main/assets/"
                "strand99b/strand99b.pdf",
                "pmlr": "https://proceedings.mlr.press/v999/strand99b.html",
            },
        },
    ]


def test_dblp_export_drops_homonym_numbers_skips_proceedings_and_reads_eprints():
    assert parse_bibtex(DBLP, source="dblp.bib") == [
        {
            "key": "DBLP:conf/icil/KynkaanenOF99",
            "title": r"Sparse Sinkhorn Flows with \(\ell_1\) Transport Costs",
            "authors": [
                {"name": "Ana Kynkäänen"},
                {"name": "Bence Oláh"},
                {"name": "Camille Fauçonnet"},
            ],
            "year": 2099,
            "pages": "1012-1034",
            "links": {"pmlr": "https://proceedings.mlr.press/v999/kynkaanen99a.html"},
        },
        {
            "key": "DBLP:conf/nips/SilvaMK99",
            "title": "Diffusion on Graphs with NeurIPS-Scale Memory",
            "authors": [
                {"name": "João Silvestre"},
                {"name": "María Muñoz-Peña"},
                {"name": "OpenFict Team", "given_name": "", "family_name": "OpenFict Team"},
            ],
            "year": 2099,
            "pages": "",
            "links": {
                "proceedings": "http://papers.example.org/paper_files/paper/2099/hash/"
                "0000-Abstract-Conference.html"
            },
        },
        {
            "key": "DBLP:journals/corr/abs-2599-00001",
            "title": "A Note on Unbiased Estimators",
            "authors": [{"name": "Wren Okonkwo-Hale"}, {"name": "Yusuf Dahé"}],
            "year": 2099,
            "pages": "",
            # The doi field wins over the doi.org url of the same kind.
            "links": {
                "doi": "https://doi.org/10.48550/ARXIV.2599.00001",
                "arxiv": "https://arxiv.org/abs/2599.00001",
            },
        },
    ]


def test_acl_anthology_export_reads_quoted_values_month_macros_and_nested_accents():
    assert parse_bibtex(ACL, source="acl.bib") == [
        {
            "key": "ozturmen-etal-2099-tiny",
            "title": "Tiny Transformers Parse “Fictional” Sentences",
            "authors": [
                {"name": "Deniz Öztürmen"},
                {"name": "Thịnh Nguyễn"},
                {"name": "Lenka Šimková"},
            ],
            "year": 2099,
            "pages": "1-15",
            "links": {
                "doi": "https://doi.org/10.5555/v1/2099.fict-long.1",
                "proceedings": "https://aclanthology.org/2099.fict-long.1/",
            },
        }
    ]


def test_openreview_and_arxiv_exports_keep_unicode_and_read_escaped_dollars_as_text():
    assert parse_bibtex(OPENREVIEW, source="openreview.bib") == [
        {
            "key": "kynkaanen2099scaling",
            "title": "Scaling Laws for $k$-Sparse Attention",
            "authors": [
                {"name": "Ana Kynkäänen"},
                {"name": "Zoë Ðorđević"},
                {"name": "Ren Haruto"},
            ],
            "year": 2099,
            "pages": "",
            "links": {"openreview": "https://openreview.net/forum?id=FICTid0001"},
        },
        {
            "key": "dahe2099unbiased",
            "title": "A Note on Unbiased Estimators",
            "authors": [{"name": "Yusuf Dahé"}, {"name": "Wren Okonkwo-Hale"}],
            "year": 2099,
            "pages": "",
            "links": {"arxiv": "https://arxiv.org/abs/2599.00001"},
        },
    ]


def _docs_block(marker, language):
    text = (Path(__file__).resolve().parents[2] / "docs" / "bibtex.md").read_text("utf-8")
    found = re.search(rf"<!-- {marker} -->\n```{language}\n(.*?)```", text, re.DOTALL)
    assert found, f"docs/bibtex.md has no {language} block after <!-- {marker} -->"
    return found.group(1)


def test_docs_worked_example_gives_the_papers_the_docs_show():
    bib = _docs_block("example-bib", "bibtex")
    shown = json.loads(_docs_block("example-papers", "json"))
    assert parse_bibtex(bib, source="papers.bib") == shown


def _one(fields, entry_type="inproceedings", key="fict99"):
    body = ",\n".join(f"  {name} = {{{value}}}" for name, value in fields.items())
    return f"@{entry_type}{{{key},\n{body}\n}}\n"


def _title(latex):
    return parse_bibtex(_one({"title": latex, "author": "Ana Kynkäänen"}), source="t.bib")[0][
        "title"
    ]


def _names(latex):
    papers = parse_bibtex(_one({"title": "T", "author": latex}), source="t.bib")
    return [author["name"] for author in papers[0]["authors"]]


@pytest.mark.parametrize(
    ("latex", "text"),
    [
        (r"{\"o}", "ö"),
        (r"\"{o}", "ö"),
        (r"{\'e}", "é"),
        (r"\c{c}", "ç"),
        (r"{\aa}", "å"),
        (r"Gro\ss e", "Große"),
        (r"Gro{\ss}e", "Große"),
        (r"{\o}", "ø"),
        (r"\L{}ód\'{z}", "Łódź"),
        (r"\v{S}\'{\i}", "Ší"),
        ("1--10 and a---b", "1–10 and a—b"),
        ("Section~3", "Section 3"),
        ("On {BERT} and {{GPT}}", "On BERT and GPT"),
        (r"\emph{Really} \textbf{bold} \texttt{code} \textsc{Caps}", "Really bold code Caps"),
        (r"Cats \& Dogs: 50\% \_ \#1", "Cats & Dogs: 50% _ #1"),
        ("Two\n   lines", "Two lines"),
        (r"$\ell_1$ Priors", r"\(\ell_1\) Priors"),
        (r"{$\ell_1$} Priors", r"\(\ell_1\) Priors"),
        (r"\(O(n)\) Time", r"\(O(n)\) Time"),
        (r"The $$\sum_i x_i$$ Sum", r"The \[\sum_i x_i\] Sum"),
        (r"\textbf{$\alpha$-Nets}", r"\(\alpha\)-Nets"),
    ],
)
def test_title_latex_is_decoded_and_maths_kept_as_site_markup(latex, text):
    assert _title(latex) == text


@pytest.mark.parametrize(
    ("latex", "names"),
    [
        ("Kynkäänen, Ana", ["Ana Kynkäänen"]),
        (r"Kynk\"a\"anen, Ana B.", ["Ana B. Kynkäänen"]),
        ("Velde, Jr., Pieter van der", ["Pieter van der Velde Jr."]),
        ("van der Velde, Pieter", ["Pieter van der Velde"]),
        ("Pieter van der Velde", ["Pieter van der Velde"]),
        ("de la Fuente, Jr, Luz", ["Luz de la Fuente Jr"]),
        ("{OpenFict}", ["OpenFict"]),
        ("{Kynkäänen and Oláh Laboratory}", ["Kynkäänen and Oláh Laboratory"]),
        ("Ana~B.~Kynkäänen", ["Ana B. Kynkäänen"]),
        ("Ana Kynkäänen 0001 and Bence Oláh", ["Ana Kynkäänen", "Bence Oláh"]),
        (
            "Oláh, Bence and Ana Kynkäänen and {\\O}berg, Siv",
            ["Bence Oláh", "Ana Kynkäänen", "Siv Øberg"],
        ),
    ],
)
def test_names_are_in_display_order_in_file_order(latex, names):
    assert _names(latex) == names


def test_string_macros_and_concatenation_are_resolved():
    text = r"""
@string{icil = "Imaginary Learning"}
@String{Title = {Flows for } # icil}
@inproceedings{fict99,
  title = Title # " and " # {$\ell_1$},
  author = "Ana Kynkäänen",
  year = 2099,
  month = jul,
}
"""
    (paper,) = parse_bibtex(text, source="t.bib")
    assert (paper["title"], paper["year"]) == (r"Flows for Imaginary Learning and \(\ell_1\)", 2099)


def test_comments_preamble_and_text_between_entries_are_skipped():
    text = r"""This file was written by hand.
@comment{ @inproceedings{hidden, title={Not a paper}, author={Nobody}} }
@preamble{ "\newcommand{\noop}[1]{}" }
% a line comment
@inproceedings{fict99, title={Kept}, author={Ana Kynkäänen}}
"""
    assert [paper["key"] for paper in parse_bibtex(text, source="t.bib")] == ["fict99"]


def test_non_paper_types_are_skipped_and_empty_file_gives_no_papers():
    text = _one({"title": "A Book", "author": "Ana Kynkäänen"}, "book", "book99") + _one(
        {"title": "A Thesis", "author": "Ana Kynkäänen"}, "phdthesis", "thesis99"
    )
    assert parse_bibtex(text, source="t.bib") == []
    assert parse_bibtex("", source="t.bib") == []


@pytest.mark.parametrize(
    ("fields", "links"),
    [
        (
            {"url": "https://openreview.net/pdf?id=FICT1"},
            {"pdf": "https://openreview.net/pdf?id=FICT1"},
        ),
        (
            {"url": "https://arxiv.org/abs/2599.00002v2"},
            {"arxiv": "https://arxiv.org/abs/2599.00002v2"},
        ),
        ({"url": "https://github.com/fict/repo"}, {"code": "https://github.com/fict/repo"}),
        ({"url": "https://doi.org/10.5555/x"}, {"doi": "https://doi.org/10.5555/x"}),
        ({"doi": "doi:10.5555/x"}, {"doi": "https://doi.org/10.5555/x"}),
        ({"doi": "https://dx.doi.org/10.5555/x"}, {"doi": "https://doi.org/10.5555/x"}),
        ({"eprint": "arXiv:2599.00003"}, {"arxiv": "https://arxiv.org/abs/2599.00003"}),
        ({"eprint": "FICT-1", "archivePrefix": "HAL"}, {}),
        (
            {"howpublished": r"\url{https://example.org/fict}"},
            {"proceedings": "https://example.org/fict"},
        ),
        ({"howpublished": "Online"}, {}),
        ({"pdf": "papers/kynkaanen99a.pdf"}, {}),
        (
            {
                "code": "https://gitlab.com/fict/x",
                "openreview": "https://openreview.net/forum?id=F",
            },
            {
                "code": "https://gitlab.com/fict/x",
                "openreview": "https://openreview.net/forum?id=F",
            },
        ),
        (
            {"pdf": "https://example.org/a.pdf", "url": "https://example.org/b.pdf"},
            {"pdf": "https://example.org/a.pdf"},
        ),
    ],
)
def test_links_are_read_by_field_and_address(fields, links):
    text = _one({"title": "T", "author": "Ana Kynkäänen", **fields})
    assert parse_bibtex(text, source="t.bib")[0]["links"] == links


def _problems(text):
    with pytest.raises(FixtureInvalid) as raised:
        parse_bibtex(text, source="bad.bib")
    return [str(problem) for problem in raised.value.problems]


def test_every_mistake_is_one_problem_with_file_line_and_key_in_file_order():
    text = r"""@inproceedings{notitle, author={Ana Kynkäänen}}
@inproceedings{noauthor, title={T}}
@inproceedings{others, title={T}, author={Ana Kynkäänen and others}}
@inproceedings{macro, title={\cite{x} and \mymacro{y}}, author={Ana Kynkäänen}}
@inproceedings{good, title={Fine}, author={Ana Kynkäänen}}
@inproceedings{Good, title={Again}, author={Bence Oláh}}
@inprocedings{typo, title={T}, author={Ana Kynkäänen}}
@inproceedings{broken, title={T, author={Ana Kynkäänen}}
@inproceedings{after, title={After}, author={Ana Kynkäänen}, year={twenty}}
"""
    assert _problems(text) == [
        "bad.bib, line 1, @inproceedings [\"notitle\"], field 'title': the entry has no title",
        "bad.bib, line 2, @inproceedings [\"noauthor\"], field 'author': the entry has no authors",
        "bad.bib, line 3, @inproceedings [\"others\"], field 'author': “and others” "
        "stands for authors left out: list every author, as the site shows the complete list",
        "bad.bib, line 4, @inproceedings [\"macro\"], field 'title': unknown LaTeX command "
        "\\cite: write the text it stands for",
        "bad.bib, line 4, @inproceedings [\"macro\"], field 'title': unknown LaTeX command "
        "\\mymacro: write the text it stands for",
        'bad.bib, line 6, @inproceedings ["Good"]: the citation key is used already, by the '
        "entry on line 5 (BibTeX ignores case in keys)",
        'bad.bib, line 7, @inprocedings ["typo"]: unknown entry type @inprocedings: a paper '
        "is one of @article, @conference, @electronic, @incollection, @inproceedings, @misc, "
        "@online, @report, @techreport, @unpublished",
        "bad.bib, line 8: this entry cannot be read as BibTeX: Unexpected block start: "
        "`@inproceedings`. Was still looking for field-value closing `,` or `}`",
        "bad.bib, line 9, @inproceedings [\"after\"], field 'year': the year “twenty” is not a "
        "number",
    ]


def test_exact_duplicate_keys_are_one_problem_naming_the_first_line():
    entry = _one({"title": "T", "author": "Ana Kynkäänen"})
    assert _problems(entry + entry) == [
        'bad.bib, line 5, @inproceedings ["fict99"]: the citation key is used already, by '
        "the entry on line 1 (BibTeX ignores case in keys)"
    ]


@pytest.mark.parametrize(
    ("fields", "problem"),
    [
        (
            {"title": "50% Faster"},
            "field 'title': a bare “%” starts a LaTeX comment: write \\% for a percent sign",
        ),
        (
            {"title": r"\begin{itemize}x\end{itemize}"},
            "field 'title': unknown LaTeX environment 'itemize'",
        ),
        ({"title": "$x"}, "field 'title': cannot read its LaTeX: "),
        ({"title": "{}"}, "field 'title': the title is empty once its LaTeX is read"),
        ({"title": "{" * 60 + "}" * 60}, "field 'title': braces nest more than 50 levels deep"),
        (
            {"title": "T" * 401},
            "field 'title': Ensure this value has at most 400 characters (it has 401).",
        ),
        (
            {"author": "Ana Kynkäänen and and Bence Oláh"},
            "field 'author': author 2 “and Bence Oláh”: a name is empty",
        ),
        ({"author": "A, B, C, D"}, "field 'author': author 1 “A, B, C, D”: Too many commas"),
        (
            {"pages": "1--10, 12--" + "9" * 30},
            "field 'pages': Ensure this value has at most 30 characters",
        ),
        ({"doi": "not-a-doi"}, "field 'doi': “not-a-doi” is not a DOI (one starts “10.”)"),
        (
            {"url": "https://exa mple.org/x"},
            "field 'url': “https://exa mple.org/x”: Enter a valid URL.",
        ),
    ],
)
def test_bad_values_are_refused_with_the_field_named(fields, problem):
    text = _one({"title": "T", "author": "Ana Kynkäänen", **fields})
    (message,) = _problems(text)
    assert message.startswith(f'bad.bib, line 1, @inproceedings ["fict99"], {problem}')


def test_undefined_strings_are_refused_in_the_fields_read_only():
    text = "@inproceedings{fict99, title = icil # { Flows}, author = {A}, booktitle = icil}"
    assert _problems(text) == [
        "bad.bib, line 1, @inproceedings [\"fict99\"], field 'title': undefined @string 'icil'"
    ]


def test_entry_without_key_is_refused():
    assert _problems("@inproceedings{, title={T}, author={Ana Kynkäänen}}") == [
        "bad.bib, line 1, @inproceedings: the entry has no citation key"
    ]


# Text made of BibTeX's own characters and words, to reach past the splitter.
BIBTEX_ALPHABET = st.sampled_from(
    list('@{}"=,#%~\\$ \n\t-^_aeo0')
    + [
        "and ",
        "others",
        "@inproceedings{",
        "title",
        "author",
        "={",
        "url",
        "doi",
        "eprint",
        r"\"",
        r"\c",
        r"\url{",
        "$$",
        r"\(",
        "@string{",
        "jul",
    ]
)


@settings(
    max_examples=300,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(st.one_of(st.text(), st.lists(BIBTEX_ALPHABET, max_size=80).map("".join)))
def test_any_text_gives_papers_or_fixture_invalid(text):
    _papers_or_problems(text)


# Entries whose values are made of LaTeX's special characters and commands, to reach
# past the splitter into the values' readers.
LATEX_VALUE = st.lists(
    st.sampled_from(
        [*"{}\\$%~-^_ aeoK,.&#'\"`\n", r"\"", r"\c", r"\aa", r"\ss", r"\(", r"\)", "$$"]
        + [" and ", "others", r"\url{", r"\emph{", r"\foo", "--", "0001", "https://x.org/"]
    ),
    max_size=30,
).map("".join)
FIELD_NAME = st.sampled_from(
    "title author pages year url doi eprint pdf howpublished archivePrefix code".split()
)
ENTRY = st.lists(st.tuples(FIELD_NAME, LATEX_VALUE), max_size=6).map(
    lambda fields: (
        "@inproceedings{fict99, "
        + ", ".join(f"{name} = {{{value}}}" for name, value in fields)
        + "}"
    )
)


@settings(
    max_examples=300,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(ENTRY)
def test_any_field_values_give_papers_or_fixture_invalid(text):
    _papers_or_problems(text)


def _papers_or_problems(text):
    try:
        papers = parse_bibtex(text, source="any.bib")
    except FixtureInvalid as error:
        assert error.problems
    else:
        assert all(paper["title"] and paper["authors"] for paper in papers)


def test_crlf_line_endings_and_a_byte_order_mark_read_as_lf():
    windows = "\ufeff" + PMLR.replace("\n", "\r\n")
    assert parse_bibtex(windows, source="t.bib") == parse_bibtex(PMLR, source="t.bib")
    bad = "\ufeff@misc{a, title={A},\r\n author={B}}\r\n\r\n@misc{b, title={}, author={B}}"
    assert _problems(bad) == [
        "bad.bib, line 4, @misc [\"b\"], field 'title': the entry has no title"
    ]


@pytest.mark.parametrize(
    ("latex", "authors"),
    [
        # "Last, First" names a family name of two words: kept as written.
        (
            "Fischer Abaigar, Unai",
            [
                {
                    "name": "Unai Fischer Abaigar",
                    "given_name": "Unai",
                    "family_name": "Fischer Abaigar",
                }
            ],
        ),
        # After the second comma, every word is a given name (BibTeX's rule).
        (
            "Velde, Jr., Pieter van der",
            [
                {
                    "name": "Pieter van der Velde Jr.",
                    "given_name": "Pieter van der",
                    "family_name": "Velde",
                    "name_suffix": "Jr.",
                }
            ],
        ),
        ("van der Velde, Jr., Pieter", [{"name": "Pieter van der Velde Jr."}]),
        (
            "Jimenez Rezende, Danilo",
            [
                {
                    "name": "Danilo Jimenez Rezende",
                    "given_name": "Danilo",
                    "family_name": "Jimenez Rezende",
                }
            ],
        ),
        # What the site would guess anyway is left to the guess.
        (
            "Schulman, John and Sergey Levine",
            [{"name": "John Schulman"}, {"name": "Sergey Levine"}],
        ),
        (
            "{OpenFict Team}",
            [{"name": "OpenFict Team", "given_name": "", "family_name": "OpenFict Team"}],
        ),
    ],
)
def test_family_names_are_read_where_they_differ_from_the_guess(latex, authors):
    papers = parse_bibtex(_one({"title": "T", "author": latex}), source="t.bib")

    assert papers[0]["authors"] == authors
