"""Citation export in BibTeX (bibtexparser 2, pylatexenc for LaTeX), RIS (rispy) and
CSL-JSON, of papers from ``Paper.objects.for_citation()``, as published: English titles
and abstracts. TeX maths is kept as maths in BibTeX and left as written elsewhere.

Safety: no value from imports or the admin may break out of its field. BibTeX: every
value is one line (bibtexparser starts an entry at an ``@`` opening a line) and its
braces balance, escaped or not, as BibTeX and biber count them; maths is kept only when
``maths_is_safe``; identifiers and URLs have braces, backslashes and spaces
percent-encoded. RIS: every value is one line, so none can start a tag line. CSL-JSON
is written by ``json.dumps``, which escapes quotes, backslashes and control characters.
"""

import functools
import json
import re
import textwrap
import unicodedata

import bibtexparser
import rispy
from bibtexparser.model import Entry, Field
from pylatexenc.latexencode import UnicodeToLatexEncoder

from catalogue.mathtext import math_matches, math_segments
from catalogue.names import Name, citation_name
from pages.metadata import first_page_and_last, paper_identifiers, proceedings_fields

_latex = UnicodeToLatexEncoder(
    non_ascii_only=False, unknown_char_policy="keep", unknown_char_warning=False
)


# TeX control words that read or write files, run programs (``\\write18``) or change
# what later input means. A denylist rather than an allowlist of maths commands: the
# maths people write uses hundreds of commands (and packages add more), while what
# can harm the reader's machine or document is this short list of primitives and
# kernel commands (with every ``\\every...`` token list and the engines' ``\\pdf...``
# and Lua primitives). Characters that work around any list are refused too: ``^^``
# (``^^5c`` spells a backslash), ``%`` (comments out the rest of the line, closing
# braces included), ``#`` and ``$`` (end or confuse the maths), a lone final ``\\``.
UNSAFE_TEX_COMMANDS = frozenset(
    """input include includeonly InputIfFileExists IfFileExists endinput openin openout
    closein closeout read readline write immediate special directlua latelua luaexec
    shellescape ShellEscape def edef gdef xdef let futurelet global long outer protected
    newcommand renewcommand providecommand DeclareRobustCommand newenvironment
    renewenvironment catcode lccode uccode mathcode sfcode csname endcsname expandafter
    noexpand afterassignment aftergroup scantokens usepackage RequirePackage
    documentclass makeatletter batchmode nonstopmode scrollmode errorstopmode""".split()
)
UNSAFE_TEX_PREFIXES = ("every", "pdf", "lua")
_TEX_TOKEN = re.compile(r"\\([A-Za-z]+|.?)|\^\^|[{}%#$]", re.DOTALL)


def maths_is_safe(formula):
    """Whether ``formula`` (TeX maths without its delimiters) may be written into a
    BibTeX field as it is: its braces balance (no prefix closes more than it opened,
    and all are closed; ``\\{`` and ``\\}`` count, as BibTeX counts them) and it holds
    none of ``UNSAFE_TEX_COMMANDS`` nor the characters refused above."""
    depth = 0
    for match in _TEX_TOKEN.finditer(formula):
        token, name = match.group(), match.group(1)
        if name is not None:
            if name == "" or name in UNSAFE_TEX_COMMANDS:
                return False
            if name.startswith(UNSAFE_TEX_PREFIXES):
                return False
            token = name
        elif token in ("^^", "%", "#", "$"):
            return False
        depth += {"{": 1, "}": -1}.get(token, 0)
        if depth < 0:
            return False
    return depth == 0


def _balanced(text):
    """Whether every brace in ``text`` is matched, escaped or not (BibTeX's rule)."""
    depth = 0
    for char in text:
        depth += {"{": 1, "}": -1}.get(char, 0)
        if depth < 0:
            return False
    return depth == 0


# tex() of this many recent texts is kept (a few kB each): pylatexenc is slow, and a text
# is written in several downloads (half the time of publishing the BibTeX files).
TEX_CACHE_SIZE = 8192


@functools.lru_cache(maxsize=TEX_CACHE_SIZE)
def tex(text):
    """``text`` as one line of LaTeX for a BibTeX field: specials and accents escaped,
    TeX maths kept as ``$...$`` when ``maths_is_safe``, else escaped as text. Text braces
    are ``\\{`` and ``\\}``, or ``{\\textbraceleft}`` when those would not balance:
    the result's braces always balance, so it can never close its field or entry."""
    text = one_line(text)
    parts, position = [], 0
    for match in math_matches(text):
        formula = next(group for group in match.groups() if group is not None)
        parts.append((False, text[position : match.start()]))
        parts.append((True, formula) if maths_is_safe(formula) else (False, match.group()))
        position = match.end()
    parts.append((False, text[position:]))
    written = _written(parts, _latex.unicode_to_latex)
    return written if _balanced(written) else _written(parts, _text_braces)


