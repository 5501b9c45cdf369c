"""Small factories for tests: each makes one valid object, overridable by keyword."""

import datetime
import itertools

from django.db.models import Max

from catalogue import matching
from catalogue.models import (
    Affiliation,
    Author,
    Authorship,
    Award,
    AwardEntry,
    AwardLevel,
    Conference,
    Institution,
    Paper,
    PaperLink,
    Status,
    Venue,
)

_sequence = itertools.count(1)


def venue(**fields):
    n = next(_sequence)
    values = {"slug": f"venue-{n}", "acronym": f"V{n}", "name_en": f"Venue {n}"}
    return Venue.objects.create(**{**values, **fields})


def conference(**fields):
    n = next(_sequence)
    values = {
        "venue": fields.pop("venue", None) or venue(),
        "slug": f"conf-{n}",
        "year": 2000 + n,
        "name_en": f"Conference {n}",
        "name_zh_hans": f"会议 {n}",
        "city_en": "Vancouver",
        "city_zh_hans": "温哥华",
        "country_en": "Canada",
        "country_zh_hans": "加拿大",
        "status": Status.PUBLISHED,
        "start_date": datetime.date(2025, 7, 13),
        "end_date": datetime.date(2025, 7, 19),
    }
    return Conference.objects.create(**{**values, **fields})


def institution(**fields):
    n = next(_sequence)
    values = {"slug": f"inst-{n}", "name_en": f"University {n}", "name_zh_hans": f"大学 {n}"}
    return Institution.objects.create(**{**values, **fields})


def author(**fields):
    n = next(_sequence)
    values = {"slug": f"author-{n}", "name": f"Author Number{n}"}
    return Author.objects.create(**{**values, **fields})


def paper(authors=(), affiliations=(), links=(), **fields):
    """A paper with ``authors`` in order, each with ``affiliations`` and typed ``links``."""
    n = next(_sequence)
    values = {
        "slug": f"paper-{n}",
        "title_en": f"Paper title {n}",
        "title_zh_hans": f"论文标题 {n}",
        "abstract_en": f"English abstract {n}.",
        "abstract_zh_hans": f"中文摘要 {n}。",
        "status": Status.PUBLISHED,
    }
    values.update(fields)
    if "conference" not in values:
        values["conference"] = conference()
    obj = Paper.objects.create(**values)
    for position, person in enumerate(authors, start=1):
        authorship = Authorship.objects.create(paper=obj, author=person, position=position)
        Affiliation.objects.bulk_create(
            Affiliation(authorship=authorship, institution=institution, position=order)
            for order, institution in enumerate(affiliations, start=1)
        )
    if authors and affiliations:  # bulk_create sends no signal
        matching.refresh_match_texts([obj.pk])
    for kind, url in links:
        PaperLink.objects.create(paper=obj, kind=kind, url=url)
    return obj


def award(**fields):
    n = next(_sequence)
    values = {
        "slug": f"award-{n}",
        "name_en": f"Award {n}",
        "name_zh_hans": f"奖项 {n}",
        "description_en": "An award.",
        "description_zh_hans": "一个奖项。",
        "status": Status.PUBLISHED,
    }
    values.update(fields)
    if "conference" not in values:
        values["conference"] = conference()
    return Award.objects.create(**values)


# Labels of the usual levels: (position, singular, plural) in English, then Chinese.
LEVELS = {
    "winner": (1, "Winner", "Winners", "获奖论文", "获奖论文"),
    "runner-up": (2, "Runner-up", "Runners-up", "亚军论文", "亚军论文"),
    "honourable-mention": (3, "Honourable mention", "Honourable mentions", "荣誉提名", "荣誉提名"),
    "finalist": (4, "Finalist", "Finalists", "入围论文", "入围论文"),
}


def award_level(award, slug="winner", **fields):
    """The award's level ``slug``, made with the labels of LEVELS when it is new; a slug
    LEVELS does not know goes below the award's levels (positions are unique in an award)."""
    below = (award.levels.aggregate(last=Max("position"))["last"] or 8) + 1
    position, name, plural, name_zh, plural_zh = LEVELS.get(slug, (below, slug, slug, "", ""))
    values = {
        "position": position,
        "name_en": name,
        "name_plural_en": plural,
        "name_zh_hans": name_zh,
        "name_plural_zh_hans": plural_zh,
    }
    level, _created = AwardLevel.objects.get_or_create(
        award=award, slug=slug, defaults={**values, **fields}
    )
    return level


def award_entry(award, paper, level="winner", position=0):
    """``paper`` in ``award`` at ``level`` (a slug: the award's level is made if new)."""
    if isinstance(level, str):
        level = award_level(award, level)
    return AwardEntry.objects.create(award=award, paper=paper, level=level, position=position)
