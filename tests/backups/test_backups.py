"""`backup` and `restore` (backups/archives.py): a round trip, and what restore refuses."""

import gc
import hashlib
import io
import json
import re
import shutil
import tarfile
import tracemalloc
from types import SimpleNamespace

import pytest
from django.contrib.auth import get_user_model
from django.contrib.contenttypes.models import ContentType
from django.core.management import call_command
from django.core.management.base import CommandError
from reversion.models import Version

from backups import archives
from backups.archives import saved_models
from catalogue.models import Conference, ContentGeneration, Paper
from tests.backups.conftest import fill_site
from tests.checked_pages import URLS


def public_urls(client):
    """Every public page in both languages: the sitemap's, the citation files of each
    paper, conference and award page, the feeds, robots.txt and the test pages."""
    located = re.compile(r"<loc>https?://[^/]+(/[^<]*)</loc>")
    parts = located.findall(client.get("/sitemap.xml").content.decode())  # the index
    pages = sorted({page for part in parts for page in located.findall(_text(client, part))})
    assert len(pages) > 40  # both languages of every conference, award, paper and author
    urls = ["/sitemap.xml", *parts, "/robots.txt"]
    urls += ["/en/feeds/awards.atom", "/zh-hans/feeds/awards.atom"]
    for page in pages:
        urls.append(page)
        if re.search(r"/(papers|conferences)/", page) and "/authors/" not in page:
            urls.extend(f"{page}cite.{fmt}" for fmt in ("bib", "ris", "json"))
    return urls + URLS


def _text(client, url):
    return client.get(url).content.decode()


def snapshot(client, tmp_path, label):
    """Every page's status and bytes, and every conference's export with its images."""
    pages = {}
    for url in public_urls(client):
        response = client.get(url)
        body = b"".join(response.streaming_content) if response.streaming else response.content
        pages[url] = (response.status_code, body)
    exports = {}
    for slug in Conference.objects.order_by("slug").values_list("slug", flat=True):
        folder = tmp_path / label / slug
        folder.mkdir(parents=True)
        call_command("export_conference", slug, output=str(folder / "f.json"), stderr=io.StringIO())
        exports[slug] = {
            str(path.relative_to(folder)): path.read_bytes()
            for path in sorted(folder.rglob("*"))
            if path.is_file()
        }
    history = list(
        Version.objects.order_by("pk").values_list(
            "revision__comment", "revision__user__username", "object_id", "serialized_data"
        )
    )
    return pages, exports, history


@pytest.mark.django_db(transaction=True)
def test_backup_flush_restore_gives_back_every_page_and_export(client, media, tmp_path):
    fill_site()
    before = snapshot(client, tmp_path, "before")
    pages, exports, history = before
    assert b"(restored)" in pages["/en/papers/trust-region-policy-optimization/"][1]
    assert any(name.startswith("images/") for name in exports["icml-2015"])
    assert ("New teaser and a clearer title", "mei") in [entry[:2] for entry in history]

    archive = tmp_path / "site.tar.gz"
    call_command("backup", str(archive), stdout=io.StringIO())
    call_command("flush", interactive=False, verbosity=0)
    ContentType.objects.clear_cache()
    for stored in media.rglob("*"):  # a new installation has no media files either
        if stored.is_file():
            stored.unlink()
    assert Paper.objects.count() == 0
    call_command("restore", str(archive), stdout=io.StringIO())

    after = snapshot(client, tmp_path, "after")
    assert after[0].keys() == before[0].keys()
    for url, (status, content) in before[0].items():
        assert after[0][url] == (status, content), url
    assert after[1] == before[1]
    assert after[2] == before[2]
    assert get_user_model().objects.get(username="mei").check_password("pw-for-tests")


def row_counts():
    return {model._meta.label: model._base_manager.count() for model in saved_models()}


def media_files(root):
    return {
        str(path.relative_to(root)): path.read_bytes() for path in root.rglob("*") if path.is_file()
    }


def test_restore_refuses_a_site_with_content_and_changes_nothing(archive, media):
    Paper.objects.filter(slug="batch-normalization").update(title_en="Edited after the backup")
    counts, files = row_counts(), media_files(media)
    with pytest.raises(CommandError, match="this installation is not empty .*--force"):
        call_command("restore", str(archive), stdout=io.StringIO())
    assert row_counts() == counts
    assert media_files(media) == files
    assert Paper.objects.get(slug="batch-normalization").title_en == "Edited after the backup"


