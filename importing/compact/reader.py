"""Reading a compact conference file: a parsed document -> fixture objects."""

import json
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path, PurePosixPath

from django.db.models import Q

from catalogue.models import (
    Authorship,
    Award,
    AwardEntry,
    AwardKind,
    AwardLevel,
    Conference,
    Institution,
    Paper,
    PaperLink,
    Status,
    Venue,
)
from catalogue.orcid import is_orcid
from importing import bibtex, harvest
from importing.compact.kinds import KindsMixin
from importing.compact.people import NAME, PeopleMixin
from importing.fields import (
    DEFAULT_SUFFIX,
    FixtureInvalid,
    Problem,
    derived_slug,
    field_specs,
    type_name,
)
from importing.files import MAX_FILE_SIZE, InputRefused, read_input
from importing.parsing import where_written

# The keys a compact document may have at its top; any mapping at the top of a file is
# read as a compact document (a fixture is a list).
TOP_KEYS = ("conference", "other_conferences", "bibtex", "proceedings", "institutions")
TOP_KEYS += ("kinds", "awards", "papers")


@dataclass
class CompactDocument:
    """A compact file turned into fixture ``objects``; ``places[i]`` names where object
    ``i + 1`` came from (``""``: the object, a field name: its value); ``notes`` are
    lines for the person importing (possible duplicates); ``data``: the file as parsed,
    whose places give a problem's line (:func:`~importing.parsing.where_written`)."""

    path: Path
    objects: list = field(default_factory=list)
    places: list = field(default_factory=list)
    notes: list = field(default_factory=list)
    data: dict = field(default_factory=dict)


def objects_from(data, path, max_bytes=MAX_FILE_SIZE, accept_new=False):
    """The fixture object list of a parsed file and its :class:`CompactDocument` (None
    for a fixture, returned as it is). Raises :class:`FixtureInvalid` naming places when a
    compact document's structure is wrong; its .bib file may have up to ``max_bytes``.
    ``accept_new``: a new person or institution close to one in the database is new, with a
    note, not a problem (``import_conference --accept-new``)."""
    if not isinstance(data, dict):
        return data, None
    document = _Translator(Path(path), max_bytes, accept_new).translate(data)
    return document.objects, document


def relocate(document, problems):
    """``problems`` with those naming a fixture object renamed by their compact place,
    and its line (a value taken from BibTeX: its paper's)."""
    if document is None:
        return list(problems)
    located = []
    for problem in problems:
        if problem.place or problem.index is None:
            located.append(problem)
            continue
        places = document.places[problem.index - 1]
        place = places.get(problem.field) if problem.field else places[""]
        if place is None:
            place = f"{places['']}.{compact_name(problem.field)}"
        inside = place == places[""] or place.startswith((places[""] + ".", places[""] + "["))
        at = where_written(document.data, place if inside else places[""])
        located.append(Problem(problem.file, problem.message, place=place, at=at))
    return located


def compact_name(name):
    """A fixture field's name in the compact file: ``title_en`` -> ``title``."""
    return name.removesuffix("_" + DEFAULT_SUFFIX)


# The field a slug is made from where a compact file leaves it out (a person's: people.py).
SLUG_SOURCES = {
    Venue: "acronym",
    Conference: NAME,
    Paper: "title_" + DEFAULT_SUFFIX,
    Award: NAME,
    AwardLevel: NAME,
    Institution: NAME,
    AwardKind: NAME,
}


@cache
def plain_fields(model):
    """compact name -> fixture field for ``model``'s own values (no references), in export order."""
    return {
        compact_name(name) if spec.translated else name: name
        for name, spec in field_specs(model).items()
        if spec.kind not in ("reference", "references")
    }


