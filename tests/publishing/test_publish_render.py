"""publish_site's render loop (publishing/render.py): pages rendered by worker
processes, what they wrote recorded by the parent, errors and Ctrl-C;
pages that do not exist named in the error."""

import multiprocessing
import os
import signal
import subprocess
import sys
import time
from io import StringIO
from pathlib import Path

import pytest
from django.conf import settings
from django.core.management import CommandError, call_command
from django.utils import translation
from django_distill.request import generate_uri

from catalogue.models import Author
from publishing import files as publish_files
from publishing import render as publish_render
from publishing import site as publishing

ROOT = Path(__file__).resolve().parents[2]
SITE_URL = "https://awards.example.org"
LANGUAGES = ("en", "zh-hans")


class FakeRoute:
    name = "page"
    namespace = None


class FakeSite:
    """A site of pages ``/<language>/<n>/`` whose body names ``n``; each chunk it renders
    appends the rendering process's id to ``log``; page ``fail`` answers 404."""

    def __init__(self, log, fail=None):
        self.log, self.fail = log, fail

    def target(self, route, kwargs, language):
        return f"/{language}/{kwargs['n']}/", f"{language}/{kwargs['n']}/index.html"

    def render_many(self, route, items):
        with open(self.log, "a") as log:
            log.write(f"{os.getpid()}\n")
        for kwargs, language in items:
            uri, path = self.target(route, kwargs, language)
            if kwargs["n"] == self.fail:
                raise publish_files.PublishError(f"{uri} answered 404, not 200.")
            media = (
                f' <img src="{settings.MEDIA_URL}p{kwargs["n"]}.png">' if kwargs["n"] < 3 else ""
            )
            yield uri, path, f"<p>{language} {kwargs['n']}{media}</p>".encode()


def render(site, publisher, pages, indices, jobs=1, progress=None):
    """Render ``pages[i]`` for each ``i`` of ``indices`` in one step; returns how many."""
    with publish_render.Rendering(site, publisher, pages, jobs, progress) as rendering:
        rendering.add(indices)
        return rendering.finish()


def fake_pages(count):
    route = FakeRoute()
    return [(route, {"n": n}, language) for n in range(count) for language in ("en", "zh-hans")]


def files_in(folder):
    return {
        str(path.relative_to(folder)): path.read_bytes()
        for path in folder.rglob("*")
        if path.is_file() and not path.name.startswith(".publish-")
    }


@pytest.fixture
def out(tmp_path):
    return tmp_path / "out"


@pytest.mark.no_database
def test_workers_render_the_pages_and_the_parent_records_them(tmp_path, out):
    pages = fake_pages(500)
    publisher = publish_files.Publisher(out)
    log = tmp_path / "pids"
    done = []

    rendered = render(
        FakeSite(log), publisher, pages, range(len(pages)), jobs=2, progress=done.append
    )

    assert rendered == sum(done) == len(pages) == publisher.counts.written
    assert publisher.produced == {
        f"{lang}/{n}/index.html" for n in range(500) for lang in ("en", "zh-hans")
    }
    assert publisher.media["en/1/index.html"] == {"p1.png"}
    assert publisher.media["en/7/index.html"] == set()
    assert (out / "zh-hans/499/index.html").read_bytes() == b"<p>zh-hans 499</p>"
    renderers = set(log.read_text().split())
    assert len(renderers) == 2 and str(os.getpid()) not in renderers
    assert multiprocessing.active_children() == []


@pytest.mark.no_database
def test_workers_write_what_one_process_writes(tmp_path, out):
    pages = fake_pages(300)
    here, forked = publish_files.Publisher(tmp_path / "here"), publish_files.Publisher(out)

    render(FakeSite(tmp_path / "log"), here, pages, range(len(pages)), jobs=1)
    render(FakeSite(tmp_path / "log"), forked, pages, range(len(pages)), jobs=2)

    assert files_in(tmp_path / "here") == files_in(out)
    assert (here.produced, here.media, here.counts) == (
        forked.produced,
        forked.media,
        forked.counts,
    )


@pytest.mark.no_database
def test_second_run_in_workers_keeps_unchanged_files(tmp_path, out):
    pages = fake_pages(300)
    render(FakeSite(tmp_path / "log"), publish_files.Publisher(out), pages, range(600), jobs=2)
    again = publish_files.Publisher(out)

    render(FakeSite(tmp_path / "log"), again, pages, range(600), jobs=2)

    assert (again.counts.written, again.counts.kept) == (0, 600)


