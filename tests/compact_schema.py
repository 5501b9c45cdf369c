"""Compact files checked against the compact format's JSON Schema by check-jsonschema, the
command a person or CI runs (docs/compact-format.md): the docs' examples and every compact
export the tests make (``check_compact_exports`` in tests/conftest.py)."""

import json
import subprocess  # nosec B404  # check-jsonschema, our own dev dependency, no shell
import sys
from pathlib import Path

from importing.compact.schema import compact_schema

# The command beside the interpreter running the tests (the project's virtualenv).
CHECK_JSONSCHEMA = Path(sys.executable).with_name("check-jsonschema")


def check_files(paths, folder):
    """Run check-jsonschema on ``paths`` against the schema (written into ``folder``);
    returns the completed process (returncode 0: every file is valid)."""
    schema = Path(folder) / "compact-format.schema.json"
    schema.write_text(json.dumps(compact_schema(), ensure_ascii=False), encoding="utf-8")
    command = [str(CHECK_JSONSCHEMA), "--schemafile", str(schema), *map(str, paths)]
    return subprocess.run(command, capture_output=True, text=True, check=False)  # nosec B603


def check_texts(texts, folder):
    """``check_files`` of ``texts`` (pairs of compact text and whether it is JSON)."""
    paths = []
    for number, (text, as_json) in enumerate(texts, start=1):
        path = Path(folder) / f"export-{number}.{'json' if as_json else 'yaml'}"
        path.write_text(text, encoding="utf-8")
        paths.append(path)
    return check_files(paths, folder)
