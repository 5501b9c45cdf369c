"""The one sanitiser for HTML the site builds from editor or fixture text (data, never
markup): the MathML of TeX maths (catalogue/mathtext.py) passes :func:`clean_mathml`, nh3
(ammonia), which parses as a browser does (html5ever, MathML included) and keeps only the
MathML presentation elements and attributes below. Never allowed: ``script``, ``style``,
event handlers, ``href``, ``src``, ``style``, ``class``, ``id``, colours
(``mathcolor``/``mathbackground``, from ``\\color``), and the elements that can carry
other markup or actions (``semantics``, ``annotation``, ``annotation-xml``, ``maction``,
``mglyph``). One known loss: latex2mathml writes ``\\mathop{E}`` as elements inside
``<mo>``, which the HTML parser places outside MathML, so they are dropped
(``\\operatorname{E}`` renders). Every formula in fixtures/ comes out unchanged.
"""

import nh3

# MathML Core presentation elements (https://w3c.github.io/mathml-core/#presentation-markup),
# by its sections, plus menclose, which latex2mathml writes for \fbox and \boxed.
_TOKENS = {"mi", "mn", "mo", "ms", "mspace", "mtext"}
_LAYOUT = {"merror", "mfrac", "mpadded", "mphantom", "mroot", "mrow", "msqrt", "mstyle"}
_SCRIPTS = {"msub", "msup", "msubsup", "munder", "mover", "munderover", "mmultiscripts"}
_TABLES = {"mtable", "mtr", "mtd"}
# mprescripts and none mark places inside mmultiscripts.
MATHML_ELEMENTS = frozenset(
    {"math", "menclose", "mprescripts", "none"} | _TOKENS | _LAYOUT | _SCRIPTS | _TABLES
)
# Attributes allowed on every MathML element: fonts, sizes and script levels.
_EVERYWHERE = {"mathvariant", "mathsize", "displaystyle", "scriptlevel", "dir"}
# An operator's properties, spacing and sizes.
_OPERATOR = {"accent", "fence", "form", "largeop", "movablelimits", "separator", "symmetric"}
_OPERATOR |= {"stretchy", "lspace", "rspace", "maxsize", "minsize"}
# A table's alignment, lines and spacing.
_TABLE = {"align", "columnalign", "rowalign", "frame", "columnlines", "rowlines"}
_TABLE |= {"framespacing", "columnspacing", "rowspacing"}
MATHML_ATTRIBUTES = {
    "*": _EVERYWHERE,
    "math": _EVERYWHERE | {"xmlns", "display"},
    "mo": _EVERYWHERE | _OPERATOR,
    "mfrac": _EVERYWHERE | {"linethickness"},
    "menclose": _EVERYWHERE | {"notation"},
    "mspace": _EVERYWHERE | {"width", "height", "depth", "linebreak"},
    "mpadded": _EVERYWHERE | {"width", "height", "depth", "lspace", "voffset"},
    "mover": _EVERYWHERE | {"accent"},
    "munder": _EVERYWHERE | {"accentunder"},
    "munderover": _EVERYWHERE | {"accent", "accentunder"},
    "mtable": _EVERYWHERE | _TABLE,
    "mtr": _EVERYWHERE | {"columnalign", "rowalign"},
    "mtd": _EVERYWHERE | {"columnalign", "rowalign", "columnspan", "rowspan"},
}


def clean_mathml(html):
    """``html`` (a MathML fragment) with everything outside the allowlist removed:
    other elements give their text (``<b>x</b>`` gives ``x``; ``<script>`` and
    ``<style>`` go whole), other attributes and comments go, ``<`` and ``&`` in text
    come out escaped. Never raises on malformed input."""
    return nh3.clean(
        html,
        tags=set(MATHML_ELEMENTS),
        attributes={tag: set(names) for tag, names in MATHML_ATTRIBUTES.items()},
        url_schemes=set(),
        link_rel=None,
        strip_comments=True,
    )
