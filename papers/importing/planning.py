"""Step 2: compare a checked fixture with the database and the last import."""

import datetime
from collections import defaultdict
from dataclasses import dataclass, field

from django.core.exceptions import NON_FIELD_ERRORS, ValidationError
from django.db import models
from django.utils import translation

from ..models import (
    Authorship,
    Conference,
    ImportRecord,
    natural_key_lookups,
)
from .fields import FIXTURE_MODELS, Problem, chunks, field_specs, format_key
from .images import stored_image_digest
from .reading import Fixture, Item, file_order


@dataclass
class Change:
    """What the import does to one object: ``action`` is create, update or unchanged."""

    item: Item
    action: str
    # field -> (database value, new value), for the fields that change
    changes: dict = field(default_factory=dict)
    # field -> (database value kept, fixture value), for editors' changes kept
    conflicts: dict = field(default_factory=dict)
    final: dict = field(default_factory=dict)
    instance: models.Model | None = None
    record: ImportRecord | None = None
    record_values: dict = field(default_factory=dict)

    @property
    def record_changed(self):
        return self.record is None or self.record.values != self.record_values


@dataclass
class Plan:
    """Everything an import would do, object by object, in fixture order."""

    fixture: Fixture
    changes: list
    problems: list
    overwrite: bool = False

    def count(self, action):
        return sum(change.action == action for change in self.changes)

    @property
    def conflicts(self):
        return [change for change in self.changes if change.conflicts]

    @property
    def writes_anything(self):
        return any(change.action != "unchanged" or change.record_changed for change in self.changes)


def database_value(spec, instance):
    """A field's current database value, normalised like :attr:`Item.values`."""
    if spec.kind == "reference":
        return list(getattr(instance, spec.name).natural_key())
    if spec.kind == "references":
        loaded = getattr(instance, "_imported_" + spec.name, None)  # see load_existing()
        if loaded is not None:
            return list(loaded)
        return [list(related.natural_key()) for related in ordered_references(spec, instance)]
    value = getattr(instance, spec.attname)
    if spec.kind == "image":
        return stored_image_digest(value.name if value else "")
    if spec.kind == "date":
        return value.isoformat() if value else None
    if value is None and spec.kind == "text":
        return ""  # an empty translation column may hold NULL
    return value


def ordered_references(spec, instance):
    """The objects a many-to-many field of ``instance`` names, in the list's order.

    With a through model holding a ``position`` (``Authorship.affiliations``) that is
    the order of its rows (the through model's ``Meta.ordering``; prefetch the rows to
    save the queries); otherwise the target's own order.
    """
    through = spec.field.remote_field.through
    if through._meta.auto_created:
        return list(getattr(instance, spec.name).all())
    rows = spec.field.m2m_field_name()
    accessor = through._meta.get_field(rows).remote_field.get_accessor_name()
    target = spec.field.m2m_reverse_field_name()
    return [getattr(row, target) for row in getattr(instance, accessor).all()]


def default_value(spec):
    """What a new object gets for a field the fixture leaves out."""
    if spec.kind == "references":
        return []
    if spec.field.has_default():
        return spec.field.get_default()
    if spec.kind == "date":
        return None
    return "" if spec.kind in ("text", "image") else None


def load_existing(model, items):
    """The database objects with the items' natural keys (key -> instance).

    Loaded in bulk (one query per batch of the keys' first parts, e.g. per paper for
    authorships) with what their natural keys and references need. Objects the file
    leaves out that share a first part are returned too: for authorships, every
    authorship of the items' papers (the author order is checked on all of them).
    A many-to-many list (``Authorship.affiliations``) is loaded as natural keys in
    its order, one query per batch, without building the related objects.
    """
    specs = field_specs(model).values()
    select = _key_relations(model)
    for spec in specs:
        if spec.kind == "reference":
            select |= {spec.name} | _key_relations(spec.target, f"{spec.name}__")
    lookup = f"{natural_key_lookups(model)[0]}__in"
    found = {}
    for chunk in chunks({item.key[0] for item in items}):
        for instance in model.objects.select_related(*select).filter(**{lookup: chunk}):
            found[tuple(instance.natural_key())] = instance
    by_pk = {instance.pk: instance for instance in found.values()}
    for spec in specs:
        if spec.kind != "references":
            continue
        through = spec.field.remote_field.through
        source, target = spec.field.m2m_field_name(), spec.field.m2m_reverse_field_name()
        name = "_imported_" + spec.name  # see database_value()
        for instance in by_pk.values():
            setattr(instance, name, [])
        target_key = [f"{target}__{lookup}" for lookup in natural_key_lookups(spec.target)]
        for chunk in chunks(by_pk):
            rows = (
                through.objects.filter(**{f"{source}__in": chunk})
                .order_by(*through._meta.ordering, "pk")
                .values_list(f"{source}_id", *target_key)
            )
            for pk, *key in rows:
                getattr(by_pk[pk], name).append(key)
    return found


