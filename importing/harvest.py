"""The harvest route: a compact file whose awards name their papers by title, as the
announcement gives them, and that names the conference's whole proceedings file
(``proceedings:``, BibTeX or CSL-JSON, thousands of entries). Each title is matched to
one entry ignoring case, accents, punctuation and LaTeX; a title that is not there as
written is matched within :data:`CUTOFF` (rapidfuzz) only when an author's family name,
written in the award list, confirms it. Nothing is guessed: a missing or ambiguous title
is a problem naming its line and its nearest entries. The matched entries become the
file's papers, as with ``bibtex:`` (``docs/harvest.md``).

For 5,000 entries (3.3 MB of BibTeX, ``tests/data/harvest/make_proceedings.py 5000``)
the import took 0.6 s of CPU and 32 MB more than the compact file of the same conference
(``docs/harvest.md``, "Size and time"): bibtexparser's split of the file is most of it."""

import re
import unicodedata
from collections import defaultdict
from pathlib import Path, PurePosixPath

from rapidfuzz import fuzz, process

from importing.bibtex import index_bibtex
from importing.csljson import index_csljson
from importing.fields import FixtureInvalid, Problem
from importing.files import MAX_FILE_SIZE, InputRefused, read_input
from importing.latex import latex_to_text
from importing.parsing import where_written

# The least similarity (rapidfuzz's ratio, 0-100, of the normalised titles) at which an
# author may confirm a title not written exactly: one or two typos in a 30-letter title.
CUTOFF = 90
# What is not a letter or digit, in any script.
PUNCTUATION = re.compile(r"[\W_]+")
# How many of the nearest entries a problem lists.
CANDIDATES = 3


def harvest(data, path, max_bytes=MAX_FILE_SIZE):
    """``(data, entries)`` for the compact document ``data`` read from ``path``, which
    names its ``proceedings``: ``data`` with each award entry given by title replaced by its
    entry's citation key (or CSL id) and ``papers`` listing those, ``entries`` the matched
    entries read as :func:`importing.bibtex.parse_bibtex` reads them (key -> paper). A
    string without spaces that is no key of the proceedings is left as it is (a paper's
    slug). Raises :class:`FixtureInvalid` naming every title not matched."""
    path = Path(path)
    at = where_written(data, "proceedings")
    if data.get("bibtex") is not None:
        raise _invalid(
            (path, at),
            "proceedings",
            "write either proceedings (match awards by title) or bibtex (papers by "
            "citation key), not both",
        )
    name = data["proceedings"]
    proceedings = Proceedings(*_index((path, at), name, max_bytes), name)
    awards, problems, awarded = [], [], []
    for number, award in enumerate(_list(data.get("awards")), start=1):
        entries = award.get("entries") if isinstance(award, dict) else None
        if not isinstance(entries, dict):
            awards.append(award)
            continue
        harvested = {}
        for level, items in entries.items():
            harvested[level] = items
            if not isinstance(items, list):
                continue
            harvested[level] = []
            for position, item in enumerate(items, start=1):
                place = f"awards[{number}].entries.{level}[{position}]"
                try:
                    key = proceedings.match(item)
                except _Unmatched as error:
                    at = where_written(data, place)
                    problems.append(Problem(path, str(error), place=place, at=at))
                    key = None
                harvested[level].append(item if key is None else key)
                if key is not None:
                    awarded.append(key)
        awards.append({**award, "entries": harvested})
    if problems:
        raise FixtureInvalid(problems)
    papers = data.get("papers", [])
    if not isinstance(papers, list):  # reported by the reader; the awards name no paper
        return data, proceedings.read({})
    written = [item.get("key") for item in papers if isinstance(item, dict)]
    wanted = [*awarded, *(key for key in written if key in proceedings.keys)]
    papers = [*papers, *({"key": key} for key in dict.fromkeys(awarded) if key not in written)]
    if isinstance(data.get("awards"), list):
        data = {**data, "awards": awards}
    return {**data, "papers": papers}, proceedings.read(dict.fromkeys(wanted))


def normalised(text):
    """``text`` for comparing titles and names: LaTeX decoded, accents dropped, case
    folded, punctuation made spaces: ``Learning {$k$}-Sparse`` -> ``learning k sparse``."""
    return _folded(_decoded(text))


def _decoded(text):
    """LaTeX ``text`` as Unicode text (as written, if it cannot be read)."""
    return latex_to_text(text)[0] or text


def _folded(text):
    """Unicode ``text`` without accents, case or punctuation."""
    letters = unicodedata.normalize("NFKD", text)
    letters = "".join(char for char in letters if not unicodedata.combining(char))
    return " ".join(PUNCTUATION.sub(" ", letters.casefold()).split())


