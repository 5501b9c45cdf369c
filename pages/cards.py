"""Share cards: the ``og:image`` of a paper without a teaser, drawn once with Pillow.

A card is a 1200 x 630 PNG with the site's name, the paper's title, its authors (as many
as fit, then "et al."), its first published award (and level) and its conference, in one
language; ``card_layout`` says which lines it draws. Cards are drawn by
``make_share_cards``, after an editor's committed change (``cards_after_change``) and
after an import's (``cards_after_content``), never in a visitor's request. Its file
name carries a digest of its text (``cards/<slug>-<language>-<digest>.png``), so a
changed title names a new card: until it is drawn the page shows no ``og:image``, never
a stale one. A card that cannot be drawn after a change (a full disk) never fails the
change: it is logged, and ``make_share_cards`` draws it, as it draws again a card whose
file is empty or damaged.
"""

import hashlib
import io
import json
import logging
import re
from functools import cache, partial
from pathlib import Path

from django.conf import settings
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.db.models import Q
from django.utils import translation
from django.utils.translation import gettext, pgettext
from django.utils.translation import gettext_lazy as _
from PIL import Image, ImageDraw, ImageFont

from catalogue.images import readable_image
from catalogue.languages import localized_value
from catalogue.models import (
    Author,
    Authorship,
    Award,
    AwardEntry,
    AwardLevel,
    Conference,
    Paper,
)
from catalogue.names import name_separator
from catalogue.signals import after_commit, content_changed

WIDTH, HEIGHT = 1200, 630
MARGIN = 72
DIRECTORY = "cards"
# Raised when the drawing changes, so that every card is drawn again.
DESIGN_VERSION = "2"
BACKGROUND, INK, MUTED, GOLD = "#0b2a4a", "#ffffff", "#c9d6e8", "#f2c14e"
# Font sizes and line heights in pixels. The title and the authors share the space
# between the site's name and the award (TEXT_TOP to TEXT_BOTTOM): 4 lines of title without
# authors; with them, 3 lines of title and 1 of names, or 2 and 2.
TITLE_SIZE, TITLE_LEADING, TITLE_LINES = 60, 75, 4
AUTHORS_SIZE, AUTHORS_LEADING, AUTHORS_LINES, AUTHORS_GAP = 32, 42, 2, 16
SITE_SIZE, AWARD_SIZE, CONFERENCE_SIZE = 34, 40, 34
# An award line too wide at AWARD_SIZE ("ICML 2025: Test of Time Award · Honourable
# mention" is 1,020 px) is drawn smaller, down to this size, before it is cut.
AWARD_SIZE_MIN = 30
TEXT_TOP, TEXT_BOTTOM = MARGIN + 70, HEIGHT - MARGIN - CONFERENCE_SIZE - 64 - 20
# TeX maths delimiters (catalogue/mathtext.py): a card shows the formula's source text.
MATH_DELIMITERS = re.compile(r"\\[()\[\]]|\$\$?")

logger = logging.getLogger(__name__)


@cache
def _font_file():
    """The card font's path, or None when ``settings.SHARE_CARD_FONT`` is not a file."""
    path = Path(settings.SHARE_CARD_FONT or "")
    return path if settings.SHARE_CARD_FONT and path.is_file() else None


def card_text(paper, language):
    """What the card of ``paper`` (from ``Paper.objects.for_detail()``) says in
    ``language``: a dict of ``site``, ``title``, ``award`` ("" without one: the award's
    name, and its level's unless it is the award's top level, as the badges say it),
    ``conference`` and ``authors`` (the names as published, in the paper's order), each
    one line (a line break stored before titles and names had to be one line, or any run
    of white space, is one space); and how the language writes a list of names:
    ``separator`` (``name_separator()``) and ``et_al`` (a format of the last name shown
    when the list is shortened: "%(name)s, et al.", "%(name)s 等")."""
    with translation.override(language):
        award = ""
        entries = list(paper.award_entries.all())
        if entries:
            entry = entries[0]
            award = gettext("%(conference)s: %(award)s") % {
                "conference": localized_value(entry.award.conference, "name")[0],
                "award": localized_value(entry.award, "name")[0],
            }
            if not getattr(entry, "is_top_level", True):
                award += " · " + localized_value(entry.level, "name")[0]
        text = {
            "site": gettext("Conference Awards"),
            "title": MATH_DELIMITERS.sub("", localized_value(paper, "title")[0]),
            "award": award,
            "conference": gettext("Published at %(conference)s")
            % {"conference": localized_value(paper.conference, "name")[0]},
        }
        text = {key: " ".join(value.split()) for key, value in text.items()}
        text["authors"] = [
            " ".join(authorship.author.name.split()) for authorship in paper.ordered_authorships
        ]
        text["separator"] = name_separator()
        text["et_al"] = pgettext("the last author a shortened list shows", "%(name)s, et al.")
    return text


