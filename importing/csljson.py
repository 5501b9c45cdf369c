"""Papers from a CSL-JSON file (the citation format of Zotero, citeproc and Crossref's
content negotiation): a list of items, each with an ``id``, a ``title``, an ``author``
list of ``{family, given}`` or ``{literal}``, ``page``, ``DOI``, ``URL``. For the harvest
(harvest.py), in the shape :func:`importing.bibtex.index_bibtex` gives a BibTeX file."""

import json
import re
from functools import partial
from urllib.parse import quote

from catalogue.names import guessed_fields
from importing.bibtex import PAGE_DASH, url_kind
from importing.fields import FixtureInvalid, Problem

# CSL's rich-text markup in titles (<i>, <b>, <sup>, <sub>, <span class="nocase">).
MARKUP = re.compile(r"</?(?:i|b|sup|sub|span)(?:\s[^>]*)?>")


def index_csljson(text, *, source):
    """``(rows, read)`` for the CSL-JSON ``text``, as ``index_bibtex`` returns them: rows
    ``(id, title, families)`` for each item with an id and a title, ``read(keys)`` ->
    ``{id: paper}`` (``key``, ``title``, ``authors``, ``pages``, ``links``; no year: the
    compact file's conference gives it).
    Raises :class:`FixtureInvalid` when the text is no JSON list of items."""
    try:
        items = json.loads(text)
    except json.JSONDecodeError as error:
        raise FixtureInvalid([Problem(source, f"cannot be read as CSL-JSON: {error}")]) from None
    if not isinstance(items, list):
        raise FixtureInvalid([Problem(source, "CSL-JSON is a list of items ([{...}, ...])")])
    found = {}
    for item in items:
        if isinstance(item, dict) and item.get("id") is not None:
            if isinstance(item.get("title"), str):
                found.setdefault(str(item["id"]), item)
    rows = [(key, _title(item), partial(_families, item)) for key, item in found.items()]

    def read(keys):
        return {key: _paper(key, found[key]) for key in keys}

    return rows, read


def _title(item):
    """An item's title as one line of text, CSL's markup removed."""
    return " ".join(MARKUP.sub("", item["title"]).split())


def _people(item):
    return [person for person in item.get("author") or [] if isinstance(person, dict)]


def _families(item):
    """The family names of an item's authors (a literal name's last word)."""
    return [
        str(person.get("family") or (str(person.get("literal", "")).split() or [""])[-1])
        for person in _people(item)
    ]


def _words(*parts):
    return " ".join(" ".join(str(part).split()) for part in parts if part)


def person_fields(person):
    """One CSL name (``given``, ``dropping-particle``, ``non-dropping-particle``,
    ``family``, ``suffix``; or ``literal``) as ``{"name"}`` in display order ("Ludwig van
    Beethoven Jr."), with ``given_name`` and ``family_name`` (particles included, as the
    site writes them) and ``name_suffix`` where the split differs from the site's guess,
    as a BibTeX name is read (importing/bibtex.py); a ``literal`` (a team) is all family
    name. None for a name with no text."""
    if person.get("literal"):
        split = {"given_name": "", "family_name": _words(person["literal"]), "name_suffix": ""}
    else:
        particles = (person.get("dropping-particle"), person.get("non-dropping-particle"))
        split = {
            "given_name": _words(person.get("given")),
            "family_name": _words(*particles, person.get("family")),
            "name_suffix": _words(person.get("suffix")),
        }
    name = _words(split["given_name"], split["family_name"], split["name_suffix"])
    if not name:
        return None
    if split == guessed_fields(name):
        return {"name": name}
    if not split["name_suffix"]:
        del split["name_suffix"]
    return {"name": name, **split}


def _paper(key, item):
    """The paper of one CSL item, as :func:`importing.bibtex.parse_bibtex` gives one."""
    authors = [person_fields(person) for person in _people(item)]
    links = {}
    if item.get("DOI"):
        links["doi"] = "https://doi.org/" + quote(str(item["DOI"]), safe="/:;()[]._-<>")
    if item.get("URL"):
        links.setdefault(url_kind(str(item["URL"])), str(item["URL"]))
    return {
        "key": key,
        "title": _title(item),
        "authors": [person for person in authors if person],
        "pages": PAGE_DASH.sub("-", str(item.get("page", ""))),
        "links": links,
    }
