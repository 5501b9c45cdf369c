"""Reading rendered pages the way a reader does: the visible text, by language."""

import re
from html.parser import HTMLParser

CJK = re.compile(r"[\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff\uff00-\uffef]")
BLOCK = {
    "address",
    "article",
    "aside",
    "br",
    "dd",
    "div",
    "dl",
    "dt",
    "figcaption",
    "figure",
    "footer",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "header",
    "li",
    "main",
    "nav",
    "ol",
    "p",
    "section",
    "title",
    "ul",
}
VOID = {
    "area",
    "base",
    "br",
    "col",
    "embed",
    "hr",
    "img",
    "input",
    "link",
    "meta",
    "source",
    "track",
    "wbr",
}


class _TextByLanguage(HTMLParser):
    """Collects visible text, skipping elements whose ``lang`` is in ``skip_languages``."""

    def __init__(self, skip_languages):
        super().__init__()
        self.skip_languages = skip_languages
        self.stack = []  # one bool per open element: is it (or an ancestor) skipped?
        self.parts = []

    def handle_starttag(self, tag, attrs):
        if tag in BLOCK:
            self.parts.append(" ")
        if tag in VOID:
            return
        attributes = dict(attrs)
        skipped = bool(self.stack and self.stack[-1])
        skipped = skipped or tag in {"script", "style"}
        skipped = skipped or (attributes.get("lang") or "").lower() in self.skip_languages
        self.stack.append(skipped)

    def handle_endtag(self, tag):
        if tag in BLOCK:
            self.parts.append(" ")
        if tag not in VOID and self.stack:
            self.stack.pop()

    def handle_data(self, data):
        if not (self.stack and self.stack[-1]):
            self.parts.append(data)


def visible_text(html, skip_languages=()):
    """The page's text, without markup and without elements in ``skip_languages``."""
    parser = _TextByLanguage({language.lower() for language in skip_languages})
    parser.feed(html)
    return " ".join("".join(parser.parts).split())
