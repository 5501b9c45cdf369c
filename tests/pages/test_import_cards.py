"""Share cards drawn by the import (issue 29, item 8): once an import commits, the cards
of the papers it created or changed, or gave an award, are drawn, as after an editor's
change; the importer never imports the pages (it sends ``content_changed``)."""

import io

from django.core.management import call_command

from catalogue.models import Paper
from pages import cards

FILE = """\
conference:
  venue: {acronym: CIL, name: Conference on Imaginary Learning}
  name: CIL 2031
  year: 2031
  status: published
awards:
  - slug: best-paper
    name: Best Paper Award
    levels:
      - {slug: winner, name: Best Paper, name_plural: Best Papers}
    entries:
      winner: [%s]
papers:
  - key: gradients
    title: Dreaming in Imaginary Gradients
    authors: [Bo Sample]
  - key: unicorns
    title: A Census of Unicorns
    authors: [Bo Sample]
"""


def _import(tmp_path, winners):
    path = tmp_path / "conference.yaml"
    path.write_text(FILE % winners, encoding="utf-8")
    call_command("import_conference", str(path), stdout=io.StringIO(), stderr=io.StringIO())


def _drawn(media):
    """Whether each paper's card, in each language, as its text is now, is a file."""
    drawn = {}
    for paper in Paper.objects.for_detail().order_by("slug"):
        for language in ("en", "zh-hans"):
            drawn[paper.slug, language] = (media / cards.card_file(paper, language)[0]).is_file()
    return drawn


def test_an_import_draws_the_cards_of_its_papers(transactional_db, settings, tmp_path):
    settings.MEDIA_ROOT = media = tmp_path / "media"
    settings.SHARE_CARDS_ON_SAVE = True

    _import(tmp_path, "gradients")

    assert list(_drawn(media).values()) == [True] * 4


def test_an_award_given_by_a_reimport_draws_the_card_naming_it(
    transactional_db, settings, tmp_path
):
    settings.MEDIA_ROOT = media = tmp_path / "media"
    settings.SHARE_CARDS_ON_SAVE = True
    _import(tmp_path, "gradients")

    _import(tmp_path, "gradients, unicorns")

    unicorns = Paper.objects.for_detail().get(slug="a-census-of-unicorns")
    assert cards.card_text(unicorns, "en")["award"] == "CIL 2031: Best Paper Award"
    assert list(_drawn(media).values()) == [True] * 4


def test_no_card_is_drawn_when_cards_on_save_are_off(transactional_db, settings, tmp_path):
    settings.MEDIA_ROOT = media = tmp_path / "media"
    settings.SHARE_CARDS_ON_SAVE = False

    _import(tmp_path, "gradients")

    assert list(_drawn(media).values()) == [False] * 4


def test_an_import_of_more_papers_than_the_limit_leaves_them_to_the_command(
    transactional_db, settings, tmp_path, monkeypatch, caplog
):
    settings.MEDIA_ROOT = media = tmp_path / "media"
    settings.SHARE_CARDS_ON_SAVE = True
    monkeypatch.setattr(cards, "IMPORT_CARDS_MAX", 1)

    _import(tmp_path, "gradients")

    assert list(_drawn(media).values()) == [False] * 4
    assert "left to manage.py make_share_cards" in caplog.text
    call_command("make_share_cards", stdout=io.StringIO())
    assert list(_drawn(media).values()) == [True] * 4
