"""CSV downloads as the tests read them, each checked by Frictionless, the Data
Package's reference implementation."""

import csv
import io
import pathlib
import tempfile
import zipfile

import frictionless


def frictionless_errors(files):
    """What ``frictionless validate`` finds wrong with a CSV download whose files are
    ``files`` ({name: text}, as the archive holds them in its folder): a list of
    "<type>: <note>" (empty when the package, its schemas, keys and rows are valid)."""
    with tempfile.TemporaryDirectory() as folder:
        for name, text in files.items():
            (pathlib.Path(folder) / name).write_text(text, encoding="utf-8", newline="")
        report = frictionless.validate(str(pathlib.Path(folder) / "datapackage.json"))
    errors = [*report.errors, *(error for task in report.tasks for error in task.errors)]
    return [f"{error.type}: {error.note}" for error in errors]


def unzip(response):
    """``{file name: text}`` of a CSV download (names without the archive's folder),
    which Frictionless finds valid (its schemas, keys and every row)."""
    assert response.status_code == 200
    assert response["Content-Type"] == "application/zip"
    with zipfile.ZipFile(io.BytesIO(response.content)) as archive:
        files = {
            name.split("/", 1)[1]: archive.read(name).decode("utf-8") for name in archive.namelist()
        }
    errors = frictionless_errors(files)
    assert errors == [], errors  # (no assertion rewriting in a helper module)
    return files


def rows(files, table):
    """The rows of ``table`` in a download's ``files``, as dicts by column."""
    return list(csv.DictReader(io.StringIO(files[f"{table}.csv"], newline="")))
