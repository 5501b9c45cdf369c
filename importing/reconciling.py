"""What a plan finds beyond the file's own objects: the rows of the file's papers and
awards it no longer lists (removed if an import brought them, else an editor's, kept), and
the awarded papers that will not be visible where their award is."""

from collections import defaultdict
from dataclasses import dataclass

from catalogue.models import (
    Authorship,
    Award,
    AwardEntry,
    Conference,
    ImportRecord,
    Paper,
    PaperLink,
    Status,
    natural_key_lookups,
)
from importing.fields import chunks, format_key

# The rows a compact file writes out in full for each paper and award it lists, with the
# field naming that owner: a re-import makes them what the file lists.
LISTED_WHOLE = ((Authorship, "paper"), (PaperLink, "paper"), (AwardEntry, "award"))


@dataclass(slots=True)
class Leftover:
    """A database row of a paper or award of the file that the file does not list.
    ``imported``: an import brought it (the import removes it), else an editor added it
    (kept). ``paper``: the primary key of the paper it belongs to (its history)."""

    model: type
    key: tuple
    pk: int
    paper: int
    imported: bool

    def __str__(self):
        return f"{self.model._meta.label_lower} {format_key(self.key)}"


def find_leftovers(changes):
    """[:class:`Leftover`] of the authorships, links and award entries in the database of
    the papers and awards in ``changes`` (planning's Change objects, those deleted since
    the last import left out) that ``changes`` do not name, each marked ``imported`` if an
    :class:`ImportRecord` has its key. One query per 500 owners, and per 500 leftovers."""
    owners, listed = defaultdict(set), defaultdict(set)
    whole = {model for model, _owner in LISTED_WHOLE}
    owning = {model._meta.get_field(owner).related_model for model, owner in LISTED_WHOLE}
    for change in changes:  # only the keys compared: at 50,000 papers, 450,000 changes
        model = change.item.model
        if model in whole:
            listed[model].add(change.item.key)
        elif model in owning and change.pk is not None:
            owners[model].add(change.pk)
    found = []
    for model, owner in LISTED_WHOLE:
        target = model._meta.get_field(owner).related_model
        columns = ["pk", "paper_id", *natural_key_lookups(model)]
        for chunk in chunks(sorted(owners[target])):
            rows = model.objects.filter(**{f"{owner}__in": chunk}).values_list(*columns)
            for pk, paper, *key in rows:
                if tuple(key) not in listed[model]:
                    found.append(Leftover(model, tuple(key), pk, paper, imported=False))
    by_key = {
        (leftover.model._meta.label_lower, format_key(leftover.key)): leftover for leftover in found
    }
    for label in {label for label, _ in by_key}:
        keys = [key for model, key in by_key if model == label]
        for chunk in chunks(keys):
            records = ImportRecord.objects.filter(model=label, key__in=chunk)
            for key in records.values_list("key", flat=True):
                by_key[label, key].imported = True
    return found


def remove_leftovers(leftovers):
    """Delete the ``imported`` ones of ``leftovers`` and their import records, by queryset
    (whose ``post_delete`` receivers keep matched text and published authors); return
    {Paper: primary keys of the papers they belonged to}, whose history changed."""
    papers = set()
    for model, _owner in LISTED_WHOLE:
        gone = [leftover for leftover in leftovers if leftover.imported and leftover.model is model]
        for chunk in chunks(gone):
            model.objects.filter(pk__in=[leftover.pk for leftover in chunk]).delete()
            ImportRecord.objects.filter(
                model=model._meta.label_lower, key__in=[format_key(row.key) for row in chunk]
            ).delete()
        papers.update(leftover.paper for leftover in gone)
    return {Paper: papers} if papers else {}


def invisible_awarded_papers(changes):
    """["award [...] is published but its paper [...] will not be: ..."]: the entries of
    ``changes`` whose award (and its conference) will be published and whose paper, or the
    paper's conference, will not, with the final values of ``changes`` (planning's Change
    objects, those deleted since the last import left out), else the database's.
    Reads the database for the awards, papers and conferences the file does not hold."""
    entries = [change.final for change in changes if change.item.model is AwardEntry]
    if not entries:
        return []
    wanted = {
        Award: {tuple(entry["award"]) for entry in entries},
        Paper: {tuple(entry["paper"]) for entry in entries},
    }
    status, conference_of = {}, {}  # (model, key) -> its final status; paper -> conference
    for change in changes:
        model, key = change.item.model, change.item.key
        if model not in (Award, Paper, Conference):
            continue
        if model is Conference or key in wanted[model]:
            status[model, key] = change.final["status"]
            if model is Paper:
                conference_of[key] = tuple(change.final["conference"])
    papers = [key for key in wanted[Paper] if (Paper, key) not in status]
    for chunk in chunks(papers):
        rows = Paper.objects.filter(slug__in=[key[0] for key in chunk])
        for slug, paper_status, conference in rows.values_list(
            "slug", "status", "conference__slug"
        ):
            status[Paper, (slug,)] = paper_status
            conference_of[slug,] = (conference,)
    for key in wanted[Award] - {key for model, key in status if model is Award}:
        award = Award.objects.filter(conference__slug=key[0], slug=key[1])
        status[Award, key] = award.values_list("status", flat=True).first()
    conferences = {key[:1] for key in wanted[Award]} | set(conference_of.values())
    missing = [key[0] for key in conferences if (Conference, key) not in status]
    for chunk in chunks(missing):
        for slug, conference_status in Conference.objects.filter(slug__in=chunk).values_list(
            "slug", "status"
        ):
            status[Conference, (slug,)] = conference_status

    def public(model, key):
        return status.get((model, key)) == Status.PUBLISHED

    found = []
    for entry in entries:
        award, paper = tuple(entry["award"]), tuple(entry["paper"])
        if not (public(Award, award) and public(Conference, award[:1])):
            continue  # the award is not shown either
        conference = conference_of.get(paper)
        if not public(Paper, paper):
            why = f"it is {status.get((Paper, paper))}"
        elif conference is not None and not public(Conference, conference):
            why = (
                f"its conference {format_key(conference)} is {status.get((Conference, conference))}"
            )
        else:
            continue
        found.append(
            f"award {format_key(award)} is published but its paper {format_key(paper)} "
            f"will not be: {why}"
        )
    return found
