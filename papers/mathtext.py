"""TeX maths in prose, rendered on the server as MathML (no script in the browser).

Delimiters, as in LaTeX and MathJax: ``\\(...\\)`` and ``$...$`` inline,
``\\[...\\]`` and ``$$...$$`` displayed. A single ``$`` opens maths only when it is
not preceded by a letter, digit or backslash and not followed by a space, and
closes it only when not preceded by a space nor followed by a digit (pandoc's
rule), so "US$5" and "$5 and $10" stay text. latex2mathml does the conversion;
maths it cannot convert is shown as the TeX source, escaped.
"""

import re

from django.utils.html import conditional_escape, linebreaks
from django.utils.safestring import mark_safe
from django.utils.text import normalize_newlines
from latex2mathml.converter import convert

MATH = re.compile(
    r"\\\((?P<inline>.+?)\\\)"
    r"|\\\[(?P<display>.+?)\\\]"
    r"|\$\$(?P<display_dollars>.+?)\$\$"
    r"|(?<![\\$\w])\$(?=\S)(?P<dollars>[^$]*?\S)\$(?![\d$])",
    re.DOTALL,
)


def math_segments(text):
    """Split ``text`` into ``(is_math, segment)`` pairs; maths segments lose their delimiters."""
    for match, chunk in _chunks(text):
        yield match is not None, chunk


def has_math(text):
    """Whether ``text`` contains TeX maths between the delimiters above."""
    return MATH.search(text) is not None


def _render(text, line_breaks):
    parts = []
    for match, chunk in _chunks(text):
        if match is None:
            escaped = conditional_escape(chunk)
            parts.append(escaped.replace("\n", "<br>") if line_breaks else escaped)
            continue
        displayed = match["display"] is not None or match["display_dollars"] is not None
        display = "block" if displayed else "inline"
        try:
            parts.append(convert(chunk.strip(), display=display))
        except Exception:  # latex2mathml raises many kinds on bad TeX: show the source.
            parts.append(conditional_escape(match.group(0)))
    return "".join(parts)


def _chunks(text):
    position = 0
    for match in MATH.finditer(text):
        if match.start() > position:
            yield None, text[position : match.start()]
        yield match, next(group for group in match.groups() if group is not None)
        position = match.end()
    if position < len(text):
        yield None, text[position:]


def math_inline(text):
    """``text`` as safe HTML: escaped, with its maths as MathML. Text without maths is
    only escaped, exactly as Django's autoescaping would."""
    if not has_math(text):
        return conditional_escape(text)
    return mark_safe(_render(text, line_breaks=False))  # noqa: S308 - every part escaped or MathML


def math_paragraphs(text):
    """``text`` as ``<p>`` paragraphs (like the ``linebreaks`` filter) with maths as MathML.

    Text without maths gives exactly ``linebreaks(text, autoescape=True)``.
    """
    if not has_math(text):
        return mark_safe(linebreaks(text, autoescape=True))  # noqa: S308 - escaped by Django
    text = normalize_newlines(str(text))
    paragraphs = re.split("\n{2,}", text)
    return mark_safe(  # noqa: S308 - every part escaped or MathML
        "\n\n".join(f"<p>{_render(paragraph, line_breaks=True)}</p>" for paragraph in paragraphs)
    )