def card_file(paper, language):
    """``(storage name, text)`` of ``paper``'s card for a page in ``language``: the text
    (``card_text``) in that language, or in English without a font file (Pillow's own
    writes Latin letters only), and a name carrying its digest. No file access."""
    if _font_file() is None:
        language = settings.MODELTRANSLATION_DEFAULT_LANGUAGE
    text = card_text(paper, language)
    digest = hashlib.sha256(
        json.dumps([DESIGN_VERSION, text], ensure_ascii=False).encode()
    ).hexdigest()[:12]
    return f"{DIRECTORY}/{paper.slug}-{language}-{digest}.png", text


def _alt(text):
    """A card's description (``og:image:alt``): the ``text`` it shows, in reading order
    (every author's name, where the card may shorten the list)."""
    authors = text["separator"].join(text["authors"])
    parts = (text["title"], authors, text["award"], text["conference"])
    return " · ".join(part for part in parts if part)


def share_card(paper, language):
    """``(url, width, height, alt)`` of ``paper``'s card for a page in ``language``; None
    for a paper with a teaser (its share image) or a card not drawn yet, or left empty.
    One look at the file's size in the storage."""
    if paper.image:
        return None
    name, text = card_file(paper, language)
    try:
        if not default_storage.size(name):
            return None
    except OSError:  # not drawn yet
        return None
    return default_storage.url(name), WIDTH, HEIGHT, _alt(text)


def make_cards(paper, *, dry_run=False):
    """Draw ``paper``'s cards that are missing, empty or damaged (one per language; none
    for a paper with a teaser) and delete its outdated ones; returns the names drawn
    (with ``dry_run``, to draw). ``paper`` as for ``card_text``. OSError when the
    storage cannot write (a full disk: ENOSPC), leaving no file."""
    if paper.image:
        return []
    # Two languages share a card when the font cannot write one of them (card_file).
    wanted = dict(card_file(paper, code) for code, _name in settings.LANGUAGES)
    drawn = []
    for name, text in sorted(wanted.items()):
        if readable_image(default_storage, name):
            continue
        drawn.append(name)
        if not dry_run:
            default_storage.delete(name)  # an empty or damaged card, if any
            default_storage.save(name, ContentFile(draw_card(text)))
    if drawn and not dry_run:
        _delete_other_cards(paper, wanted)
    return drawn


def _delete_other_cards(paper, wanted):
    try:
        _folders, files = default_storage.listdir(DIRECTORY)
    except FileNotFoundError:
        return
    prefix, languages = f"{paper.slug}-", dict(settings.LANGUAGES)
    for file in files:
        name = f"{DIRECTORY}/{file}"
        # The slug, a language code, a digest: "a-paper-zh-hans-0123abcd4567.png" is
        # this paper's only when what follows the slug is a language and a digest (not
        # the card of a paper "a-paper-zh").
        rest = file.removeprefix(prefix)
        if file.startswith(prefix) and name not in wanted and rest.rsplit("-", 1)[0] in languages:
            default_storage.delete(name)


def _font(size):
    path = _font_file()
    if path is None:
        return ImageFont.load_default(size)
    return ImageFont.truetype(str(path), size)


def _fits(text, font, width):
    return font.getlength(text) <= width


