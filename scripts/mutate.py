"""Mutation testing of the security-critical code: `make mutate`.

Issue 28's measure of the tests that guard what must never go wrong: Cosmic Ray makes
small changes to the code (a mutant: ``<`` for ``<=``, ``and`` for ``or``, ``True``
for ``False``, a number off by one, a statement removed, ...), runs the tests that
matter for it on each, and a mutant the tests do not fail has *survived*: a change of
behaviour no test notices. The score is killed / total, per module.

What is mutated, and which tests run on each of its mutants, is ``TARGETS`` below,
the one place to change it. A target names a module, and optionally the functions or
methods in it (``"Class.method"``) that are mutated: the rest of the module is left
alone. A name the module no longer has stops the run with a message, so a rewrite of
a module shows here rather than being silently skipped.

For each target, one after the other (the mutants are written into the module's file,
so two targets cannot run at once in one checkout):

1. The target's tests run once unmutated; they must pass, and their time sets the
   timeout of each mutant's run (4 times as long, plus 10 s: a mutant that loops
   forever counts as killed).
2. ``cosmic-ray init`` lists the mutants of the module; ``cr-filter-operators`` skips
   the kinds no test can fail to kill (``EXCLUDED_OPERATORS``), ``cr-filter-lines``
   those outside the target's functions.
3. ``cosmic-ray exec`` runs the tests on each mutant (``pytest -x``, in a process of
   its own, as `make test` runs them: pytest-django makes its test database as usual;
   ``--workers N`` passes ``-n N`` to pytest-xdist, worth it only for slow test sets).
4. The score, and each surviving mutant as a diff.

The module's file is checked against its text from before the run at the end, and put
back if a run was interrupted half-way. Sessions are kept in ``.mutate/<target>.sqlite``
(``cr-report .mutate/sanitiser.sqlite --show-diff`` shows every mutant). Exit status:
0 when every target ran, whatever the scores (survivors are findings to read, not
failures), 1 when the unmutated tests fail or the list no longer matches the code.

Usage: ``scripts/mutate.py [--only NAME ...] [--workers N] [--list]``, e.g.
``make mutate MUTATE_ARGS="--only sanitiser csv"``.
"""

import argparse
import ast
import shlex
import subprocess  # nosec B404  # runs Cosmic Ray and pytest with our own arguments, no shell
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from cosmic_ray.work_db import WorkDB, use_db
from cosmic_ray.work_item import TestOutcome, WorkerOutcome

ROOT = Path(__file__).resolve().parent.parent
SESSIONS = ROOT / ".mutate"
BIN = Path(sys.executable).parent


@dataclass(frozen=True)
class Target:
    """A module to mutate: ``functions`` (names in it, ``"Class.method"`` for a method;
    empty: the whole module) and the ``tests`` (pytest arguments) run on each mutant."""

    module: str
    tests: tuple[str, ...]
    functions: tuple[str, ...] = ()


PUBLISHED_TESTS = (
    "tests/catalogue/test_models.py",
    "tests/catalogue/test_published_authors.py",
    "tests/opendata/test_opendata.py",
)

