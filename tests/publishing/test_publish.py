"""``manage.py publish_site`` (publishing/site.py): the shipped content published into a
folder, then crawled as a static host would serve it."""

import json
import re
import shutil
import subprocess
import xml.etree.ElementTree as ET
from html.parser import HTMLParser
from io import StringIO
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest
from django.core.management import CommandError, call_command

from catalogue import listing
from catalogue.models import Author, AwardEntry, Paper, Status
from opendata import downloads as opendata
from pages import sitemaps
from publishing import changes as publish_changes
from publishing import files as publish_files
from publishing import render as publish_render
from publishing import site as publishing
from publishing.management.commands import publish_site
from tests.catalogue.test_images import give_icml_papers_teasers
from tests.pages.test_html_validity import VNU

SITE_URL = "https://awards.example.org"
LANGUAGES = ("en", "zh-hans")
COUNTS = re.compile(r"(\d+) files written, (\d+) kept, (\d+) removed")


@pytest.fixture
def publish(settings, tmp_path):
    """Runs publish_site into tmp_path/"site"; returns (written, kept, removed)."""
    settings.SITE_URL = SITE_URL
    settings.STATIC_ROOT = tmp_path / "collected"
    settings.MEDIA_ROOT = tmp_path / "media"

    def run(directory=None):
        out = StringIO()
        call_command("publish_site", str(directory or tmp_path / "site"), stdout=out)
        return tuple(int(n) for n in COUNTS.search(out.getvalue()).groups())

    return run


@pytest.fixture(scope="module")
def shared_publish(tmp_path_factory):
    """A folder for this module's one publish of the shipped content (``published``);
    ``done`` is False until then."""
    return {"root": tmp_path_factory.mktemp("published"), "done": False}


@pytest.fixture
def published(icml, settings, shared_publish):
    """The folder publish_site wrote of the shipped content, published once for this
    module (and xdist worker) by the first test asking for it, as
    tests/publishing/test_publish_nginx.py's ``published_by_nginx`` does: for the tests
    that only read what it wrote, sparing each a full publish (seconds). Each test loads
    the shipped content again (``icml``: the same rows), so the folder is what a publish
    in the test would write, and the live site it is compared with is the same."""
    root = shared_publish["root"]
    settings.SITE_URL = SITE_URL
    settings.STATIC_ROOT = root / "collected"
    settings.MEDIA_ROOT = root / "media"
    if not shared_publish["done"]:
        call_command("publish_site", str(root / "site"), stdout=StringIO())
        shared_publish["done"] = True
    return root / "site"


class Links(HTMLParser):
    """Every URL an HTML page names (href, src, srcset) and its hreflang alternates."""

    def __init__(self):
        super().__init__()
        self.urls, self.alternates = [], set()

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        for name in ("href", "src"):
            if attrs.get(name):
                self.urls.append(attrs[name])
        if attrs.get("srcset"):
            self.urls += [part.split()[0] for part in attrs["srcset"].split(",") if part.strip()]
        if tag == "link" and attrs.get("rel") == "alternate" and attrs.get("hreflang"):
            self.alternates.add((attrs["hreflang"], attrs["href"]))


def links_of(path):
    parser = Links()
    parser.feed(path.read_text(encoding="utf-8"))
    return parser


def file_for(site, url):
    """The file a static host serves for ``url`` (None: another host's URL)."""
    if url.startswith(SITE_URL):
        url = url.removeprefix(SITE_URL) or "/"
    parts = urlsplit(url)
    if parts.scheme or parts.netloc or not parts.path.startswith("/"):
        return None
    path = site / unquote(parts.path).lstrip("/")
    if parts.path.endswith("/"):
        return next((path / name for name in ("index.html", "index.json")), path)
    return path


def html_pages(site):
    return sorted(site.rglob("*.html"))


def uri_of(site, page):
    return "/" + str(page.relative_to(site)).removesuffix("index.html")


