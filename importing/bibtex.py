"""Papers and their ordered authors from a BibTeX file (PMLR, dblp, ACL, OpenReview) for a
compact file to name by citation key, by the rules of ``docs/bibtex.md``. bibtexparser 2
splits blocks and names, pylatexenc decodes LaTeX (latex.py); here: links, ``@string``
references and ``#`` (bibtexparser resolves only a value that is one whole reference)."""

import logging
import re
from functools import partial
from urllib.parse import quote, urlsplit

import bibtexparser
from bibtexparser.middlewares.names import (
    InvalidNameError,
    parse_single_name_into_parts,
    split_multiple_persons_names,
)
from bibtexparser.model import (
    DuplicateBlockKeyBlock,
    DuplicateFieldKeyBlock,
    Entry,
    ParsingFailedBlock,
    String,
)
from django.core.exceptions import ValidationError

from catalogue.models import Author, Paper, PaperLink
from catalogue.names import guessed_fields
from importing.fields import FixtureInvalid, Problem
from importing.latex import latex_to_text

# Entry types that are papers, and those skipped as not being papers (BibTeX's and
# biblatex's standard types). Any other type is refused.
PAPER_TYPES = frozenset(
    "inproceedings conference article incollection misc unpublished techreport report "
    "online electronic".split()
)
SKIPPED_TYPES = frozenset(
    "proceedings mvproceedings book mvbook inbook bookinbook suppbook booklet collection "
    "mvcollection suppcollection reference mvreference inreference periodical "
    "suppperiodical manual phdthesis mastersthesis thesis patent dataset software set "
    "xdata".split()
)
# BibTeX's predefined @string macros.
MONTHS = {
    month[:3].lower(): month
    for month in "January February March April May June July August September October "
    "November December".split()
}
ARXIV_ID = re.compile(r"^(?:\d{4}\.\d{4,5}|[a-z-]+(?:\.[A-Z]{2})?/\d{7})(?:v\d+)?$")
DBLP_HOMONYM = re.compile(r"\s+\d{4}$")
STRING_NAME = re.compile(r"[^\s#{}\"]+")  # a number or a @string's name, in a value
PAGE_DASH = re.compile(r"\s*(?:-+|[\u2010-\u2015])\s*")
URL_ESCAPE = re.compile(r"\\([_%&#~$])")
WRAPPED_URL = re.compile(r"^\\url\s*\{(?P<url>[^{}]*)\}$")
DOI_PREFIX = re.compile(r"^(?:https?://(?:dx\.)?doi\.org/|doi:\s*)", re.IGNORECASE)
# Link kinds a field of that name may give (pdf and doi have rules of their own).
NAMED_LINK_FIELDS = tuple(
    kind for kind in PaperLink.Kind.values if kind not in (PaperLink.Kind.PDF, PaperLink.Kind.DOI)
)
# What @string references may add to the values read, in characters in all (or as many
# as the file has, if more): doubling a @string 30 times in 2 KB would make 2.6 GB.
MAX_STRING_EXPANSION = 1_000_000
# The fields read; the others are not even checked.
READ_FIELDS = frozenset(
    "title author year pages pdf doi eprint archiveprefix eprinttype url howpublished".split()
).union(NAMED_LINK_FIELDS)


def parse_bibtex(text, *, source):
    """The papers in BibTeX ``text``, in file order: ``[{"key", "title", "authors":
    [{"name"}], "year", "pages", "links"}, ...]``. Raises only :class:`FixtureInvalid`,
    listing every mistake by ``source`` (e.g. "papers.bib"), line and citation key."""
    reader = _Reader(source)
    papers = reader.read(text)
    if reader.problems:
        raise FixtureInvalid(reader.problems)
    return papers


