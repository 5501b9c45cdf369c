"""Share cards of papers without a teaser (pages/cards.py, make_share_cards)."""

import io
import re
from unittest import mock

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import connection
from django.test.utils import CaptureQueriesContext
from PIL import Image

from catalogue.models import Author, Authorship, AwardEntry, AwardLevel, Conference, Paper
from editorial.roles import create_editor
from pages import cards
from tests import factories
from tests.catalogue.test_storage import full_disk
from tests.editorial.test_admin import _form_data
from tests.pages.test_metadata import _head, _property


def _make_cards(*args):
    out = io.StringIO()
    call_command("make_share_cards", *args, stdout=out)
    return out.getvalue()


def _awarded_paper(**fields):
    award = factories.award(name_en="Best Imaginary Paper Award", name_zh_hans="最佳虚构论文奖")
    fields.setdefault(
        "authors",
        [
            factories.author(slug="ada-example", name="Ada Example"),
            factories.author(slug="unai-fischer-abaigar", name="Unai Fischer Abaigar"),
        ],
    )
    fields.setdefault("title_en", "Learning to \\(k\\)-share")
    fields.setdefault("title_zh_hans", "学习分享")
    paper = factories.paper(conference=award.conference, **fields)
    factories.award_entry(award, paper, level="runner-up")
    factories.award_level(award, "winner")
    return Paper.objects.for_detail().get(pk=paper.pk)


def test_card_says_title_award_conference_and_site_in_each_language(db):
    paper = _awarded_paper()
    conference = paper.conference

    english, chinese = (cards.card_text(paper, code) for code in ("en", "zh-hans"))

    assert english == {
        "site": "Conference Awards",
        "title": "Learning to k-share",
        "authors": ["Ada Example", "Unai Fischer Abaigar"],
        "award": f"{conference.name_en}: Best Imaginary Paper Award · Runner-up",
        "conference": f"Published at {conference.name_en}",
        "separator": ", ",
        "et_al": "%(name)s, et al.",
    }
    assert chinese["site"] == "会议奖项"
    assert chinese["title"] == "学习分享"
    assert chinese["authors"] == ["Ada Example", "Unai Fischer Abaigar"]
    assert (chinese["separator"], chinese["et_al"]) == ("、", "%(name)s 等")
    assert chinese["award"].startswith(f"{conference.name_zh_hans}：最佳虚构论文奖 · ")