def test_restore_with_force_replaces_the_content(archive):
    papers = Paper.objects.filter(slug="batch-normalization")
    title = papers.get().title_en
    papers.update(title_en="Edited after the backup")
    call_command("restore", str(archive), force=True, stdout=io.StringIO())
    assert papers.get().title_en == title


def rewrite(archive, target, change):
    """Copy ``archive`` to ``target`` with ``change(members)`` applied to its members."""
    with tarfile.open(archive, "r:gz") as tar:
        members = {info.name: tar.extractfile(info).read() for info in tar}
    change(members)
    with tarfile.open(target, "w:gz") as tar:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return target


def relist(members):
    """Make the manifest list the members as they now are (a well-formed archive)."""
    manifest = json.loads(members["manifest.json"])
    manifest["members"] = {
        name: {"sha256": hashlib.sha256(data).hexdigest(), "size": len(data)}
        for name, data in members.items()
        if name != "manifest.json"
    }
    members["manifest.json"] = json.dumps(manifest).encode()


def outside(members):
    members["media/../../escaped.txt"] = b"owned"
    relist(members)


def bad_row(members):
    rows = json.loads(members["database.json"])
    rows.append({"model": "papers.paper", "pk": 999, "fields": {"conference": 12345}})
    members["database.json"] = json.dumps(rows).encode()
    relist(members)


def damaged(members):
    members["database.json"] = members["database.json"].replace(b"Batch", b"Botch", 1)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (damaged, "'database.json' is damaged"),
        (outside, "'media/../../escaped.txt' is not a media file name; refused"),
        (bad_row, "database.json cannot be loaded"),
    ],
)
def test_restore_refuses_a_bad_archive_and_changes_nothing(
    archive, media, tmp_path, change, message
):
    bad = rewrite(archive, tmp_path / "bad.tar.gz", change)
    call_command("flush", interactive=False, verbosity=0)
    ContentType.objects.clear_cache()
    counts, files = row_counts(), media_files(media)
    with pytest.raises(CommandError, match=re.escape(message)):
        call_command("restore", str(bad), stdout=io.StringIO())
    assert row_counts() == counts
    assert media_files(media) == files
    assert not (tmp_path / "escaped.txt").exists()


def test_restore_refuses_a_truncated_file(archive, tmp_path):
    cut = tmp_path / "cut.tar.gz"
    cut.write_bytes(archive.read_bytes()[: archive.stat().st_size // 2])
    with pytest.raises(CommandError, match="is not a complete backup archive"):
        call_command("restore", str(cut), stdout=io.StringIO())


def test_restore_refuses_a_link_member(archive, tmp_path):
    with tarfile.open(archive, "r:gz") as tar:
        members = [(info, tar.extractfile(info).read()) for info in tar]
    linked = tmp_path / "link.tar.gz"
    with tarfile.open(linked, "w:gz") as tar:
        for info, data in members:
            tar.addfile(info, io.BytesIO(data))
        link = tarfile.TarInfo("media/papers/evil.png")
        link.type = tarfile.SYMTYPE
        link.linkname = "/etc/passwd"
        tar.addfile(link)
    with pytest.raises(CommandError, match="'media/papers/evil.png' is not a plain file"):
        call_command("restore", str(linked), stdout=io.StringIO())


def test_restore_refuses_other_migrations_and_names_them(archive, tmp_path):
    def older(members):
        manifest = json.loads(members["manifest.json"])
        manifest["migrations"]["papers"].append("9999_from_the_future")
        members["manifest.json"] = json.dumps(manifest).encode()

    other = rewrite(archive, tmp_path / "other.tar.gz", older)
    call_command("flush", interactive=False, verbosity=0)
    ContentType.objects.clear_cache()

    with pytest.raises(CommandError, match=r"Not applied here: papers\.9999_from_the_future\."):
        call_command("restore", str(other), stdout=io.StringIO())
    assert Paper.objects.count() == 0


def test_backup_to_an_unwritable_place_is_a_clear_error(db, media, tmp_path):
    (tmp_path / "a-file").write_text("not a folder")

    with pytest.raises(CommandError, match="cannot write .*a-file/site.tar.gz"):
        call_command("backup", str(tmp_path / "a-file" / "site.tar.gz"), stdout=io.StringIO())


MEMBER = "media/papers/huge.png"
HUGE = 32 * 1024 * 1024  # bytes of the member


def swollen(members):
    """A member of HUGE bytes (zeros: 32 KB compressed) that the manifest says is 10."""
    members[MEMBER] = bytes(HUGE)
    relist(members)
    manifest = json.loads(members["manifest.json"])
    manifest["members"][MEMBER]["size"] = 10
    members["manifest.json"] = json.dumps(manifest).encode()


def tampered(members):
    """A member of HUGE bytes, listed with its size but another's digest."""
    members[MEMBER] = bytes(HUGE)
    relist(members)
    members[MEMBER] = b"\1" + bytes(HUGE - 1)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (swollen, f"'{MEMBER}' is {HUGE} bytes, but manifest.json says 10; refused"),
        (tampered, f"'{MEMBER}' is damaged (its SHA-256 digest differs)"),
    ],
)
def test_a_huge_bad_member_is_refused_in_bounded_memory_and_nothing_is_written(
    archive, media, tmp_path, change, message
):
    bad = rewrite(archive, tmp_path / "bad.tar.gz", change)
    call_command("flush", interactive=False, verbosity=0)
    ContentType.objects.clear_cache()
    counts, files = row_counts(), media_files(media)
    gc.collect()

    tracemalloc.start()
    try:
        with pytest.raises(CommandError, match=re.escape(message)):
            call_command("restore", str(bad), stdout=io.StringIO())
        _size, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()

    assert peak < HUGE / 8  # the member is streamed, never held
    assert row_counts() == counts
    assert media_files(media) == files
    assert sorted(path.name for path in tmp_path.iterdir()) == [
        "bad.tar.gz",
        "media",
        "site.tar.gz",
    ]


