"""Commands the README gives, run exactly as written (the restore drill, the open data
examples)."""

import os
import re
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from django.core.management import call_command

ROOT = Path(__file__).resolve().parent.parent


def readme_block(marker):
    """The ``sh`` code block that follows ``<!-- marker -->`` in README.md."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    found = re.search(rf"<!-- {marker} -->\n```sh\n(.*?)```", text, re.DOTALL)
    assert found, f"README.md has no sh block after <!-- {marker} -->"
    return found.group(1)


# The shipped content has no image; the drill must show that media files come back.
ADD_TEASER = """
import io
from django.core.files.uploadedfile import SimpleUploadedFile
from PIL import Image
from papers.images import clean_image
from papers.models import Paper
buffer = io.BytesIO()
Image.new("RGB", (32, 24), (200, 40, 40)).save(buffer, format="PNG")
paper = Paper.objects.get(slug="batch-normalization")
paper.image = clean_image(SimpleUploadedFile("teaser.png", buffer.getvalue()))
paper.image_alt_en, paper.image_alt_zh_hans = "A red rectangle", "一个红色矩形"
paper.save()
"""


def test_restore_drill_runs_as_written_and_passes(tmp_path):
    python = str(ROOT / ".venv" / "bin" / "python")
    assert Path(python).exists() or sys.prefix.endswith(".venv")
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("DJANGO_", "DATABASE_URL"))
    }
    env.update(
        DJANGO_INSECURE_DEV="true",
        DATABASE_URL=f"sqlite:///{tmp_path}/live.sqlite3",
        DJANGO_MEDIA_ROOT=str(tmp_path / "live-media"),
        TMPDIR=str(tmp_path),
    )
    for command in (
        ["migrate", "--noinput", "--verbosity", "0"],
        ["import_conference", "fixtures/icml.json", "--verbosity", "0"],
        ["shell", "--command", ADD_TEASER],
    ):
        subprocess.run(
            [python, "manage.py", *command], cwd=ROOT, env=env, check=True, capture_output=True
        )
    assert list((tmp_path / "live-media").rglob("*.png")), "the drill should cover images"

    drill = subprocess.run(
        ["bash", "-euo", "pipefail", "-c", readme_block("restore-drill")],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
    )

    assert drill.returncode == 0, drill.stdout + drill.stderr
    assert "Restore drill passed" in drill.stdout
    (drill_folder,) = [path for path in tmp_path.glob("tmp*") if path.is_dir()]
    assert list((drill_folder / "media").rglob("teaser*.png"))
    assert list((drill_folder / "after").rglob("teaser*.png"))


# A manage.py command needs a secret key: DJANGO_INSECURE_DEV=true for local use (a fixed
# development key) or DJANGO_SECRET_KEY, set on the line or exported earlier in the block.
SETS_KEY = re.compile(r"\b(DJANGO_INSECURE_DEV=(true|1|yes|on)\b|DJANGO_SECRET_KEY=\S)", re.I)


def manage_py_lines_without_key(markdown):
    """(block text, line) for every ``manage.py`` command in the ``sh`` blocks of
    ``markdown`` that runs without a secret key; also the number of commands seen."""
    missing, seen = [], 0
    for block in re.findall(r"^```sh\n(.*?)^```", markdown, re.DOTALL | re.MULTILINE):
        exported = False
        for line in block.splitlines():
            command = line.split("#", 1)[0]
            if re.match(r"\s*export\s", command) and SETS_KEY.search(command):
                exported = True
            if "manage.py" in command:
                seen += 1
                if not (exported or SETS_KEY.search(command)):
                    missing.append(line)
    return missing, seen


def test_manage_py_line_checker_finds_a_command_without_a_key():
    markdown = (
        "```sh\n.venv/bin/python manage.py compilemessages\n```\n"
        "```sh\nDJANGO_INSECURE_DEV=true .venv/bin/python manage.py migrate\n```\n"
        "```sh\nexport DJANGO_INSECURE_DEV=true\n.venv/bin/python manage.py check\n```\n"
    )

    assert manage_py_lines_without_key(markdown) == (
        [".venv/bin/python manage.py compilemessages"],
        3,
    )


def test_every_documented_manage_py_command_sets_a_secret_key():
    """Without DJANGO_INSECURE_DEV or DJANGO_SECRET_KEY, settings refuse to load, so a
    README or docs command written without one fails exactly as written."""
    documents = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    missing, seen = [], 0
    for document in documents:
        lines, count = manage_py_lines_without_key(document.read_text(encoding="utf-8"))
        missing += [f"{document.name}: {line}" for line in lines]
        seen += count

    assert missing == []
    assert seen >= 15  # the README alone documents more; the blocks were found


# The address `make run` serves, which the open data examples name.
RUN_ADDRESS = "http://127.0.0.1:8000"


@pytest.mark.django_db(transaction=True)
def test_open_data_examples_run_as_written(live_server, tmp_path):
    """The README's curl examples, against a test server with the shipped content in
    place of `make run`'s address: each succeeds (curl -f fails on an HTTP error)."""
    call_command("loaddata", "icml", verbosity=0)
    block = readme_block("open-data")
    assert RUN_ADDRESS in block

    result = subprocess.run(
        ["bash", "-euo", "pipefail", "-c", block.replace(RUN_ADDRESS, live_server.url)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )

    assert result.returncode == 0, result.stdout + result.stderr
    assert '"openapi": ' in result.stdout
    assert '"slug": "john-schulman"' in result.stdout
    with zipfile.ZipFile(tmp_path / "icml-2025-csv.zip") as archive:
        assert "icml-2025-csv/papers.csv" in archive.namelist()
    with zipfile.ZipFile(tmp_path / "icml-2025-compact.zip") as archive:
        assert "icml-2025-compact/icml-2025.yaml" in archive.namelist()
