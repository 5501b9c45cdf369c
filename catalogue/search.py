"""The search box's text: one folded column per searchable model, the same on every database.

A visitor's words and the stored text both pass through :func:`fold` (no accents, case
folded in every script, full-width forms plain), since SQLite's ``LIKE`` folds ASCII
only and PostgreSQL's ``ILIKE`` keeps accents: one code path, a substring match on one
column (on PostgreSQL with a pg_trgm GIN index, for words of three characters or more).

A model's ``search_sources`` name the fields of its search text (translated ones in
every language); the column is a derived column (:data:`SEARCH_TEXT`, catalogue/derived.py).
A search matches each paper's ``match_text``, its own search text with its authors' and
their institutions' (catalogue/matching.py).
"""

import functools
import unicodedata

from modeltranslation.translator import NotRegistered, translator

from catalogue import languages
from catalogue.derived import DerivedColumn

# Separates the source fields in the column; a visitor's word never contains it
# (words are split on white space), so a match never spans two fields.
SEPARATOR = "\n"


def fold(text):
    """``text`` (``None`` as "") without accents (NFKD, combining marks dropped),
    case-folded (``ß`` is ``ss``), then NFKC (Hangul recomposed, full-width forms plain).
    ``Jiménez`` and ``JIMENEZ`` are ``jimenez``; Chinese characters are unchanged."""
    decomposed = unicodedata.normalize("NFKD", text or "")
    bare = "".join(char for char in decomposed if unicodedata.category(char) != "Mn")
    return unicodedata.normalize("NFKC", bare.casefold())


def source_columns(model):
    """The attribute names that make ``model``'s search text, in a fixed order: a
    translated field in ``search_sources`` gives its column in every language."""
    try:
        translated = translator.get_options_for_model(model).fields
    except NotRegistered:
        translated = ()
    columns = []
    for name in model.search_sources:
        if name in translated:
            columns += languages.columns(name)
        else:
            columns.append(name)
    return columns


def search_text(instance):
    """The folded text of ``instance``'s search sources, one field per line."""
    values = (getattr(instance, column) or "" for column in source_columns(type(instance)))
    return SEPARATOR.join(fold(value) for value in values if value)


def refresh(instance):
    """Set ``instance.search_text`` from its sources (not saved); return the new value."""
    instance.search_text = search_text(instance)
    return instance.search_text


# The search text as a derived column of the models that list it in derived_columns.
SEARCH_TEXT = DerivedColumn(
    "search_text",
    sources=lambda model: [*model.search_sources, *source_columns(model)],
    columns=lambda model: ["search_text"],
    refresh=refresh,
)


def words(text):
    """The folded words of a visitor's query: ``text`` folded, split on white space."""
    return fold(text).split()


# Characters of context a search result's snippet shows around the first match.
SNIPPET_CHARS = 220


@functools.lru_cache(maxsize=4096)
def _fold_char(char):
    """:func:`fold` of one character, remembered: a page of results folds the same few
    hundred characters thousands of times."""
    return fold(char)


def _folded_with_origin(text):
    """``text`` folded character by character, and for each folded character the index
    of the one it came from. ASCII folds to its lower case in one call (folding each
    character took most of a search page's time at 20 results)."""
    if text.isascii():
        return text.lower(), range(len(text))
    folded, origin = [], []
    for index, char in enumerate(text):
        for piece in _fold_char(char):
            folded.append(piece)
            origin.append(index)
    return "".join(folded), origin


def snippet(text, query, length=SNIPPET_CHARS):
    """A window of about ``length`` characters of ``text`` (white space collapsed)
    around the first match of a word of ``query``, else its start, as ``(parts,
    cut_before, cut_after)``: ``parts`` are ``(text, is_match)`` pairs, every match
    marked as the search matches (``jimenez`` marks ``Jiménez``); "" gives no parts."""
    text = " ".join((text or "").split())
    if not text:
        return [], False, False
    folded, origin = _folded_with_origin(text)
    spans = []
    for word in dict.fromkeys(words(query)):
        start = folded.find(word)
        while start != -1:
            end = start + len(word)
            spans.append((origin[start], origin[end - 1] + 1))
            start = folded.find(word, end)
    spans.sort()
    first = spans[0][0] if spans else 0
    begin = max(0, min(first - length // 3, len(text) - length))
    if begin:  # start at a word boundary
        space = text.find(" ", begin)
        begin = space + 1 if 0 <= space < first else begin
    finish = min(len(text), begin + length)
    if finish < len(text):
        space = text.rfind(" ", begin, finish)
        finish = space if space > max(first, begin) else finish
    parts, position = [], begin
    for start, end in spans:
        start, end = max(start, position), min(end, finish)
        if start >= end:
            continue
        if start > position:
            parts.append((text[position:start], False))
        parts.append((text[start:end], True))
        position = end
    if position < finish:
        parts.append((text[position:finish], False))
    return parts, begin > 0, finish < len(text)