def test_a_restore_without_room_for_the_members_is_refused_before_writing(
    archive, media, tmp_path, monkeypatch
):
    monkeypatch.setattr(shutil, "disk_usage", lambda path: SimpleNamespace(free=1000))
    counts, files = row_counts(), media_files(media)

    with pytest.raises(
        CommandError, match=r"need [\d.]+ MB beside .*media, where 0\.0 MB are free"
    ):
        call_command("restore", str(archive), force=True, stdout=io.StringIO())

    assert row_counts() == counts
    assert media_files(media) == files
    assert not (tmp_path / ".media.restore").exists()


def test_a_restore_retires_every_cached_page(archive):
    backed_up = ContentGeneration.objects.current()
    Paper.objects.filter(slug="batch-normalization").update(title_en="Edited after the backup")
    ContentGeneration.objects.update(number=10**9)  # a site edited often since its backup
    before = ContentGeneration.objects.current()

    call_command("restore", str(archive), force=True, stdout=io.StringIO())

    # Higher than the number of either site: no page cached under one of them is served.
    assert ContentGeneration.objects.current() > max(before, backed_up)


def test_backup_streams_each_media_file_in_bounded_memory(db, media, tmp_path):
    """``backup`` read every media file whole (300 MB of media: a 390 MB peak)."""
    (media / "papers").mkdir(parents=True)
    (media / "papers" / "large.bin").write_bytes(bytes(HUGE))
    gc.collect()

    tracemalloc.start()
    try:
        call_command("backup", str(tmp_path / "site.tar.gz"), stdout=io.StringIO())
        _size, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()

    assert peak < HUGE / 8
    with tarfile.open(tmp_path / "site.tar.gz") as tar:
        manifest = json.load(tar.extractfile("manifest.json"))
        member = tar.extractfile("media/papers/large.bin")
        digest = hashlib.sha256()
        while chunk := member.read(1 << 20):
            digest.update(chunk)
    assert manifest["members"]["media/papers/large.bin"] == {
        "sha256": digest.hexdigest(),
        "size": HUGE,
    }
    assert digest.hexdigest() == hashlib.sha256(bytes(HUGE)).hexdigest()


@pytest.mark.parametrize("changed", [b"other", b"much longer bytes", b""])
def test_a_media_file_changed_during_the_backup_is_refused(
    db, media, tmp_path, monkeypatch, changed
):
    """Each media file is read twice (described for the manifest, then written): one that
    changes in between is named, and no archive is left."""
    (media / "papers").mkdir(parents=True)
    path = media / "papers" / "teaser.png"
    path.write_bytes(b"original bytes")
    described = archives._described

    def described_then_changed(stream):
        description = described(stream)
        if getattr(stream, "name", "").endswith("teaser.png"):
            path.write_bytes(changed)
        return description

    monkeypatch.setattr(archives, "_described", described_then_changed)

    with pytest.raises(CommandError, match="media/papers/teaser.png changed while the backup"):
        call_command("backup", str(tmp_path / "site.tar.gz"), stdout=io.StringIO())

    assert sorted(item.name for item in tmp_path.iterdir()) == ["media"]
