"""The search box's text: one folded column per searchable model, the same on every database.

A visitor's words and the stored text are both passed through :func:`fold`, which
drops accents and folds case in every script (``Jiménez`` and ``JIMENEZ`` are both
``jimenez``; ``ΣΟΦΊΑ`` is ``σοφια``; full-width ``ＡＩ`` is ``ai``). SQLite's ``LIKE``
folds ASCII only and PostgreSQL's ``ILIKE`` keeps accents, so folding in Python gives
both databases one code path: a plain substring match (``LIKE '%word%'``) on a single
column per table. On PostgreSQL each column has a pg_trgm GIN index (migration
``search_text``), which answers such matches, Chinese included, for words of three
characters or more; shorter words still match, by a scan.

Each model lists the fields its search text is made of in ``search_sources``;
translated fields count in every language. The column is a derived column
(:data:`SEARCH_TEXT`, in the model's ``derived_columns``), kept in step at every save
and by the importer as catalogue/derived.py describes. ``QuerySet.update()`` of a source
field does not refresh it: call :func:`refresh` on the instances afterwards.

A search matches one column, though: each paper's *matched text* (``Paper.match_text``),
its own search text followed by its authors' and their institutions'. It depends on
other rows, so it is not a derived column of one instance: :func:`refresh_match_texts`
works it out for a set of papers, after every save and deletion of a paper, author,
institution, authorship or affiliation (receivers connected in ``PapersConfig.ready()``)
and after an import's bulk queries (importing/applying.py).
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
    """``text`` without accents, case-folded, compatibility characters made plain.

    NFKD splits accented letters into letter and combining mark; the marks (Unicode
    category Mn) are dropped; ``str.casefold()`` folds case in every script (``ß`` is
    ``ss``); NFKC then recomposes what decomposition split apart without being an
    accent (Hangul syllables) and makes full-width forms plain. Chinese characters
    are unchanged. Returns a str; ``None`` is treated as "".
    """
    decomposed = unicodedata.normalize("NFKD", text or "")
    bare = "".join(char for char in decomposed if unicodedata.category(char) != "Mn")
    return unicodedata.normalize("NFKC", bare.casefold())


def source_columns(model):
    """The attribute names whose text makes ``model``'s search text, in a fixed order.

    A translated field in ``model.search_sources`` gives one column per language of
    ``settings.LANGUAGES`` (``title_en``, ``title_zh_hans``); others give their own name.
    """
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


def _search_columns(model):
    return ["search_text"]


def _search_sources(model):
    return [*model.search_sources, *source_columns(model)]


def _refresh_search_text(instance):
    refresh(instance)


# The search text as a derived column of the models that list it in derived_columns.
SEARCH_TEXT = DerivedColumn(
    "search_text",
    sources=_search_sources,
    columns=_search_columns,
    refresh=_refresh_search_text,
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
    """``text`` folded character by character (see :func:`fold`), and for each folded
    character the index in ``text`` of the character it came from.

    ASCII text folds to its lower case, one character for one (no accents, no
    compatibility forms, ``casefold()`` is ``lower()`` there): done in one call, as
    folding each character took most of a search page's time at 20 results.
    """
    if text.isascii():
        return text.lower(), range(len(text))
    folded, origin = [], []
    for index, char in enumerate(text):
        for piece in _fold_char(char):
            folded.append(piece)
            origin.append(index)
    return "".join(folded), origin


def snippet(text, query, length=SNIPPET_CHARS):
    """A window of ``text`` about ``length`` characters long around the first match of a
    word of ``query``, as ``(parts, cut_before, cut_after)``: ``parts`` is a list of
    ``(text, is_match)`` pairs covering the window, every match of any word of the query
    inside it marked, ignoring case and accents as the search does (``jimenez`` marks
    ``Jiménez``). Without a match (the paper was found by an author or an institution)
    the window is the start of ``text``. White space is collapsed; "" gives no parts.
    """
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
