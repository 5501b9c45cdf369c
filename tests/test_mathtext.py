"""TeX maths rendered as MathML on the server (papers/mathtext.py)."""

import pytest
from django.utils.html import conditional_escape, linebreaks

from papers.mathtext import has_math, math_inline, math_paragraphs

from . import factories

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
