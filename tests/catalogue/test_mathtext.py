"""TeX maths rendered as MathML on the server (catalogue/mathtext.py)."""

import json
import random
import subprocess
from html.parser import HTMLParser
from pathlib import Path
from xml.etree import ElementTree

import pytest
from django.conf import settings
from django.core.exceptions import ValidationError
from django.utils import translation
from django.utils.html import conditional_escape, escape, linebreaks
from latex2mathml.converter import convert

from catalogue import mathtext
from catalogue.mathtext import (
    MAX_FORMULA_DEPTH,
    MAX_FORMULA_LENGTH,
    MAX_MATH_LENGTH,
    MathLimitsValidator,
    formula_problems,
    has_math,
    math_inline,
    math_paragraphs,
    math_segments,
    nesting_depth,
)
from catalogue.models import Paper
from catalogue.sanitising import MATHML_ELEMENTS
from editorial.roles import create_editor
from tests import factories
from tests.editorial.test_admin import _change_url, _form_data
from tests.importing.test_importing import obj, run_failing, small_fixture, snapshot, write

K = (
    '<math xmlns="http://www.w3.org/1998/Math/MathML" display="inline">'
    "<mrow><mi>k</mi></mrow></math>"
)


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("Top-\\(k\\) classes", True),
        ("in $O(n)$ time", True),
        ("$$x^2$$", True),
        ("\\[x\\]", True),
        ("costs US$5", False),
        ("between $5 and $10", False),
        ("a lone $ sign", False),
        ("escaped \\$x\\$", False),
        ("Plain text & <b>", False),
    ],
)
def test_has_math(text, found):
    assert has_math(text) is found


def test_inline_math_becomes_mathml_and_the_rest_is_escaped():
    assert math_inline("<b>Top</b>-\\(k\\) & more") == f"&lt;b&gt;Top&lt;/b&gt;-{K} &amp; more"


def test_dollar_math_and_display_math():
    assert "<mi>O</mi>" in math_inline("in $O(n)$ time")
    assert 'display="block"' in math_inline("\\[\\sum_i x_i\\]")
    assert 'display="block"' in math_inline("$$x$$")


def test_bad_tex_is_shown_as_escaped_source():
    assert math_inline("broken \\(<a^\\) end") == "broken \\(&lt;a^\\) end"


@pytest.mark.parametrize(
    "text",
    ["Plain text & <b>bold</b>", "Two\n\nparagraphs\nwith a break", "US$5 and $10", ""],
)
def test_text_without_maths_renders_exactly_as_before(text):
    assert math_paragraphs(text) == linebreaks(text, autoescape=True)
    assert math_inline(text) == conditional_escape(text)


def test_paragraphs_keep_breaks_around_maths():
    html = math_paragraphs("One \\(k\\)\nline\n\nTwo <i>")

    assert html == f"<p>One {K}<br>line</p>\n\n<p>Two &lt;i&gt;</p>"


def test_paper_page_renders_the_fixture_maths(icml, client):
    html = client.get(
        "/en/papers/statistical-query-hardness-multiclass-linear-classification/"
    ).content.decode()

    assert f"separate them into {K} distinct classes" in html
    assert "\\(k\\)" not in html.split("</head>")[1]
    assert "<script" not in html.split("</head>")[1]


def test_maths_in_titles_on_every_listing(client, db):
    award = factories.award()
    paper = factories.paper(
        conference=award.conference, title_en="Top-\\(k\\) search", authors=[factories.author()]
    )
    factories.award_entry(award, paper)

    for url in [
        paper.get_absolute_url(),
        award.get_absolute_url(),
        award.conference.get_absolute_url(),
        award.get_series_url(),
        paper.authorships.get().author.get_absolute_url(),
        "/en/search/?q=search",
    ]:
        assert f"Top-{K} search" in client.get(url).content.decode(), url


# --- Issue 8: maths cannot carry markup ---------------------------------------------

