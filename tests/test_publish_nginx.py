"""The README's nginx configuration ("Publishing to a static host") serving what
``publish_site`` wrote of the shipped content, as a static host would: Debian's nginx
(``make test`` installs it) on a free loopback port, with the README's block as written
but for its ``listen`` and ``root``. Each kind of file must come with the type the live
site gives it, pages with the live site's security headers, and ``/`` must choose the
language by ``Accept-Language`` as the live site does."""

import http.client
import re
import shutil
import socket
import subprocess  # nosec B404  # Debian's nginx with our own configuration, no shell
import tempfile
import time
from io import StringIO
from pathlib import Path

import pytest
from django.conf import settings
from django.core.management import call_command

SITE_URL = "https://awards.example.org"
README = Path(settings.BASE_DIR) / "README.md"
NGINX = shutil.which("nginx") or "/usr/sbin/nginx"
# The headers awardsite/settings.py sends with every page (SecurityMiddleware, django-csp,
# our PermissionsPolicyMiddleware); a static host must send them too.
SECURITY_HEADERS = [
    "Content-Security-Policy",
    "X-Content-Type-Options",
    "Referrer-Policy",
    "X-Frame-Options",
    "Cross-Origin-Opener-Policy",
    "Permissions-Policy",
]
PAPER = "/papers/conformal-prediction-as-bayesian-quadrature/"


