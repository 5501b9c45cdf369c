"""Papers from a CSL-JSON file (the citation format of Zotero, citeproc and Crossref's
content negotiation): a list of items, each with an ``id``, a ``title``, an ``author``
list of ``{family, given}`` or ``{literal}``, ``page``, ``DOI``, ``URL``. For the harvest
(harvest.py), in the shape :func:`importing.bibtex.index_bibtex` gives a BibTeX file."""

import json
import re
from functools import partial
from urllib.parse import quote

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


def _paper(key, item):
    """The paper of one CSL item, as :func:`importing.bibtex.parse_bibtex` gives one."""
    names = [
        " ".join(
            str(part)
            for part in (person.get("given"), person.get("family"), person.get("literal"))
            if part
        )
        for person in _people(item)
    ]
    links = {}
    if item.get("DOI"):
        links["doi"] = "https://doi.org/" + quote(str(item["DOI"]), safe="/:;()[]._-<>")
    if item.get("URL"):
        links.setdefault(url_kind(str(item["URL"])), str(item["URL"]))
    return {
        "key": key,
        "title": _title(item),
        "authors": [{"name": name} for name in names if name],
        "pages": PAGE_DASH.sub("-", str(item.get("page", ""))),
        "links": links,
    }
