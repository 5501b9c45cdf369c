"""People and institutions of a compact file, matched to the database and to each other
by ORCID, then slug, then exact name (``docs/compact-format.md``). A new one whose name is
close to one in the database (:meth:`_Index.close`) is a "did you mean" problem until the
file names the one meant (its slug) or says ``new: true``, or ``--accept-new`` is given;
close to another of the file, it is new, with a note."""

import json
import re
from collections import defaultdict
from functools import cached_property

from rapidfuzz import process
from rapidfuzz.distance import OSA

from catalogue.models import Author, Institution
from catalogue.orcid import is_orcid
from catalogue.search import fold
from importing.fields import DEFAULT_SUFFIX, derived_slug, type_name

SLUG = re.compile(r"[-a-z0-9_]+")
# An institution's name in the default language: what a compact file names it by.
NAME = "name_" + DEFAULT_SUFFIX
# A name is close to another at most one edit away (a letter added, left out or changed,
# or two neighbours swapped) per this many characters of it: "Ada Exampel" (11) is close
# to "Ada Example", "Bo Lu" (5) not to "Bo Li", whose family names differ.
EDIT_LETTERS = 8
ACCEPT_NEW = "(import_conference --accept-new takes every such name as new)"
# What a "did you mean" asks a person to write: the one meant, or several (a slug to
# format), and how to say the name is new.
PERSON = ("slug: {} (or the same ORCID)", "the slug (or ORCID) of the one you mean", "new: true")
LISTED = ("slug: {}", "the slug of the one you mean", "new: true")


