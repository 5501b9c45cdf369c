"""Every command and configuration block of the README and of docs/, run exactly as
written: each ``sh`` or ``nginx`` block is marked ``<!-- marker -->`` and named in
``RUN_BY`` with the test that runs it, and ``test_every_block_is_run_by_a_test`` fails
on a block that no test runs. The data blocks (``yaml``, ``json``, ``bibtex``, ``text``)
are examples, compared with their files by the tests of their formats."""

import ast
import contextlib
import http.client
import json
import os
import pty
import re
import select
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path
from urllib.parse import urlsplit

import pytest
import yaml
from django.core.management import call_command

ROOT = Path(__file__).resolve().parent.parent
DOCUMENTS = ["README.md", *sorted(f"docs/{path.name}" for path in (ROOT / "docs").glob("*.md"))]

# Every command block and who runs it: (document, marker) -> ["file::function", ...]. Each
# function named must hold the marker as a string (it reads the block by it).
RUN_BY = {
    ("README.md", "set-up"): ["tests/test_docs.py::test_set_up_commands_are_make_targets"],
    ("docs/architecture.md", "open-data"): [
        "tests/test_docs.py::test_open_data_examples_run_as_written"
    ],
    ("docs/architecture.md", "translation"): [
        "tests/pages/test_views.py::test_chinese_catalogue_holds_every_message_of_the_code"
    ],
    ("docs/editors.md", "create-editor"): [
        "tests/test_docs.py::test_create_editor_runs_as_written"
    ],
    ("docs/editors.md", "conference-commands"): [
        "tests/test_docs.py::test_conference_commands_run_as_written"
    ],
    ("docs/operations.md", "unlock-logins"): [
        "tests/test_docs.py::test_unlock_commands_run_as_written"
    ],
    ("docs/operations.md", "publish-site"): [
        "tests/test_docs.py::test_publish_site_commands_run_as_written"
    ],
    ("docs/operations.md", "publish-scheduled"): [
        "tests/test_docs.py::test_publish_scheduled_commands_run_as_written"
    ],
    ("docs/operations.md", "publish-rollback"): [
        "tests/publishing/test_versions.py::test_rollback_runs_as_written"
    ],
    ("docs/operations.md", "nginx"): [
        "tests/test_docs.py::test_nginx_block_serves_a_published_site",
        "tests/publishing/test_publish_nginx.py::nginx_site",
    ],
    ("docs/operations.md", "restore-drill"): [
        "tests/test_docs.py::test_restore_drill_runs_as_written_and_passes"
    ],
    ("docs/fixture-format.md", "fixture-commands"): [
        "tests/test_docs.py::test_fixture_format_commands_run_as_written"
    ],
    ("docs/compact-format.md", "compact-commands"): [
        "tests/importing/test_compact.py::test_docs_commands_run_as_written"
    ],
    ("docs/compact-format.md", "compact-bibtex-commands"): [
        "tests/importing/test_compact.py::test_docs_bibtex_commands_run_as_written"
    ],
    ("docs/harvest.md", "harvest-commands"): [
        "tests/importing/test_harvest.py::test_docs_harvest_commands_run_as_written"
    ],
}
# The blocks that are commands or configuration, run by the tests above.
COMMAND_LANGUAGES = ("sh", "nginx")


def doc_block(document, marker, language="sh"):
    """The ``language`` code block that follows ``<!-- marker -->`` in ``document`` (a
    path from the repository's root, e.g. ``docs/operations.md``), without its fences."""
    text = (ROOT / document).read_text(encoding="utf-8")
    found = re.search(
        rf"^<!-- {re.escape(marker)} -->\n```{language}\n(.*?)^```$", text, re.DOTALL | re.M
    )
    assert found, f"{document} has no {language} block after <!-- {marker} -->"
    return found.group(1)


def command_blocks(markdown):
    """(marker or None, language) of every ``sh`` and ``nginx`` block of ``markdown``, in
    order; the marker is the ``<!-- marker -->`` line right above the block."""
    found = []
    previous = ""
    for line in markdown.splitlines():
        opening = re.fullmatch(r"```(\w+)", line)
        if opening and opening.group(1) in COMMAND_LANGUAGES:
            marker = re.fullmatch(r"<!-- ([\w-]+) -->", previous)
            found.append((marker and marker.group(1), opening.group(1)))
        previous = line
    return found


