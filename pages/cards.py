"""Share cards: the ``og:image`` of a paper without a teaser, drawn once with Pillow.

A card is a 1200 x 630 PNG with the site's name, the paper's title, its first published
award (and level) and its conference, in one language. Cards are drawn by
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
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _
from PIL import Image, ImageDraw, ImageFont

from catalogue.images import readable_image
from catalogue.languages import localized_value
from catalogue.models import Award, AwardEntry, AwardLevel, Conference, Paper
from catalogue.signals import after_commit, content_changed

WIDTH, HEIGHT = 1200, 630
MARGIN = 72
DIRECTORY = "cards"
# Raised when the drawing changes, so that every card is drawn again.
DESIGN_VERSION = "1"
BACKGROUND, INK, MUTED, GOLD = "#0b2a4a", "#ffffff", "#c9d6e8", "#f2c14e"
TITLE_SIZE, TITLE_LINES = 60, 4
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
    ``language``: a dict of ``site``, ``title``, ``award`` ("" without one) and
    ``conference``, each one line (a line break stored before titles and names had to be
    one line, or any run of white space, is one space)."""
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
    return {key: " ".join(value.split()) for key, value in text.items()}


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
    """A card's description (``og:image:alt``): the ``text`` it shows, in reading order."""
    return " · ".join(part for part in (text["title"], text["award"], text["conference"]) if part)


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


def _wrap(draw, text, font, width, max_lines):
    """``text`` in at most ``max_lines`` lines of at most ``width`` pixels, broken between
    words (or characters, in a word too wide, as Chinese is), the last cut with "…"."""
    lines, line = [], ""
    for word in re.findall(r"\S+\s*", text):
        candidate = line + word
        if draw.textlength(candidate.rstrip(), font=font) <= width:
            line = candidate
            continue
        if line:
            lines.append(line.rstrip())
            line = ""
        for character in word:
            if draw.textlength((line + character).rstrip(), font=font) > width and line:
                lines.append(line.rstrip())
                line = ""
            line += character
    if line.strip():
        lines.append(line.rstrip())
    if len(lines) > max_lines:
        last = lines[max_lines - 1]
        while last and draw.textlength(last + "…", font=font) > width:
            last = last[:-1]
        lines = [*lines[: max_lines - 1], last.rstrip() + "…"]
    return lines


def _one_line(draw, position, text, size, width, fill):
    """``text`` in a font of ``size``, cut to one line of ``width`` pixels, at ``position``."""
    font = _font(size)
    draw.text(position, (_wrap(draw, text, font, width, 1) or [""])[0], font=font, fill=fill)


def draw_card(text):
    """The PNG bytes of a card showing ``text`` (a ``card_text`` dict)."""
    image = Image.new("RGB", (WIDTH, HEIGHT), BACKGROUND)
    draw = ImageDraw.Draw(image)
    inner = WIDTH - 2 * MARGIN
    draw.rectangle((0, 0, WIDTH, 12), fill=GOLD)
    draw.text((MARGIN, MARGIN - 8), text["site"], font=_font(34), fill=MUTED)
    title_font = _font(TITLE_SIZE)
    y = MARGIN + 70
    for line in _wrap(draw, text["title"], title_font, inner, TITLE_LINES):
        draw.text((MARGIN, y), line, font=title_font, fill=INK)
        y += int(TITLE_SIZE * 1.25)
    bottom = HEIGHT - MARGIN
    _one_line(draw, (MARGIN, bottom - 34), text["conference"], 34, inner, MUTED)
    if text["award"]:
        top = bottom - 34 - 64
        draw.ellipse((MARGIN, top + 12, MARGIN + 24, top + 36), fill=GOLD)
        _one_line(draw, (MARGIN + 40, top), text["award"], 40, inner - 40, GOLD)
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
    """Receiver of a change to a paper, conference, award, award level or award entry:
    once committed, draw the cards it outdated (``refresh_cards``), a failure logged
    and never raised (``after_commit``); not for fixture loading (``raw``), nor when
    ``settings.SHARE_CARDS_ON_SAVE`` is false."""
    if raw or not settings.SHARE_CARDS_ON_SAVE:
        return
    if isinstance(instance, AwardEntry):
        paper_ids = [instance.paper_id]
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