# What is mutated, and the tests that matter for it. Keep this the only list.
TARGETS = {
    # Everything editors or fixtures write passes here before it is markup.
    "sanitiser": Target(
        "catalogue/sanitising.py",
        tests=(
            "tests/catalogue/test_sanitising.py",
            # What the sanitiser must keep: the maths the site renders.
            "tests/catalogue/test_mathtext.py::test_sanitiser_keeps_real_maths_unchanged",
            "tests/catalogue/test_mathtext.py::test_every_fixture_formula_passes_the_sanitiser_unchanged",
            "tests/catalogue/test_mathtext.py::test_text_in_maths_stays_text",
            "tests/catalogue/test_mathtext.py::test_href_style_class_become_plain_maths",
            "tests/catalogue/test_mathtext.py::test_payload_renders_inert",
        ),
    ),
    # Who gets a cached page: never staff, a preview, a request with a session, or a
    # response that holds something personal.
    "page-cache": Target(
        "pagecache/caching.py",
        tests=("tests/pagecache/test_caching.py",),
        functions=(
            "public_view_names",
            "is_public_view",
            "is_anonymous_request",
            "is_storable",
            "PublicPageCacheMiddleware.__call__",
        ),
    ),
    # What an import may write: the models' own rules on the values it would leave.
    "import-rules": Target(
        "importing/planning.py",
        tests=("tests/importing/test_importing.py",),
        functions=(
            "_check_final_values",
            "_UnsavedInstances",
            "_model_rules",
            "_check_constraints",
            "_in_field_order",
            "_unique_on_the_whole_file",
            "_final_rows",
            "_values",
            "_unique_problems",
            "_numbering_problems",
        ),
    ),
    # Which fields a fixture must give, and in which form.
    "import-fields": Target(
        "importing/fields.py",
        tests=("tests/importing/test_importing.py",),
        functions=("field_specs", "_written_as_list"),
    ),
    # An editor's save never overwrites a change saved since the form was opened.
    "edit-tokens": Target(
        "editorial/editing.py",
        tests=("tests/editorial/test_edits.py",),
    ),
    # Nothing unpublished reaches a public page, the API or a download: the one rule
    # (PublishedQuerySet) and the QuerySets that state published-ness their own way.
    "published": Target(
        "catalogue/models/base.py",
        tests=PUBLISHED_TESTS,
        functions=(
            "PublishedQuerySet.published_condition",
            "PublishedQuerySet.published",
        ),
    ),
    "published-querysets": Target(
        "catalogue/models/querysets.py",
        tests=PUBLISHED_TESTS,
        functions=(
            "VenueQuerySet.published",
            "InstitutionQuerySet.published",
            "AuthorQuerySet.published",
            "PaperQuerySet.published_without_award_at",
        ),
    ),
    # The CSV downloads: every cell written so that a CSV reader gets it back.
    "csv": Target(
        "opendata/downloads.py",
        # The CSV downloads' tests, not the compact format's.
        tests=(
            "tests/opendata/test_opendata.py",
            "-k",
            "download and not compact and not imported",
        ),
        functions=(
            "other_names",
            "published_scope",
            "csv_text",
            "table_columns",
            "archive",
            "zipped",
        ),
    ),
}


# Mutants left out everywhere: ``|``, ``&`` and ``^`` replaced by an arithmetic or shift
# operator. This code uses them on sets and Q objects, where such a mutant is a TypeError
# as soon as it runs (often on import): any test kills it, so it says nothing of the
# tests and costs a test run. (``-`` stays: it is a set difference, a real mutant.)
EXCLUDED_OPERATORS = (
    "core/ReplaceBinaryOperator_Bit(Or|And|Xor)_(Add|Mul|Div|FloorDiv|Mod|Pow|RShift|LShift)$",
)


def line_ranges(path, names):
    """``{name: (first line, last line)}`` of the functions, classes or methods
    (``"Class.method"``) ``names`` in the module at ``path``, decorators included.

    Raises SystemExit naming what the module no longer has."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = {}
    definitions = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
    for node in tree.body:
        if not isinstance(node, definitions):
            continue
        members = [(node.name, node)]
        if isinstance(node, ast.ClassDef):
            members += [
                (f"{node.name}.{member.name}", member)
                for member in node.body
                if isinstance(member, definitions)
            ]
        for name, member in members:
            first = min([member.lineno, *(d.lineno for d in member.decorator_list)])
            found[name] = (first, member.end_lineno)
    missing = [name for name in names if name not in found]
    if missing:
        raise SystemExit(
            f"{path.relative_to(ROOT)} has no {', '.join(missing)}: "
            "update TARGETS in scripts/mutate.py"
        )
    return {name: found[name] for name in names}


def pytest_command(target, workers):
    """The test command each mutant is run with (a list of arguments)."""
    return [
        sys.executable,
        "-m",
        "pytest",
        "-p",
        "no:cacheprovider",
        "-x",
        "-q",
        "-n",
        str(workers),
        *target.tests,
    ]


def config_text(target, command, timeout):
    """The Cosmic Ray configuration (TOML) of one target's session."""
    lines = [
        "[cosmic-ray]",
        f'module-path = "{target.module}"',
        f"timeout = {timeout:.0f}",
        "excluded-modules = []",
        f"test-command = {quoted(shlex.join(command))}",  # Cosmic Ray splits it with shlex
        "",
        "[cosmic-ray.distributor]",
        'name = "local"',
        "",
        "[cosmic-ray.filters.operators-filter]",
        f"exclude-operators = [{', '.join(quoted(pattern) for pattern in EXCLUDED_OPERATORS)}]",
    ]
    if target.functions:
        ranges = line_ranges(ROOT / target.module, target.functions).values()
        spans = ", ".join(f'"{first}-{last}"' for first, last in sorted(ranges))
        lines += [
            "",
            "[cosmic-ray.filters.line-filter]",
            f'lines = {{ "{target.module}" = [{spans}] }}',
        ]
    return "\n".join(lines) + "\n"