@pytest.mark.no_database
def test_command_blocks_finds_marked_and_unmarked_blocks():
    markdown = (
        "<!-- one -->\n```sh\nls\n```\n\n```sh\npwd\n```\n"
        "```yaml\na: 1\n```\n<!-- two -->\n```nginx\nserver {}\n```\n"
    )

    assert command_blocks(markdown) == [("one", "sh"), (None, "sh"), ("two", "nginx")]


def function_source(test_id):
    """The source of the module-level function ``file::name`` (a path from the root)."""
    path, name = test_id.split("::")
    tree = ast.parse((ROOT / path).read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name == name:
            return node
    raise AssertionError(f"{path} has no function {name}")


@pytest.mark.no_database
def test_every_block_is_run_by_a_test():
    """Each command block of the README and docs/ is marked, and named in ``RUN_BY``
    with functions that read it by its marker: a block added, renamed or left unmarked
    fails here until a test runs it."""
    seen = {}
    for document in DOCUMENTS:
        for marker, _language in command_blocks((ROOT / document).read_text(encoding="utf-8")):
            assert marker, f"{document}: a command block without <!-- marker --> above it"
            seen.setdefault((document, marker), 0)
            seen[(document, marker)] += 1

    assert {key: count for key, count in seen.items() if count > 1} == {}
    assert sorted(seen) == sorted(RUN_BY)
    for (_document, marker), tests in RUN_BY.items():
        for test_id in tests:
            strings = {
                node.value
                for node in ast.walk(function_source(test_id))
                if isinstance(node, ast.Constant) and isinstance(node.value, str)
            }
            assert marker in strings, f"{test_id} does not read <!-- {marker} -->"


def clone_like(tmp_path):
    """A stand-in for a fresh clone, and the environment to run a block in it.

    Returns (folder, environment): the folder holds a symbolic link to each of the
    repository's top-level entries but what a run leaves behind (the database, media,
    collected static files), so a block's relative paths resolve as in a clone and the
    files it writes land in ``tmp_path``. The environment has no ``DJANGO_*``,
    ``DATABASE_URL`` or ``REDIS_URL`` of the test run (a block sets its own key), a
    database and media and static folders of its own in ``tmp_path``."""
    folder = tmp_path / "clone"
    folder.mkdir()
    left_behind = {"db.sqlite3", "media", "staticfiles", ".pytest_cache", ".hypothesis"}
    for entry in ROOT.iterdir():
        if entry.name not in left_behind:
            (folder / entry.name).symlink_to(entry)
    environment = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("DJANGO_", "DATABASE_URL", "REDIS_URL"))
    }
    environment.update(
        DATABASE_URL=f"sqlite:///{tmp_path}/site.sqlite3",
        DJANGO_MEDIA_ROOT=str(tmp_path / "media"),
        DJANGO_STATIC_ROOT=str(tmp_path / "static"),
        TMPDIR=str(tmp_path),
    )
    return folder, environment


def manage(folder, environment, *command):
    """Run ``manage.py command`` in ``folder`` with a development key; its stdout."""
    return subprocess.run(
        [str(ROOT / ".venv" / "bin" / "python"), "manage.py", *command],
        cwd=folder,
        env={**environment, "DJANGO_INSECURE_DEV": "true"},
        check=True,
        capture_output=True,
        text=True,
    ).stdout


def as_make_run_leaves_it(folder, environment, *, collectstatic=False):
    """The database ``make run`` prepares: migrated, with the shipped content imported;
    with ``collectstatic``, the static files it collects too."""
    manage(folder, environment, "migrate", "--noinput", "--verbosity", "0")
    manage(folder, environment, "import_conference", "fixtures/icml.json", "--verbosity", "0")
    if collectstatic:
        manage(folder, environment, "collectstatic", "--noinput", "--verbosity", "0")


def run_block(block, folder, environment):
    """Run ``block`` with bash (``-euo pipefail``: any failing line fails it) in
    ``folder``; the completed process, its output as text."""
    return subprocess.run(
        ["bash", "-euo", "pipefail", "-c", block],
        cwd=folder,
        env=environment,
        capture_output=True,
        text=True,
    )