def readme_nginx_block():
    """The ```nginx block of the README's "Publishing to a static host" section."""
    text = README.read_text(encoding="utf-8")
    section = text.split("## Publishing to a static host", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```nginx\n(.*?)```", section, re.S)
    assert len(blocks) == 1, "the section should hold one nginx block"
    return blocks[0]


def _free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture(scope="module")
def nginx_site():
    """Debian's nginx serving an empty folder with the README's block, for this module;
    ``published_by_nginx`` publishes into it once. Yields a dict: ``site`` (the folder),
    ``workdir``, ``port``, ``published`` (False until then)."""
    if not Path(NGINX).exists():
        pytest.fail("nginx is missing: make test installs Debian's nginx package")
    # nginx's workers run as www-data when started by root: the folder must be readable
    # by them, which pytest's tmp_path (under a private folder) is not.
    workdir = Path(tempfile.mkdtemp(prefix="awardsite-nginx-"))
    workdir.chmod(0o755)
    site = workdir / "site"
    site.mkdir()
    port = _free_port()
    server = readme_nginx_block()
    server = server.replace("listen 80;", f"listen 127.0.0.1:{port};")
    server = server.replace("root /srv/awardsite;", f"root {site};")
    assert f"listen 127.0.0.1:{port};" in server and f"root {site};" in server
    temp = "".join(
        f"{name}_temp_path {workdir}/{name};\n"
        for name in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
    )
    conf = workdir / "nginx.conf"
    conf.write_text(
        f"daemon off;\nworker_processes 1;\npid {workdir}/nginx.pid;\n"
        f"error_log {workdir}/error.log warn;\nevents {{ worker_connections 64; }}\n"
        f"http {{\ninclude /etc/nginx/mime.types;\ndefault_type application/octet-stream;\n"
        f"access_log off;\n{temp}{server}\n}}\n"
    )
    check = subprocess.run(  # nosec B603
        [NGINX, "-t", "-c", str(conf), "-p", str(workdir)], capture_output=True, text=True
    )
    assert check.returncode == 0, check.stderr
    nginx = subprocess.Popen([NGINX, "-c", str(conf), "-p", str(workdir)])  # nosec B603
    try:
        deadline = time.monotonic() + 10
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                assert time.monotonic() < deadline and nginx.poll() is None, "nginx did not start"
                time.sleep(0.05)
        yield {"site": site, "workdir": workdir, "port": port, "published": False}
    finally:
        nginx.terminate()
        nginx.wait(timeout=10)
        shutil.rmtree(workdir, ignore_errors=True)


@pytest.fixture
def published_by_nginx(icml, settings, nginx_site):
    """The shipped content, published once for the module and served by nginx. Returns
    ``get(path, **headers) -> http.client.HTTPResponse`` (its ``body`` read; redirects
    are not followed)."""
    settings.SITE_URL = SITE_URL
    if not nginx_site["published"]:
        workdir = nginx_site["workdir"]
        settings.STATIC_ROOT = workdir / "collected"
        settings.MEDIA_ROOT = workdir / "media"
        call_command("publish_site", str(nginx_site["site"]), stdout=StringIO())
        nginx_site["published"] = True

    def get(path, **headers):
        connection = http.client.HTTPConnection("127.0.0.1", nginx_site["port"], timeout=10)
        try:
            connection.request("GET", path, headers=headers)
            response = connection.getresponse()
            response.body = response.read()
        finally:
            connection.close()
        return response

    return get


def _media_type(content_type, like=None):
    """``type/subtype; charset=x`` without spaces or case; the charset left out when
    ``like`` (the live site's header) names none: JSON and XML are UTF-8 either way."""
    value = content_type.replace(" ", "").lower()
    if like is not None and "charset=" not in like.lower():
        value = value.split(";", 1)[0]
    return value


@pytest.mark.parametrize(
    "path",
    [
        "/en/",
        "/zh-hans/",
        f"/zh-hans{PAPER}",
        "/en/conferences/icml-2025/",
        "/en/authors/",
        "/en/search/",
        "/en/feeds/awards.atom",
        f"/en{PAPER}cite.bib",
        f"/en{PAPER}cite.ris",
        f"/en{PAPER}cite.json",
        "/api/v1/",
        "/api/v1/conferences/icml-2025",
        "/api/v1/openapi.json",
        "/api/v1/docs",
        "/data/awardsite-csv.zip",
        "/sitemap.xml",
        "/robots.txt",
    ],
)
def test_each_kind_of_file_has_the_live_sites_type_and_bytes(published_by_nginx, client, path):
    live = client.get(path)
    served = published_by_nginx(path)

    assert (served.status, live.status_code) == (200, 200)
    assert _media_type(served.getheader("Content-Type"), live["Content-Type"]) == _media_type(
        live["Content-Type"]
    )
    # A ZIP's entries carry the time they were written; the published search page holds
    # the form only (papers/static_search.py: results come from its index).
    if not path.endswith((".zip", "/search/")):
        assert served.body == live.content


def test_pages_carry_the_live_sites_security_headers(published_by_nginx, client):
    live = client.get(f"/en{PAPER}")
    for path in (f"/en{PAPER}", "/zh-hans/", "/api/v1/", "/api/v1/docs"):
        served = published_by_nginx(path)
        headers = {name: served.getheader(name) for name in SECURITY_HEADERS}
        expected = {name: live[name] for name in SECURITY_HEADERS}
        # The policy's directives in any order (django-csp's order varies).
        policy = headers.pop("Content-Security-Policy") or ""
        live_policy = expected.pop("Content-Security-Policy")
        assert sorted(policy.split("; ")) == sorted(live_policy.split("; ")), path
        assert headers == expected, path
        assert served.getheader("Access-Control-Allow-Origin") == (
            "*" if path.startswith("/api/") else None
        ), path


@pytest.mark.parametrize(
    ("accept_language", "prefix"),
    [
        ("zh-CN,zh;q=0.9", "/zh-hans/"),
        ("zh-Hans-CN", "/zh-hans/"),
        ("en-GB", "/en/"),
        ("fr", "/en/"),
    ],
)
def test_the_language_is_chosen_as_the_live_site_chooses_it(
    published_by_nginx, client, accept_language, prefix
):
    for path in ("/", PAPER):
        served = published_by_nginx(path, **{"Accept-Language": accept_language})
        live = client.get(path, HTTP_ACCEPT_LANGUAGE=accept_language)

        assert served.status == 302
        assert served.getheader("Location").endswith(prefix + path.lstrip("/"))
        assert live["Location"].endswith(prefix + path.lstrip("/"))


def test_publish_sites_records_and_unknown_paths_are_not_found(published_by_nginx):
    for path in ("/.publish-manifest.json", "/.publish-snapshot.json", "/en/no-such-page/"):
        assert published_by_nginx(path).status == 404, path


def test_static_files_are_served_for_good(published_by_nginx):
    page = published_by_nginx("/en/").body.decode()
    stylesheet = re.search(r'<link rel="stylesheet" href="(/static/[^"]+\.css)"', page).group(1)

    served = published_by_nginx(stylesheet)

    assert served.status == 200
    assert "max-age=315360000" in served.getheader("Cache-Control")