def test_command_draws_a_1200_by_630_png_per_language_once(db, settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path
    paper = _awarded_paper()
    factories.paper(image="papers/teaser.png")  # a teaser is its own share image

    first = _make_cards()
    second = _make_cards()

    drawn = sorted(path.name for path in (tmp_path / "cards").iterdir())
    assert [re.sub(r"-[0-9a-f]{12}\.png$", "", name) for name in drawn] == [
        f"{paper.slug}-en",
        f"{paper.slug}-zh-hans",
    ]
    for name in drawn:
        with Image.open(tmp_path / "cards" / name) as image:
            assert (image.format, image.size) == ("PNG", (1200, 630))
    assert first.splitlines()[-1] == "Drew 2 share cards."
    assert second.splitlines()[-1] == "Drew 0 share cards."


def test_dry_run_draws_nothing(db, settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path
    _awarded_paper()

    output = _make_cards("--dry-run")

    assert output.splitlines()[-1] == "Would draw 2 share cards."
    assert not (tmp_path / "cards").exists()


@pytest.mark.parametrize(
    ("language", "alt_start"), [("en", "Learning to k-share · "), ("zh-hans", "学习分享 · ")]
)
def test_paper_page_names_its_card_as_share_image(
    db, client, settings, tmp_path, language, alt_start
):
    settings.MEDIA_ROOT = tmp_path
    paper = _awarded_paper()
    _make_cards()

    head = _head(client, f"/{language}/papers/{paper.slug}/")

    name = cards.card_file(paper, language)[0]
    assert _property(head, "og:image") == [f"http://testserver/media/{name}"]
    assert _property(head, "og:image:width") == ["1200"]
    assert _property(head, "og:image:height") == ["630"]
    [alt] = _property(head, "og:image:alt")
    assert alt.startswith(alt_start)
    # The page's own address is kept (the card's URL once took its place).
    assert _property(head, "og:url") == [f"http://testserver/{language}/papers/{paper.slug}/"]


def test_page_without_a_drawn_card_has_no_share_image_and_draws_none(
    db, client, settings, tmp_path
):
    settings.MEDIA_ROOT = tmp_path
    paper = _awarded_paper()

    head = _head(client, paper.get_absolute_url())

    assert _property(head, "og:image") == []
    assert not (tmp_path / "cards").exists()


def test_changed_title_names_a_new_card_and_the_old_one_goes(db, settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path
    paper = _awarded_paper()
    _make_cards()
    old = cards.card_file(paper, "en")[0]

    Paper.objects.filter(pk=paper.pk).update(title_en="A new title")
    _make_cards()

    new = cards.card_file(Paper.objects.for_detail().get(pk=paper.pk), "en")[0]
    assert new != old
    assert (tmp_path / new).is_file()
    assert not (tmp_path / old).exists()
    assert len(list((tmp_path / "cards").iterdir())) == 2


def test_editors_change_draws_the_new_card_after_commit(transactional_db, settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path
    settings.SHARE_CARDS_ON_SAVE = True
    paper = _awarded_paper()
    award = paper.award_entries.get().award

    award.name_en = "Renamed Award"
    award.save()

    paper = Paper.objects.for_detail().get(pk=paper.pk)
    assert cards.card_text(paper, "en")["award"].endswith("Renamed Award · Runner-up")
    assert (tmp_path / cards.card_file(paper, "en")[0]).is_file()
    assert (tmp_path / cards.card_file(paper, "zh-hans")[0]).is_file()


def test_without_the_font_file_every_language_gets_the_english_card(db, settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path
    settings.SHARE_CARD_FONT = str(tmp_path / "no-such-font.ttf")
    cards._font_file.cache_clear()
    try:
        paper = _awarded_paper()
        _make_cards()
        names = {cards.card_file(paper, code)[0] for code in ("en", "zh-hans")}
    finally:
        cards._font_file.cache_clear()

    assert len(names) == 1
    assert [path.name for path in (tmp_path / "cards").iterdir()] == [
        names.pop().removeprefix("cards/")
    ]


def test_share_card_costs_the_paper_page_no_query(db, client, settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path
    paper = _awarded_paper()
    url = paper.get_absolute_url()
    with CaptureQueriesContext(connection) as without:
        client.get(url)
    _make_cards()

    with CaptureQueriesContext(connection) as with_card:
        html = client.get(url).content.decode()

    assert 'property="og:image"' in html
    assert len(with_card) == len(without)


@pytest.mark.parametrize("renamed", ["conference", "level"])
def test_renaming_a_conference_or_award_level_draws_the_new_card(
    transactional_db, settings, tmp_path, renamed
):
    """The card names the paper's conference and its award's level: renaming either in
    the admin draws the cards that say the new name (they named no card before)."""
    settings.MEDIA_ROOT = tmp_path
    settings.SHARE_CARDS_ON_SAVE = True
    paper = _awarded_paper()
    if renamed == "conference":
        conference = paper.conference
        conference.name_en = "Renamed Conference 2031"
        conference.save()
        expected = ("conference", "Published at Renamed Conference 2031")
    else:
        level = paper.award_entries.get().level
        level.name_en = "Renamed level"
        level.save()
        expected = ("award", "Best Imaginary Paper Award · Renamed level")

    paper = Paper.objects.for_detail().get(pk=paper.pk)
    key, text = expected
    assert cards.card_text(paper, "en")[key].endswith(text)
    assert (tmp_path / cards.card_file(paper, "en")[0]).is_file()
    assert (tmp_path / cards.card_file(paper, "zh-hans")[0]).is_file()


# Text that cannot be drawn, and side effects that fail (issue 32) ---------------------


def _paper_with_stored_line_breaks():
    """A paper whose title and conference name hold line breaks, as stored before titles
    and names had to be one line (written past the validators, as old data is)."""
    paper = _awarded_paper()
    Paper.objects.filter(pk=paper.pk).update(title_en="Learning\nto\r\nshare\u2028in  two\x85lines")
    Conference.objects.filter(pk=paper.conference_id).update(name_en="CIL\n2031")
    return Paper.objects.for_detail().get(pk=paper.pk)


def test_line_breaks_stored_in_a_title_are_drawn_as_spaces(db):
    paper = _paper_with_stored_line_breaks()

    text = cards.card_text(paper, "en")
    png = cards.draw_card(text)

    assert text["title"] == "Learning to share in two lines"
    assert text["conference"] == "Published at CIL 2031"
    assert text["award"].startswith("CIL 2031: ")
    with Image.open(io.BytesIO(png)) as image:
        assert (image.format, image.size) == ("PNG", (1200, 630))


def test_command_draws_the_card_of_a_title_with_a_stored_line_break(db, settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path
    paper = _paper_with_stored_line_breaks()

    output = _make_cards()

    assert output.splitlines()[-1] == "Drew 2 share cards."
    assert (tmp_path / cards.card_file(paper, "en")[0]).is_file()


def test_command_draws_the_other_papers_when_one_fails_and_then_says_so(
    db, settings, tmp_path, monkeypatch
):
    settings.MEDIA_ROOT = tmp_path
    failing = factories.paper(slug="a-paper", title_en="Cannot be drawn")
    drawn = factories.paper(slug="b-paper")
    real_draw = cards.draw_card

    def draw(text):
        if text["title"] == "Cannot be drawn":
            raise ValueError("can't measure length of multiline text")
        return real_draw(text)

    monkeypatch.setattr(cards, "draw_card", draw)
    err = io.StringIO()

    with pytest.raises(CommandError, match=r"^The cards of 1 paper could not be drawn\.$"):
        call_command("make_share_cards", stdout=io.StringIO(), stderr=err)

    assert err.getvalue() == f"{failing.slug}: can't measure length of multiline text\n"
    assert [path.name.rsplit("-", 1)[0] for path in sorted((tmp_path / "cards").iterdir())] == [
        f"{drawn.slug}-en",
        f"{drawn.slug}-zh-hans",
    ]


def test_an_empty_or_damaged_card_is_not_shared_and_is_drawn_again(db, client, settings, tmp_path):
    """What a full disk left (an empty file, one cut short) is no card: the page names
    none, and make_share_cards draws it again."""
    settings.MEDIA_ROOT = tmp_path
    paper = _awarded_paper()
    _make_cards()
    english, chinese = (tmp_path / cards.card_file(paper, code)[0] for code in ("en", "zh-hans"))
    english.write_bytes(b"")
    chinese.write_bytes(chinese.read_bytes()[:1000])

    english_head = _head(client, f"/en/papers/{paper.slug}/")
    output = _make_cards()

    assert _property(english_head, "og:image") == []
    assert output.splitlines()[-1] == "Drew 2 share cards."
    for path in (english, chinese):
        with Image.open(path) as image:
            image.load()
            assert (image.format, image.size) == ("PNG", (1200, 630))


def test_command_on_a_full_disk_leaves_no_card_and_says_so(db, settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path
    paper = _awarded_paper()
    err = io.StringIO()

    with full_disk(), pytest.raises(CommandError, match="The cards of 1 paper could not be"):
        call_command("make_share_cards", stdout=io.StringIO(), stderr=err)

    assert err.getvalue() == f"{paper.slug}: [Errno 28] No space left on device\n"
    assert [path for path in tmp_path.rglob("*") if path.is_file()] == []


@pytest.mark.parametrize(
    ("case", "expected_log"),
    [("line break", "can't measure length of multiline text"), ("full disk", "No space left")],
)
def test_editors_committed_save_says_so_when_its_card_cannot_be_drawn(
    transactional_db, client, settings, tmp_path, caplog, case, expected_log
):
    """The save commits and answers as usual, with a warning that make_share_cards will
    draw the card; the failure is logged with its traceback; no card file is left."""
    settings.MEDIA_ROOT = tmp_path
    client.force_login(create_editor("editor", "editor@example.org", "a-long-passphrase"))
    paper = _awarded_paper()
    settings.SHARE_CARDS_ON_SAVE = True
    url = f"/admin/papers/paper/{paper.pk}/change/"
    data = _form_data(client.get(url))
    data["title_zh_hans"] = "新的标题"
    failing = {
        # A drawing that fails as Pillow did on a title with a line break.
        "line break": mock.patch.object(
            cards, "draw_card", side_effect=ValueError("can't measure length of multiline text")
        ),
        "full disk": full_disk(),
    }[case]

    with failing:
        response = client.post(url, data, follow=True)

    assert response.redirect_chain == [("/admin/papers/paper/", 302)]
    assert Paper.objects.get(pk=paper.pk).title_zh_hans == "新的标题"
    assert [(m.level_tag, m.message) for m in response.context["messages"]][-1] == (
        "warning",
        "The change is saved, but its share cards could not be drawn (the server's log says "
        "why): “manage.py make_share_cards” draws them.",
    )
    [record] = [r for r in caplog.records if r.name == "catalogue.signals"]
    assert record.levelname == "ERROR"
    assert expected_log in str(record.exc_info[1])
    assert [path for path in tmp_path.rglob("*") if path.is_file()] == []


# Authors and level on the card (issue 31, item 7) -------------------------------------


def _names(count):
    return [factories.author(slug=f"author-{n}", name=f"Author Number{n:02}") for n in range(count)]


def _shown_names(lines, separator):
    """The names a layout's author lines show (each line but the last ends with the
    separator, its space dropped)."""
    return [name.strip() for name in " ".join(lines).split(separator.strip())]


@pytest.mark.parametrize(
    ("language", "authors"),
    [("en", "Ada Example, Unai Fischer Abaigar"), ("zh-hans", "Ada Example、Unai Fischer Abaigar")],
)
def test_card_draws_the_authors_and_the_award_with_its_level(db, language, authors):
    paper = _awarded_paper()
    text = cards.card_text(paper, language)

    layout = cards.card_layout(text)

    level = paper.award_entries.get().level
    assert layout["authors"] == [authors]
    assert layout["award"] == [text["award"]]
    assert text["award"].endswith(
        " · " + (level.name_en if language == "en" else level.name_zh_hans)
    )
    assert layout["title"] == [text["title"]]
    assert layout["conference"] == [text["conference"]]


@pytest.mark.parametrize(("language", "ending"), [("en", ", et al."), ("zh-hans", " 等")])
def test_a_long_author_list_ends_with_et_al_and_cuts_no_name(db, language, ending):
    names = _names(40)
    paper = _awarded_paper(authors=names)
    text = cards.card_text(paper, language)

    lines = cards.card_layout(text)["authors"]

    assert len(lines) == 2  # a one-line title leaves two lines to the names
    assert lines[-1].endswith(ending)
    shown = _shown_names([*lines[:-1], lines[-1].removesuffix(ending)], text["separator"])
    assert 1 < len(shown) < 40
    assert shown == [name.name for name in names[: len(shown)]]
    # The next name would not have fitted.
    longer = cards._author_lines(
        {**text, "authors": text["authors"][: len(shown) + 1] + ["Someone Else"]},
        cards._font(cards.AUTHORS_SIZE),
        cards.WIDTH - 2 * cards.MARGIN,
        2,
    )
    assert longer == lines


# 395 characters: Paper.title holds 400 (PostgreSQL refuses more; SQLite does not check).
LONG_TITLE = " ".join(["Longwinded"] * 36)


def test_a_long_title_leaves_one_line_to_the_authors(db):
    paper = _awarded_paper(authors=_names(40), title_en=LONG_TITLE)

    layout = cards.card_layout(cards.card_text(paper, "en"))

    assert len(layout["title"]) == 3
    assert layout["title"][-1].endswith("…")
    assert len(layout["authors"]) == 1
    assert layout["authors"][0].endswith(", et al.")


def test_without_authors_the_title_takes_four_lines(db):
    paper = _awarded_paper(authors=[], title_en=LONG_TITLE)

    layout = cards.card_layout(cards.card_text(paper, "en"))

    assert (len(layout["title"]), layout["authors"]) == (4, [])


def test_a_first_name_too_wide_for_a_line_alone_is_the_one_cut(db):
    # 194 characters: Author.name holds 200.
    wide = factories.author(slug="wide", name=" ".join(["Verylongname"] * 15))
    paper = _awarded_paper(authors=[wide, *_names(2)])

    [line] = cards.card_layout(cards.card_text(paper, "en"))["authors"][:1]

    assert line.startswith("Verylongname Verylongname")
    assert line.endswith("…")


@pytest.mark.parametrize("change", ["renamed author", "authors reordered", "level"])
def test_changed_authors_or_level_name_a_new_card(db, change):
    paper = _awarded_paper()
    old = cards.card_file(paper, "en")[0]
    first, second = (authorship.author for authorship in paper.ordered_authorships)
    if change == "renamed author":
        Author.objects.filter(pk=first.pk).update(name="Ada Q. Example")
    elif change == "authors reordered":
        Authorship.objects.filter(author=first).update(position=3)
    else:
        AwardEntry.objects.filter(paper=paper).update(
            level=AwardLevel.objects.get(award__entries__paper=paper, slug="winner")
        )

    new = cards.card_file(Paper.objects.for_detail().get(pk=paper.pk), "en")[0]

    assert new != old


def test_renaming_an_author_draws_the_new_card(transactional_db, settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path
    settings.SHARE_CARDS_ON_SAVE = True
    paper = _awarded_paper()
    author = paper.ordered_authorships[0].author

    author.name = "Ada Q. Example"
    author.save()

    paper = Paper.objects.for_detail().get(pk=paper.pk)
    assert cards.card_text(paper, "en")["authors"][0] == "Ada Q. Example"
    assert (tmp_path / cards.card_file(paper, "en")[0]).is_file()
    assert (tmp_path / cards.card_file(paper, "zh-hans")[0]).is_file()