class PeopleMixin:
    """The translator's institutions and people (see ``reader._Translator``)."""

    def institution(self, value, place):
        mapping = self.mapping(value, place)
        if mapping is None:
            return
        fields, places = self.plain(Institution, mapping, place, structural=("new",))
        name = fields.get(NAME)
        new = self.said_new(mapping, place)
        slug = fields.get("slug") or self.institution_in_database(name, place, new, LISTED)
        if slug in self.institutions and self.institutions[slug] is not None:
            self.problem(place, f"the institution {slug} is listed twice")
            return
        fields["slug"] = slug
        self.institutions[slug] = fields
        if isinstance(name, str):
            self.name_institution(name, slug, place)
        self.emit(Institution, fields, place, places)

    def said_new(self, mapping, place):
        """Whether ``mapping`` says it is new (``new: true``): a problem unless true or false."""
        new = mapping.get("new", False)
        if not isinstance(new, bool):
            self.problem(f"{place}.new", f"expected true or false, got {type_name(new)}")
        return new is True

    def name_institution(self, name, slug, place):
        """Note that ``name`` stands for the institution ``slug`` in this file (if not yet)."""
        if name not in self.institution_names:
            self.institution_names[name] = slug
            self.file_institutions.add(_Known(Institution, slug, name, where=f"at {place}"))

    def institution_in_database(self, name, place, new=False, asks=None):
        """The slug of the institution named exactly ``name``, or a new, free one (see
        :meth:`did_you_mean`; ``asks``: what it asks to write, an affiliation's by default)."""
        if not isinstance(name, str) or not name:
            self.problem(place, "write the institution's name (or its slug)")
            return "institution"
        exact = list(Institution.objects.filter(**{NAME: name}).values_list("slug", flat=True))
        if len(exact) > 1:
            self.problem(
                place,
                f"{len(exact)} institutions are named {name!r} ({', '.join(sorted(exact))}): "
                "write the slug of the one you mean",
            )
        if exact:
            return exact[0]
        derived = derived_slug(Institution, name) or "institution"
        slug = _free(Institution, derived, self.institutions)
        asks = asks or (
            "{} here",
            "the slug of the one you mean here",
            f"list {name!r} under institutions with new: true",
        )
        self.did_you_mean(Institution, name, derived, slug, place, new, asks)
        return slug

    @staticmethod
    def known_person(extra):
        """The name fields of the person in the database that an author mapping without a
        ``name`` names by ``slug`` or ``orcid`` (answering a "did you mean"), else None:
        that person keeps the name the site has, not the BibTeX file's spelling."""
        if "name" in extra or not (extra.get("slug") or extra.get("orcid")):
            return None
        key = {"slug": extra["slug"]} if extra.get("slug") else {"orcid": extra["orcid"]}
        fields = ("name", "given_name", "family_name")
        return Author.objects.filter(**key).values(*fields).first()

    def did_you_mean(self, model, name, derived, slug, place, new, asks):
        """Check a new ``model`` object (a person or institution) named ``name``, to get
        ``slug`` (its ``derived`` slug, or one free) at ``place``: when its name is close to
        one in the database, a problem asking which is meant (``asks``: what to write for
        one, for several, to say it is new), unless the file says ``new`` or the import
        accepts new ones (then a note); close to one earlier in this file, a note."""
        if new:
            return
        noun, kind = ("person", "author") if model is Author else ("institution", "institution")
        known = self.database_people if model is Author else self.database_institutions
        close = known.close(name, derived)
        if close and not self.accept_new:
            one, several, say_new = asks
            listed = " and ".join(f"{other.slug} {other.name!r} ({other.where})" for other in close)
            mean = f"that {noun}? Write {one.format(close[0].slug)}"
            if len(close) > 1:
                mean = f"one of them? Write {several}"
            self.problem(
                place,
                f"{name!r} is new, but close to {listed}: did you mean {mean} if so, or "
                f"{say_new} if not {ACCEPT_NEW}",
            )
            return
        in_file = self.file_people if model is Author else self.file_institutions
        for other in close + in_file.close(name, derived):
            self.note(
                place,
                f"{name!r} may be the same {noun} as {other.name!r} ({other.slug}, "
                f"{other.where}); imported as a new {kind} {slug}. To make them one, write "
                f"{asks[0].format(other.slug)}",
            )

    def affiliation(self, value, place):
        """The slug of the institution an affiliation names (by slug or exact name)."""
        if not isinstance(value, str) or not value:
            self.problem(place, f"expected an institution's name or slug, got {type_name(value)}")
            return None
        if value in self.institutions:
            return value
        if value in self.institution_names:
            return self.institution_names[value]
        if SLUG.fullmatch(value) and Institution.objects.filter(slug=value).exists():
            self.institutions[value] = None
            return value
        slug = self.institution_in_database(value, place)
        self.name_institution(value, slug, place)
        if slug not in self.institutions:
            exists = Institution.objects.filter(slug=slug).exists()
            self.institutions[slug] = None if exists else {"slug": slug, NAME: value}
            if not exists:
                self.emit(Institution, self.institutions[slug], place, {NAME: place})
        return slug

    @cached_property
    def file_institutions(self):
        """The institutions this file names so far (``name_institution``), to compare loosely."""
        return _Index()

    @cached_property
    def file_people(self):
        """The people of this file so far, to compare loosely."""
        return _Index()

    @cached_property
    def database_institutions(self):
        """Every institution in the database, in a :class:`_Index`, read once."""
        rows = Institution.objects.values_list("slug", NAME)
        return _Index(_Known(Institution, *row) for row in rows)

    @cached_property
    def database_people(self):
        """Every author in the database (:class:`_Known`, with its ORCID) in a
        :class:`_Index`, read once."""
        rows = Author.objects.values_list("slug", "name", "orcid", "other_names")
        return _Index(_Known(Author, *row) for row in rows)

    def person(self, item, place):
        """Record one author of a paper; return (slug, affiliations) or None."""
        if isinstance(item, str):
            item = {"name": item}
        mapping = self.mapping(item, place)
        if mapping is None:
            return None
        fields, places = self.plain(Author, mapping, place, structural=("affiliations", "new"))
        name = fields.get("name")
        if not isinstance(name, str) or not name.strip():
            self.problem(f"{place}.name", "every author needs a name")
            return None
        other = fields.get("other_names")
        if isinstance(other, list) and all(isinstance(part, str) for part in other):
            fields["other_names"] = "\n".join(other)
        orcid = fields.get("orcid")
        if orcid not in (None, "") and not is_orcid(orcid):
            self.problem(
                f"{place}.orcid",
                f"{json.dumps(orcid)} is not an ORCID iD: four groups of four digits (the last "
                "may be X) with a valid check digit, e.g. 0000-0002-1825-0097",
            )
            orcid = None
        if not orcid and not fields.get("slug"):
            orcid = self.orcid_of_name.get(name)  # the details written at another place
        said_new = self.said_new(mapping, place)
        slug = self.identify(name, orcid or None, fields.get("slug") or None, place, said_new)
        if slug is None:
            return None
        new = slug not in self.people
        person = self.people.setdefault(slug, {"fields": {"slug": slug}, "places": {}})
        for key, value in fields.items():
            if key == "slug":
                continue
            known = person["fields"].get(key)
            if known is not None and known != value:
                self.problem(
                    places[key],
                    f"{json.dumps(value, ensure_ascii=False)} differs from "
                    f"{json.dumps(known, ensure_ascii=False)} at {person['places'][key]}, "
                    f"the same person ({slug}): write one value (other spellings of a "
                    "name go in other_names)",
                )
                continue
            person["fields"][key] = value
            person["places"].setdefault(key, places[key])
        person.setdefault("place", place)
        if new:  # what later new people are compared with, loosely
            self.file_people.add(_Known(Author, slug, name, where=f"at {place}"))
        self.people_by_name.setdefault(name, set()).add(slug)
        if orcid:
            self.people_by_orcid[orcid] = slug
        listed = self.each(mapping, "affiliations", place)
        affiliations = [self.affiliation(value, at) for _, value, at in listed]
        return slug, list(dict.fromkeys(found for found in affiliations if found is not None))

    def identify(self, name, orcid, slug, place, new=False):
        """The slug of the person: by ORCID, then slug, then exact name, else a new one
        (``new``: the file says so; see :meth:`did_you_mean`)."""
        if orcid:
            found = {self.people_by_orcid[orcid]} if orcid in self.people_by_orcid else set()
            found |= {known.slug for known in self.database_people.get("orcid", orcid)}
            if slug and found and slug not in found:
                self.problem(
                    f"{place}.slug",
                    f"the ORCID {orcid} belongs to {', '.join(sorted(found))}, not {slug}",
                )
                return None
            if len(found) == 1:
                return found.pop()
            if len(found) > 1 and not slug:
                self.problem(
                    place,
                    f"{len(found)} authors have the ORCID {orcid} ({', '.join(sorted(found))}): "
                    "write the slug of this one",
                )
                return None
        if slug:
            return slug
        in_file = self.people_by_name.get(name, set()) | self.reserved.get(name, set())
        exact = in_file or {known.slug for known in self.database_people.get("name", name)}
        if len(exact) > 1:
            self.problem(
                place,
                f"{len(exact)} authors are named {name!r} ({', '.join(sorted(exact))}): write "
                "the slug (or ORCID) of this one",
            )
            return None
        if exact:
            return exact.pop()
        derived = derived_slug(Author, name) or "author"
        free = _free(Author, derived, self.reserved_slugs, self.people)
        self.did_you_mean(Author, name, derived, free, place, new, PERSON)
        return free

    def emit_people(self):
        for person in self.people.values():
            self.emit(Author, dict(person["fields"]), person["place"], dict(person["places"]))