def missing_links(site):
    """(page, URL) of each internal link of a published page that names no file."""
    return sorted(
        {
            (str(page.relative_to(site)), url)
            for page in html_pages(site)
            for url in links_of(page).urls
            if (target := file_for(site, url)) is not None
            and not any(t.is_file() for t in (target, target.with_name("index.json")))
        }
    )


def test_every_link_of_every_published_page_is_a_file(published):
    site = published

    assert len(html_pages(site)) > 150
    assert missing_links(site) == []


def strings_of(value):
    """Every string in ``value`` (parsed JSON), keys left out."""
    if isinstance(value, dict):
        value = list(value.values())
    if isinstance(value, list):
        for item in value:
            yield from strings_of(item)
    elif isinstance(value, str):
        yield value


def names_a_file(site, url):
    """Whether the site's ``url`` is served from a published file (``.../`` from its
    ``index.html`` or, for the API's index, ``index.json``)."""
    target = file_for(site, url)
    return target.is_file() or target.with_name("index.json").is_file()


def api_documents(site):
    """The published API's JSON files: all of ``api/`` but the docs page."""
    return sorted(
        path for path in (site / "api").rglob("*") if path.is_file() and path.name != "docs"
    )


def test_every_link_of_the_published_api_is_a_file(published):
    site = published
    documents = api_documents(site)
    links = {
        (str(document.relative_to(site)), value)
        for document in documents
        for value in strings_of(json.loads(document.read_bytes()))
        if value.startswith(SITE_URL)
    }

    assert {str(document.relative_to(site)) for document in documents} >= {
        "api/v1/index.json",
        "api/v1/openapi.json",
        "api/v1/conferences/icml-2025",
        "api/v1/conferences/icml-2015",
    }
    assert len(links) > 10
    assert [(document, url) for document, url in sorted(links) if not names_a_file(site, url)] == []


def test_published_api_documents_are_the_live_ones_without_links_to_missing_files(
    published, client, settings
):
    """Only the links the static host has no file for differ (null), in the live
    API's bytes otherwise; the live API still names them."""
    site = published
    for path, file in [
        ("/api/v1/", "api/v1/index.json"),
        ("/api/v1/conferences/icml-2025", "api/v1/conferences/icml-2025"),
    ]:
        live = client.get(path).content
        published = (site / file).read_bytes()

        assert json.dumps(json.loads(live)).encode() == live  # the renderer's bytes
        assert published == publishing.published_api_document(live)
        assert published != live
    index = json.loads((site / "api/v1/index.json").read_bytes())
    assert set(index["collections"].values()) == {None}
    assert index["openapi"] == f"{SITE_URL}/api/v1/openapi.json"
    conference = json.loads((site / "api/v1/conferences/icml-2025").read_bytes())
    assert conference["awards"] and {award["url"] for award in conference["awards"]} == {None}
    assert conference["url"] == f"{SITE_URL}/api/v1/conferences/icml-2025"
    assert client.get("/api/v1/").json()["collections"]["papers"] == f"{SITE_URL}/api/v1/papers"


def test_the_published_api_docs_page_has_no_try_it_out(published, client):
    page = (published / "api/v1/docs").read_text(encoding="utf-8")
    live = client.get("/api/v1/docs").content.decode()
    settings_of = re.compile(r'id="swagger-settings">(.*?)</script>', re.DOTALL)

    swagger = json.loads(settings_of.search(page).group(1))
    live_swagger = json.loads(settings_of.search(live).group(1))

    assert swagger == {**live_swagger, "supportedSubmitMethods": []}
    assert settings_of.sub("", page) == settings_of.sub("", live)
    assert (published / swagger["url"].lstrip("/")).is_file()


