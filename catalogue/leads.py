"""A paper's lead, the line lists show under its authors: a derived column (:data:`LEAD`),
in each language the first sentence of the summary, else the abstract, shortened.
"""

import re

from django.conf import settings
from modeltranslation.utils import build_localized_fieldname

from catalogue import languages
from catalogue.derived import DerivedColumn
from catalogue.mathtext import math_matches

LEAD_CHARS = 200  # about two lines of a list on a phone
ELLIPSIS = "…"
SOURCES = ("summary", "abstract")  # the first one with text

# The end of a sentence: a full stop, question or exclamation mark (with any closing
# quotes or brackets) before white space and a word that does not start in lower
# case, or directly before a Chinese character (Chinese typed with ASCII punctuation),
# or a Chinese or Japanese full stop, question or exclamation mark anywhere.
_SENTENCE_END = re.compile(
    r"[.!?][\"'”’)\]]*(?=\s+[^\sa-z]|[\u3400-\u4dbf\u4e00-\u9fff])"
    r"|[.!?][\"'”’)\]]*$|[。！？][”’」』）]*"
)
# Words whose full stop ends no sentence ("e.g. Smith", "et al. Then").
_ABBREVIATIONS = {"al", "approx", "cf", "e.g", "eq", "eqs", "etc", "fig", "figs", "i.e", "ref"}
_ABBREVIATIONS |= {"resp", "sec", "vs", "dr", "mr", "ms", "prof", "st"}  # and titles
# Words whose full stop ends no sentence when a number follows ("No. 5"), but does
# otherwise ("The answer is no. We show").
_BEFORE_NUMBER = {"no"}
_NUMBER_NEXT = re.compile(r"\s*\d")
_LAST_WORD = re.compile(r"(\S+)$")
_CJK = re.compile(r"[\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff\uff00-\uffef]")


def _maths(text):
    """The ``(start, end)`` spans of the TeX maths in ``text``."""
    return [match.span() for match in math_matches(text)]


def first_sentence(text):
    """The first sentence of ``text``, white space collapsed, with its closing punctuation
    (the whole text if none), a full stop inside maths or after "e.g.", "et al." ending none."""
    text = " ".join(text.split())
    spans = _maths(text)
    for match in _SENTENCE_END.finditer(text):
        if any(start < match.start() < end for start, end in spans):
            continue  # inside maths
        if text[match.start()] == ".":
            word = _LAST_WORD.search(text, 0, match.start())
            word = word.group(1).lower().lstrip("([\"'") if word else ""
            if word in _ABBREVIATIONS:
                continue
            if word in _BEFORE_NUMBER and _NUMBER_NEXT.match(text, match.end()):
                continue
        return text[: match.end()]
    return text


def shorten(text, limit=LEAD_CHARS):
    """``text``, or past ``limit`` characters its start with an ellipsis, cut after a
    whole word (or between Chinese characters), never inside maths; a word that would
    leave less than half of ``limit`` (a long URL) is cut inside."""
    if len(text) <= limit:
        return text
    cut = limit
    for start, end in _maths(text):
        if start < cut < end:  # a formula running over the limit is left out whole
            cut = start
            break
    if not (_CJK.match(text, cut - 1) or _CJK.match(text, cut) or text[cut].isspace()):
        space = text.rfind(" ", 0, cut)
        if space >= limit // 2:
            cut = space
    return text[:cut].rstrip(" ,;:、，；：") + ELLIPSIS


def lead(text):
    """The first sentence of a summary or abstract ``text``, shortened ("" for none)."""
    return shorten(first_sentence(text or ""))


def refresh(paper):
    """Set ``paper``'s lead in every language (not saved)."""
    for code, _name in settings.LANGUAGES:
        text = ""
        for field in SOURCES:
            text = getattr(paper, build_localized_fieldname(field, code)) or ""
            if text.strip():
                break
        setattr(paper, build_localized_fieldname("lead", code), lead(text))


def _sources(model):
    """The fields a lead comes from, and their columns in every language."""
    return [*SOURCES, *(column for field in SOURCES for column in languages.columns(field))]


LEAD = DerivedColumn(
    "lead",
    sources=_sources,
    columns=lambda model: ["lead", *languages.columns("lead")],
    refresh=refresh,
)