@pytest.mark.no_database
def test_set_up_commands_are_make_targets():
    """The README's two set-up commands. They cannot run inside the suite: ``make test``
    is the suite itself (CI runs it as written: .ci/run), and ``make run`` installs into
    .venv/ and serves until stopped. So each is asked of make with ``--dry-run``, which
    plans the whole recipe and runs none of it: the target must exist and do what the
    README says of it."""
    block = doc_block("README.md", "set-up")
    commands = [line.split("#", 1)[0].strip() for line in block.splitlines()]
    assert commands == ["make run", "make test"]

    planned = {}
    for command in commands:
        result = subprocess.run(
            [*command.split(), "--dry-run"], cwd=ROOT, capture_output=True, text=True
        )
        assert result.returncode == 0, result.stdout + result.stderr
        planned[command] = result.stdout

    assert "manage.py migrate" in planned["make run"]
    assert "manage.py import_conference fixtures/icml.json" in planned["make run"]
    assert "manage.py runserver 127.0.0.1:8000" in planned["make run"]
    assert "pytest" in planned["make test"]


# The shipped content has no image; the drill must show that media files come back.
ADD_TEASER = """
import io
from django.core.files.uploadedfile import SimpleUploadedFile
from PIL import Image
from catalogue.images import clean_image
from catalogue.models import Paper
buffer = io.BytesIO()
Image.new("RGB", (32, 24), (200, 40, 40)).save(buffer, format="PNG")
paper = Paper.objects.get(slug="batch-normalization")
paper.image = clean_image(SimpleUploadedFile("teaser.png", buffer.getvalue()))
paper.image_alt_en, paper.image_alt_zh_hans = "A red rectangle", "一个红色矩形"
paper.save()
"""

# A third conference, a draft the drill must check too (it named the shipped two itself).
ADD_DRAFT_CONFERENCE = """
from catalogue.models import Conference, Venue
Conference.objects.create(
    venue=Venue.objects.get(slug="icml"), slug="icml-2026", year=2026, name="ICML 2026"
)
"""


