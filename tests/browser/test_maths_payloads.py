"""TeX payloads in paper titles and abstracts open no dialog in Chromium (issue 8)."""

import pytest

from catalogue.models import Paper
from tests.catalogue.test_mathtext import PAYLOADS

pytestmark = pytest.mark.browser


def test_tex_payloads_run_no_script(page, site):
    paper = Paper.objects.get(slug="trust-region-policy-optimization")
    payloads = " ".join(PAYLOADS)
    Paper.objects.filter(pk=paper.pk).update(
        title_en=f"Trust {PAYLOADS[0]} {PAYLOADS[2]}",
        title_zh_hans=f"信任 {PAYLOADS[1]} {PAYLOADS[4]}",
        abstract_en=payloads,
        abstract_zh_hans=payloads,
        summary_en=payloads,
        summary_zh_hans=payloads,
    )
    dialogs = []
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))

    for language in ("en", "zh-hans"):
        for path in [
            paper.get_absolute_url(),
            paper.conference.get_absolute_url(),
            "/en/search/?q=Trust",
        ]:
            page.goto(site + path.replace("/en/", f"/{language}/", 1))
            page.wait_for_load_state("load")
            assert page.locator("math").count() > 0, path
            page.locator("h1").hover()  # mouse handlers, were any left

    assert dialogs == []