# latex2mathml copies these commands' arguments into its output as raw HTML, or turns
# them into attributes; HTML entities and nested braces try to get around a sanitiser.
PAYLOADS = [
    r"$\text{<script>alert('text')</script>}$",
    r"$\mbox{<script>alert('mbox')</script>}$",
    r"$\fbox{<img src=x onerror=alert('fbox')>}$",
    r"$\textbf{<svg onload=alert('textbf')>}$",
    r"$\unicode{<img src=x onerror=alert('unicode')>}$",
    r"$\href{javascript:alert('href')}{x}$",
    r"$\style{color:red}{x}$",
    r"$\class{evil}{x}$",
    r"$\text{&lt;script&gt;alert('lt')&lt;/script&gt;}$",
    r"$\text{&#60;img src=x onerror=alert('num')&#62;}$",
    r"$\text{{<b}{>}}x{{\text{<script>alert('nested')</script>}}}$",
    r"\(\text{<iframe src=javascript:alert('paren')>}\)",
    r"\[\mbox{<a href=javascript:alert('display')>a</a>}\]",
    "<script>alert('plain')</script> <img src=x onerror=alert('plain')>",
]


class _Markup(HTMLParser):
    """Every element of a page as (tag, attributes), and the text of each script element."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.elements, self.scripts, self._in_script = [], [], False

    def handle_starttag(self, tag, attrs):
        self.elements.append((tag, dict(attrs)))
        if tag == "script":
            self._in_script = True
            self.scripts.append("")

    def handle_endtag(self, tag):
        if tag == "script":
            self._in_script = False

    def handle_data(self, data):
        if self._in_script:
            self.scripts[-1] += data


# The attributes of the site's own SVG: the award level icons (and the menu's), and the
# site's mark in the header (templates/base.html).
AWARD_ICON = {
    "class": "icon",
    "aria-hidden": "true",
    "viewbox": "0 0 16 16",
    "width": "16",
    "height": "16",
}
SITE_MARK = {
    "class": "site-mark",
    "aria-hidden": "true",
    "viewbox": "0 0 24 24",
    "width": "24",
    "height": "24",
}


def markup_from_input(html):
    """What in ``html`` could only have come from a payload: a list of findings.

    The site's own markup has no event handlers, no style attributes, no javascript:
    URLs, no frames, images from ``src=x``, or SVG but the award icons (exactly the
    attributes of templates/papers/lists/award_icon.html) and the site's mark; its only
    scripts are the JSON-LD block and static files. Any class named "evil" came from ``\\class``.
    """
    parser = _Markup()
    parser.feed(html)
    parser.close()
    found = []
    for tag, attrs in parser.elements:
        if tag in {"iframe", "svg", "object", "embed"} and attrs not in (AWARD_ICON, SITE_MARK):
            found.append(tag)
        if tag == "script" and not (
            attrs.get("type") == "application/ld+json"
            or attrs.get("src", "").startswith("/static/")
        ):
            found.append(f"script {attrs}")
        if tag == "img" and attrs.get("src") == "x":
            found.append("img src=x")
        for name, value in attrs.items():
            value = "".join((value or "").split()).lower()
            if name.startswith("on") or name == "style" or value.startswith("javascript:"):
                found.append(f"{tag} {name}={value}")
            if name == "class" and "evil" in value:
                found.append(f"{tag} class={value}")
            if tag in MATHML_ELEMENTS and name in {"href", "class", "id", "src"}:
                found.append(f"{tag} {name}={value}")
    for script in parser.scripts:  # the JSON-LD block: no text may close the element
        if "<" in script:
            found.append(f"script text {script[:80]}")
    return found


@pytest.mark.parametrize("payload", PAYLOADS)
def test_payload_renders_inert(payload):
    for html in (math_inline(payload), math_paragraphs(payload)):
        assert markup_from_input(html) == []
        assert "<script" not in html and "<img" not in html and "<iframe" not in html
        assert "<svg" not in html and "<a " not in html


class _Tree(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.items = []

    def handle_starttag(self, tag, attrs):
        self.items.append((tag, sorted(attrs)))

    def handle_endtag(self, tag):
        self.items.append(("/" + tag,))

    def handle_data(self, data):
        self.items.append(data)


def _tree(html):
    parser = _Tree()
    parser.feed(html)
    parser.close()
    return parser.items


# Real maths, with every construct latex2mathml gives attributes to.
REAL_FORMULAS = [
    r"\left(\frac{a}{b}\right)",
    r"\mathbf{x} + \mathbb{R} + \mathcal{L} + \mathrm{d}x",
    r"\fbox{1} \boxed{2}",
    r"\hat{x} \bar{y} \tilde{z} \overbrace{a}^{b} \underbrace{c}_{d}",
    r"\hspace{1em} \quad \, \! x",
    r"\begin{pmatrix}1&2\\3&4\end{pmatrix}",
    r"\begin{array}{lcr|c}a&b&c&d\\ \hline e&f&g&h\end{array}",
    r"\begin{aligned}x&=1\\y&=2\end{aligned}",
    r"\sum_{i=1}^{n} \int_0^1 \prod_k \lim_{x\to 0} \max_i",
    r"\sqrt[3]{x} \binom{n}{k} \dfrac{1}{2} \tfrac12",
    r"\big( \Big[ \bigg\{ \Bigg| x",
    r"\displaystyle \sum x \textstyle y \scriptstyle z",
    r"\text{if } x \not= y \operatorname{argmax}_\theta f",
    r"\mathbb{E}_{x \sim p} \overset{!}{=} \underset{x}{\min} x' \operatorname{E}",
]


@pytest.mark.parametrize("formula", REAL_FORMULAS)
def test_sanitiser_keeps_real_maths_unchanged(formula):
    raw = convert(formula, display="inline")

    assert _tree(math_inline(f"\\({formula}\\)")) == _tree(raw)
    assert "<math" in raw


def test_text_in_maths_stays_text():
    html = math_inline(r"$\text{if } a<b \text{ & more}$")

    assert "<mtext>if&nbsp;</mtext>" in html or "<mtext>if\xa0</mtext>" in html
    assert "<mo>&lt;</mo>" in html
    assert "&amp;" in html


def test_href_style_class_become_plain_maths():
    assert math_inline(r"$\href{javascript:alert(1)}{x}$") == math_inline("$x$").replace(
        "<mrow><mi>x</mi></mrow>", "<mrow><mrow><mrow><mi>x</mi></mrow></mrow></mrow>"
    )
    assert "style" not in math_inline(r"$\style{color:red}{x}$")
    assert "class" not in math_inline(r"$\class{evil}{x}$")
    assert "mathcolor" not in math_inline(r"$\color{red}{x}$")


def test_every_fixture_formula_passes_the_sanitiser_unchanged():
    formulas = []
    for path in sorted(Path(settings.BASE_DIR, "fixtures").glob("*.json")):
        for item in json.loads(path.read_text(encoding="utf-8")):
            for value in item["fields"].values():
                if isinstance(value, str):
                    formulas += [seg for is_math, seg in math_segments(value) if is_math]

    assert formulas, "the fixtures have maths"
    for formula in formulas:
        assert _tree(math_inline(f"\\({formula}\\)")) == _tree(convert(formula.strip())), formula


ALL_PAYLOADS = "\n\n".join(PAYLOADS)
SHORT_PAYLOAD = PAYLOADS[0] + " " + PAYLOADS[2]  # fits every name field (max 100 chars)


def _both(field, value):
    return {f"{field}_en": value, f"{field}_zh_hans": value}


@pytest.fixture
def payload_world(db):
    """Every translated prose field of every model, in both languages, holding the payloads.

    One paper per payload (a title holds at most 400 characters) with the payload in
    its title, abstract, summary and image description; one more paper holds only
    English text, so Chinese pages show it as the English fallback.
    """
    venue = factories.venue(**_both("name", SHORT_PAYLOAD))
    conference = factories.conference(
        venue=venue,
        **_both("name", SHORT_PAYLOAD),
        **_both("description", ALL_PAYLOADS),
        **_both("city", SHORT_PAYLOAD),
        **_both("country", SHORT_PAYLOAD),
        **_both("proceedings", SHORT_PAYLOAD),
    )
    award = factories.award(
        conference=conference, **_both("name", SHORT_PAYLOAD), **_both("description", ALL_PAYLOADS)
    )
    institution = factories.institution(**_both("name", SHORT_PAYLOAD))
    author = factories.author(name="Payload Author")
    papers = []
    for payload in [*PAYLOADS, ALL_PAYLOADS[:400]]:
        fields = {
            **_both("title", f"Payload {payload}"[:400]),
            **_both("abstract", ALL_PAYLOADS),
            **_both("summary", ALL_PAYLOADS),
            **_both("image_alt", payload[:300]),
        }
        papers.append(factories.paper(conference=conference, authors=[author], **fields))
    papers.append(
        factories.paper(
            conference=conference,
            authors=[author],
            title_en=f"Payload {PAYLOADS[0]}",
            title_zh_hans="",
            abstract_en=ALL_PAYLOADS,
            abstract_zh_hans="",
            summary_en=ALL_PAYLOADS,
        )
    )
    for paper in papers:
        paper.authorships.get().affiliations.set([institution])
        factories.award_entry(award, paper)
    return {"award": award, "conference": conference, "author": author, "papers": papers}


def _public_urls(world):
    award, conference = world["award"], world["conference"]
    yield from (paper.get_absolute_url() for paper in world["papers"])
    yield from [
        "/en/",
        conference.get_absolute_url(),
        award.get_absolute_url(),
        award.get_series_url(),
        world["author"].get_absolute_url(),
        "/en/search/?q=Payload",
    ]


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_payloads_are_inert_on_every_page(client, payload_world, language):
    for url in _public_urls(payload_world):
        url = url.replace("/en/", f"/{language}/", 1)
        response = client.get(url)
        html = response.content.decode()

        assert response.status_code == 200, url
        assert markup_from_input(html) == [], url
        if "/papers/" in url or "/search/" in url or "/authors/" in url:
            assert "<math" in html, url  # the payloads' maths was rendered, not skipped


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_payloads_are_inert_in_the_atom_feed(client, payload_world, language):
    response = client.get(f"/{language}/feeds/awards.atom")
    feed = ElementTree.fromstring(response.content)
    atom = "{http://www.w3.org/2005/Atom}"
    entries = feed.findall(f"{atom}entry")

    assert entries
    for entry in entries:
        for element in entry.iter():
            if element.get("type") == "html":  # HTML carried as text: a reader renders it
                assert markup_from_input(element.text or "") == []
            else:  # plain text: a reader shows it as written
                assert "<" not in "".join(element.attrib.values())


def test_payloads_in_json_ld_cannot_close_the_script(client, payload_world):
    for paper in payload_world["papers"]:
        html = client.get(paper.get_absolute_url()).content.decode()
        parser = _Markup()
        parser.feed(html)
        types = [attrs.get("type") for tag, attrs in parser.elements if tag == "script"]
        ld = [
            text
            for text, kind in zip(parser.scripts, types, strict=True)
            if kind == "application/ld+json"
        ]

        assert types.count("application/ld+json") == len(ld) == 1
        assert "<" not in ld[0] and ">" not in ld[0]
        assert json.loads(ld[0])["headline"] == paper.title_en


@pytest.mark.parametrize("fmt", ["bib", "ris", "json"])
def test_citation_exports_are_downloads_a_browser_never_renders(client, payload_world, fmt):
    """BibTeX, RIS and CSL-JSON keep the TeX source as written: it is the paper's data,
    not markup. They come as attachments of non-HTML types, with nosniff, so no browser
    runs them as a page."""
    for url in [
        payload_world["papers"][0].get_absolute_url() + f"cite.{fmt}",
        payload_world["award"].get_absolute_url() + f"cite.{fmt}",
        payload_world["conference"].get_absolute_url() + f"cite.{fmt}",
    ]:
        response = client.get(url)

        assert response.status_code == 200, url
        assert "html" not in response["Content-Type"] and "xml" not in response["Content-Type"]
        assert response["Content-Disposition"].startswith("attachment;")
        assert response["X-Content-Type-Options"] == "nosniff"
    text = client.get(payload_world["papers"][0].get_absolute_url() + f"cite.{fmt}")
    assert "alert('text')" in text.content.decode()  # kept, as data


# --- Limits and the cache ---------------------------------------------------------

AT_LIMIT = "x" * MAX_FORMULA_LENGTH
TOO_LONG = "x" * (MAX_FORMULA_LENGTH + 1)
TOO_DEEP = "{" * (MAX_FORMULA_DEPTH + 1) + "x" + "}" * (MAX_FORMULA_DEPTH + 1)


@pytest.mark.parametrize(
    ("formula", "depth"),
    [
        ("x", 0),
        ("{a}_{b}", 1),
        ("\\frac{a}{\\sqrt{b}}", 2),
        ("\\left( {x} \\right)", 2),
        ("\\begin{matrix}{a}\\end{matrix}", 2),
        ("\\{ \\{ \\} x", 0),
        ("\\leftarrow \\rightarrow \\endash", 0),
        ("}}} {x}", 1),
        (TOO_DEEP, MAX_FORMULA_DEPTH + 1),
    ],
)
def test_nesting_depth(formula, depth):
    assert nesting_depth(formula) == depth


@pytest.fixture
def conversions(monkeypatch):
    """The formulas latex2mathml is asked to convert, with the render cache emptied."""
    calls = []
    real = mathtext.convert

    def counting(formula, **kwargs):
        calls.append(formula)
        return real(formula, **kwargs)

    monkeypatch.setattr(mathtext, "convert", counting)
    mathtext.formula_mathml.cache_clear()
    yield calls
    mathtext.formula_mathml.cache_clear()


def test_math_matches_are_the_regular_expressions_matches():
    pieces = ["\\(", "\\)", "\\[", "\\]", "$", "$$", " ", "x", "1", "\\", "\n"]
    generator = random.Random(8)
    for _ in range(20_000):
        text = "".join(generator.choices(pieces, k=generator.randint(0, 12)))

        expected = [(m.span(), m.lastgroup) for m in mathtext.MATH.finditer(text)]
        assert [(m.span(), m.lastgroup) for m in mathtext.math_matches(text)] == expected, text


def test_a_formula_is_converted_once_however_often_it_is_shown(conversions):
    first = math_paragraphs("A \\(k\\) and $x^2$.\n\nAgain \\(k\\).")
    second = math_paragraphs("A \\(k\\) and $x^2$.\n\nAgain \\(k\\).")
    math_inline("Elsewhere \\(k\\)")

    assert first == second
    assert conversions == ["k", "x^2"]


@pytest.mark.parametrize(
    "text",
    [
        f"$${TOO_LONG}$$",
        f"\\({TOO_DEEP}\\)",
        "$" + "x" * 1_000_000 + "$",
        " ".join([f"${AT_LIMIT}$"] * (MAX_MATH_LENGTH // MAX_FORMULA_LENGTH + 1)),
        "$x$ " * 100_000,
        "\\(" * 100_000,
    ],
)
def test_stored_text_over_a_limit_is_shown_as_source_not_converted(conversions, text):
    html = math_paragraphs(text)

    assert html == linebreaks(text, autoescape=True).replace("\n", "<br>")
    assert conversions == []


def test_formula_at_the_limits_is_converted(conversions):
    deep = "{" * MAX_FORMULA_DEPTH + "x" + "}" * MAX_FORMULA_DEPTH

    assert "<math" in math_inline(f"${AT_LIMIT}$ ${deep}$")
    assert len(conversions) == 2


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (f"In $${TOO_LONG}$$", f"is {MAX_FORMULA_LENGTH + 1} characters long"),
        (f"In \\({TOO_DEEP}\\)", f"nests {MAX_FORMULA_DEPTH + 1} levels deep"),
        (" ".join([f"${AT_LIMIT}$"] * 6), f"adds up to more than {MAX_MATH_LENGTH} characters"),
    ],
)
def test_validator_refuses_maths_over_the_limits(text, message):
    with pytest.raises(ValidationError) as error:
        MathLimitsValidator("Abstract")(text)

    assert error.value.messages[0].startswith("Abstract: ")
    assert message in error.value.messages[0]


def test_validator_accepts_maths_at_the_limits_and_plain_text():
    deep = "{" * MAX_FORMULA_DEPTH + "x" + "}" * MAX_FORMULA_DEPTH
    validate = MathLimitsValidator("Abstract")

    validate(" ".join([f"${AT_LIMIT}$"] * 4) + f" ${deep}$")
    validate("{" * 100 + "x" * 100_000)  # no maths: nothing to render


def test_validator_message_is_translated():
    with translation.override("zh-hans"):
        with pytest.raises(ValidationError) as error:
            Paper._meta.get_field("abstract_zh_hans").clean(f"\\({TOO_LONG}\\)", None)

        assert error.value.messages == [
            f"摘要：公式“{'x' * 37}...”长 {MAX_FORMULA_LENGTH + 1} 个字符，"
            f"一个公式最多 {MAX_FORMULA_LENGTH} 个字符。请拆分或缩短它。"
        ]


@pytest.mark.parametrize(
    "field",
    [f"{name}_{lang}" for name in ("title", "abstract", "summary") for lang in ("en", "zh_hans")],
)
def test_editor_cannot_save_a_formula_over_the_limit(client, db, field):
    client.force_login(create_editor("editor", "editor@example.org", "a-long-passphrase"))
    paper = factories.paper(authors=[factories.author()])
    stored = Paper.objects.values().get(pk=paper.pk)
    data = _form_data(client.get(_change_url(paper)))
    data[field] = f"Text $${TOO_DEEP}$$"

    response = client.post(_change_url(paper), data)

    assert response.status_code == 200
    errors = response.context["adminform"].form.errors
    assert list(errors) == [field]
    label = {"title": "Title", "abstract": "Abstract", "summary": "Summary"}[field.split("_")[0]]
    assert errors[field][0].startswith(f"{label}: the formula “{{{{{{")
    assert escape(errors[field][0]) in response.content.decode()
    assert Paper.objects.values().get(pk=paper.pk) == stored


@pytest.mark.parametrize("field", ["title_en", "abstract_zh_hans", "summary_en"])
def test_import_refuses_a_formula_over_the_limit_and_writes_nothing(tmp_path, icml, field):
    before = snapshot()
    objects = small_fixture()
    obj(objects, "papers.paper", slug="p1")["fields"][field] = f"A \\({TOO_DEEP}\\)"

    lines = run_failing(write(tmp_path, objects))

    assert len(lines) == 1
    assert lines[0].startswith(
        f"{tmp_path / 'fixture.json'}, object 6, papers.paper [\"p1\"], field '{field}': "
    )
    assert f"nests {MAX_FORMULA_DEPTH + 1} levels deep" in lines[0]
    assert snapshot() == before


BENCHMARK = ".venv/bin/python benchmarks/mathtext.py"


@pytest.mark.no_database
def test_documented_benchmark_command_runs_as_written():
    base = Path(settings.BASE_DIR)
    assert f"`{BENCHMARK}`" in (base / "docs" / "architecture.md").read_text(encoding="utf-8")

    result = subprocess.run(  # noqa: S603 - a fixed command from the docs
        BENCHMARK.split(), cwd=base, capture_output=True, text=True, timeout=300, check=True
    )

    lines = result.stdout.splitlines()
    assert len(lines) == 7 and all(line.endswith(" ms") for line in lines), result.stdout


def test_documented_limits_are_the_code_limits():
    base = Path(settings.BASE_DIR)
    docs = (base / "docs" / "fixture-format.md").read_text(encoding="utf-8")
    architecture = (base / "docs" / "architecture.md").read_text(encoding="utf-8")

    for text in (" ".join(docs.split()), " ".join(architecture.split())):
        assert f"{MAX_FORMULA_LENGTH:,} characters" in text
        assert f"{MAX_FORMULA_DEPTH} levels" in text
        assert f"{MAX_MATH_LENGTH:,} characters of maths" in text


@pytest.mark.parametrize(
    ("text", "problems"),
    [
        ("On $\\frac{1}{$ things", [("\\frac{1}{", None)]),
        ("$x + \\unknowncmd$ and $\\alpha$", [("x + \\unknowncmd", "\\unknowncmd")]),
        ("\\(\\frac{1}{2}\\) and $\\alpha \\leq \\beta$, US$5", []),
        ("no maths \\unknowncmd outside delimiters", []),
    ],
)
def test_formula_problems_name_unreadable_formulas_and_unknown_commands(text, problems):
    assert list(formula_problems(text)) == problems
