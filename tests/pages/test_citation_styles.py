"""A paper page's cite panel (pages/citation_styles.py, issue 31): its BibTeX entry as
text, and its formatted citation, APA on English pages, GB/T 7714-2015 on Chinese ones."""

import html
import re

import pytest
from django.core.cache import cache
from django.test import override_settings

from catalogue.models import Paper, Status
from editorial.roles import create_editor
from pages import citation_styles
from pages.citation_styles import APA, cite_panel, render
from tests import factories

pytestmark = pytest.mark.django_db


def _element_text(page, element_id):
    """The text of the element ``element_id`` of ``page`` (HTML), markup dropped."""
    match = re.search(rf'<(\w+) id="{element_id}"[^>]*>(.*?)</\1>', page, re.DOTALL)
    assert match, element_id
    return html.unescape(re.sub(r"<[^>]+>", "", match.group(2)))


def _paper(title="Engines of Analysis", people=()):
    """A published paper at ICML 2025's like, by ``people`` ((given, family) pairs)."""
    venue = factories.venue(name_en="International Conference on Machine Learning")
    conference = factories.conference(
        venue=venue, year=2025, name_en="ICML 2025", proceedings_en="PMLR, volume 267"
    )
    authors = [
        factories.author(name=f"{given} {family}", given_name=given, family_name=family)
        for given, family in people or [("Ada", "Lovelace")]
    ]
    return factories.paper(
        conference=conference,
        title_en=title,
        authors=authors,
        links=[("pmlr", "https://proceedings.mlr.press/v267/x25a.html")],
        pages="10-20",
    )


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_panel_bibtex_is_the_bibtex_download(client, language):
    paper = _paper(people=[("Unai", "Fischer Abaigar"), ("Jan", "van Rossem")])
    url = f"/{language}/papers/{paper.slug}/"

    page = client.get(url).content.decode()
    download = client.get(f"{url}cite.bib").content.decode()

    assert _element_text(page, "cite-bibtex") == download
    assert "author = {Fischer Abaigar, Unai and van Rossem, Jan}" in download


def test_english_page_cites_in_apa_by_family_names(client):
    paper = _paper(people=[("Unai", "Fischer Abaigar"), ("Jan", "van Rossem"), ("Ada", "King")])

    page = client.get(f"/en/papers/{paper.slug}/").content.decode()

    assert _element_text(page, "cite-formatted-label") == "APA (7th edition)"
    assert _element_text(page, "cite-formatted") == (
        "Fischer Abaigar, U., van Rossem, J., & King, A. (2025). Engines of Analysis. "
        "International Conference on Machine Learning, Proceedings of Machine Learning Research, "
        "267, 10–20. "
        "https://proceedings.mlr.press/v267/x25a.html"
    )


def test_chinese_page_cites_in_gb_t_7714_without_a_number(client):
    people = [
        ("Unai", "Fischer Abaigar"),
        ("Jan", "van Rossem"),
        ("Ada", "King"),
        ("Alan", "Turing"),
    ]
    paper = _paper(people=people)

    page = client.get(f"/zh-hans/papers/{paper.slug}/").content.decode()

    assert _element_text(page, "cite-formatted-label") == "GB/T 7714—2015"
    # Family names in capitals, initials without points, three authors and "et al." (an
    # English paper is cited with English terms), [C] for a conference paper, /OL online.
    assert _element_text(page, "cite-formatted") == (
        "FISCHER ABAIGAR U, VAN ROSSEM J, KING A, et al. Engines of Analysis[C/OL]//"
        "International Conference on Machine Learning: Vol. 267. PMLR, 2025: 10-20. https://proceedings.mlr.press/v267/x25a.html."
    )


def test_formatted_citation_escapes_the_title_and_keeps_italics():
    paper = _paper(title='<script>alert("x")</script> & <b onclick="y">Engines</b>')
    paper = Paper.objects.for_detail().get(pk=paper.pk)

    formatted = cite_panel(paper, "https://example.org/").formatted

    # citeproc-py alone wrote the title as markup, <script> included.
    assert "<script>" not in formatted
    assert "<b" not in formatted
    assert '&lt;script&gt;alert("x")&lt;/script&gt; &amp; &lt;b onclick="y"&gt;Engines' in formatted
    assert "<i>International Conference on Machine Learning, Proceedings" in formatted


def test_render_keeps_no_attribute_of_small_capitals(monkeypatch):
    # citeproc-py writes small capitals as a style attribute, which the CSP refuses.
    item = {"id": "x", "type": "paper-conference", "title": "T", "author": [{"literal": "L"}]}
    monkeypatch.setattr(
        citation_styles.formatter.html,
        "preformat",
        lambda text: citation_styles.formatter.html.SmallCaps(text),
    )

    rendered = render(item, APA)

    assert "style" not in rendered
    assert "<span" not in rendered
    assert "T" in rendered


def test_an_edit_to_the_paper_shows_at_once(client):
    paper = _paper()
    url = f"/en/papers/{paper.slug}/"
    client.get(url)

    Paper.objects.filter(pk=paper.pk).update(title_en="Engines of Difference")
    page = client.get(url).content.decode()

    assert "Engines of Difference." in _element_text(page, "cite-formatted")


def test_a_rendered_citation_is_kept_in_the_cache(monkeypatch):
    paper = Paper.objects.for_detail().get(pk=_paper().pk)
    cache.clear()
    rendered = []
    monkeypatch.setattr(
        citation_styles, "render", lambda item, style: rendered.append(style) or "<i>x</i>"
    )

    first = cite_panel(paper, "https://example.org/").formatted
    second = cite_panel(paper, "https://example.org/").formatted

    assert (first, second) == ("<i>x</i>", "<i>x</i>")
    assert rendered == [APA]


@override_settings(
    CACHES={
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": "redis://127.0.0.1:1/0",
        }
    }
)
def test_a_failing_cache_does_not_fail_the_page(client, caplog):
    paper = _paper()

    response = client.get(f"/en/papers/{paper.slug}/")

    assert response.status_code == 200
    assert "Lovelace, A. (2025)" in _element_text(response.content.decode(), "cite-formatted")
    records = [r.getMessage() for r in caplog.records if r.name == citation_styles.logger.name]
    assert records == ["could not read a citation from the cache"]


def test_preview_of_a_draft_paper_shows_its_panel_and_preview_download(client):
    client.force_login(create_editor("editor", "editor@example.org", "a-long-editor-passphrase"))
    paper = _paper()
    Paper.objects.filter(pk=paper.pk).update(status=Status.DRAFT)
    url = f"/en/papers/{paper.slug}/"

    page = client.get(f"{url}?preview=1").content.decode()
    download = client.get(f"{url}cite.bib?preview=1").content.decode()

    assert _element_text(page, "cite-bibtex") == download
    assert _element_text(page, "cite-formatted").startswith("Lovelace, A. (2025). Engines")
    assert f'href="{url}cite.bib?preview=1"' in page