def _squash(name):
    return " ".join(fold(name).split())


def _family_and_initials(name):
    """A person's family name and given names' initials, folded, as one text: "example a"
    for "Ada Example", "A. Example" and "Example, Ada" (the family name is what comes
    before a comma, else the last word); "" for a name of one word."""
    squashed = _squash(name)
    if "," in squashed:
        family, _, given = squashed.partition(",")
    else:
        given, _, family = squashed.rpartition(" ")
    initials = "".join(part[0] for part in re.split(r"[\s.\-]+", given) if part)
    return f"{family.strip()} {initials}" if initials and family.strip() else ""


def _words(name):
    """A person's name as its folded words in alphabetical order, "" for one word: the
    same for "Xiaoyu Lin" and "Lin Xiaoyu" (given and family name in either order, as
    proceedings write Chinese and Japanese names)."""
    words = sorted(_squash(word) for word in re.split(r"[\s,]+", name) if word)
    return " ".join(words) if len(words) > 1 else ""


class _Known:
    """A person or institution already known, with the forms a loose match compares;
    ``where`` it is, for notes."""

    def __init__(self, model, slug, name, orcid="", other_names="", where="in the database"):
        self.slug, self.name, self.orcid, self.where = slug, name or "", orcid, where
        self.squashed = _squash(self.name)
        self.derived = derived_slug(model, self.name)
        self.other_names = {line.strip() for line in (other_names or "").splitlines()}
        self.initials = _family_and_initials(self.name) if model is Author else ""
        self.words = _words(self.name) if model is Author else ""

    def forms(self):
        """(kind, value) of every form :class:`_Index` finds this one by."""
        yield "name", self.name
        yield "orcid", self.orcid
        yield "squashed", self.squashed
        yield "slug", self.slug
        yield "slug", self.derived
        for other in self.other_names:
            yield "other name", other
        yield "initials", self.initials
        yield "words", self.words

    def loosely(self, name, derived):
        """Whether ``name`` (deriving the slug ``derived``) looks like this one's name
        without being it: the same folded for accents, case and spacing, the same
        derived slug, this one's slug, one of its other names, or (a person's) the same
        family name and initials, or the same words in another order."""
        if not self.name or self.name == name:
            return False
        return (
            self.squashed == _squash(name)
            or derived in (self.slug, self.derived)
            or name in self.other_names
            or (self.initials != "" and self.initials == _family_and_initials(name))
            or (self.words != "" and self.words == _words(name))
        )


