"""Commands the README and docs/ give, run exactly as written (the restore drill, the
open data examples, the nginx configuration)."""

import contextlib
import http.client
import os
import re
import socket
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from django.core.management import call_command

ROOT = Path(__file__).resolve().parent.parent
DOCUMENTS = ["README.md", *sorted(f"docs/{path.name}" for path in (ROOT / "docs").glob("*.md"))]


def doc_block(document, marker, language="sh"):
    """The ``language`` code block that follows ``<!-- marker -->`` in ``document`` (a
    path from the repository's root, e.g. ``docs/operations.md``), without its fences."""
    text = (ROOT / document).read_text(encoding="utf-8")
    found = re.search(
        rf"^<!-- {re.escape(marker)} -->\n```{language}\n(.*?)^```$", text, re.DOTALL | re.M
    )
    assert found, f"{document} has no {language} block after <!-- {marker} -->"
    return found.group(1)


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