def _key_relations(model, prefix=""):
    """The relations to select_related for ``natural_key()`` to need no query."""
    return {
        prefix + lookup.rsplit("__", 1)[0]
        for lookup in natural_key_lookups(model)
        if "__" in lookup
    }


def plan_import(fixture, *, overwrite=False):
    """Compare ``fixture`` with the database; return the :class:`Plan`. Writes nothing.

    For each field the fixture names, with *database* the current value, *record*
    what the last import set and *file* the fixture's value:

    - file equals database: unchanged;
    - the database still holds what the last import set (or, for an object never
      imported, the field is empty): the file's value is taken;
    - otherwise an editor changed it: the database value is kept and the field is
      listed as a conflict, unless ``overwrite`` is true.

    Fields the fixture leaves out keep their database value (a new object gets the
    field's default). Problems found here (constraints on the resulting values,
    author order) go into ``Plan.problems`` together with the fixture's.
    """
    problems = list(fixture.problems)
    changes = []
    by_model = defaultdict(list)
    for item in fixture.items:
        if item.valid:
            by_model[item.model].append(item)
    existing_authorships = {}
    for model in FIXTURE_MODELS:
        items = by_model.get(model, [])
        if not items:
            continue
        existing = load_existing(model, items)
        if model is Authorship:
            existing_authorships = existing
        records = _load_records(model, items)
        specs = field_specs(model)
        for item in items:
            instance = existing.get(item.key)
            record = records.get(item.key)
            change = Change(item, "create", instance=instance, record=record)
            change.record_values = {**(record.values if record else {}), **item.values}
            if instance is None:
                change.final = {
                    name: item.values[name] if name in item.values else default_value(spec)
                    for name, spec in specs.items()
                }
            else:
                current = {name: database_value(spec, instance) for name, spec in specs.items()}
                change.final = dict(current)
                for name, value in item.values.items():
                    image = item.images.get(name)
                    if image is not None and image.source_digest == current[name]:
                        # The file is the stored image itself (an export): no change,
                        # even where normalising it again would give other bytes.
                        change.record_values[name] = value = current[name]
                    if value == current[name]:
                        continue
                    if record is not None and name in record.values:
                        edited = record.values[name] != current[name]
                    else:
                        edited = current[name] not in ("", None, [])
                    if edited and not overwrite:
                        change.conflicts[name] = (current[name], value)
                    else:
                        change.changes[name] = (current[name], value)
                        change.final[name] = value
                change.action = "update" if change.changes else "unchanged"
            changes.append(change)
    problems.extend(_check_final_values(fixture, changes, existing_authorships))
    problems.sort(key=file_order)
    return Plan(fixture, changes, problems, overwrite)


def _clean_problems(change):
    """``Model.clean()`` on the final values: [(field or None, message)]."""
    model = change.item.model
    if model.clean is models.Model.clean:
        return []
    values = {}
    for name, spec in field_specs(model).items():
        value = change.final[name]
        if spec.kind in ("text", "integer"):
            values[spec.attname] = value
        elif spec.kind == "date":
            values[spec.attname] = value and datetime.date.fromisoformat(value)
        elif spec.kind == "image":
            values[spec.attname] = "papers/stored-image" if value else ""  # only its presence
    try:
        model(**values).clean()
    except ValidationError as error:
        return [
            (None if name == NON_FIELD_ERRORS else name, "; ".join(messages))
            for name, messages in error.message_dict.items()
        ]
    return []


def _load_records(model, items):
    label = model._meta.label_lower
    keys = {format_key(item.key): item.key for item in items}
    records = {}
    for chunk in chunks(keys):
        for record in ImportRecord.objects.filter(model=label, key__in=chunk):
            records[keys[record.key]] = record
    return records


