"""TeX maths in prose, rendered on the server as MathML (no script in the browser).

Delimiters as in LaTeX and MathJax: ``\\(...\\)`` and ``$...$`` inline, ``\\[...\\]`` and
``$$...$$`` displayed; a single ``$`` follows pandoc's rule (it opens when not after a
letter, digit or backslash nor before a space, closes when not after a space nor before
a digit), so "US$5" and "$5 and $10" stay text. latex2mathml converts (maths it cannot
is shown as its escaped source); it copies ``\\text{}`` as raw HTML and turns ``\\href``,
``\\style`` and ``\\class`` into attributes, so all MathML passes ``clean_mathml``.

Limits: conversion time grows faster than the formula (2,000 characters 20-150 ms, 8,000
about 1 s, 400 nested ``\\frac{`` exhaust the recursion limit; ``benchmarks/mathtext.py``),
so :class:`MathLimitsValidator` refuses longer or deeper formulas and more maths a text;
stored text over a limit is shown as its escaped source. Formulas' MathML is kept in an
in-process LRU cache of ``FORMULA_CACHE_SIZE`` entries (at most about 20 KB each).
"""

import re
from functools import lru_cache

from django.core.exceptions import ValidationError
from django.utils.deconstruct import deconstructible
from django.utils.html import conditional_escape, linebreaks
from django.utils.safestring import mark_safe
from django.utils.text import Truncator, normalize_newlines
from django.utils.translation import gettext_lazy as _
from latex2mathml.converter import convert

from catalogue.sanitising import clean_mathml

MAX_FORMULA_LENGTH = 2000
MAX_FORMULA_DEPTH = 20
MAX_MATH_LENGTH = 10000
FORMULA_CACHE_SIZE = 1024

_SINGLE_DOLLAR = re.compile(r"(?<![\\$\w])\$(?=\S)(?P<dollars>[^$]*?\S)\$(?![\d$])", re.DOTALL)
MATH = re.compile(
    r"\\\((?P<inline>.+?)\\\)"
    r"|\\\[(?P<display>.+?)\\\]"
    r"|\$\$(?P<display_dollars>.+?)\$\$|" + _SINGLE_DOLLAR.pattern,
    re.DOTALL,
)


# Where maths may start: every $, and \( and \[ while a closer is still ahead.
_OPENERS = {
    frozenset(kinds): re.compile("|".join([*map(re.escape, kinds), r"\$"]))
    for kinds in [(), ("\\(",), ("\\[",), ("\\(", "\\[")]
}
_CLOSERS = {"\\(": "\\)", "\\[": "\\]", "$$": "$$"}


def math_matches(text):
    """The matches of ``MATH.finditer(text)`` in linear time: that scans to the end from
    each opener never closed (32,000 ``\\(`` took a minute); here an opener with no
    closer after it, and every later one of its kind, is skipped without a scan."""
    last = {opener: text.rfind(closer) for opener, closer in _CLOSERS.items()}
    alive = {kind for kind in ("\\(", "\\[") if last[kind] >= 0}
    position = 0
    while (found := _OPENERS[frozenset(alive)].search(text, position)) is not None:
        start = found.start()
        opener = text[start : start + 2]
        if opener not in last or last[opener] >= start + 3:
            match = MATH.match(text, start)
        elif opener == "$$":  # "$$" never closed: only a single-dollar formula can start here
            match = _SINGLE_DOLLAR.match(text, start)
        else:  # "\\(" or "\\[" with no closer ahead: none of its kind can match any more
            alive.discard(opener)
            match = None
        if match is None:
            position = start + 1
            continue
        yield match
        position = match.end()


def math_segments(text):
    """Split ``text`` into ``(is_math, segment)`` pairs; maths segments lose their delimiters."""
    for match, chunk in _chunks(text):
        yield match is not None, chunk


def has_math(text):
    """Whether ``text`` contains TeX maths between the delimiters above."""
    if "$" not in text and "\\" not in text:  # most titles and leads
        return False
    return next(math_matches(text), None) is not None


# What changes the nesting depth: ``\left``, ``\begin``, ``\right``, ``\end``, a brace
# (an escaped character, ``\{``, is skipped).
_NESTING = re.compile(r"\\(?:left|begin|right|end)(?![A-Za-z])|\\.|[{}]", re.DOTALL)


def nesting_depth(formula):
    """How deeply ``formula`` nests braces, ``\\left...\\right`` and ``\\begin...\\end``
    (unbalanced closers count as 0), in linear time."""
    depth = deepest = 0
    for match in _NESTING.finditer(formula):
        token = match.group()
        if token in ("{", "\\left", "\\begin"):
            depth += 1
            deepest = max(deepest, depth)
        elif token in ("}", "\\right", "\\end"):
            depth = max(depth - 1, 0)
    return deepest


def math_length(text):
    """How many characters of ``text`` are TeX maths (delimiters excluded)."""
    return sum(len(segment) for is_math, segment in math_segments(text) if is_math)


def _too_much_maths(text):
    """Whether ``text`` holds more than MAX_MATH_LENGTH characters of maths (counted no
    further, so a huge stored text costs no more than the limit)."""
    total = 0
    for match in math_matches(text):
        total += len(match.group(match.lastgroup))
        if total > MAX_MATH_LENGTH:
            return True
    return False