class Proceedings:
    """A proceedings file's titles, for :meth:`match`; ``read(keys)`` reads entries."""

    def __init__(self, rows, read, name):
        self.rows, self.read, self.name = rows, read, name
        self.keys = {row[0] for row in rows}
        self.shown = [_decoded(title) for _, title, _ in rows]
        self.titles = [_folded(title) for title in self.shown]
        self.exact = defaultdict(list)
        for index, title in enumerate(self.titles):
            self.exact[title].append(index)

    def match(self, item):
        """The citation key ``item`` (an award entry as written) stands for, or None for
        an item left alone. Raises :class:`_Unmatched` saying why and what is nearest."""
        if isinstance(item, dict) and isinstance(item.get("title"), str) and item["title"]:
            title, authors = item["title"], item.get("authors") or []
        elif isinstance(item, str) and item not in self.keys and " " in item.strip():
            title, authors = item, []
        elif isinstance(item, str):
            return item if item in self.keys else None
        elif isinstance(item, dict) and len(item) == 1 and "title" not in item:
            # An unquoted title holding ": " reads as a mapping of one key.
            raise _Unmatched(
                "a mapping, not a title: a title holding a colon and a space is written "
                'in quotes ("A: B")'
            )
        else:
            raise _Unmatched(
                "write a title (in quotes if it holds a colon), a citation key, or "
                "{title: ..., authors: [family name]}"
            )
        authors = [normalised(str(name)) for name in _list(authors, single=True)]
        query = normalised(title)
        nearest = process.extract(query, self.titles, scorer=fuzz.ratio, limit=CANDIDATES)
        close = self.exact.get(query) or [i for _, score, i in nearest if score >= CUTOFF]
        listed = "; ".join(
            f"“{self.shown[i]}” ({self.rows[i][0]}, {round(score)})" for _, score, i in nearest
        )
        if not close:
            raise _Unmatched(
                f"“{title}” is not in {self.name}, nor any title close to it; the nearest: "
                f"{listed}. Check the title, or write the citation key of the paper meant"
            )
        if not authors and query not in self.exact:
            raise _Unmatched(
                f"“{title}” is not in {self.name} as written; the nearest: {listed}. To take "
                "a near one, write authors: [family name] of one of its authors, or its "
                "citation key instead of the title"
            )
        confirmed = [i for i in close if not authors or self.confirms(i, authors)]
        if len(confirmed) == 1:
            return self.rows[confirmed[0]][0]
        if not confirmed:
            names = ", ".join(str(name) for name in _list(item.get("authors"), single=True))
            raise _Unmatched(
                f"“{title}” is close to {listed}, but none of those has an author named "
                f"{names}; write the citation key of the paper meant"
            )
        raise _Unmatched(
            f"“{title}” matches several entries of {self.name}: {listed}; write the "
            "citation key of the one meant instead of the title"
        )

    def confirms(self, index, authors):
        """Whether a normalised name of ``authors`` is the family name (or full name) of
        an author of entry ``index``: ``Kärkkäinen``, ``Aino Kärkkäinen``, ``Lin Xiaoyu``."""
        families = {normalised(family) for family in self.rows[index][2]()}
        return any(
            name in families or name.split()[-1] in families or name.split()[0] in families
            for name in authors
            if name
        )


class _Unmatched(Exception):
    """An award entry's title matches no one entry; the message says why, and how to fix it."""


def _invalid(where, place, message):
    """A FixtureInvalid of one problem at ``where``, (file path, (line, column) or None)."""
    path, at = where
    return FixtureInvalid([Problem(path, message, place=place, at=at)])


def _list(value, single=False):
    """``value`` if a list ([] for anything else; ``[value]`` for a string if ``single``)."""
    if single and isinstance(value, str):
        return [value]
    return value if isinstance(value, list) else []


def _index(where, name, max_bytes):
    """``(rows, read)`` of the proceedings file ``name``, beside the compact file named
    by ``where`` (its path, and where it writes ``proceedings``): CSL-JSON when its text
    starts with ``[``, else BibTeX."""
    path = where[0]
    if not isinstance(name, str) or not name:
        raise _invalid(where, "proceedings", "expected the path of a .bib or .json file")
    folder = path.parent.resolve()
    file = (folder / name).resolve()
    if PurePosixPath(name).is_absolute() or not file.is_relative_to(folder):
        raise _invalid(
            where,
            "proceedings",
            f"{name!r} must be a path relative to this file, inside its folder",
        )
    try:
        text = read_input(file, max_bytes).decode("utf-8-sig")
    except (InputRefused, UnicodeDecodeError) as error:
        raise _invalid(where, "proceedings", f"cannot read {name}: {error}") from None
    source = str(path.parent / name)
    if text.lstrip().startswith("["):
        return index_csljson(text, source=source)
    return index_bibtex(text, source=source)
