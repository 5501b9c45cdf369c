"""Issue 29's import in the admin, walked in the browser: upload a compact file, read the
dry run, import it as draft, and open the draft conference's preview."""

from pathlib import Path

import pytest

from catalogue.models import Conference, Status

pytestmark = pytest.mark.browser

DATA = Path(__file__).parents[1] / "data"


def test_editor_uploads_reads_the_dry_run_imports_and_previews(
    editor_page, site, settings, tmp_path
):
    page = editor_page
    settings.FILE_UPLOAD_TEMP_DIR = str(tmp_path)
    compact = tmp_path / "cil-2031.yaml"
    text = (DATA / "cil-2031.yaml").read_text(encoding="utf-8")
    compact.write_text(text.replace("status: published", "status: draft"), encoding="utf-8")

    page.goto(f"{site}/admin/")
    page.click("text=Import a conference")
    page.set_input_files("#id_compact_file", str(compact))
    page.click("input[type=submit][value='Upload and check']")
    assert page.locator("#dry-run h2").inner_text() == "Dry run: nothing has been written yet."
    assert page.locator("#import-new li").first.inner_text() == "Venue: cil"
    assert Conference.objects.filter(slug="cil-2031").count() == 0

    page.click("input[type=submit][value='Import as draft']")
    assert page.locator("#imported h2").inner_text() == "Imported. The uploaded files were removed."
    assert Conference.objects.get(slug="cil-2031").status == Status.DRAFT

    page.click("text=Preview the conference's page")
    assert "?preview=1" in page.url
    assert page.locator("h1").first.inner_text() == "CIL 2031"
    assert list(tmp_path.glob("awardsite-import-*")) == []