def _check_final_values(fixture, changes, existing_authorships):
    """Constraints the resulting objects must meet: dates, author order, unique pairs."""
    problems = []
    path = fixture.path

    def problem(change, name, message):
        item = change.item
        problems.append(
            Problem(path, message, index=item.index, label=item.label, key=item.key, field=name)
        )

    # Each model's own clean() (e.g. a paper's image needs a description in both
    # languages), on an unsaved copy holding the values the object would end up with.
    with translation.override("en"):
        for change in changes:
            for name, message in _clean_problems(change):
                problem(change, name, message)
    # Conference: its model's CheckConstraints (end date not before start) and one
    # edition per venue and year.
    years = {}
    for change in changes:
        if change.item.model is not Conference:
            continue
        final = change.final
        start, end = final["start_date"], final["end_date"]
        for constraint in Conference._meta.constraints:
            if isinstance(constraint, models.CheckConstraint):
                probe = Conference(
                    start_date=start and datetime.date.fromisoformat(start),
                    end_date=end and datetime.date.fromisoformat(end),
                )
                try:
                    constraint.validate(Conference, probe, exclude={"venue", "status"})
                except ValidationError:
                    problem(
                        change, "end_date", f"the end date {end} is before the start date {start}"
                    )
        venue_year = (tuple(final["venue"]), final["year"])
        other = years.setdefault(venue_year, change)
        clash = (
            other is not change
            or Conference.objects.filter(venue__slug=venue_year[0][0], year=venue_year[1])
            .exclude(slug=change.item.key[0])
            .exists()
        )
        if clash:
            problem(
                change,
                "year",
                f"the venue {venue_year[0][0]} already has a conference in {venue_year[1]}",
            )
    # Authorship: per paper, positions 1..n once each, counting the authorships the
    # file leaves out, and those it holds that failed their own checks (as the file
    # writes them: an author's mistyped slug must not make the position look missing).
    positions = defaultdict(dict)  # paper key -> authorship key -> (position, holder)
    for key, instance in existing_authorships.items():
        positions[key[:1]][key] = (instance.position, "database")
    unknown = set()  # papers with a failed authorship whose position is unknown
    for item in fixture.items:
        paper = item.values.get("paper")
        if item.model is Authorship and not item.valid and paper and item.key is not None:
            position = item.values.get("position")
            if isinstance(position, int):
                positions[tuple(paper)][item.key] = (position, "failed")
            else:
                unknown.add(tuple(paper))
    for change in changes:
        if change.item.model is Authorship:
            positions[change.item.key[:1]][change.item.key] = (change.final["position"], change)
    for paper, authors in positions.items():
        in_file = [change for _, change in authors.values() if isinstance(change, Change)]
        if not in_file:
            continue
        holders = defaultdict(list)
        for key, (position, _) in authors.items():
            holders[position].append(key)
        duplicates = {position for position, keys in holders.items() if len(keys) > 1}
        for change in in_file:
            position = change.final["position"]
            if position in duplicates:
                others = [
                    f"{key[1]} (in the database, not in this file: list it with its new "
                    "position, or delete it in the admin)"
                    if authors[key][1] == "database"
                    else str(key[1])
                    for key in sorted(holders[position], key=lambda key: str(key[1]))
                    if key != change.item.key
                ]
                problem(
                    change,
                    "position",
                    f"duplicate author position {position} on paper {paper[0]}: "
                    f"{', '.join(others)} has it too",
                )
        listed = ", ".join(str(position) for position in sorted(holders))
        last = max(in_file, key=lambda change: change.final["position"])
        # Below 1 (the model's authorship_position_from_1 constraint): say so, rather
        # than call the top position missing.
        too_low = sorted(position for position in holders if position < 1)
        if too_low:
            count = len(authors)
            for change in [c for c in in_file if c.final["position"] < 1]:
                problem(
                    change,
                    "position",
                    f"author positions on paper {paper[0]} are {listed}: "
                    f"{', '.join(map(str, too_low))} {'is' if len(too_low) == 1 else 'are'} "
                    f"not allowed, positions start at 1 (with {count} author"
                    f"{'s' if count != 1 else ''} they are "
                    f"{', '.join(map(str, range(1, count + 1)))}, each once)",
                )
            continue
        missing = sorted(set(range(1, len(authors) + 1)) - set(holders))
        if missing and not duplicates and paper not in unknown:
            problem(
                last,
                "position",
                f"author positions on paper {paper[0]} are {listed}: "
                f"{', '.join(map(str, missing))} missing (they run 1, 2, 3, ... without gaps)",
            )
    return problems
