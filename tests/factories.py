"""Small factories for tests: each makes one valid object, overridable by keyword."""

import datetime
import itertools

from papers.models import (
    Author,
    Authorship,
    Award,
    AwardEntry,
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
        authorship.affiliations.set(affiliations)
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


def award_entry(award, paper, level=AwardEntry.Level.WINNER, position=0):
    return AwardEntry.objects.create(award=award, paper=paper, level=level, position=position)