class _Index:
    """Known people or institutions found by their forms (:meth:`_Known.forms`) in one
    lookup each, in the order added: comparing each new name with every known one made a
    file of N new authors take N² comparisons (4,000 authors: 65 s). Names a few edits
    apart are found by rapidfuzz, which compares one name with all in C++."""

    def __init__(self, known=()):
        self.found = defaultdict(dict)  # (kind, value) -> {id: (number, known)}
        # Length -> the known ones' squashed names and the known ones: a name is compared
        # only with those its few edits can reach (50,000 known random names: 10 ms a
        # name instead of 26 ms for comparing with all).
        self.by_length = defaultdict(lambda: ([], []))
        self.count = 0
        for one in known:
            self.add(one)

    def add(self, known):
        self.count += 1
        known.number = self.count  # its place in the order added
        names, ones = self.by_length[len(known.squashed)]
        names.append(known.squashed)
        ones.append(known)
        for form in known.forms():
            if form[1]:
                self.found[form][id(known)] = (known.number, known)

    def get(self, kind, value):
        """The known ones with ``value`` as their ``kind`` ("name", "orcid", ...), in order."""
        return [known for _, known in self.found.get((kind, value), {}).values()]

    def close(self, name, derived):
        """The known ones whose name is close to ``name`` (deriving the slug ``derived``),
        in the order added: loosely the same (:meth:`_Known.loosely`), or at most one edit
        (rapidfuzz's optimal string alignment distance, accents and case ignored) per
        ``EDIT_LETTERS`` characters of ``name`` away."""
        squashed = _squash(name)
        forms = [("squashed", squashed), ("slug", derived), ("other name", name)]
        forms.append(("initials", _family_and_initials(name)))
        forms.append(("words", _words(name)))
        candidates = {}
        for form in forms:
            candidates.update(self.found.get(form, {}))
        loose = [known for _, known in candidates.values() if known.loosely(name, derived)]
        found = {id(known): known for known in loose}
        edits = len(squashed) // EDIT_LETTERS
        lengths = range(len(squashed) - edits, len(squashed) + edits + 1) if edits else ()
        for length in lengths:
            names, ones = self.by_length.get(length, ((), ()))
            near = process.extract(
                squashed, names, scorer=OSA.distance, score_cutoff=edits, limit=None
            )
            for _, _, number in near:
                if ones[number].name not in ("", name):
                    found.setdefault(id(ones[number]), ones[number])
        return sorted(found.values(), key=lambda known: known.number)


def _free(model, slug, *taken):
    """``slug``, or ``slug-2``, ``slug-3``, ...: the first in none of the containers
    ``taken`` nor in the database."""
    candidate, number, max_length = slug, 1, model._meta.get_field("slug").max_length
    while any(candidate in slugs for slugs in taken) or (
        model.objects.filter(slug=candidate).exists()
    ):
        number += 1
        suffix = f"-{number}"
        candidate = slug[: max_length - len(suffix)].rstrip("-") + suffix
    return candidate