def test_media_files_the_pages_name_are_copied_and_no_others(icml, publish, settings, tmp_path):
    assert give_icml_papers_teasers(settings.MEDIA_ROOT) > 0
    (settings.MEDIA_ROOT / "papers" / "not-on-any-page.png").write_bytes(b"a draft's image")
    site = tmp_path / "site"

    publish()

    copied = sorted(p.relative_to(site / "media") for p in (site / "media").rglob("*.*"))
    named = "".join(page.read_text(encoding="utf-8") for page in html_pages(site))
    assert copied and all(f"/media/{path}" in named for path in copied)
    assert not (site / "media" / "papers" / "not-on-any-page.png").exists()
    assert missing_links(site) == []


def test_published_pages_are_every_kind_in_both_languages(published):
    site = published
    paper = Paper.objects.published().order_by("slug").first()
    conference = paper.conference.slug

    expected = [
        "index.html",
        "robots.txt",
        "sitemap.xml",
        "sitemap-papers.xml",
        f"data/conferences/{conference}-csv.zip",
        "api/v1/openapi.json",
        f"api/v1/conferences/{conference}",
    ]
    for language in ("en", "zh-hans"):
        expected += [
            f"{language}/index.html",
            f"{language}/feeds/awards.atom",
            f"{language}/papers/{paper.slug}/index.html",
            f"{language}/papers/{paper.slug}/cite.bib",
            f"{language}/conferences/{conference}/cite.ris",
            f"{language}/open-data/index.html",
        ]
    assert [name for name in expected if not (site / name).is_file()] == []
    assert f"Sitemap: {SITE_URL}/sitemap.xml" in (site / "robots.txt").read_text()
    assert f"<loc>{SITE_URL}/en/papers/{paper.slug}/</loc>" in (
        site / "sitemap-papers.xml"
    ).read_text(encoding="utf-8")


def test_published_pages_carry_the_live_sites_hreflang_pairs(published, client):
    site = published

    differing = []
    prefixed = [
        page
        for page in html_pages(site)
        if page.parts[len(site.parts)] in LANGUAGES and page.name != "404.html"
    ]
    for page in prefixed:
        live = Links()
        live.feed(client.get(uri_of(site, page)).content.decode())
        if links_of(page).alternates != live.alternates or not live.alternates:
            differing.append(uri_of(site, page))

    assert len(prefixed) > 150
    assert differing == []


def test_language_choice_at_the_root_links_both_homes(published):
    parser = links_of(published / "index.html")

    assert {"/en/", "/zh-hans/"} <= set(parser.urls)
    assert parser.alternates == {
        ("en", f"{SITE_URL}/en/"),
        ("zh-hans", f"{SITE_URL}/zh-hans/"),
        ("x-default", f"{SITE_URL}/"),
    }


def test_every_published_page_passes_the_nu_checker(published):
    site = published
    pages = [str(page) for page in html_pages(site) if "/static/" not in str(page)]
    java = shutil.which("java")
    assert VNU.exists() and java, "`make test` installs vnu-jar (npm ci) and Java"

    result = subprocess.run(  # noqa: S603 - fixed arguments
        [java, "-jar", str(VNU), "--errors-only", "--format", "json", *pages],
        capture_output=True,
        text=True,
        timeout=600,
    )

    messages = json.loads(result.stderr or result.stdout)["messages"]
    assert [(m.get("url"), m["message"]) for m in messages] == []
    assert len(pages) > 150


def test_second_run_writes_nothing_and_keeps_every_file(icml, publish):
    written, kept, removed = publish()

    assert written > 0 and (kept, removed) == (0, 0)
    assert publish() == (0, written, 0)


def test_draft_paper_is_not_published(icml, publish, tmp_path):
    paper = Paper.objects.published().order_by("slug").first()
    paper.status = Status.DRAFT  # through the model: its authors' kept column follows
    paper.save(update_fields=["status"])

    publish()

    site = tmp_path / "site"
    assert not (site / "en" / "papers" / paper.slug).exists()
    assert not (site / "zh-hans" / "papers" / paper.slug).exists()
    assert paper.slug.encode() not in (site / "sitemap-papers.xml").read_bytes()