def index_bibtex(text, *, source):
    """A whole proceedings file, for the harvest (harvest.py), read only as far as needed:
    ``(rows, read)``. ``rows``: ``(key, title, families)`` for each paper entry, its title
    as written (LaTeX kept, @strings resolved) and ``families()`` its authors' family names
    (bibtexparser's "last" part, LaTeX kept). ``read(keys)``: ``{key: paper}`` as
    :func:`parse_bibtex` reads those entries, or :class:`FixtureInvalid` naming theirs.
    An entry whose title cannot be resolved is left out: only the entries read are checked."""
    reader = _Reader(source)
    rows, entries = [], {}
    for block in reader.blocks(text):
        block = getattr(block, "ignore_error_block", block)  # a duplicate key or field
        try:
            if isinstance(block, String):
                reader.strings[block.key.lower()] = reader.resolve(block.value)
            elif isinstance(block, Entry) and block.entry_type.lower() in PAPER_TYPES:
                fields = {field.key.lower(): field.value for field in block.fields}
                title, authors = (reader.resolve(fields.get(name, "{}")) for name in READ_NAMES)
                rows.append((block.key, title, partial(_families, authors)))
                entries.setdefault(block.key, block)
        except (_ValueError, _TooLarge):
            continue

    def read(keys):
        reader.problems, papers = [], {}
        for key in keys:
            block = entries[key]
            reader.line = (block.start_line or 0) + 1
            reader.at(block)
            papers[key] = reader.read_entry(block, {})
        if reader.problems:
            raise FixtureInvalid(reader.problems)
        return papers

    return rows, read


# The fields index_bibtex reads of every entry: its title and authors.
READ_NAMES = ("title", "author")


def _families(authors):
    """The family names ("von Last") in a BibTeX author list, LaTeX kept."""
    families = []
    for name in split_multiple_persons_names(authors):
        try:
            parts = parse_single_name_into_parts(DBLP_HOMONYM.sub("", name.strip()))
        except InvalidNameError:
            continue
        families.append(" ".join(parts.von + parts.last))
    return families


class _ValueError(Exception):
    """A field's value cannot be read; the message says why."""


class _TooLarge(Exception):
    """@string references would add more than the reader allows; reading stops."""