def _written(parts, escape):
    return "".join(f"${chunk}$" if is_math else escape(chunk) for is_math, chunk in parts)


def _text_braces(text):
    """``text`` in LaTeX, its braces as ``{\\textbraceleft}`` and ``{\\textbraceright}``."""
    braces = {"{": "{\\textbraceleft}", "}": "{\\textbraceright}"}
    pieces = re.split(r"([{}])", text)
    return "".join(braces.get(piece) or _latex.unicode_to_latex(piece) for piece in pieces)


def _verbatim(value):
    """An identifier or URL for BibTeX: braces, backslashes and white space
    percent-encoded (as a URL may write them), so it cannot close its field."""
    return re.sub(r"[{}\\\s]", lambda m: "".join(f"%{b:02X}" for b in m.group().encode()), value)


def one_line(text):
    """``text`` with runs of white space (newlines included) made single spaces."""
    return " ".join(text.split())


def citation_key(paper, taken):
    """An ASCII key like ``snell2025conformal`` (first author's family name, year, first
    title word of four letters or more), a letter added while ``taken`` (a set, updated)
    has it."""
    authorships = paper.ordered_authorships
    name = authorships[0].author.name_parts if authorships else Name()
    # The title's words outside its maths, found by the one maths finder (linear time).
    prose = " ".join(chunk for is_math, chunk in math_segments(paper.title_en) if not is_math)
    words = re.findall(r"[A-Za-z]{4,}", _ascii(prose))
    base = _ascii(name.family or name.literal).lower() + str(paper.conference.year)
    base += words[0].lower() if words else ""
    base = re.sub(r"[^a-z0-9]", "", base) or paper.slug
    key, suffix = base, ord("a")
    while key in taken:
        key, suffix = f"{base}{chr(suffix)}", suffix + 1
    taken.add(key)
    return key


def _ascii(text):
    return unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()


def _cited(papers, taken=None):
    """``(citation key, paper, its identifiers)`` of each of ``papers``."""
    taken = set() if taken is None else taken
    return [(citation_key(paper, taken), paper, paper_identifiers(paper)) for paper in papers]


def _authors(paper):
    """The names of ``paper``'s authors in order, split as written on each author."""
    return [authorship.author.name_parts for authorship in paper.ordered_authorships]


def _bibtex_name(name):
    if name.literal:
        return "{" + tex(name.literal) + "}"
    if name.suffix:
        return f"{tex(name.family)}, {tex(name.suffix)}, {tex(name.given)}"
    return f"{tex(name.family)}, {tex(name.given)}"


def _place(conference):
    country = conference.country_en if conference.country_shown else ""
    return ", ".join(value for value in (conference.city_en, country) if value)


def _proceedings(conference):
    """``series``, ``volume``, ``publisher`` and ``note`` ("" when unknown) of a
    conference's proceedings: fields when they name a volume (pages/metadata.py's
    ``proceedings_fields``), which reference managers and styles print; else the
    proceedings' text as a note."""
    fields = proceedings_fields(conference.proceedings_en)
    note = "" if fields else (conference.proceedings_en or "")
    return {"series": "", "volume": "", "publisher": "", **fields, "note": note}


def to_bibtex(papers, urls, taken=None):
    """BibTeX ``@inproceedings`` entries for ``papers``. ``urls``: {pk: the paper's page
    URL here}, used when no proceedings or OpenReview page is known; ``taken``: the
    citation keys used already (a set, updated), for text written in parts (``stream``)."""
    entries = []
    for key, paper, ids in _cited(papers, taken):
        conference = paper.conference
        first, last = first_page_and_last(paper.pages)
        proceedings = _proceedings(conference)
        fields = [
            ("title", "{" + tex(paper.title_en) + "}"),
            ("author", " and ".join(_bibtex_name(name) for name in _authors(paper))),
            ("booktitle", tex(conference.venue.name_en)),
            ("year", str(conference.year)),
            ("pages", f"{tex(first)}--{tex(last)}" if last else tex(first)),
            ("address", tex(_place(conference))),
            *((name, tex(proceedings[name])) for name in ("series", "volume", "publisher")),
            ("doi", _verbatim(ids["doi"])),
            ("eprint", _verbatim(ids["arxiv"])),
            ("archiveprefix", "arXiv" if ids["arxiv"] else ""),
            ("url", _verbatim(ids["landing"] or urls[paper.pk])),
            ("note", tex(proceedings["note"])),
            ("abstract", tex(paper.abstract_en or "")),
        ]
        # A field without a value is left out.
        entries.append(
            Entry("inproceedings", key, [Field(name, value) for name, value in fields if value])
        )
    return bibtexparser.write_string(bibtexparser.Library(entries))