@lru_cache(maxsize=FORMULA_CACHE_SIZE)
def formula_mathml(formula, display):
    """Sanitised MathML for one formula within the limits (``display`` "inline" or
    "block"), cached; None when latex2mathml cannot convert it."""
    try:
        return clean_mathml(convert(formula.strip(), display=display))
    except Exception:  # latex2mathml raises many kinds on bad TeX, RecursionError included.
        return None


def _render(chunks, line_breaks, convertible):
    """``chunks`` as HTML: text escaped, maths converted when ``convertible`` and within
    the limits, else shown as escaped source."""
    parts = []
    for match, chunk in chunks:
        if match is None:
            escaped = conditional_escape(chunk)
            parts.append(escaped.replace("\n", "<br>") if line_breaks else escaped)
            continue
        displayed = match.lastgroup in ("display", "display_dollars")
        mathml = None
        if convertible and len(chunk) <= MAX_FORMULA_LENGTH:
            if nesting_depth(chunk) <= MAX_FORMULA_DEPTH:
                mathml = formula_mathml(chunk, "block" if displayed else "inline")
        parts.append(conditional_escape(match.group(0)) if mathml is None else mathml)
    return "".join(parts)


def _chunks(text):
    position = 0
    for match in math_matches(text):
        if match.start() > position:
            yield None, text[position : match.start()]
        yield match, next(group for group in match.groups() if group is not None)
        position = match.end()
    if position < len(text):
        yield None, text[position:]


def math_inline(text):
    """``text`` as safe HTML: escaped (as Django's autoescaping), its maths as MathML."""
    if not has_math(text) or _too_much_maths(text):
        return conditional_escape(text)
    html = _render(_chunks(text), line_breaks=False, convertible=True)  # within the limit
    return mark_safe(html)  # noqa: S308 - every part escaped or sanitised MathML


def math_paragraphs(text):
    """``text`` as ``<p>`` paragraphs with maths as MathML; without maths, or with more
    than the limit, exactly ``linebreaks(text, autoescape=True)``."""
    if not has_math(text) or _too_much_maths(text):
        return mark_safe(linebreaks(text, autoescape=True))  # noqa: S308 - escaped by Django
    text = normalize_newlines(str(text))
    paragraphs = [list(_chunks(paragraph)) for paragraph in re.split("\n{2,}", text)]
    total = sum(len(chunk) for chunks in paragraphs for match, chunk in chunks if match)
    convertible = total <= MAX_MATH_LENGTH
    return mark_safe(  # noqa: S308 - every part escaped or sanitised MathML
        "\n\n".join(
            f"<p>{_render(chunks, line_breaks=True, convertible=convertible)}</p>"
            for chunks in paragraphs
        )
    )


# A command latex2mathml does not know: it copies it into the MathML as a name.
_UNKNOWN_COMMAND = re.compile(r">(\\[A-Za-z]+)</m")


def formula_problems(text):
    """The formulas of ``text`` that a reader would see as TeX source: ``(formula, None)``
    for one latex2mathml cannot convert (``$\\frac{1}{$``), ``(formula, command)`` for one
    using a command it does not know (``\\unknowncmd``, shown as its name). Formulas over
    the limits are :class:`MathLimitsValidator`'s to refuse, and not listed."""
    for match in math_matches(text):
        formula = match.group(match.lastgroup)
        if len(formula) > MAX_FORMULA_LENGTH or nesting_depth(formula) > MAX_FORMULA_DEPTH:
            continue
        displayed = match.lastgroup in ("display", "display_dollars")
        mathml = formula_mathml(formula, "block" if displayed else "inline")
        if mathml is None:
            yield formula, None
        elif (unknown := _UNKNOWN_COMMAND.search(mathml)) is not None:
            yield formula, unknown.group(1)


@deconstructible
class MathLimitsValidator:
    """Refuses text whose TeX maths is over the limits with a ValidationError (code
    ``formula_too_long``, ``formula_too_deep`` or ``too_much_maths``) naming ``field``
    ("title") and quoting the formula's start; on every language's column."""

    def __init__(self, field):
        self.field = field

    def __call__(self, value):
        text = str(value or "")
        total = 0
        for match in math_matches(text):
            formula = match.group(match.lastgroup)
            params = {"field": self.field, "start": Truncator(" ".join(formula.split())).chars(40)}
            if len(formula) > MAX_FORMULA_LENGTH:
                raise ValidationError(
                    _(
                        "%(field)s: the formula “%(start)s” is %(length)s characters long; "
                        "a formula may have at most %(limit)s. Split it or shorten it."
                    ),
                    code="formula_too_long",
                    params={**params, "length": len(formula), "limit": MAX_FORMULA_LENGTH},
                )
            depth = nesting_depth(formula)
            if depth > MAX_FORMULA_DEPTH:
                raise ValidationError(
                    _(
                        "%(field)s: the formula “%(start)s” nests %(depth)s levels deep; "
                        "a formula may nest braces, \\left…\\right and \\begin…\\end "
                        "at most %(limit)s levels deep."
                    ),
                    code="formula_too_deep",
                    params={**params, "depth": depth, "limit": MAX_FORMULA_DEPTH},
                )
            total += len(formula)
            if total > MAX_MATH_LENGTH:
                raise ValidationError(
                    _(
                        "%(field)s: the maths in this text adds up to more than %(limit)s "
                        "characters, the most one text may hold."
                    ),
                    code="too_much_maths",
                    params={"field": self.field, "limit": MAX_MATH_LENGTH},
                )

    def __eq__(self, other):
        return isinstance(other, MathLimitsValidator) and str(self.field) == str(other.field)