class _Reader:
    """One file's reading: its problems, its @strings and the entry being read."""

    def __init__(self, source):
        self.source = str(source)
        self.problems = []
        self.strings = dict(MONTHS)
        self.line, self.kind, self.key = 0, None, None  # the block being read: @kind{key
        self.unreadable = set()  # the fields of the current entry that cannot be read
        self.added, self.max_added = 0, MAX_STRING_EXPANSION  # by @string references

    def problem(self, message, *, field=None):
        """Report ``message`` at the current block (its line, type and citation key)."""
        label = f"line {self.line}" + (f", @{self.kind}" if self.kind else "")
        key = (self.key,) if self.key else None
        self.problems.append(Problem(self.source, message, label=label, key=key, field=field))

    def at(self, block):
        """Make ``block`` (an entry or a @string) the one problems name."""
        self.kind, self.key = getattr(block, "entry_type", "string").lower(), block.key

    def blocks(self, text):
        """The blocks bibtexparser splits ``text`` into ([] after a problem)."""
        # The splitter logs what it cannot read; each of those becomes a Problem instead.
        splitter = logging.getLogger("bibtexparser.splitter")
        splitter.addFilter(_silent)
        try:
            library = bibtexparser.parse_string(text, parse_stack=[])
        except Exception as error:  # bibtexparser raises on states it calls its own bugs
            self.problems.append(
                Problem(self.source, f"cannot be read as BibTeX ({type(error).__name__})")
            )
            return []
        finally:
            splitter.removeFilter(_silent)
        self.max_added = max(MAX_STRING_EXPANSION, len(text))
        return library.blocks

    def read(self, text):
        papers, seen = [], {}
        for block in self.blocks(text):
            try:
                paper = self.read_block(block, seen)
            except _TooLarge:
                self.problem(
                    f"@string references add more than {self.max_added:,} characters to the "
                    "values read (a @string made of others, doubled again and again?); the "
                    "file is not read further"
                )
                return []
            if paper is not None:
                papers.append(paper)
        return papers

    def read_block(self, block, seen):
        """Read one block of the file; return its paper, or None (no entry, or a problem).
        Raises ``_TooLarge`` when a value's @string references add too much."""
        self.line, self.kind, self.key = (block.start_line or 0) + 1, None, None
        if isinstance(block, DuplicateBlockKeyBlock):
            # The key is checked below, regardless of case; a redefined @string is
            # allowed, the later definition wins (as in BibTeX).
            block = block.ignore_error_block
        if isinstance(block, DuplicateFieldKeyBlock):
            self.at(block.ignore_error_block)
            self.problem(f"a field is given twice: {', '.join(sorted(block.duplicate_keys))}")
        elif isinstance(block, ParsingFailedBlock):
            reason = getattr(block.error, "abort_reason", "").strip() or type(block.error).__name__
            self.problem(f"this entry cannot be read as BibTeX: {reason}")
        elif isinstance(block, String):
            self.at(block)
            try:
                self.strings[block.key.lower()] = self.resolve(block.value)
            except _ValueError as error:
                self.problem(str(error))
        elif isinstance(block, Entry):
            self.at(block)
            return self.read_entry(block, seen)
        return None

    def read_entry(self, entry, seen):
        """The paper of ``entry``, or None when it is no paper or has a problem."""
        entry_type = entry.entry_type.lower()
        if not entry.key:
            self.problem("the entry has no citation key")
            return None
        folded = entry.key.casefold()
        if folded in seen:
            self.problem(
                f"the citation key is used already, by the entry on line {seen[folded]} "
                "(BibTeX ignores case in keys)"
            )
            return None
        seen[folded] = self.line
        if entry_type in SKIPPED_TYPES:
            return None
        if entry_type not in PAPER_TYPES:
            allowed = ", ".join(f"@{name}" for name in sorted(PAPER_TYPES))
            self.problem(f"unknown entry type @{entry_type}: a paper is one of {allowed}")
            return None
        count = len(self.problems)
        fields, self.unreadable = {}, set()
        for field in entry.fields:
            name = field.key.lower()
            if name in fields:
                self.problem(f"the field {name!r} is given twice")
                continue
            if name not in READ_FIELDS:
                continue  # not read, so not checked either (a @string defined elsewhere)
            try:
                fields[name] = self.resolve(field.value)
            except _ValueError as error:
                self.problem(str(error), field=name)
                self.unreadable.add(name)  # reported once: not "missing" below
        paper = {
            "key": entry.key,
            "title": self.title(fields),
            "authors": self.authors(fields),
            "year": self.year(fields),
            "pages": self.pages(fields),
            "links": self.links(fields),
        }
        return paper if len(self.problems) == count else None

    def resolve(self, raw):
        """A raw value (``{...}``, ``"..."``, a number, a @string name, joined by ``#``) as
        its text, braces inside kept. Raises ``_ValueError``, or ``_TooLarge`` when its
        @string references take what they add to the file's values over ``max_added``."""
        if not isinstance(raw, str):
            return str(raw)
        parts, position, length = [], 0, len(raw)
        while True:
            while position < length and raw[position].isspace():
                position += 1
            if position == length:
                raise _ValueError("a value is missing (nothing after “=” or “#”)")
            char = raw[position]
            if char in '{"':
                end = _closing(raw, position)
                if end is None:
                    raise _ValueError("a value's braces or quotes are not closed")
                parts.append(raw[position + 1 : end])
                position = end + 1
            else:
                word = STRING_NAME.match(raw, position)  # not a slice: linear in all
                if word is None:
                    raise _ValueError(f"unexpected “{char}” in a value")
                name = word.group()
                if name.isdigit():
                    parts.append(name)
                elif name.lower() in self.strings:
                    parts.append(self.strings[name.lower()])
                    self.added += len(parts[-1])
                    if self.added > self.max_added:
                        raise _TooLarge
                else:
                    raise _ValueError(f"undefined @string {name!r}")
                position += len(name)
            while position < length and raw[position].isspace():
                position += 1
            if position == length:
                return "".join(parts)
            if raw[position] != "#":
                raise _ValueError(f"expected “#” between parts of a value, found “{raw[position]}”")
            position += 1

    def decode(self, value, field):
        """LaTeX ``value`` as Unicode text, or None after reporting why not."""
        text, mistakes = latex_to_text(value)
        for mistake in mistakes:
            self.problem(mistake, field=field)
        return text

    def check(self, model_field, value, field, *, quote=False):
        """Whether ``model_field`` accepts ``value``; reports why not (quoting it if ``quote``)."""
        try:
            model_field.clean(value, None)
        except ValidationError as error:
            for message in error.messages:
                message = f"“{value}”: {message}" if quote else message
                self.problem(message, field=field)
            return False
        return True

    def title(self, fields):
        raw = fields.get("title", "")
        if "title" in self.unreadable:
            return ""
        if not raw.strip():
            self.problem("the entry has no title", field="title")
            return ""
        title = self.decode(raw, "title")
        if title is None:
            return ""
        if not title:
            self.problem("the title is empty once its LaTeX is read", field="title")
            return ""
        self.check(Paper._meta.get_field("title"), title, "title")
        return title

    def authors(self, fields):
        if "author" in self.unreadable:
            return []
        names = split_multiple_persons_names(fields.get("author", ""))
        if not names:
            self.problem("the entry has no authors", field="author")
            return []
        authors = []
        for number, name in enumerate(names, start=1):
            author = self.author_name(name, number)
            if author is not None:
                authors.append(author)
        return authors

    def author_name(self, raw, number):
        """One BibTeX name as ``{"name"}`` in display order ("First von Last Jr."), with
        ``given_name`` and ``family_name`` (and ``name_suffix``) as BibTeX splits it where
        that differs from the site's guess (``"Fischer Abaigar, Unai"``); or None."""
        raw = DBLP_HOMONYM.sub("", raw.strip())
        where = f"author {number} “{' '.join(raw.split())}”"
        if raw.lower() == "others":
            self.problem(
                "“and others” stands for authors left out: list every author, as the "
                "site shows the complete list",
                field="author",
            )
            return None
        try:
            parts = parse_single_name_into_parts(raw, strict=True)
        except InvalidNameError as error:
            self.problem(f"{where}: {error.reason}", field="author")
            return None
        words = parts.first + parts.von + parts.last + parts.jr
        if not words or "and" in words:
            self.problem(
                f"{where}: a name is empty (“and” at the start or end, or twice in a row)",
                field="author",
            )
            return None
        name = self.decode(" ".join(words), "author")
        if name is None:
            return None
        if not name:
            self.problem(f"{where}: the name is empty", field="author")
            return None
        if not self.check(Author._meta.get_field("name"), name, "author"):
            return None
        split = {
            "given_name": latex_to_text(" ".join(parts.first))[0],
            "family_name": latex_to_text(" ".join(parts.von + parts.last))[0],
            "name_suffix": latex_to_text(" ".join(parts.jr))[0],
        }
        if split == guessed_fields(name):
            return {"name": name}
        if not split["name_suffix"]:
            del split["name_suffix"]
        return {"name": name, **split}

    def year(self, fields):
        raw = _unbraced(fields.get("year", ""))
        if not raw:
            return None
        if not re.fullmatch(r"\d{1,4}", raw):
            self.problem(f"the year “{raw}” is not a number", field="year")
            return None
        return int(raw)

    def pages(self, fields):
        pages = PAGE_DASH.sub("-", _unbraced(fields.get("pages", "")))
        if pages and not self.check(Paper._meta.get_field("pages"), pages, "pages"):
            return ""
        return pages

    def links(self, fields):
        found = {}  # kind -> (url, field)

        def add(kind, url, field):
            url = _clean_url(url)
            if kind not in found and url:
                found[kind] = (url, field)

        if _clean_url(fields.get("pdf", "")).startswith(("http://", "https://")):
            add(PaperLink.Kind.PDF, fields["pdf"], "pdf")  # not a reference manager's file
        if fields.get("doi", "").strip():
            doi = DOI_PREFIX.sub("", URL_ESCAPE.sub(r"\1", fields["doi"].strip()))
            if doi.startswith("10."):
                add(PaperLink.Kind.DOI, "https://doi.org/" + quote(doi, safe="/:;()[]._-<>"), "doi")
            else:
                self.problem(f"“{doi}” is not a DOI (one starts “10.”)", field="doi")
        eprint = _clean_url(fields.get("eprint", "")).removeprefix("arXiv:")
        prefix = (fields.get("archiveprefix") or fields.get("eprinttype") or "").strip()
        if eprint and (prefix.lower() == "arxiv" or (not prefix and ARXIV_ID.match(eprint))):
            add(PaperLink.Kind.ARXIV, f"https://arxiv.org/abs/{eprint}", "eprint")
        for kind in NAMED_LINK_FIELDS:
            value = _clean_url(fields.get(kind, ""))
            if value.startswith(("http://", "https://")):
                add(kind, value, kind)
        for field in ("url", "howpublished"):
            value = _clean_url(fields.get(field, ""))
            if field == "howpublished" and not fields.get(field, "").strip().startswith("\\url"):
                continue
            if value:
                add(url_kind(value), value, field)
        url_field = PaperLink._meta.get_field("url")
        return {
            kind: url
            for kind, (url, field) in found.items()
            if self.check(url_field, url, field, quote=True)
        }


