"""LaTeX in BibTeX values as plain Unicode text (pylatexenc): commands to characters,
groups and ties dropped, maths kept as source, unknown commands and those that would read
files (``\\input``) refused."""

import re
import unicodedata
from functools import cache, lru_cache
from itertools import accumulate

from pylatexenc import latexwalker
from pylatexenc.latex2text import LatexNodes2Text, MacroTextSpec, get_default_latex_context_db

# Deeper braces than this in one value are refused: pylatexenc parses by recursion.
MAX_BRACE_DEPTH = 50
# Decoded values kept (latex_to_text): the names of a large proceedings.
DECODED_CACHE_SIZE = 8192
# What pylatexenc would change: commands, groups, maths, comments, ties, and the
# ligatures its specials read (dashes, TeX quotes, inverted marks).
LATEX = re.compile(r"[\\{}$%~]|--|``|''|[!?]`")


@lru_cache(maxsize=DECODED_CACHE_SIZE)
def latex_to_text(value):
    """``(text, ())``: LaTeX ``value`` as one line of Unicode text, or ``(None, (why,
    ...))``. Cached: names recur across a proceedings; pylatexenc takes milliseconds."""
    if _brace_depth(value) > MAX_BRACE_DEPTH:
        return None, (f"braces nest more than {MAX_BRACE_DEPTH} levels deep",)
    if not LATEX.search(value):  # plain text, as most names are: no parsing needed
        return " ".join(unicodedata.normalize("NFC", value).split()), ()
    converter = _TextConverter()
    try:
        walker = latexwalker.LatexWalker(
            value, latex_context=_walker_context(), tolerant_parsing=False
        )
        text = converter.nodelist_to_text(walker.get_latex_nodes()[0])
    except latexwalker.LatexWalkerError as error:
        message = str(error).splitlines()[0] if str(error) else type(error).__name__
        message = re.sub(r"\s*@\(\d+,\d+\)$", "", message)  # a place in the value, not the file
        return None, (f"cannot read its LaTeX: {message}",)
    except RecursionError:  # commands taking commands as arguments, thousands deep
        return None, ("cannot read its LaTeX: commands nest too deeply",)
    if converter.mistakes:
        return None, tuple(converter.mistakes)
    return " ".join(unicodedata.normalize("NFC", text).split()), ()


class _TextConverter(LatexNodes2Text):
    """pylatexenc's LaTeX-to-text with our rules: maths kept as ``\\(...\\)``, unknown
    commands and environments and bare ``%`` collected in ``mistakes``."""

    def __init__(self):
        super().__init__(latex_context=_text_context(), math_mode="verbatim")
        self.mistakes = []

    def macro_node_to_text(self, node):
        if (
            node.macroname in REFUSED_MACROS
            or self.latex_context.get_macro_spec(node.macroname) is None
        ):
            self.mistakes.append(
                f"unknown LaTeX command \\{node.macroname}: write the text it stands for"
            )
            return ""
        return super().macro_node_to_text(node)

    def environment_node_to_text(self, node):
        self.mistakes.append(f"unknown LaTeX environment {node.environmentname!r}")
        return ""

    def comment_node_to_text(self, node):
        self.mistakes.append("a bare “%” starts a LaTeX comment: write \\% for a percent sign")
        return ""

    def math_node_to_text(self, node):
        formula = "".join(child.latex_verbatim() for child in node.nodelist)
        if getattr(node, "displaytype", "inline") == "display":
            return f"\\[{formula}\\]"
        return f"\\({formula}\\)"


# Commands pylatexenc knows but that stand for no text of a paper's (they read files).
REFUSED_MACROS = frozenset({"input", "include"})
# Font and box commands whose argument is text, kept as that text.
TEXT_COMMANDS = (
    "emph textrm textit textbf textsc textsl textsf texttt textup textmd textnormal text "
    "mbox".split()
)


@cache
def _walker_context():
    """How pylatexenc parses (which commands take arguments); built once."""
    return latexwalker.get_default_latex_context_db()


@cache
def _text_context():
    """pylatexenc's commands that stand for characters (accents, letters, symbols,
    dashes and quotes), and ``TEXT_COMMANDS``; built once."""
    context = get_default_latex_context_db().filter_context(
        keep_categories=["latex-base", "nonascii-specials", "advanced-symbols"]
    )
    context.add_context_category(
        "awardsite-text",
        macros=[MacroTextSpec(name, discard=False) for name in TEXT_COMMANDS],
        prepend=True,
    )
    return context


def _brace_depth(text):
    """How deeply braces nest in ``text`` (0 for none)."""
    return max(accumulate((char == "{") - (char == "}") for char in text), default=0)