def _wrap(text, font, width, max_lines):
    """``text`` in at most ``max_lines`` lines of at most ``width`` pixels, broken between
    words (or characters, in a word too wide, as Chinese is), the last cut with "…"."""
    lines, line = [], ""
    for word in re.findall(r"\S+\s*", text):
        candidate = line + word
        if _fits(candidate.rstrip(), font, width):
            line = candidate
            continue
        if line:
            lines.append(line.rstrip())
            line = ""
        for character in word:
            if not _fits((line + character).rstrip(), font, width) and line:
                lines.append(line.rstrip())
                line = ""
            line += character
    if line.strip():
        lines.append(line.rstrip())
    if len(lines) > max_lines:
        last = lines[max_lines - 1]
        while last and not _fits(last + "…", font, width):
            last = last[:-1]
        lines = [*lines[: max_lines - 1], last.rstrip() + "…"]
    return lines


def _lines_of_names(pieces, font, width):
    """``pieces`` (each a name with the separator after it) filled into lines of at most
    ``width`` pixels, broken only between names; None when one name alone is too wide."""
    lines, line = [], ""
    for piece in pieces:
        if _fits((line + piece).rstrip(), font, width):
            line += piece
            continue
        if not line or not _fits(piece.rstrip(), font, width):
            return None
        lines.append(line.rstrip())
        line = piece
    return [*lines, line.rstrip()] if line else lines


def _author_lines(text, font, width, max_lines):
    """The authors of ``text`` in at most ``max_lines`` lines of ``width`` pixels, as many
    as fit in the paper's order: every name, or the first ones and ``et_al`` ("A, B, et
    al."). Lines break between names, never inside one; only a first name too wide for
    a line alone is cut, with "…"."""
    names, separator = text["authors"], text["separator"]
    for shown in range(len(names), 0, -1):
        pieces = [name + separator for name in names[: shown - 1]]
        last = names[shown - 1]
        pieces.append(last if shown == len(names) else text["et_al"] % {"name": last})
        lines = _lines_of_names(pieces, font, width)
        if lines is not None and len(lines) <= max_lines:
            return lines
    if not names:
        return []
    first = names[0] if len(names) == 1 else text["et_al"] % {"name": names[0]}
    return _wrap(first, font, width, 1)


def _award_size(award, width):
    """The largest font size from ``AWARD_SIZE`` down to ``AWARD_SIZE_MIN`` that draws
    ``award`` in ``width`` pixels; ``AWARD_SIZE_MIN`` when none does."""
    for size in range(AWARD_SIZE, AWARD_SIZE_MIN, -2):
        if _fits(award, _font(size), width):
            return size
    return AWARD_SIZE_MIN


def card_layout(text):
    """The lines a card of ``text`` (a ``card_text`` dict) draws, by part: ``site``,
    ``title`` (at most 4 lines, 3 with authors, cut with "…"), ``authors`` (1 or 2 lines:
    2 when the title takes at most 2; ``_author_lines``), ``award`` and ``conference``
    (one line each, cut with "…"; no award line without an award), measured in the
    card's fonts; and ``award_size``, the award line's font size (``_award_size``)."""
    inner = WIDTH - 2 * MARGIN
    award_size = _award_size(text["award"], inner - 40)
    title_lines = TITLE_LINES - 1 if text["authors"] else TITLE_LINES
    title = _wrap(text["title"], _font(TITLE_SIZE), inner, title_lines)
    authors_lines = AUTHORS_LINES if len(title) <= title_lines - 1 else 1
    return {
        "site": [text["site"]],
        "title": title,
        "authors": _author_lines(text, _font(AUTHORS_SIZE), inner, authors_lines),
        "award": _wrap(text["award"], _font(award_size), inner - 40, 1),
        "award_size": award_size,
        "conference": _wrap(text["conference"], _font(CONFERENCE_SIZE), inner, 1),
    }