@pytest.mark.no_database
def test_failing_page_in_a_worker_is_named_and_what_was_written_is_recorded(tmp_path, out):
    pages = fake_pages(1000)
    publisher = publish_files.Publisher(out)

    with pytest.raises(publish_files.PublishError, match="/en/700/ answered 404"):
        render(FakeSite(tmp_path / "log", fail=700), publisher, pages, range(2000), jobs=2)

    # Every file the workers wrote is one the manifest will name; none half-written.
    assert set(files_in(out)) == publisher.produced
    assert "en/700/index.html" not in publisher.produced
    assert not list(out.rglob(".publish-*"))
    assert multiprocessing.active_children() == []


@pytest.mark.no_database
def test_ctrl_c_stops_the_workers_after_recording_what_they_wrote(tmp_path, out):
    pages = fake_pages(1000)
    publisher = publish_files.Publisher(out)
    before = signal.getsignal(signal.SIGINT)

    sent = []

    def interrupt(_count):
        if not sent:  # Ctrl-C once, when the first chunk is back
            sent.append(True)
            os.kill(os.getpid(), signal.SIGINT)

    with pytest.raises(KeyboardInterrupt):
        render(
            FakeSite(tmp_path / "log"), publisher, pages, range(2000), jobs=2, progress=interrupt
        )

    assert set(files_in(out)) == publisher.produced
    assert 0 < len(publisher.produced) < len(pages)
    assert multiprocessing.active_children() == []
    assert signal.getsignal(signal.SIGINT) == before  # Ctrl-C raises again as it did


class SlowSite(FakeSite):
    """A FakeSite whose chunks of 100 pages take 4 s each."""

    def render_many(self, route, items):
        for page in super().render_many(route, items):
            time.sleep(0.04)
            yield page


@pytest.mark.no_database
def test_second_ctrl_c_stops_at_once(tmp_path, out):
    pages = fake_pages(1000)
    publisher = publish_files.Publisher(out)
    before = signal.getsignal(signal.SIGINT)

    interrupted = []

    def interrupt(_count):
        interrupted.append(time.monotonic())
        os.kill(os.getpid(), signal.SIGINT)
        os.kill(os.getpid(), signal.SIGINT)

    with pytest.raises(KeyboardInterrupt):
        render(
            SlowSite(tmp_path / "log"), publisher, pages, range(2000), jobs=2, progress=interrupt
        )

    # The chunks being rendered at the Ctrl-C would take 4 s to finish: not waited for.
    # Measured from the Ctrl-C, not from the start (the first chunk takes 4 s too), with
    # room for a machine busy with other work.
    assert time.monotonic() - interrupted[0] < 2
    assert multiprocessing.active_children() == []
    assert signal.getsignal(signal.SIGINT) == before


class LaterRoute(FakeRoute):
    name = "later"
    after = True


@pytest.mark.no_database
def test_pages_built_from_other_pages_files_are_rendered_here_after_them(tmp_path, out):
    pages = [(LaterRoute(), {"n": 1000}, "en"), *fake_pages(300)]
    log = tmp_path / "pids"
    publisher = publish_files.Publisher(out)

    rendered = render(FakeSite(log), publisher, pages, range(len(pages)), jobs=2)

    # The workers rendered every other page; this process the later one, last.
    renderers = log.read_text().split()
    assert renderers[-1] == str(os.getpid()) not in renderers[:-1]
    assert rendered == len(pages) and "en/1000/index.html" in publisher.produced


class FewerPagesRoute(FakeRoute):
    name = "fewer"


@pytest.mark.no_database
def test_routes_with_fewer_pages_are_started_first():
    fewer = [(FewerPagesRoute(), {"n": n}, "en") for n in range(150)]
    pages = [*fake_pages(200), *fewer]

    chunks = publish_render._chunks(pages, range(len(pages)))

    # Their pages take longer (lists of everything); the last chunks are the shortest.
    assert [pages[chunk[0]][0].name for chunk in chunks] == ["fewer"] * 2 + ["page"] * 4


def test_inside_a_transaction_pages_are_rendered_here_and_it_says_so(icml, settings, tmp_path):
    settings.STATIC_ROOT = tmp_path / "collected"
    settings.MEDIA_ROOT = tmp_path / "media"
    err = StringIO()

    call_command(
        "publish_site",
        str(tmp_path / "site"),
        site_url=SITE_URL,
        jobs=2,
        stdout=StringIO(),
        stderr=err,
    )

    assert (
        "Rendering in this process, not in workers: inside a database transaction" in err.getvalue()
    )
    assert (tmp_path / "site/en/index.html").is_file()