@pytest.mark.no_database
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
        ["shell", "--command", ADD_DRAFT_CONFERENCE],
    ):
        subprocess.run(
            [python, "manage.py", *command], cwd=ROOT, env=env, check=True, capture_output=True
        )
    assert list((tmp_path / "live-media").rglob("*.png")), "the drill should cover images"

    drill = subprocess.run(
        ["bash", "-euo", "pipefail", "-c", doc_block("docs/operations.md", "restore-drill")],
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
    checked = {path.parent.name for path in (drill_folder / "after").glob("*/fixture.json")}
    assert checked == {"icml-2015", "icml-2025", "icml-2026"}


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


@pytest.mark.no_database
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


@pytest.mark.no_database
def test_every_documented_manage_py_command_sets_a_secret_key():
    """Without DJANGO_INSECURE_DEV or DJANGO_SECRET_KEY, settings refuse to load, so a
    README or docs command written without one fails exactly as written."""
    missing, seen = [], 0
    for document in DOCUMENTS:
        text = (ROOT / document).read_text(encoding="utf-8")
        lines, count = manage_py_lines_without_key(text)
        missing += [f"{document}: {line}" for line in lines]
        seen += count

    assert missing == []
    assert seen >= 15  # the docs hold more; the blocks were found


# The address `make run` serves, which the open data examples name.
RUN_ADDRESS = "http://127.0.0.1:8000"


@pytest.mark.django_db(transaction=True)
def test_open_data_examples_run_as_written(live_server, tmp_path):
    """docs/architecture.md's curl examples, against a test server with the shipped
    content in place of `make run`'s address: each succeeds (curl -f fails on an HTTP
    error)."""
    call_command("loaddata", "icml", verbosity=0)
    block = doc_block("docs/architecture.md", "open-data")
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


NGINX = Path("/usr/sbin/nginx")
# Around docs/operations.md's server block: what nginx.conf's main and http blocks hold.
NGINX_MAIN = """daemon off;
pid {workdir}/nginx.pid;
error_log {workdir}/error.log warn;
events {{ worker_connections 64; }}
http {{
    include /etc/nginx/mime.types;
    access_log off;
    client_body_temp_path {workdir}/body;
    proxy_temp_path {workdir}/proxy;
    fastcgi_temp_path {workdir}/fastcgi;
    uwsgi_temp_path {workdir}/uwsgi;
    scgi_temp_path {workdir}/scgi;
{snippet}
}}
"""


@contextlib.contextmanager
def nginx_serving(snippet, root):
    """Debian's nginx running the docs' ``snippet`` (docs/operations.md) for ``root`` on
    a free local port (for ``listen 80`` and ``/srv/awardsite``); yields the port."""
    if not NGINX.exists():
        pytest.skip("Debian's nginx is not installed (apt-get install nginx)")
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    assert "listen 80;" in snippet and "root /srv/awardsite;" in snippet
    snippet = snippet.replace("listen 80;", f"listen 127.0.0.1:{port};")
    snippet = snippet.replace("root /srv/awardsite;", f"root {root};")
    with tempfile.TemporaryDirectory() as workdir:
        conf = Path(workdir) / "nginx.conf"
        conf.write_text(NGINX_MAIN.format(workdir=workdir, snippet=snippet), encoding="utf-8")
        server = subprocess.Popen(  # noqa: S603 - Debian's nginx, our own configuration
            [str(NGINX), "-c", str(conf), "-p", workdir], stderr=subprocess.PIPE
        )
        try:
            for _attempt in range(100):
                if server.poll() is not None:
                    pytest.fail(f"nginx stopped: {server.communicate()[1].decode()}")
                with socket.socket() as client:
                    if client.connect_ex(("127.0.0.1", port)) == 0:
                        break
                time.sleep(0.05)
            yield port
        finally:
            server.terminate()
            server.communicate(timeout=30)  # waits, and closes its stderr


def nginx_get(port, path, **headers):
    """(status, Location's path, body) of GET ``path``, redirects not followed."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        connection.request("GET", path, headers={"Host": "awards.example.org", **headers})
        response = connection.getresponse()
        location = response.getheader("Location")
        return response.status, location and urlsplit(location).path, response.read().decode()
    finally:
        connection.close()


@pytest.mark.no_database
def test_nginx_block_serves_a_published_site():
    """The snippet as written, around a folder laid out as publish_site writes one: the
    language redirects, the pages, and each missing address's 404 page."""
    with tempfile.TemporaryDirectory() as root:
        site = Path(root)
        for relative, body in {
            "index.html": "choose",
            "404.html": "not found in every language",
            "en/index.html": "home",
            "en/404.html": "not found",
            "zh-hans/404.html": "页面不存在",
            "en/papers/x/index.html": "a paper",
            ".publish-manifest.json": "{}",
        }.items():
            (site / relative).parent.mkdir(parents=True, exist_ok=True)
            (site / relative).write_text(body, encoding="utf-8")
        # nginx's workers may run as another user: they need to read the folder.
        for path in [site, *site.rglob("*")]:
            path.chmod(0o755 if path.is_dir() else 0o644)

        snippet = doc_block("docs/operations.md", "nginx", "nginx")
        with nginx_serving(snippet, site) as port:
            assert nginx_get(port, "/en/") == (200, None, "home")
            assert nginx_get(port, "/en/papers/x/")[::2] == (200, "a paper")
            assert nginx_get(port, "/", **{"Accept-Language": "zh-CN,zh;q=0.9"})[:2] == (
                302,
                "/zh-hans/",
            )
            assert nginx_get(port, "/papers/x/")[:2] == (
                302,
                "/en/papers/x/",
            )
            assert nginx_get(port, "/en/papers/nothing/") == (404, None, "not found")
            assert nginx_get(port, "/zh-hans/papers/nothing/") == (404, None, "页面不存在")
            assert nginx_get(port, "/nothing") == (404, None, "not found in every language")
            assert nginx_get(port, "/.publish-manifest.json")[::2] == (
                404,
                "not found in every language",
            )


@pytest.mark.no_database
def test_conference_commands_run_as_written(tmp_path):
    """docs/editors.md's import and export, on the database `make run` leaves."""
    folder, environment = clone_like(tmp_path)
    as_make_run_leaves_it(folder, environment)

    result = run_block(doc_block("docs/editors.md", "conference-commands"), folder, environment)

    assert result.returncode == 0, result.stdout + result.stderr
    assert "icml-2015\nicml-2025\n" in result.stdout
    exported = yaml.safe_load((folder / "icml-2025.yaml").read_text(encoding="utf-8"))
    assert (exported["conference"]["name"], exported["conference"]["year"]) == ("ICML 2025", 2025)


@pytest.mark.no_database
def test_fixture_format_commands_run_as_written(tmp_path):
    """docs/fixture-format.md's commands import its complete example (tests/data/) on a
    new database and write it back out: every object of the example, and the objects it
    refers to that were already in the database."""
    folder, environment = clone_like(tmp_path)
    manage(folder, environment, "migrate", "--noinput", "--verbosity", "0")

    block = doc_block("docs/fixture-format.md", "fixture-commands")
    result = run_block(block, folder, environment)

    assert result.returncode == 0, result.stdout + result.stderr
    assert "Dry run: nothing was written." in result.stdout
    written = json.loads((folder / "example-2026.json").read_text(encoding="utf-8"))
    example = json.loads((ROOT / "tests/data/example-2026.json").read_text(encoding="utf-8"))
    missing = [
        item
        for item in example
        if not any(
            other["model"] == item["model"] and item["fields"].items() <= other["fields"].items()
            for other in written
        )
    ]
    assert missing == []


AXES_ATTEMPT = """
from axes.models import AccessAttempt
AccessAttempt.objects.create(
    username="mei", ip_address="192.0.2.1", user_agent="test", http_accept="*/*",
    path_info="/admin/login/", get_data="", post_data="", failures_since_start=5,
)
"""


@pytest.mark.no_database
def test_unlock_commands_run_as_written(tmp_path):
    """docs/operations.md's axes commands list a locked-out login and clear it."""
    folder, environment = clone_like(tmp_path)
    manage(folder, environment, "migrate", "--noinput", "--verbosity", "0")
    manage(folder, environment, "shell", "--no-imports", "--command", AXES_ATTEMPT)

    result = run_block(doc_block("docs/operations.md", "unlock-logins"), folder, environment)

    assert result.returncode == 0, result.stdout + result.stderr
    assert "mei" in result.stdout
    count = "from axes.models import AccessAttempt; print(AccessAttempt.objects.count())"
    assert manage(folder, environment, "shell", "--no-imports", "--command", count) == "0\n"


# Where docs/operations.md publishes the site (and nginx's root in its block).
PUBLISHED = "/srv/awardsite"


@pytest.mark.no_database
def test_publish_site_commands_run_as_written(tmp_path):
    """docs/operations.md's publish_site lines, as written but for the folder, which is
    made a temporary one: the dry run writes nothing, the second line the whole site."""
    folder, environment = clone_like(tmp_path)
    as_make_run_leaves_it(folder, environment, collectstatic=True)
    block = doc_block("docs/operations.md", "publish-site")
    assert block.count(f" {PUBLISHED} ") == 2
    site = tmp_path / "published"

    result = run_block(block.replace(PUBLISHED, str(site)), folder, environment)

    assert result.returncode == 0, result.stdout + result.stderr
    assert "Would publish" in result.stdout + result.stderr
    assert (site / "en" / "index.html").is_file()
    assert (site / "zh-hans" / "conferences" / "icml-2025" / "index.html").is_file()
    assert 'href="https://awards.example.org/en/"' in (site / "en" / "index.html").read_text(
        encoding="utf-8"
    )


# An award of ICML 2025 ready for review whose publish time has passed (SLUG: its slug).
SCHEDULE_AWARD = """
import datetime
from django.utils import timezone
from catalogue.models import Award, Conference
Award.objects.create(
    conference=Conference.objects.get(slug="icml-2025"), slug="SLUG", name_en="SLUG award",
    status="review", publish_at=timezone.now() - datetime.timedelta(minutes=1), scheduled_by="li",
)
"""
AWARD_STATUS = """
from catalogue.models import Award
print(Award.objects.get(slug="SLUG").status)
"""


def schedule_award(folder, environment, slug):
    """Add a due award ``slug`` to ICML 2025 in ``folder``'s database."""
    code = SCHEDULE_AWARD.replace("SLUG", slug)
    manage(folder, environment, "shell", "--no-imports", "--command", code)


def award_status(folder, environment, slug):
    code = AWARD_STATUS.replace("SLUG", slug)
    return manage(folder, environment, "shell", "--no-imports", "--command", code).strip()


def test_publish_scheduled_commands_run_as_written(tmp_path):
    """docs/operations.md's publish_scheduled lines: the dry run lists the due award, the
    second line publishes it."""
    folder, environment = clone_like(tmp_path)
    as_make_run_leaves_it(folder, environment)
    schedule_award(folder, environment, "at-four")

    block = doc_block("docs/operations.md", "publish-scheduled")
    result = run_block(block, folder, environment)

    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout == (
        "Would publish award ICML 2025: at-four award.\nPublished award ICML 2025: at-four award.\n"
    )
    assert award_status(folder, environment, "at-four") == "published"


# Where docs/operations.md keeps the checkout and the environment of the site.
CHECKOUT, ENVIRONMENT_FILE = "/srv/awardsite-code", "/etc/awardsite.env"


def test_publish_scheduled_cron_line_and_systemd_units_run_as_written(tmp_path):
    """docs/operations.md's crontab line (each minute) and systemd service run as written
    but for the paths, made temporary ones, with only the environment file's variables:
    each publishes a due award and the static site; ``systemd-analyze verify`` accepts the
    service and the timer where it is installed."""
    folder, environment = clone_like(tmp_path)
    as_make_run_leaves_it(folder, environment, collectstatic=True)
    site, env_file = tmp_path / "published", tmp_path / "awardsite.env"
    variables = {
        name: environment[name]
        for name in ("DATABASE_URL", "DJANGO_MEDIA_ROOT", "DJANGO_STATIC_ROOT")
    }
    variables.update(DJANGO_INSECURE_DEV="true", DJANGO_SITE_URL="https://awards.example.org")
    env_file.write_text("".join(f"{name}={value}\n" for name, value in variables.items()))

    def local(text):
        text = text.replace(CHECKOUT, str(folder)).replace(ENVIRONMENT_FILE, str(env_file))
        return text.replace(PUBLISHED, str(site))

    # cron: the line's five fields are each minute; its command runs in sh, as cron's.
    line = doc_block("docs/operations.md", "publish-scheduled-cron", "crontab").strip()
    *fields, command = line.split(None, 5)
    assert fields == ["*"] * 5
    schedule_award(folder, environment, "by-cron")
    bare = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
    result = subprocess.run(
        ["sh", "-c", local(command)], env=bare, capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert award_status(folder, environment, "by-cron") == "published"
    assert list(site.glob("en/conferences/icml-2025/awards/by-cron/index.html")) != []

    # systemd: the service's ExecStart in its WorkingDirectory, with its EnvironmentFile.
    service = local(doc_block("docs/operations.md", "publish-scheduled-service", "ini"))
    settings = dict(
        row.split("=", 1) for row in service.splitlines() if "=" in row and row[0].isalpha()
    )
    assert (settings["Type"], settings["EnvironmentFile"]) == ("oneshot", str(env_file))
    assert settings["ExecStart"].endswith(command.rsplit("&& ", 1)[1].replace(PUBLISHED, str(site)))
    schedule_award(folder, environment, "by-systemd")
    result = subprocess.run(
        settings["ExecStart"].split(),
        cwd=settings["WorkingDirectory"],
        env={**bare, **variables},
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert list(site.glob("en/conferences/icml-2025/awards/by-systemd/index.html")) != []

    timer = doc_block("docs/operations.md", "publish-scheduled-timer", "ini")
    assert "OnCalendar=*-*-* *:*:00" in timer.splitlines()
    analyze = shutil.which("systemd-analyze")
    if analyze:
        units = tmp_path / "units"
        units.mkdir()
        for name, text in [("service", service), ("timer", timer)]:
            (units / f"awardsite-publish-scheduled.{name}").write_text(text)
        result = subprocess.run(
            [analyze, "verify", *sorted(map(str, units.iterdir()))],
            capture_output=True,
            text=True,
            check=False,
        )
        assert result.returncode == 0, result.stdout + result.stderr


# The password typed at create_editor's prompts: one Django's validators accept.
EDITOR_PASSWORD = "a-long-and-unusual-passphrase-4711"
EDITOR_CHECK = f"""
from django.contrib.auth import get_user_model
user = get_user_model().objects.get(username="mei")
groups = list(user.groups.values_list("name", flat=True))
password_kept = user.check_password("{EDITOR_PASSWORD}")
print(user.email, user.is_staff, user.is_superuser, groups, password_kept)
"""


def answered_at_a_terminal(argv, folder, environment, answers, timeout=120):
    """Run ``argv`` in ``folder`` at a pseudo-terminal (so ``getpass`` reads from it),
    typing ``answers`` (prompt -> reply) as each prompt appears. Returns (exit status,
    everything shown on the terminal)."""
    pid, terminal = pty.fork()
    if pid == 0:  # the child: becomes the command, at the terminal
        try:
            os.chdir(folder)
            os.execve(argv[0], argv, environment)
        finally:
            os._exit(127)
    shown = ""
    deadline = time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([terminal], [], [], 1)
            if not ready:
                continue
            try:
                chunk = os.read(terminal, 4096)
            except OSError:  # the command ended: Linux reports EIO at the terminal
                break
            if not chunk:
                break
            shown += chunk.decode(errors="replace")
            for prompt, reply in answers.items():
                if shown.endswith(prompt):
                    os.write(terminal, f"{reply}\n".encode())
    finally:
        os.close(terminal)
        _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status), shown


@pytest.mark.no_database
def test_create_editor_runs_as_written(tmp_path):
    """docs/editors.md's create_editor at a terminal: it asks for the password twice
    and creates a staff account in the Editors group, not a superuser."""
    folder, environment = clone_like(tmp_path)
    manage(folder, environment, "migrate", "--noinput", "--verbosity", "0")
    block = doc_block("docs/editors.md", "create-editor")

    status, shown = answered_at_a_terminal(
        ["/bin/bash", "-euo", "pipefail", "-c", block],
        folder,
        environment,
        {"Password: ": EDITOR_PASSWORD, "Password (again): ": EDITOR_PASSWORD},
    )

    assert status == 0, shown
    assert "Created editor mei in the Editors group." in shown
    assert EDITOR_PASSWORD not in shown  # never echoed
    assert manage(folder, environment, "shell", "--no-imports", "--command", EDITOR_CHECK) == (
        "mei@example.org True False ['Editors'] True\n"
    )


def heading_anchors(markdown):
    """The anchors GitHub gives the headings of ``markdown``: lower case, punctuation
    but hyphens dropped, spaces turned into hyphens (code blocks' lines are no
    headings)."""
    anchors = set()
    outside_code = re.sub(r"^```.*?^```$", "", markdown, flags=re.DOTALL | re.M)
    for heading in re.findall(r"^#+ (.+)$", outside_code, re.M):
        anchors.add(re.sub(r"[^\w\- ]", "", heading.lower()).replace(" ", "-"))
    return anchors


@pytest.mark.no_database
def test_heading_anchors_are_githubs():
    markdown = "# Running awardsite\n```sh\n# a comment\n```\n## Safe in public: headers\n"

    assert heading_anchors(markdown) == {"running-awardsite", "safe-in-public-headers"}


@pytest.mark.no_database
def test_every_link_between_the_docs_leads_somewhere():
    """Each relative link of the README and docs/ names a file that exists and, after
    ``#``, a heading of that file."""
    broken = []
    for document in DOCUMENTS:
        path = ROOT / document
        for target in re.findall(r"\]\(([^)\s]+)\)", path.read_text(encoding="utf-8")):
            if re.match(r"[a-z]+:", target):
                continue  # another site's address
            name, _, anchor = target.partition("#")
            linked = (path.parent / name).resolve() if name else path
            if not linked.exists():
                broken.append(f"{document}: {target}")
            elif anchor and anchor not in heading_anchors(linked.read_text(encoding="utf-8")):
                broken.append(f"{document}: {target}")

    assert broken == []