def test_deleted_papers_files_are_removed_and_others_kept(icml, publish, tmp_path):
    site = tmp_path / "site"
    publish()
    paper = Paper.objects.published().order_by("slug").first()
    folder = site / "en" / "papers" / paper.slug
    assert (folder / "index.html").is_file()
    foreign = site / "en" / "papers" / "notes.txt"
    foreign.write_text("kept by hand")

    AwardEntry.objects.filter(paper=paper).delete()
    paper.delete()
    written, kept, removed = publish()

    assert not folder.exists()
    assert not (site / "papers" / paper.slug).exists()  # its x-default page
    assert removed >= 9  # its page and three citations in each language, its x-default
    assert written > 0 and kept > 0
    assert foreign.read_text() == "kept by hand"


def test_files_it_did_not_write_survive(icml, publish, tmp_path):
    site = tmp_path / "site"
    site.mkdir()
    (site / "CNAME").write_text("awards.example.org")

    publish()
    publish()

    assert (site / "CNAME").read_text() == "awards.example.org"


def test_page_not_answering_200_is_an_error_naming_it(icml, publish, tmp_path, monkeypatch):
    route = publishing.Route("paper-detail", "papers", func=lambda: [{"slug": "no-such-paper"}])
    home = publishing.Route("home", "papers", func=lambda: None)
    monkeypatch.setattr(publishing, "routes", lambda: [home, route])
    site = tmp_path / "site"

    with pytest.raises(CommandError, match="/en/papers/no-such-paper/ answered 404"):
        publish()

    # Nothing is published (tests/publishing/test_versions.py: an earlier site is left
    # whole): no live folder, and the unfinished version is removed.
    assert not site.exists() and not site.is_symlink()
    assert list(site.with_name("site.versions").iterdir()) == []


