"""The sanitiser (catalogue/sanitising.py): what it promises never to let through."""

from html.parser import HTMLParser

import pytest

from catalogue.sanitising import MATHML_ATTRIBUTES, MATHML_ELEMENTS, clean_mathml

pytestmark = pytest.mark.no_database  # see the marker in pyproject.toml


class _Parsed(HTMLParser):
    """The elements of a fragment as (tag, {attribute: value}), its text and comments."""

    def __init__(self, html):
        super().__init__(convert_charrefs=True)
        self.elements, self.text, self.comments = [], [], []
        self.feed(html)
        self.close()

    def handle_starttag(self, tag, attrs):
        self.elements.append((tag, dict(attrs)))

    def handle_data(self, data):
        self.text.append(data)

    def handle_comment(self, data):
        self.comments.append(data)


# Each never-allowed element, inside maths and outside it, with content a browser
# would run or show as markup.
NEVER_ELEMENTS = {
    "script": "<script>alert('script')</script>",
    "style": "<style>mi { background: url(javascript:alert('style')) }</style>",
    "iframe": "<iframe src=\"javascript:alert('iframe')\"></iframe>",
    "object": "<object data=\"javascript:alert('object')\"></object>",
    "embed": "<embed src=\"javascript:alert('embed')\">",
    "img": "<img src=x onerror=\"alert('img')\">",
    "svg": "<svg onload=\"alert('svg')\"></svg>",
    "a": "<a href=\"javascript:alert('a')\">a</a>",
    "form": '<form action="https://elsewhere.example/"><input name=q></form>',
    "input": "<input autofocus onfocus=\"alert('input')\">",
    "base": '<base href="https://elsewhere.example/">',
    "link": '<link rel=stylesheet href="https://elsewhere.example/x.css">',
    "meta": '<meta http-equiv=refresh content="0;url=javascript:alert(1)">',
    "semantics": "<semantics><mi>s</mi></semantics>",
    "annotation": '<annotation encoding="text/plain">note</annotation>',
    "annotation-xml": '<annotation-xml encoding="text/html"><b>html</b></annotation-xml>',
    "maction": '<maction actiontype="statusline"><mi>m</mi><mtext>status</mtext></maction>',
    "mglyph": '<mglyph src="https://elsewhere.example/glyph.png" alt="g"></mglyph>',
}


@pytest.mark.parametrize("where", ["{}", "<math><mrow>{}</mrow></math>"])
@pytest.mark.parametrize("tag", sorted(NEVER_ELEMENTS))
def test_never_allowed_element_is_absent_from_the_output(tag, where):
    html = clean_mathml(where.format(NEVER_ELEMENTS[tag]) + "<math><mi>x</mi></math>")

    parsed = _Parsed(html)
    assert tag not in [element for element, _attributes in parsed.elements]
    assert f"<{tag}" not in html
    assert parsed.elements[-2:] == [("math", {}), ("mi", {})]


@pytest.mark.parametrize("tag", ["script", "style"])
def test_script_and_style_go_with_their_content(tag):
    html = clean_mathml(f"<math><mi>x</mi>{NEVER_ELEMENTS[tag]}</math>")

    assert html == "<math><mi>x</mi></math>"


# Each never-allowed attribute, with a value that would do harm.
NEVER_ATTRIBUTES = {
    "onclick": "alert('click')",
    "onmouseover": "alert('over')",
    "onload": "alert('load')",
    "onfocus": "alert('focus')",
    "onerror": "alert('error')",
    "href": "javascript:alert('href')",
    "xlink:href": "javascript:alert('xlink')",
    "src": "javascript:alert('src')",
    "style": "background: url(javascript:alert('style'))",
    "class": "evil",
    "id": "evil",
    "mathcolor": "red",
    "mathbackground": "red",
    "actiontype": "statusline",
}


@pytest.mark.parametrize("tag", ["math", "mi", "mo", "mtd", "mspace"])
@pytest.mark.parametrize("name", sorted(NEVER_ATTRIBUTES))
def test_never_allowed_attribute_is_absent_from_the_output(name, tag):
    inner = "" if tag == "math" else f'<{tag} {name}="{NEVER_ATTRIBUTES[name]}">x</{tag}>'
    outer = f'<math {name}="{NEVER_ATTRIBUTES[name]}">' if tag == "math" else "<math>"
    html = clean_mathml(f"{outer}{inner}<mi>y</mi></math>")

    parsed = _Parsed(html)
    assert [attributes for _tag, attributes in parsed.elements if name in attributes] == []
    assert "javascript" not in html and "alert" not in html and "evil" not in html
    assert [element for element, _attributes in parsed.elements][-1] == "mi"


@pytest.mark.parametrize(
    "url",
    [
        "javascript:alert(1)",
        " JaVaScRiPt:alert(1)",
        "java&#x09;script:alert(1)",
        "&#106;avascript:alert(1)",
        "data:text/html,<script>alert(1)</script>",
        "vbscript:msgbox(1)",
    ],
)
def test_no_url_survives_in_any_attribute(url):
    html = clean_mathml(
        f'<math href="{url}"><mi src="{url}" xlink:href="{url}" mathvariant="bold">x</mi></math>'
    )

    assert html == '<math><mi mathvariant="bold">x</mi></math>'


def test_comments_are_dropped():
    html = clean_mathml("<math><!-- <script>alert(1)</script> --><mi>x</mi></math>")

    assert _Parsed(html).comments == []
    assert html == "<math><mi>x</mi></math>"


def test_text_that_looks_like_markup_stays_escaped_text():
    html = clean_mathml("<math><mtext>&lt;script&gt;alert(1)&lt;/script&gt; &amp;</mtext></math>")

    assert html == "<math><mtext>&lt;script&gt;alert(1)&lt;/script&gt; &amp;</mtext></math>"
    assert _Parsed(html).elements == [("math", {}), ("mtext", {})]


# Every element of MathML Core and the never-allowed ones, with every attribute the
# allowlists name and every never-allowed one: what comes out is only the allowlist.
EVERY_ATTRIBUTE = sorted(set().union(*MATHML_ATTRIBUTES.values()) | set(NEVER_ATTRIBUTES))


@pytest.mark.parametrize("tag", sorted(MATHML_ELEMENTS | set(NEVER_ELEMENTS)))
def test_output_holds_only_allowlisted_elements_and_attributes(tag):
    attributes = " ".join(f'{name}="1"' for name in EVERY_ATTRIBUTE)
    html = clean_mathml(f"<math {attributes}><{tag} {attributes}>x</{tag}></math>")

    elements = _Parsed(html).elements
    assert elements[0] == ("math", dict.fromkeys(MATHML_ATTRIBUTES["math"], "1"))
    for element, kept in elements:
        assert element in MATHML_ELEMENTS
        assert set(kept) <= MATHML_ATTRIBUTES.get(element, MATHML_ATTRIBUTES["*"]), element
    if tag in MATHML_ELEMENTS - {"math"}:
        allowed = MATHML_ATTRIBUTES.get(tag, MATHML_ATTRIBUTES["*"])
        assert elements[1] == (tag, dict.fromkeys(allowed, "1"))
