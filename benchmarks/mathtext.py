"""Benchmark TeX rendering (catalogue/mathtext.py) at its limits and over them.

Run with ``.venv/bin/python benchmarks/mathtext.py``. Prints, in milliseconds:

- one formula at MAX_FORMULA_LENGTH characters, converted and sanitised (first view);
- one formula nested MAX_FORMULA_DEPTH levels deep;
- one text holding MAX_MATH_LENGTH characters of maths (the most one text may hold);
- the same text again (served from the formula cache);
- a 1 MB formula already stored (over the limits: shown as escaped source);
- 1 MB of stored text with 250,000 small formulas, and with 500,000 ``\\(`` never
  closed (both over the limits or without maths: escaped, never converted).

The figures are the source of the limits' docstring in catalogue/mathtext.py.
"""

import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "awardsite.settings")
os.environ.setdefault("DJANGO_INSECURE_DEV", "true")

import django  # noqa: E402

django.setup()

from catalogue import mathtext  # noqa: E402

UNIT = r"\sum_{i=1}^{n} \frac{x_i^2}{\sqrt{y_i + 1}} + \alpha_{k} "


def formula(length):
    """Realistic TeX of at most ``length`` characters (sums, fractions, roots, scripts)."""
    text = (UNIT * (length // len(UNIT) + 1))[:length]
    return text[: text.rfind(" ")]


def milliseconds(function, *args):
    start = time.perf_counter()
    function(*args)
    return (time.perf_counter() - start) * 1000


def main():
    long = formula(mathtext.MAX_FORMULA_LENGTH)
    depth = mathtext.MAX_FORMULA_DEPTH
    deep = r"\sqrt{" * depth + "x" + "}" * depth
    count = mathtext.MAX_MATH_LENGTH // mathtext.MAX_FORMULA_LENGTH
    full = "\n\n".join(f"$${formula(mathtext.MAX_FORMULA_LENGTH - i)}$$" for i in range(count))
    huge = "$" + "x" * 1_000_000 + "$"
    rows = [
        (f"one formula of {len(long)} characters", mathtext.math_inline, f"${long}$"),
        (
            f"one formula nested {mathtext.nesting_depth(deep)} deep",
            mathtext.math_inline,
            f"${deep}$",
        ),
        (
            f"one text with {mathtext.math_length(full)} characters of maths",
            mathtext.math_paragraphs,
            full,
        ),
        ("the same text again (cached)", mathtext.math_paragraphs, full),
        ("a stored 1 MB formula (over the limit)", mathtext.math_paragraphs, huge),
        ("a stored 1 MB text of 250,000 formulas", mathtext.math_paragraphs, "$x$ " * 250_000),
        ("a stored 1 MB text of 500,000 unclosed \\(", mathtext.math_paragraphs, "\\(" * 500_000),
    ]
    mathtext.math_inline("$x$")  # load latex2mathml's symbol tables before timing
    mathtext.formula_mathml.cache_clear()
    for label, function, text in rows:
        print(f"{label:50} {milliseconds(function, text):9.1f} ms")


if __name__ == "__main__":
    main()