class _Translator(KindsMixin, PeopleMixin):
    """One compact document on its way to fixture objects (see :func:`objects_from`)."""

    def __init__(self, path, max_bytes=MAX_FILE_SIZE, accept_new=False):
        self.path, self.max_bytes, self.accept_new = path, max_bytes, accept_new
        self.document = CompactDocument(path)
        self.problems = []
        self.institutions = {}  # slug -> fixture fields (None: in the database only)
        self.institution_names = {}  # exact name -> slug, in this file
        self.people = {}  # slug -> {"fields": ..., "places": ..., "place": first place}
        self.people_by_name = {}  # exact name -> {slugs}, in this file
        self.people_by_orcid = {}
        self.paper_refs = {}  # citation key or slug -> paper slug
        self.paper_keys = {}  # conference slug -> {key: slug} of its papers in the database
        # Papers reported (or all: the BibTeX file failed); an award adds no problem.
        self.failed_refs = set()
        self.papers_failed = False
        self.reserved = {}  # exact name -> {slugs} the file writes for authors
        self.reserved_slugs = set()  # all those slugs
        self.orcid_of_name = {}  # exact name -> the ORCID the file gives it somewhere
        self.bib_name = "the BibTeX file"
        self.harvested = None  # the entries matched in the proceedings (harvest.py)

    def problem(self, place, message):
        at = where_written(self.document.data, place)
        self.problems.append(Problem(self.path, message, place=place, at=at))

    def note(self, place, message):
        at = where_written(self.document.data, place)
        self.document.notes.append(str(Problem(self.path, message, place=place, at=at)))

    def emit(self, model, fields, place, places=None):
        self.document.objects.append({"model": model._meta.label_lower, "fields": fields})
        self.document.places.append({"": place, **(places or {})})

    def mapping(self, value, place):
        if isinstance(value, dict):
            return value
        self.problem(place, f"expected a mapping (name: value, ...), got {type_name(value)}")
        return None

    def sequence(self, value, place):
        if isinstance(value, list):
            return value
        self.problem(place, f"expected a list, got {type_name(value)}")
        return []

    def each(self, mapping, key, within=""):
        """(number from 1, item, its place) for each item of the list ``mapping[key]``."""
        place = f"{within}.{key}" if within else key
        for number, item in enumerate(self.sequence(mapping.get(key, []), place), start=1):
            yield number, item, f"{place}[{number}]"

    def plain(self, model, mapping, place, structural=()):
        """The fixture fields of ``model`` that ``mapping`` writes, and their places."""
        names = plain_fields(model)
        fields, places = {}, {}
        for key, value in mapping.items():
            if key in structural:
                continue
            name = names.get(key) if isinstance(key, str) else None
            if name is None:
                allowed = ", ".join([*(n for n in names if n not in structural), *structural])
                self.problem(f"{place}.{key}", f"unknown key; the keys here are {allowed}")
                continue
            fields[name] = value
            places[name] = f"{place}.{key}"
        return fields, places

    def slug(self, model, fields, place):
        """(slug, whether written): the slug ``fields`` write, else one derived from their
        ``SLUG_SOURCES`` field (else the model's name, with a problem)."""
        written = fields.get("slug")
        if written not in (None, ""):
            return written, True
        text = fields.get(SLUG_SOURCES[model])
        derived = derived_slug(model, text)
        source = compact_name(SLUG_SOURCES[model])
        if text is None:
            article = "an" if source[0] in "aeiou" else "a"
            self.problem(
                f"{place}.{source}",
                f"missing: write {article} {source} (the slug is made from it)",
            )
            return model._meta.model_name, False
        if not derived:
            self.problem(
                place,
                f"no slug, and none can be made from its {compact_name(SLUG_SOURCES[model])} "
                f"({json.dumps(text, ensure_ascii=False)}): write a slug",
            )
            return model._meta.model_name, False
        return derived, False

    def translate(self, data):
        self.document.data = data
        for key in data:
            if key not in TOP_KEYS:
                self.problem(
                    str(key), f"unknown key at the top; the keys are {', '.join(TOP_KEYS)}"
                )
        if data.get("proceedings") is not None:  # awards by title: the harvest route
            data, self.harvested = harvest.harvest(data, self.path, self.max_bytes)
            self.bib_name = data["proceedings"]
        main = data.get("conference")
        # Papers, awards and other conferences (publishes_with_the_conference) take the
        # conference's status unless they write their own.
        self.status = main.get("status") if isinstance(main, dict) else None
        conference = self.conference(main, "conference", main=True)
        for _, value, place in self.each(data, "other_conferences"):
            self.conference(value, place)
        for _, value, place in self.each(data, "institutions"):
            self.institution(value, place)
        self.read_kinds(data)
        papers = self.papers(data, conference)
        awards = {}
        for number, value, place in self.each(data, "awards"):
            if conference is not None:  # else reported once, at the top
                self.award(value, place, number, conference, awards)
        self.emit_people()
        for paper in papers:
            self.emit_paper(*paper)
        if self.problems:
            raise FixtureInvalid(self.problems)
        return self.document

    def conference(self, value, place, main=False):
        """Emit a conference (and its venue, when written out); return its slug."""
        if value is None and main:
            self.problem(place, "missing: every compact file names its conference")
            return None
        mapping = self.mapping(value, place)
        if mapping is None:
            return None
        fields, places = self.plain(Conference, mapping, place, structural=("venue",))
        venue = mapping.get("venue")
        if isinstance(venue, dict):
            venue_fields, venue_places = self.plain(Venue, venue, f"{place}.venue")
            venue_slug = self.slug(Venue, venue_fields, f"{place}.venue")[0]
            venue_fields["slug"] = venue_slug
            self.emit(Venue, venue_fields, f"{place}.venue", venue_places)
        elif isinstance(venue, str) and venue:
            venue_slug = venue  # a venue written earlier in the file, or in the database
        else:
            self.problem(
                f"{place}.venue",
                "missing: write the venue as a mapping (acronym, name, ...) or its slug",
            )
            venue_slug = "venue"
        slug = self.slug(Conference, fields, place)[0]
        if not main and "status" not in fields and self.status in Status.values:
            if self.publishes_with_the_conference(slug):
                fields["status"] = self.status
        self.emit(
            Conference,
            {"venue": [venue_slug], **fields, "slug": slug},
            place,
            {**places, "venue": f"{place}.venue"},
        )
        return slug

    def publishes_with_the_conference(self, slug):
        """Whether the other conference ``slug`` takes this file's conference's status: it
        is new, or in the database only as where papers were published (no award of its
        own) and not yet published. One that is published, or gives awards, is left as
        it is (a test-of-time award never unpublishes an edition, nor publishes one whose
        own file is being prepared)."""
        conference = Conference.objects.filter(slug=slug)
        return not conference.filter(Q(status=Status.PUBLISHED) | Q(awards__isnull=False)).exists()

    def papers(self, data, conference):
        """Read every paper (from the file and its BibTeX); return what emit_paper needs."""
        entries = self.harvested or self.bibtex(data.get("bibtex"))
        if data.get("bibtex") is not None and entries is None:
            self.papers_failed = True
            return []  # its problems are reported; its papers would only add echoes
        listed = data.get("papers")
        if listed is None and entries is not None:
            listed = [{"key": key} for key in entries]
        listed = self.sequence(listed if listed is not None else [], "papers")
        papers, slugs = [], {}
        for item in listed:
            self.reserve(item)
        for number, item in enumerate(listed, start=1):
            paper = self.paper(item, f"papers[{number}]", entries, conference, slugs)
            if paper is not None:
                papers.append(paper)
            elif isinstance(item, dict) and isinstance(item.get("key"), str):
                self.failed_refs.add(item["key"])
        return papers

    def paper(self, item, place, entries, conference, slugs):
        """Read one paper of the list; return what emit_paper needs, or None."""
        mapping = self.mapping(item, place)
        if mapping is None:
            return None
        mapping, source = self.merge_bibtex(mapping, entries, place)
        if mapping is None:
            return None
        fields, places = self.plain(
            Paper, mapping, place, structural=("key", "conference", "authors", "links")
        )
        if source:
            places = {
                name: places.get(name) or f"{source}, {compact_name(name)}" for name in fields
            }
        paper_conference = mapping.get("conference", conference)
        if paper_conference is None and "conference" not in mapping:
            return None  # the file names no conference: reported once, at the top
        if not isinstance(paper_conference, str) or not paper_conference:
            self.problem(f"{place}.conference", "expected the slug of a conference")
            return None
        key = mapping.get("key")
        known = self.paper_of_key(key, paper_conference, fields.get("slug"), place)
        if known is False:
            return None
        if known:
            fields["slug"] = known  # found by its key: a corrected title keeps the slug
        slug, written = self.slug(Paper, fields, place)
        if not written:
            other = (
                Paper.objects.filter(slug=slug)
                .exclude(conference__slug=paper_conference)
                .values_list("conference__slug", flat=True)
                .first()
            )
            if other is not None:
                self.problem(
                    place,
                    f"the slug made from the title, {slug}, belongs to a paper of {other}: "
                    "write this paper's own slug",
                )
                return None
        if slug in slugs:
            self.problem(place, f"the paper {slug} is already listed at {slugs[slug]}")
            return None
        slugs[slug] = place
        fields["slug"] = slug
        if self.status is not None:
            fields.setdefault("status", self.status)
        if isinstance(key, str) and key:
            fields["key"] = key
            places["key"] = f"{place}.key"
        for ref in (slug, key):
            if isinstance(ref, str) and ref:
                if self.paper_refs.get(ref, slug) != slug:
                    self.problem(f"{place}.key", f"the key {ref} names two papers")
                self.paper_refs[ref] = slug
        fields["conference"] = [paper_conference]
        places["conference"] = f"{place}.conference"
        authors, listed = [], set()
        for _, author, author_place in self.each(mapping, "authors", place):
            found = self.person(author, author_place)
            if found is None:
                continue
            if found[0] in listed:
                self.problem(
                    author_place, f"the same person ({found[0]}) is listed twice on this paper"
                )
                continue
            authors.append((*found, author_place))
            listed.add(found[0])
        links = self.mapping(mapping.get("links", {}), f"{place}.links") or {}
        return fields, places, place, authors, links

    def paper_of_key(self, key, conference, written, place):
        """The slug of the database's paper of ``conference`` whose key is ``key`` ("" for
        none), or False, with a problem, when the file writes that paper another slug."""
        if not isinstance(key, str) or not key:
            return ""
        if conference not in self.paper_keys:  # one query per conference, not per paper
            papers = Paper.objects.filter(conference__slug=conference).exclude(key="")
            self.paper_keys[conference] = dict(papers.values_list("key", "slug"))
        slug = self.paper_keys[conference].get(key, "")
        if slug and written not in (None, "", slug):
            self.problem(
                f"{place}.slug",
                f"the key {key} is that of the paper {slug} of {conference}: write its slug "
                f"{slug} (or leave slug out); another paper needs another key",
            )
            return False
        return slug

    def reserve(self, item):
        """Note the slugs and ORCIDs the file writes for people before reading any: a
        person detailed at a later paper is still one, and no other gets their slug."""
        if not isinstance(item, dict) or not isinstance(item.get("authors"), list):
            return
        for author in item["authors"]:
            if not isinstance(author, dict) or not isinstance(author.get("name"), str):
                continue
            if isinstance(author.get("slug"), str) and author["slug"]:
                self.reserved.setdefault(author["name"], set()).add(author["slug"])
                self.reserved_slugs.add(author["slug"])
            elif is_orcid(author.get("orcid")):
                self.orcid_of_name.setdefault(author["name"], author["orcid"])

    def emit_paper(self, fields, places, place, authors, links):
        slug = fields["slug"]
        self.emit(Paper, fields, place, places)
        for position, (author, affiliations, author_place) in enumerate(authors, start=1):
            self.emit(
                Authorship,
                {
                    "paper": [slug],
                    "author": [author],
                    "position": position,
                    "affiliations": [[institution] for institution in affiliations],
                },
                author_place,
                {"affiliations": f"{author_place}.affiliations"},
            )
        for kind, url in links.items():
            link_place = f"{place}.links.{kind}"
            self.emit(
                PaperLink,
                {"paper": [slug], "kind": kind, "url": url},
                link_place,
                {"kind": link_place, "url": link_place},
            )

    def bibtex(self, value):
        """The entries of the BibTeX file ``bibtex`` names (key -> entry), or None."""
        if value is None:
            return None
        if not isinstance(value, str) or not value:
            self.problem("bibtex", "expected the path of a .bib file next to this file")
            return None
        folder = self.path.parent.resolve()
        bib = (folder / value).resolve()
        if PurePosixPath(value).is_absolute() or not bib.is_relative_to(folder):
            self.problem(
                "bibtex", f"{value!r} must be a path relative to this file, inside its folder"
            )
            return None
        try:
            text = read_input(bib, self.max_bytes).decode("utf-8-sig")
        except InputRefused as error:
            self.problem("bibtex", f"{value}: {error}")
            return None
        except UnicodeDecodeError as error:
            self.problem("bibtex", f"cannot read {value}: {error}")
            return None
        try:
            parsed = bibtex.parse_bibtex(text, source=str(self.path.parent / value))
        except FixtureInvalid as error:
            self.problems.extend(error.problems)
            return None
        self.bib_name = value
        entries = {}
        for entry in parsed:
            entries.setdefault(entry["key"], entry)
        return entries

    def merge_bibtex(self, mapping, entries, place):
        """(merged mapping, place of BibTeX's values) for a paper named by citation ``key``:
        the file's values replace the entry's, its ``links`` are added kind by kind, its
        ``authors`` matched in order (one without a ``name`` keeps BibTeX's)."""
        key = mapping.get("key")
        if entries is None or key is None:
            return mapping, None
        entry = entries.get(key)
        if entry is None:
            self.problem(f"{place}.key", f"no entry with the key {key!r} in {self.bib_name}")
            return None, None
        merged = {
            "title": entry["title"],
            "authors": [dict(author) for author in entry["authors"]],
        }
        if entry.get("pages"):
            merged["pages"] = entry["pages"]
        merged.update({k: v for k, v in mapping.items() if k not in ("authors", "links")})
        merged["links"] = {**entry.get("links", {}), **(mapping.get("links") or {})}
        given = mapping.get("authors")
        if given is not None:
            given = self.sequence(given, f"{place}.authors")
            if len(given) != len(merged["authors"]):
                self.problem(
                    f"{place}.authors",
                    f"{len(given)} authors here, {len(merged['authors'])} in {self.bib_name} "
                    f"for {key}: list them all, in the same order (leave out a name to keep "
                    "BibTeX's)",
                )
                return None, None
            for author, extra in zip(merged["authors"], given, strict=True):
                if isinstance(extra, str):
                    extra = {"name": extra}
                if isinstance(extra, dict):
                    author.update(self.known_person(extra) or {})
                    author.update(extra)
        return merged, f"{self.bib_name} @{key}"

    def award(self, value, place, number, conference, awards):
        """Emit an award, its levels and entries; ``awards``: slug -> place, so far."""
        mapping = self.mapping(value, place)
        if mapping is None:
            return
        fields, places = self.plain(Award, mapping, place, structural=("kind", "levels", "entries"))
        slug = self.slug(Award, fields, place)[0]
        if (kind := self.award_kind(mapping, place, slug)) is not None:
            fields["kind"], places["kind"] = kind, f"{place}.kind"
        if slug in awards:
            self.problem(place, f"the award {slug} is already listed at {awards[slug]}")
            return
        awards[slug] = place
        fields.setdefault("position", number)
        if self.status is not None:
            fields.setdefault("status", self.status)
        self.emit(Award, {"conference": [conference], **fields, "slug": slug}, place, places)
        levels, levels_failed = {}, False
        for position, level, level_place in self.each(mapping, "levels", place):
            level_mapping = self.mapping(level, level_place)
            if level_mapping is None:
                levels_failed = True
                continue
            level_fields, level_places = self.plain(AwardLevel, level_mapping, level_place)
            level_slug = self.slug(AwardLevel, level_fields, level_place)[0]
            if level_slug in levels:
                self.problem(level_place, f"the level {level_slug} is listed twice")
                continue
            levels[level_slug] = level_place
            level_fields.setdefault("position", position)
            self.emit(
                AwardLevel,
                {"award": [conference, slug], **level_fields, "slug": level_slug},
                level_place,
                level_places,
            )
        if "levels" not in mapping:
            levels = dict.fromkeys(
                AwardLevel.objects.filter(
                    award__conference__slug=conference, award__slug=slug
                ).values_list("slug", flat=True)
            )
        entries = self.mapping(mapping.get("entries", {}), f"{place}.entries") or {}
        awarded = {}
        for level in entries:
            level_place = f"{place}.entries.{level}"
            if level not in levels and levels_failed:
                continue  # perhaps the level that failed: reported there
            if level not in levels:
                known = ", ".join(levels) or "none (write the award's levels)"
                self.problem(level_place, f"unknown level; this award's levels are {known}")
                continue
            for position, ref, ref_place in self.each(entries, level, f"{place}.entries"):
                paper = self.paper_ref(ref, ref_place)
                if paper is None:
                    continue
                if paper in awarded:
                    self.problem(ref_place, f"the paper {paper} is already at {awarded[paper]}")
                    continue
                awarded[paper] = ref_place
                self.emit(
                    AwardEntry,
                    {
                        "award": [conference, slug],
                        "paper": [paper],
                        "level": [conference, slug, level],
                        "position": position,
                    },
                    ref_place,
                    {"level": level_place},
                )

    def paper_ref(self, ref, place):
        """The slug of the paper an award names by citation key or slug, in this file or
        the database (an earlier edition's, for a test of time)."""
        if not isinstance(ref, str) or not ref:
            self.problem(place, f"expected a paper's citation key or slug, got {type_name(ref)}")
            return None
        if ref in self.paper_refs:
            return self.paper_refs[ref]
        if self.papers_failed or ref in self.failed_refs:
            return None  # the paper's own problem is reported
        if Paper.objects.filter(slug=ref).exists():
            return ref
        self.problem(
            place, f"no paper has the key or slug {ref!r}, in this file or in the database"
        )
        return None