def draw_card(text):
    """The PNG bytes of a card showing ``text`` (a ``card_text`` dict), laid out by
    ``card_layout``."""
    layout = card_layout(text)
    image = Image.new("RGB", (WIDTH, HEIGHT), BACKGROUND)
    draw = ImageDraw.Draw(image)
    draw.rectangle((0, 0, WIDTH, 12), fill=GOLD)
    draw.text((MARGIN, MARGIN - 8), layout["site"][0], font=_font(SITE_SIZE), fill=MUTED)
    y = TEXT_TOP
    for line in layout["title"]:
        draw.text((MARGIN, y), line, font=_font(TITLE_SIZE), fill=INK)
        y += TITLE_LEADING
    y += AUTHORS_GAP
    for line in layout["authors"]:
        draw.text((MARGIN, y), line, font=_font(AUTHORS_SIZE), fill=MUTED)
        y += AUTHORS_LEADING
    bottom = HEIGHT - MARGIN
    for line in layout["conference"]:
        draw.text((MARGIN, bottom - CONFERENCE_SIZE), line, font=_font(CONFERENCE_SIZE), fill=MUTED)
    for line in layout["award"]:
        top = bottom - CONFERENCE_SIZE - 64
        draw.ellipse((MARGIN, top + 12, MARGIN + 24, top + 36), fill=GOLD)
        # The line's middle stays where a line of AWARD_SIZE has it, beside the dot.
        shift = (AWARD_SIZE - layout["award_size"]) // 2
        draw.text((MARGIN + 40, top + shift), line, font=_font(layout["award_size"]), fill=GOLD)
    buffer = io.BytesIO()
    image.save(buffer, format="PNG", optimize=True)
    return buffer.getvalue()


def refresh_cards(paper_ids):
    """Draw the missing cards of the papers ``paper_ids`` and, when any was drawn, send
    ``content_changed`` (cached pages named no card or an old one); returns the names."""
    drawn = []
    for paper in Paper.objects.filter(pk__in=paper_ids, image="").for_detail():
        drawn += make_cards(paper)
    if drawn:
        content_changed.send(sender=refresh_cards)
    return drawn


CARDS_FAILED = _(
    "The change is saved, but its share cards could not be drawn (the server's log says "
    "why): “manage.py make_share_cards” draws them."
)


# At most this many papers' cards are drawn after an import (``cards_after_content``): a
# card takes 0.2 to 0.7 s to draw (PNG optimised, on the shared 2-core machine), so a
# conference's awarded papers take seconds, but a whole proceedings of 5,000 papers
# (make bench-import) would take hours; ``make_share_cards`` draws those.
IMPORT_CARDS_MAX = 200


def cards_after_content(sender, papers=(), **kwargs):
    """Receiver of ``content_changed`` (the importer's bulk writes, which send no model
    signals): once committed, draw the cards of ``papers`` (primary keys) as
    ``cards_after_change`` does, unless ``settings.SHARE_CARDS_ON_SAVE`` is false or
    there are more than ``IMPORT_CARDS_MAX`` (logged: ``make_share_cards`` draws them)."""
    papers = sorted(set(papers or ()))
    if not papers or not settings.SHARE_CARDS_ON_SAVE:
        return
    if len(papers) > IMPORT_CARDS_MAX:
        logger.warning(
            "%d papers changed: their share cards are left to manage.py make_share_cards.",
            len(papers),
        )
        return
    after_commit(partial(refresh_cards, papers), warning=CARDS_FAILED)


def cards_after_change(sender, instance, raw=False, **kwargs):
    """Receiver of a change to a paper, conference, award, award level, award entry,
    author or authorship: once committed, draw the cards it outdated (``refresh_cards``),
    a failure logged and never raised (``after_commit``); not for fixture loading
    (``raw``), nor when ``settings.SHARE_CARDS_ON_SAVE`` is false."""
    if raw or not settings.SHARE_CARDS_ON_SAVE:
        return
    if isinstance(instance, AwardEntry | Authorship):
        paper_ids = [instance.paper_id]
    elif isinstance(instance, Author):
        paper_ids = list(instance.authorships.values_list("paper_id", flat=True))
    elif isinstance(instance, Award | AwardLevel):
        paper_ids = list(instance.entries.values_list("paper_id", flat=True))
    elif isinstance(instance, Conference):
        # A card names the paper's conference and the conference of its award.
        paper_ids = list(
            Paper.objects.filter(
                Q(conference=instance) | Q(award_entries__award__conference=instance)
            )
            .values_list("pk", flat=True)
            .distinct()
        )
    else:
        paper_ids = [instance.pk]
    after_commit(partial(refresh_cards, paper_ids), warning=CARDS_FAILED)