@pytest.mark.no_database
def test_jobs_below_one_is_an_error(tmp_path):
    with pytest.raises(CommandError, match="--jobs must be 1 or more, not 0"):
        call_command("publish_site", str(tmp_path / "site"), site_url=SITE_URL, jobs=0)


def run(args, env):
    result = subprocess.run(  # noqa: S603 - this interpreter, fixed arguments
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stderr
    return result


@pytest.mark.no_database
def test_parallel_publish_of_the_shipped_content_is_the_serial_ones_byte_for_byte(tmp_path):
    """The shipped ICML content in a database file (workers open their own connection),
    published by one process and by two workers: the same files, byte for byte."""
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "awardsite.settings",
        "DJANGO_INSECURE_DEV": "true",
        "DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}",
        "DJANGO_STATIC_ROOT": str(tmp_path / "collected"),
        "DJANGO_MEDIA_ROOT": str(tmp_path / "media"),
    }
    run(["migrate", "--noinput", "--verbosity", "0"], env)
    run(["import_conference", "fixtures/icml.json", "--verbosity", "0"], env)
    run(["publish_site", str(tmp_path / "serial"), "--site-url", SITE_URL, "--jobs", "1"], env)

    parallel = run(
        [
            "publish_site",
            str(tmp_path / "parallel"),
            "--site-url",
            SITE_URL,
            "--jobs",
            "2",
        ],
        env,
    )

    assert "Rendering in this process" not in parallel.stderr
    serial, parallel = files_in(tmp_path / "serial"), files_in(tmp_path / "parallel")
    assert len(serial) > 1000
    assert serial == parallel
    for name in (publish_files.MANIFEST, ".publish-snapshot.json"):
        assert (tmp_path / "serial" / name).read_bytes() == (
            tmp_path / "parallel" / name
        ).read_bytes()


# --- Errors. ---------------------------------------------------------------------------


def test_site_renders_a_missing_papers_citation_as_an_error_naming_it(icml, settings):
    settings.SITE_URL = SITE_URL
    settings.ALLOWED_HOSTS = ["awards.example.org"]
    route = next(route for route in publishing.routes() if route.name == "paper-citation")

    rendered = publishing.Site(SITE_URL).render_many(
        route, [({"slug": "no-such-paper", "fmt": "ris"}, "zh-hans")]
    )

    with pytest.raises(
        publish_files.PublishError, match="/zh-hans/papers/no-such-paper/cite.ris answered 404"
    ):
        list(rendered)


def test_pages_are_every_url_once_in_each_language_it_has(icml):
    """pages() decides a route's languages from its first page: the same list as
    reversing every page in every language and keeping each URL once."""
    expected = []
    for route in publishing.routes():
        for kwargs in route.func() or [()]:
            seen = set()
            for code in LANGUAGES:
                with translation.override(code):
                    uri = generate_uri(route.namespace, route.name, kwargs)
                if uri not in seen:
                    seen.add(uri)
                    expected.append((route.name, kwargs, code))

    listed = [(route.name, kwargs, code) for route, kwargs, code in publishing.pages()]

    assert listed == expected
    assert ("robots-txt", (), "en") in listed and ("robots-txt", (), "zh-hans") not in listed
    assert ("home", (), "zh-hans") in listed


@pytest.mark.parametrize(
    ("name", "kwargs", "uri"),
    [
        ("author-detail", {"slug": "no-such-author"}, "/zh-hans/authors/no-such-author/"),
        ("paper-detail", {"slug": "no-such-paper"}, "/zh-hans/papers/no-such-paper/"),
        ("author-detail-page", {"page": 9}, "/page/9/"),
    ],
)
def test_a_missing_page_among_others_is_an_error_naming_it(icml, settings, name, kwargs, uri):
    settings.SITE_URL = SITE_URL
    settings.ALLOWED_HOSTS = ["awards.example.org"]
    route = next(route for route in publishing.routes() if route.name == name)
    author = Author.objects.published().order_by("slug").first()
    kwargs = {"slug": author.slug, **kwargs}
    first = [({"slug": author.slug}, "en")] if name == "author-detail" else []

    rendered = publishing.Site(SITE_URL).render_many(route, [*first, (kwargs, "zh-hans")])

    if first:
        assert b"<html" in next(rendered)[2]
    with pytest.raises(publish_files.PublishError, match=f"{uri} answered 404"):
        list(rendered)
