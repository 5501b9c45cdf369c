"""People's names: the split of a name as published into given and family names, guessed
when nobody wrote it (``guess``), the forms citations and the author index write, and why a
guessed split may be wrong (``reasons_to_check``, for ``manage.py check_author_names``)."""

import re
from dataclasses import dataclass

from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext
from slugify import slugify

# Generational suffixes ("King Jr.", "Ford II"), kept apart from the family name by
# every format, and lower-case particles that belong to it ("Ludwig van Beethoven").
SUFFIXES = {"jr", "jr.", "sr", "sr.", "ii", "iii", "iv"}
PARTICLES = {"van", "von", "de", "der", "den", "da", "di", "del", "della", "le", "la", "du", "dos"}
INITIAL = re.compile(r"\w\.?")  # "I." of "Michael I. Jordan"
CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af]")


@dataclass(frozen=True)
class Name:
    """A person's name split for citation formats: ``literal`` when it cannot be split."""

    given: str = ""
    family: str = ""
    literal: str = ""
    suffix: str = ""


def guess(name):
    """A name as published ("Jan van Rossem") split into given ("Jan") and family ("van
    Rossem": the last word and the particles before it, as BibTeX reads "First von
    Last") and a generational ``suffix``; a one-word name, or one in Chinese, Japanese
    or Korean script, whole as ``literal``. A guess: "Unai Fischer Abaigar" gives the
    family name "Abaigar", which is wrong (``reasons_to_check`` says when to look)."""
    words = name.split()
    if len(words) < 2 or CJK.search(name):
        return Name(literal=" ".join(words))
    suffix = ""
    if len(words) > 2 and words[-1].lower() in SUFFIXES:
        suffix = words.pop()
        words[-1] = words[-1].removesuffix(",")
    start = len(words) - 1
    while start > 1 and words[start - 1] in PARTICLES:
        start -= 1
    return Name(given=" ".join(words[:start]), family=" ".join(words[start:]), suffix=suffix)


def guessed_fields(name):
    """``{"given_name", "family_name", "name_suffix"}`` of an author named ``name`` as
    ``guess`` splits it; a name it cannot split is all family name (``given_name`` "")."""
    parts = guess(name)
    return {
        "given_name": parts.given,
        "family_name": parts.family or parts.literal,
        "name_suffix": parts.suffix,
    }


def parts(given, family, suffix=""):
    """The :class:`Name` citations write of an author with these fields: without a given
    name, the family name whole as ``literal`` (a one-word name, a team)."""
    if not given:
        return Name(literal=family)
    return Name(given=given, family=family, suffix=suffix)


def family_first(name):
    """Whether ``name`` (as published) is written family name first: in Chinese, Japanese
    or Korean script."""
    return bool(CJK.search(name))


def sort_name(given, family, name):
    """The author index's key: the family name, a space, the given name, each romanised
    in lower case ASCII ("fischer-abaigar unai", "zhang wei"); ``name`` when both are
    empty. The space sorts a family name before longer ones it begins."""
    if not family and not given:
        return slugify(name)
    return " ".join(part for part in (slugify(family), slugify(given)) if part)


def citation_name(name):
    """``name`` (a :class:`Name`) as "Family, Given" or "Family, Given, Suffix" (Google
    Scholar's ``citation_author``, RIS), or its ``literal``."""
    if name.literal:
        return name.literal
    return ", ".join(part for part in (name.family, name.given, name.suffix) if part)


def index_name(name, published):
    """How the author index writes a person: "Family, Given" (the letter it is under
    first), ``published`` (the name as published) for a name written family name first
    or one without a given name."""
    if name.literal or family_first(published):
        return published
    return citation_name(name)


def reasons_to_check(name):
    """Why the guessed split of ``name`` (as published) may be wrong, as translatable
    texts in a fixed order; [] for a name of two words (initials aside: "Michael I.
    Jordan"), neither a particle, not in capitals."""
    words = name.split()
    reasons = []
    if CJK.search(name):
        return [_("Chinese, Japanese or Korean script")]
    if len([word for word in words if not INITIAL.fullmatch(word)]) > 2:
        reasons.append(_("more than two words"))
    if any(word.lower() in PARTICLES for word in words[:-1]):
        reasons.append(_("a particle"))
    if any(char.isalpha() for char in name) and name.upper() == name:
        reasons.append(_("all in capitals"))
    return reasons


def to_check(authors):
    """``(author, reasons)`` of each of ``authors`` (with ``name``, ``given_name``,
    ``family_name``, ``name_suffix``) whose split is still the guess (nobody wrote
    another) and may be wrong (``reasons_to_check``), in the order given."""
    for author in authors:
        written = {field: getattr(author, field) for field in ("given_name", "family_name")}
        written["name_suffix"] = author.name_suffix
        if written != guessed_fields(author.name):
            continue
        reasons = reasons_to_check(author.name)
        if reasons:
            yield author, reasons


def name_separator():
    """The text between the names of a list of authors, in the active language: ", " in
    English, the enumeration comma "、" in Chinese, which joins lists of names (a "，"
    separates clauses). Marked in Python because ``makemessages`` reads no ``pgettext()`` in
    the Jinja2 templates, which call it."""
    return pgettext("between names", ", ")