def test_unwritable_folder_is_an_error(icml, publish, tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")

    with pytest.raises(CommandError, match="Cannot write to"):
        publish(blocker / "site")


def test_without_a_public_address_it_refuses(icml, settings, tmp_path):
    settings.SITE_URL = ""

    with pytest.raises(CommandError, match="DJANGO_SITE_URL"):
        call_command("publish_site", str(tmp_path / "site"))

    assert not Path(tmp_path / "site").exists()


def test_dry_run_counts_and_writes_nothing(icml, publish, tmp_path):
    site = tmp_path / "site"
    written, _kept, _removed = publish()
    paper = Paper.objects.published().order_by("slug").first()
    paper.status = Status.DRAFT  # through the model: its authors' kept column follows
    paper.save(update_fields=["status"])
    before = sorted((path, path.stat().st_mtime_ns) for path in site.rglob("*"))

    out = StringIO()
    call_command("publish_site", str(site), "--dry-run", stdout=out)

    assert "Would publish" in out.getvalue()
    assert int(COUNTS.search(out.getvalue()).group(3)) >= 9  # the paper's files
    assert sorted((path, path.stat().st_mtime_ns) for path in site.rglob("*")) == before


RENDERED = re.compile(r"\((\d+) rendered\)")


def publish_counting_renders(site):
    """Runs publish_site into ``site``; returns how many pages it rendered."""
    out = StringIO()
    call_command("publish_site", str(site), stdout=out)
    return int(RENDERED.search(out.getvalue()).group(1))


def test_after_one_edit_only_the_pages_that_show_it_are_rendered(icml, publish, tmp_path):
    site = tmp_path / "site"
    publish()
    paper = Paper.objects.published().order_by("slug").first()
    other = Paper.objects.published().exclude(conference=paper.conference).first()
    other = other or Paper.objects.published().exclude(pk=paper.pk).order_by("slug").last()
    other_page = site / "en" / "papers" / other.slug / "index.html"
    other_before = other_page.stat().st_mtime_ns
    author = paper.authorships.order_by("position").first().author
    everything = publish_counting_renders(site)  # nothing changed: site pages kept too

    paper.title_en = "A title changed after the first publish"
    paper.save()
    rendered = publish_counting_renders(site)

    assert everything == 0
    assert 0 < rendered < len(list(publishing.pages())) / 2
    for path in (
        site / "en" / "papers" / paper.slug / "index.html",
        site / "en" / "authors" / author.slug / "index.html",
        site / "en" / "conferences" / paper.conference.slug / "index.html",
    ):
        assert "A title changed after the first publish" in path.read_text(), path
    search = json.loads((site / "en" / "search" / "results.json").read_text())
    assert "A title changed after the first publish" in json.dumps(search, ensure_ascii=False)
    assert other_page.stat().st_mtime_ns == other_before  # neither rendered nor rewritten


def test_a_kept_page_keeps_its_media_files(icml, publish, settings, tmp_path):
    assert give_icml_papers_teasers(settings.MEDIA_ROOT) > 0
    site = tmp_path / "site"
    publish()
    media = sorted(p.relative_to(site) for p in (site / "media").rglob("*") if p.is_file())

    rendered = publish_counting_renders(site)  # nothing changed: every page kept

    assert media and rendered == 0  # the teasers and their thumbnails
    assert sorted(p.relative_to(site) for p in (site / "media").rglob("*") if p.is_file()) == media


def test_a_page_deleted_by_hand_is_written_again(icml, publish, tmp_path):
    site = tmp_path / "site"
    publish()
    page = site / "en" / "papers" / Paper.objects.published().first().slug / "index.html"
    page.unlink()

    written, _kept, _removed = publish()

    assert page.is_file() and written == 1


def test_after_an_interrupted_run_every_page_is_rendered(icml, publish, tmp_path):
    site = tmp_path / "site"
    publish()
    manifest = json.loads((site / publish_files.MANIFEST).read_text())
    del manifest["media"]  # as an interrupted run leaves it
    (site / publish_files.MANIFEST).write_text(json.dumps(manifest))

    assert publish_counting_renders(site) == len(list(publishing.pages()))


SITEMAP_NS = {"s": "http://www.sitemaps.org/schemas/sitemap/0.9"}


def sitemap_locs_without_a_file(site):
    """The <loc>s of the published sitemap index, and of every part it names, whose
    file does not exist in ``site`` (what a static host would answer 404 for)."""
    missing = []
    parts = ET.parse(site / "sitemap.xml").findall("s:sitemap/s:loc", SITEMAP_NS)
    for part in parts:
        target = file_for(site, part.text)
        if urlsplit(part.text).query or not target.is_file():
            missing.append(part.text)
            continue
        for loc in ET.parse(target).findall("s:url/s:loc", SITEMAP_NS):
            if not file_for(site, loc.text).is_file():
                missing.append(loc.text)
    return missing


def test_every_part_of_a_long_sitemap_section_is_published(icml, publish, tmp_path, monkeypatch):
    # 20 URLs a part: the 19 papers in both languages take 2 parts, the 66 authors 7.
    monkeypatch.setattr(sitemaps._Sitemap, "limit", 20)
    site = tmp_path / "site"

    publish()

    assert (site / "sitemap-papers-2.xml").is_file()
    assert (site / "sitemap-authors-7.xml").is_file()
    assert not (site / "sitemap-authors-8.xml").exists()
    assert len(list(site.glob("sitemap-*.xml"))) == len(sitemaps.SITEMAPS) + 1 + 6
    assert sitemap_locs_without_a_file(site) == []


def test_the_404_pages_are_published(published, client):
    site = published

    for language, heading in (("en", "Page not found"), ("zh-hans", "页面不存在")):
        page = (site / language / "404.html").read_text(encoding="utf-8")
        live = client.get(f"/{language}/no/such/page/")
        assert live.status_code == 404
        assert f'<html lang="{language}">' in page
        assert f"<h1>{heading}</h1>" in page
        assert f"<h1>{heading}</h1>" in live.content.decode()
    # At the top, for any address: every language's words, home and search.
    top = (site / "404.html").read_text(encoding="utf-8")
    assert '<meta name="robots" content="noindex">' in top
    for language, heading in (("en", "Page not found"), ("zh-hans", "页面不存在")):
        assert f'<section lang="{language}">\n      <h1>{heading}</h1>' in top
        assert f'href="/{language}/search/"' in top
    assert {"/en/", "/zh-hans/"} <= set(links_of(site / "404.html").urls)
    assert missing_links(site) == []


def test_the_404_pages_are_not_logged_as_missing_pages(icml, publish, client, caplog):
    publish()

    assert [r.getMessage() for r in caplog.records if r.name == "django.request"] == []
    client.get("/en/no/such/page/")  # any other 404 is logged as ever
    assert [r.getMessage() for r in caplog.records if r.name == "django.request"] == [
        "Not Found: /en/no/such/page/"
    ]


def test_the_sites_compact_archive_is_rendered_after_every_other_page(icml, publish, monkeypatch):
    # Built from the conferences' archives, which worker processes write: rendered in
    # this process once they are all recorded (its route's ``after``), so none is
    # exported twice.
    calls = []
    render_here = publish_render._render_here

    def recording(site, publisher, pages, indices, progress):
        calls.append([pages[i][0].name for i in indices])
        return render_here(site, publisher, pages, indices, progress)

    monkeypatch.setattr(publish_render, "_render_here", recording)

    publish()

    assert calls[-1] == ["opendata-site-compact"]
    assert "opendata-site-compact" not in calls[0]
    assert "opendata-conference-compact" in calls[0]


def test_a_route_at_the_404_pages_address_is_an_error(icml, publish, monkeypatch):
    monkeypatch.setattr(publishing, "resolve", lambda uri: "a route's match")

    with pytest.raises(publish_files.PublishError, match="/en/404.html is a page of the site"):
        publishing.not_found_pages(publishing.Site(SITE_URL))


def test_the_404_pages_are_the_sites_own_with_debug_on(icml, settings):
    settings.SITE_URL = SITE_URL
    settings.ALLOWED_HOSTS = ["awards.example.org"]
    settings.DEBUG = True  # Django would answer a missing page with its technical page

    pages = publishing.not_found_pages(publishing.Site(SITE_URL))

    assert "<h1>Page not found</h1>" in pages["en/404.html"].decode()
    assert "<h1>页面不存在</h1>" in pages["zh-hans/404.html"].decode()


def test_dry_run_without_collected_static_files_collects_them_first(
    icml, publish, settings, tmp_path
):
    # The production storage names static files by collectstatic's manifest (hashed
    # names): without one, every page using {% static %} answered 500.
    settings.STORAGES = {
        **settings.STORAGES,
        "staticfiles": {"BACKEND": "awardsite.storage.StaticFilesStorage"},
    }
    site = tmp_path / "site"
    out = StringIO()

    call_command("publish_site", str(site), "--dry-run", stdout=out)

    assert "Would publish" in out.getvalue() and not site.exists()
    assert (settings.STATIC_ROOT / "staticfiles.json").is_file()


def test_no_collectstatic_without_collected_static_files_says_so(icml, publish, settings, tmp_path):
    settings.STORAGES = {
        **settings.STORAGES,
        "staticfiles": {"BACKEND": "awardsite.storage.StaticFilesStorage"},
    }

    with pytest.raises(CommandError, match="STATIC_ROOT has no collectstatic manifest"):
        call_command("publish_site", str(tmp_path / "site"), "--no-collectstatic")


def _tree(site):
    """{path: bytes} of every file publish_site wrote under ``site`` but its own records."""
    own = {publish_files.MANIFEST, ".publish-snapshot.json"}
    return {
        str(path.relative_to(site)): path.read_bytes()
        for path in site.rglob("*")
        if path.is_file() and str(path.relative_to(site)) not in own
    }


def test_after_an_edit_the_output_is_what_a_publish_from_scratch_writes(icml, publish, tmp_path):
    # Everything kept or reused (pages, language choices, the conferences' compact files in
    # the site's archive, search results) must be what rendering it again would give.
    site = tmp_path / "site"
    publish()
    paper = Paper.objects.published().filter(award_entries__isnull=False).first()
    paper.title_en = "A title changed after the first publish"
    paper.save()

    publish()
    publish(tmp_path / "fresh")

    edited, fresh = _tree(site), _tree(tmp_path / "fresh")
    assert sorted(edited) == sorted(fresh)
    assert [path for path in fresh if edited[path] != fresh[path]] == []


def test_after_a_homonym_is_added_the_output_is_what_a_publish_from_scratch_writes(
    icml, publish, tmp_path
):
    # No published row changes, but a compact file that named the published author by
    # name alone must now give the slug: a kept archive would be stale.
    site = tmp_path / "site"
    publish()
    paper = Paper.objects.published().order_by("slug").first()
    author = paper.authorships.first().author
    archive = site / "data" / "conferences" / f"{paper.conference.slug}-compact.zip"
    before = archive.read_bytes()
    Author.objects.create(name=author.name)

    publish()
    publish(tmp_path / "fresh")

    edited, fresh = _tree(site), _tree(tmp_path / "fresh")
    assert archive.read_bytes() != before
    assert sorted(edited) == sorted(fresh)
    assert [path for path in fresh if edited[path] != fresh[path]] == []


def test_after_an_edit_only_its_conference_is_exported_again(icml, publish, monkeypatch):
    publish()
    paper = Paper.objects.published().first()
    exported = []
    export = opendata.export_compact
    monkeypatch.setattr(opendata, "export_compact", lambda c: exported.append(c.slug) or export(c))
    paper.title_en = "A title changed after the first publish"
    paper.save()

    publish()

    # The archives of its conference and of those that awarded it, once each: the site's
    # archive reads them back from those files, and every other conference's.
    awarded_at = AwardEntry.objects.filter(paper=paper).values_list("award__conference__slug")
    assert sorted(exported) == sorted({paper.conference.slug, *(s for (s,) in awarded_at)})


def test_after_an_edit_only_its_search_result_is_rendered_again(icml, publish, monkeypatch):
    publish()
    paper = Paper.objects.published().first()
    rendered = []
    rows = listing.search_results
    monkeypatch.setattr(listing, "search_results", lambda keys: rendered.extend(keys) or rows(keys))
    paper.title_en = "A title changed after the first publish"
    paper.save()

    publish()

    assert rendered == [paper.pk]


def test_kept_pages_and_language_choices_are_neither_reversed_nor_rendered(
    icml, publish, monkeypatch
):
    publish()
    calls = []
    monkeypatch.setattr(publishing.Site, "target", lambda *args: calls.append("target"))
    monkeypatch.setattr(
        publish_files.Publisher, "language_choice", lambda *args: calls.append("choice")
    )
    monkeypatch.setattr(publish_site, "call_command", lambda *args, **kw: calls.append(args[0]))

    _written, kept, _removed = publish()  # nothing changed

    assert calls == [] and kept > 0  # nor collectstatic run again


def test_static_files_are_collected_again_after_a_deploy(icml, publish, monkeypatch, tmp_path):
    publish()
    calls = []
    monkeypatch.setattr(publish_site, "call_command", lambda *args, **kw: calls.append(args[0]))
    state = tmp_path / "site" / publish_changes.SNAPSHOT
    content = json.loads(state.read_text())
    state.write_text(json.dumps({**content, "fingerprint": "an earlier deploy"}))

    publish()

    assert calls == ["collectstatic"]