class _RisWriter(rispy.RisWriter):
    """rispy's writer without its "1." line before each record, which RIS does not define."""

    def set_header(self, count):
        return ""


def _ris_name(name):
    return citation_name(name)


def _ris_value(value):
    """A RIS value (a string or a list of them) with each string made one line: a tag
    is read only at the start of a line, so a value cannot start another tag."""
    return [one_line(item) for item in value] if isinstance(value, list) else one_line(value)


def to_ris(papers, urls, taken=None):
    """RIS records (type ``CPAPER``: conference paper) for ``papers``; ``urls`` and
    ``taken`` as in to_bibtex."""
    records = []
    for _key, paper, ids in _cited(papers, taken):
        conference = paper.conference
        first, last = first_page_and_last(paper.pages)
        proceedings = _proceedings(conference)
        record = {
            "type_of_reference": "CPAPER",
            "title": paper.title_en,
            "authors": [_ris_name(name) for name in _authors(paper)],
            "year": str(conference.year),
            "secondary_title": conference.venue.name_en,
            "urls": [url for url in (ids["landing"], urls[paper.pk]) if url],
            "language": "en",
        }
        optional = {
            "start_page": first,
            "end_page": last,
            "place_published": _place(conference),
            "volume": proceedings["volume"],
            "tertiary_title": proceedings["series"],
            "publisher": proceedings["publisher"],
            "doi": ids["doi"],
            "abstract": paper.abstract_en,
        }
        record.update((tag, value) for tag, value in optional.items() if value)
        records.append({tag: _ris_value(value) for tag, value in record.items()})
    return rispy.dumps(records, implementation=_RisWriter)


def csl_items(papers, urls, taken=None):
    """CSL-JSON items (type ``paper-conference``) of ``papers`` as dicts; ``urls`` and
    ``taken`` as in to_bibtex."""
    items = []
    for key, paper, ids in _cited(papers, taken):
        conference = paper.conference
        item = {
            "id": key,
            "type": "paper-conference",
            "title": one_line(paper.title_en),
            "author": [_csl_name(name) for name in _authors(paper)],
            "issued": {"date-parts": [[conference.year]]},
            "container-title": conference.venue.name_en,
            "event-title": conference.name_en,
            "URL": ids["landing"] or urls[paper.pk],
            "language": "en",
        }
        proceedings = _proceedings(conference)
        optional = {
            "event-place": _place(conference),
            "volume": proceedings["volume"],
            "collection-title": proceedings["series"],
            "publisher": proceedings["publisher"],
            "page": paper.pages,
            "DOI": ids["doi"],
            "abstract": one_line(paper.abstract_en or ""),
        }
        item.update((name, value) for name, value in optional.items() if value)
        items.append(item)
    return items


def _csl_name(name):
    if name.literal:
        return {"literal": name.literal}
    if name.suffix:
        return {"family": name.family, "given": name.given, "suffix": name.suffix}
    return {"family": name.family, "given": name.given}


def stream(fmt, batches):
    """Citations in format ``fmt`` (a key of ``FORMATS``), one piece of text per
    ``(papers, urls)`` of ``batches``; joined, the text of all the papers at once (keys
    unique across batches; CSL-JSON one indented list), without holding every paper in
    memory."""
    taken = set()
    if fmt == "json":
        opened = False
        for papers, urls in batches:
            for item in csl_items(papers, urls, taken):
                text = textwrap.indent(json.dumps(item, ensure_ascii=False, indent=2), "  ")
                yield (",\n" if opened else "[\n") + text
                opened = True
        yield "\n]\n" if opened else "[]\n"
        return
    formatter, separator = {"bib": (to_bibtex, "\n\n"), "ris": (to_ris, "\n")}[fmt]
    written = False
    for papers, urls in batches:
        if papers:
            text = formatter(papers, urls, taken)
            yield separator + text if written else text
            written = True


def citation_text(fmt, papers, urls):
    """The citations of ``papers`` in format ``fmt`` as one text (see ``stream``)."""
    return "".join(stream(fmt, [(papers, urls)]))


# The formats a URL may ask for: extension -> content type.
FORMATS = {
    "bib": "application/x-bibtex; charset=utf-8",
    "ris": "application/x-research-info-systems; charset=utf-8",
    "json": "application/vnd.citationstyles.csl+json; charset=utf-8",
}