def _silent(record):
    """A logging filter that drops every record."""
    return False


def _closing(raw, start):
    """Where the ``{`` or ``"`` value opened at ``start`` closes, or None (BibTeX's rule:
    braces count even escaped; a quote inside braces is text)."""
    depth = 0
    quoted = raw[start] == '"'
    for position in range(start + (1 if quoted else 0), len(raw)):
        char = raw[position]
        if char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
            if depth < 0:
                return None
            if depth == 0 and not quoted:
                return position
        elif char == '"' and quoted and depth == 0:
            return position
    return None


def _unbraced(value):
    """``value`` without braces, white space collapsed."""
    return " ".join(value.replace("{", "").replace("}", "").split())


def _clean_url(value):
    """A URL field's text: stripped, ``\\url{...}`` unwrapped, LaTeX escapes (``\\_``,
    ``\\%``, ...) undone, braces removed."""
    value = value.strip()
    wrapped = WRAPPED_URL.match(value)
    if wrapped:
        value = wrapped["url"].strip()
    return URL_ESCAPE.sub(r"\1", value).replace("{", "").replace("}", "")


def url_kind(url):
    """The PaperLink kind of a ``url`` field by its address (also a CSL-JSON ``URL``)."""
    parts = urlsplit(url)
    host = (parts.hostname or "").lower().removeprefix("www.")
    path = parts.path.lower()
    if host == "arxiv.org" and path.startswith("/abs/"):
        return PaperLink.Kind.ARXIV
    if host == "openreview.net" and path.startswith("/forum"):
        return PaperLink.Kind.OPENREVIEW
    if host in ("doi.org", "dx.doi.org"):
        return PaperLink.Kind.DOI
    if path.endswith(".pdf") or (
        host in ("openreview.net", "arxiv.org") and path.startswith("/pdf")
    ):
        return PaperLink.Kind.PDF
    if host == "proceedings.mlr.press":
        return PaperLink.Kind.PMLR
    if host in ("github.com", "gitlab.com"):
        return PaperLink.Kind.CODE
    return PaperLink.Kind.PROCEEDINGS