def quoted(text):
    """``text`` as a TOML basic string."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def run(*args, **kwargs):
    """Run a command in the checkout (no shell); raise when it fails."""
    return subprocess.run(args, cwd=ROOT, check=True, **kwargs)  # nosec B603  # no shell


def score(session):
    """(killed, total, [surviving mutants' diffs]) of a finished session. Mutants
    skipped (outside the target's functions) or that could not be made count in neither."""
    killed, total, survivors = 0, 0, []
    with use_db(str(session), WorkDB.Mode.open) as db:
        for _item, result in db.completed_work_items:
            if result.worker_outcome in {WorkerOutcome.SKIPPED, WorkerOutcome.NO_TEST}:
                continue
            if result.worker_outcome != WorkerOutcome.NORMAL:  # Cosmic Ray's own failure
                print(f"   not counted, the mutant's run failed: {result.output}")
                continue
            total += 1
            if result.test_outcome == TestOutcome.SURVIVED:
                survivors.append(result.diff)
            else:
                killed += 1
    return killed, total, survivors


def mutate(name, target, workers):
    """Run one target's session; return its (killed, total, survivors)."""
    path = ROOT / target.module
    original = path.read_bytes()
    command = pytest_command(target, workers)
    SESSIONS.mkdir(exist_ok=True)
    config, session = SESSIONS / f"{name}.toml", SESSIONS / f"{name}.sqlite"
    print(f"== {name}: {target.module}", flush=True)
    started = time.monotonic()
    baseline = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)  # nosec B603
    if baseline.returncode != 0:
        print(baseline.stdout[-3000:], baseline.stderr[-3000:], sep="\n")
        raise SystemExit(f"{name}: the tests fail before any mutation: {' '.join(command)}")
    timeout = 4 * (time.monotonic() - started) + 10
    config.write_text(config_text(target, command, timeout), encoding="utf-8")
    session.unlink(missing_ok=True)
    try:
        run(str(BIN / "cosmic-ray"), "init", str(config), str(session))
        run(str(BIN / "cr-filter-operators"), str(session), str(config))
        if target.functions:
            run(str(BIN / "cr-filter-lines"), "--config", str(config), str(session))
        run(str(BIN / "cosmic-ray"), "exec", str(config), str(session))
    finally:
        if path.read_bytes() != original:
            path.write_bytes(original)
            print(f"{target.module}: a mutant was left in the file; put the original back")
    killed, total, survivors = score(session)
    minutes = (time.monotonic() - started) / 60
    print(f"   {killed} / {total} killed, {len(survivors)} survived, {minutes:.1f} min", flush=True)
    for diff in survivors:
        print("   survived:", *diff.splitlines()[2:], sep="\n      ")
    return killed, total, survivors


def main(argv=None):
    """Run the targets chosen by the command line ``argv``; print the scores. Returns 0;
    raises SystemExit when a target's tests fail unmutated or its functions are gone."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", nargs="+", choices=sorted(TARGETS), help="these targets only")
    parser.add_argument(
        "--workers", type=int, default=0, help="pytest-xdist workers per mutant's run (0: none)"
    )
    parser.add_argument("--list", action="store_true", help="print the targets and stop")
    args = parser.parse_args(argv)
    chosen = {name: TARGETS[name] for name in args.only or TARGETS}
    if args.list:
        for name, target in chosen.items():
            print(f"{name}: {target.module} {' '.join(target.functions) or '(whole module)'}")
            print(f"    tests: {' '.join(target.tests)}")
        return 0
    for target in chosen.values():  # every list checked before the first long run
        line_ranges(ROOT / target.module, target.functions)
    scores = {name: mutate(name, target, args.workers) for name, target in chosen.items()}
    print("\nmutation score (killed / total)")
    width = max(len(f"{name} ({TARGETS[name].module})") for name in scores)
    for name, (killed, total, _survivors) in scores.items():
        share = f"{killed / total:.0%}" if total else "no mutant"
        print(f"  {f'{name} ({TARGETS[name].module})':<{width}}  {killed:>4} / {total:<4} {share}")
    killed = sum(value[0] for value in scores.values())
    total = sum(value[1] for value in scores.values())
    print(f"  {'all':<{width}}  {killed:>4} / {total:<4} {killed / total:.0%}" if total else "")
    return 0


if __name__ == "__main__":
    sys.exit(main())
