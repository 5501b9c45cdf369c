"""Step 2: compare a checked fixture with the database and the last import."""

import datetime
from collections import defaultdict
from dataclasses import dataclass, field
from functools import cache

from django.core.exceptions import NON_FIELD_ERRORS, ValidationError
from django.db import models
from django.db.models import Q
from django.utils import translation

from catalogue.models import ImportRecord, natural_key_lookups
from importing.fields import (
    FIXTURE_MODELS,
    chunks,
    default_value,
    field_specs,
    format_key,
)
from importing.images import stored_image_digest
from importing.reading import Fixture, Item, file_order
from importing.reconciling import find_leftovers, invisible_awarded_papers


@dataclass(slots=True)  # slots: 450,000 of them at 50,000 papers
class Change:
    """What the import does to one object. ``action``: create, update, unchanged or
    deleted (not created again: an editor deleted it, or the object ``deleted_with``, since
    the last import). ``changes``: field -> (database value, new value); ``conflicts``:
    field -> (database value kept, fixture value); ``final``: the values it ends up with;
    ``pk``: the object's primary key, once it is in the database (``instance`` is the
    database's object of an existing one; a created one is not kept once written)."""

    item: Item
    action: str
    changes: dict = field(default_factory=dict)
    conflicts: dict = field(default_factory=dict)
    final: dict = field(default_factory=dict)
    instance: models.Model | None = None
    record: ImportRecord | None = None
    record_values: dict = field(default_factory=dict)
    deleted_with: tuple | None = None
    pk: int | None = None

    @property
    def record_changed(self):
        if self.action == DELETED:
            return False  # the record stays as the last import left it
        return self.record is None or self.record.values != self.record_values


DELETED = "deleted"


@dataclass
class Plan:
    """Everything an import would do, object by object, in fixture order. ``leftovers``:
    rows of the file's papers and awards it no longer lists (reconciling.Leftover: removed
    if imported, else kept); ``warnings``: awarded papers that will not be visible."""

    fixture: Fixture
    changes: list
    problems: list
    leftovers: list = field(default_factory=list)
    warnings: list = field(default_factory=list)

    def count(self, action):
        return sum(change.action == action for change in self.changes)

    @property
    def conflicts(self):
        return [change for change in self.changes if change.conflicts]

    @property
    def removed(self):
        """The leftovers an import brought: the import removes them."""
        return [leftover for leftover in self.leftovers if leftover.imported]

    @property
    def kept_additions(self):
        """The leftovers editors added: kept, and listed in the report."""
        return [leftover for leftover in self.leftovers if not leftover.imported]

    @property
    def writes_anything(self):
        return bool(self.removed) or any(
            change.action not in ("unchanged", DELETED) or change.record_changed
            for change in self.changes
        )


def database_value(spec, instance):
    """A field's current database value, normalised like :attr:`Item.values`."""
    if spec.kind == "reference":
        related = getattr(instance, spec.name)
        return None if related is None else list(related.natural_key())
    if spec.kind == "references":
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
    """The objects a many-to-many field of ``instance`` names, in the through model's
    order (``position``), else the target's. Prefetch :func:`references_lookup`."""
    rows, _, target = references_lookup(spec).partition("__")
    related = getattr(instance, rows).all()
    return [getattr(row, target) for row in related] if target else list(related)


def references_lookup(spec):
    """The ``prefetch_related`` lookup of a many-to-many field's list, through an ordered
    through model's rows (``affiliation_rows__institution``)."""
    through = spec.field.remote_field.through
    if through._meta.auto_created:
        return spec.name
    rows = through._meta.get_field(spec.field.m2m_field_name()).remote_field.get_accessor_name()
    return f"{rows}__{spec.field.m2m_reverse_field_name()}"


def load_existing(model, items):
    """key -> instance of the database objects sharing a first key part with ``items`` (all
    authorships of their papers), with what natural keys, references and lists need."""
    specs = field_specs(model).values()
    select = _key_relations(model)
    for spec in specs:
        if spec.kind == "reference":
            select |= {spec.name} | _key_relations(spec.target, f"{spec.name}__")
    lookup = f"{natural_key_lookups(model)[0]}__in"
    lists = [references_lookup(spec) for spec in specs if spec.kind == "references"]
    queryset = model.objects.select_related(*select).prefetch_related(*lists)
    # Of the related objects only keys are read: not their text, which a paper's matched
    # text makes as long as its author list (10,000 authorships of one paper, each with
    # that paper: 2.3 GB).
    queryset = queryset.defer(*_text_columns(model, select))
    found = {}
    for chunk in chunks({item.key[0] for item in items}):
        for instance in queryset.filter(**{lookup: chunk}):
            found[tuple(instance.natural_key())] = instance
    return found


def _text_columns(model, paths):
    """``path__field`` for each text field of the models ``paths`` (relations) lead to."""
    columns = []
    for path in sorted(paths):
        target = model
        for name in path.split("__"):
            target = target._meta.get_field(name).related_model
        columns += [
            f"{path}__{field.name}"
            for field in target._meta.concrete_fields
            if isinstance(field, models.TextField)
        ]
    return columns


def _key_relations(model, prefix=""):
    """The relations to select_related for ``natural_key()`` to need no query."""
    return {
        prefix + lookup.rsplit("__", 1)[0]
        for lookup in natural_key_lookups(model)
        if "__" in lookup
    }


def plan_import(fixture, *, overwrite=False):
    """The :class:`Plan` of importing ``fixture``; writes nothing. A field the file changes
    is taken if the database holds what the last import set (its default if that import
    left the field out; never imported: nothing), else
    the editor's value is kept, a conflict; fields left out keep theirs (new: the default).
    What an editor deleted is not created again, nor what refers to it. ``overwrite`` takes
    the file's all the same. ``Plan.problems``: the fixture's, and the models' rules'.
    A compact file lists each of its papers' authors and links and its awards' entries
    whole: the rows it no longer lists are ``Plan.leftovers``."""
    problems = list(fixture.problems)
    changes = []
    for model in FIXTURE_MODELS:
        items = [item for item in fixture.items if item.model is model and item.valid]
        if not items:
            continue
        existing = load_existing(model, items)
        records = _load_records(model, items)
        specs = field_specs(model)
        for item in items:
            instance = existing.get(item.key)
            record = records.get(item.key)
            change = Change(item, "create", instance=instance, record=record)
            change.pk = instance and instance.pk
            # The file's values are what the import sets; with no earlier record, the
            # item's own dict (copied below before it is changed).
            change.record_values = {**record.values, **item.values} if record else item.values
            if instance is None and record is not None and not overwrite:
                change.action = DELETED
            if instance is None:
                change.final = {name: default_value(spec) for name, spec in specs.items()}
                change.final.update(item.values)
            else:
                current = {name: database_value(spec, instance) for name, spec in specs.items()}
                change.final = dict(current)
                for name, value in item.values.items():
                    image = item.images.get(name)
                    if image is not None and image.source_digest == current[name]:
                        # The file is the stored image itself (an export): no change,
                        # even where normalising it again would give other bytes.
                        if change.record_values is item.values:
                            change.record_values = dict(item.values)
                        change.record_values[name] = value = current[name]
                    if value == current[name]:
                        continue
                    if record is not None and name in record.values:
                        edited = record.values[name] != current[name]
                    elif record is not None:
                        # The import that created it left the field out, so set the
                        # default (a status): only another value is an editor's.
                        edited = current[name] not in ("", None, [], default_value(specs[name]))
                    else:
                        edited = current[name] not in ("", None, [])
                    if edited and not overwrite:
                        change.conflicts[name] = (current[name], value)
                    else:
                        change.changes[name] = (current[name], value)
                        change.final[name] = value
                change.action = "update" if change.changes else "unchanged"
            changes.append(change)
    _follow_deletions(changes)
    present = [change for change in changes if change.action != DELETED]
    leftovers = find_leftovers(present) if fixture.document is not None else []
    leaving = defaultdict(set)
    for leftover in leftovers:
        if leftover.imported:
            leaving[leftover.model].add(leftover.pk)
    problems.extend(_check_final_values(fixture, present, leaving))
    problems.sort(key=file_order)
    return Plan(fixture, changes, problems, leftovers, invisible_awarded_papers(present))


def _follow_deletions(changes):
    """Spread deletions over ``changes``, referred-to models first: a new object referring to
    a deleted one is not created, an existing one keeps it (a conflict), a list drops it."""
    deleted = {(c.item.model, c.item.key) for c in changes if c.action == DELETED}
    if not deleted:
        return
    for change in changes:
        specs = field_specs(change.item.model)
        gone = [
            name
            for name, spec in specs.items()
            if spec.kind == "reference"
            and change.final[name] is not None
            and (spec.target, tuple(change.final[name])) in deleted
        ]
        if change.action == DELETED or (gone and change.instance is None):
            # Deleted with what it refers to (an authorship with its paper)? Say so.
            if gone and change.deleted_with is None:
                change.deleted_with = (
                    specs[gone[0]].target._meta.label_lower,
                    change.final[gone[0]],
                )
            if change.action != DELETED:
                change.action = DELETED
                deleted.add((change.item.model, change.item.key))
            continue
        for name, spec in specs.items():
            if name in gone:
                # Only the file's value can name a deleted object: the database's
                # reference would have gone with it (CASCADE) or stopped the deletion.
                old, new = change.changes.pop(name)
                change.final[name] = old
                change.conflicts[name] = (old, new)
            elif spec.kind == "references":
                kept = [
                    key for key in change.final[name] if (spec.target, tuple(key)) not in deleted
                ]
                if kept == change.final[name]:
                    continue
                change.final[name] = kept
                if name in change.changes:
                    old = change.changes[name][0]
                    if kept == old:
                        del change.changes[name]
                    else:
                        change.changes[name] = (old, kept)
        if change.action == "update" and not change.changes:
            change.action = "unchanged"


def _load_records(model, items):
    label = model._meta.label_lower
    keys = {format_key(item.key): item.key for item in items}
    records = {}
    for chunk in chunks(keys):
        for record in ImportRecord.objects.filter(model=label, key__in=chunk):
            records[keys[record.key]] = record
    return records


def _check_final_values(fixture, changes, leaving):
    """[Problem]: the models' rules as the admin applies them (``clean()``, constraints,
    ``numbering``) on the final values, named by the rule's last field; unique constraints
    over the file and the database rows it leaves out (a swap of values is no clash) but
    those it removes (``leaving``: model -> primary keys)."""
    instances = _UnsavedInstances(fixture, changes, leaving)
    by_model = defaultdict(list)
    for change in changes:
        by_model[change.item.model].append(change)
    found, checked = [], {}  # (change, field, message); see _model_rules
    with translation.override("en"):
        for model, group in by_model.items():
            own_rules = model.clean is not models.Model.clean or _check_constraints(model)
            for change in group if own_rules else ():
                found += _model_rules(change, instances[model, change.item.key], checked)
            for constraint in model._meta.constraints:
                if _unique_on_the_whole_file(model, constraint):
                    found += _unique_problems(model, constraint, group, instances)
            if hasattr(model, "numbering"):
                found += _numbering_problems(fixture, model, group, instances)
    return [change.item.problem(fixture.path, message, name) for change, name, message in found]


class _UnsavedInstances(dict):
    """(model, natural key) -> an unsaved instance with the object's final values, made when
    asked for; references to the file's objects are their instances (rules compare them),
    each knowing its ``(model, natural key)`` as ``import_key``. At most ``LIMIT`` are
    kept, then made again: at 50,000 papers, all of them took 340 MB at the import's peak
    (``benchmarks/import_conference.py --papers 50000``)."""

    LIMIT = 5000

    def __init__(self, fixture, changes, leaving):
        super().__init__()
        self.database_keys = fixture.database_keys
        self.leaving = leaving  # model -> primary keys of rows the import removes
        self.changes = {(change.item.model, change.item.key): change for change in changes}

    def __missing__(self, model_key):
        model, change = model_key[0], self.changes[model_key]
        if len(self) >= self.LIMIT:
            self.clear()
        # Every column given (None until set below): no field default is computed.
        instance = self[model_key] = model(*[None] * len(model._meta.concrete_fields))
        instance.import_key = model_key
        if change.instance is not None:
            instance.pk, instance._state.adding = change.instance.pk, False
        for name, spec in field_specs(model).items():
            value = change.final[name]
            if spec.kind == "reference" and value is None:  # an optional one left empty
                setattr(instance, spec.attname, None)
            elif spec.kind == "reference":
                key = (spec.target, tuple(value))
                if key in self.changes:
                    setattr(instance, spec.name, self[key])
                else:
                    setattr(instance, spec.attname, self.database_keys[spec.target].get(key[1]))
            elif spec.kind == "date":
                setattr(instance, spec.attname, value and datetime.date.fromisoformat(value))
            elif spec.kind == "image":  # only its presence matters to the rules
                setattr(instance, spec.attname, "papers/stored-image" if value else "")
            elif spec.kind != "references":
                setattr(instance, spec.attname, value)
        return instance


def _model_rules(change, instance, checked):
    """[(change, field, message)] of ``clean()`` and the check constraints on ``instance``;
    ``checked`` keeps answers by the values compared (20,000 authorships: a few queries)."""
    model, found = change.item.model, []
    try:
        instance.clean()
    except ValidationError as error:
        for name, messages in error.message_dict.items():
            message, spec = "; ".join(messages), field_specs(model).get(name)
            if spec is not None and spec.kind == "reference":
                message = f"{message.rstrip('.')} ({name} {format_key(change.final[name])})."
            found.append((change, None if name == NON_FIELD_ERRORS else name, message))
    for constraint, names in _check_constraints(model):
        values = tuple(getattr(instance, name) for name in names)
        if (constraint.name, values) not in checked:  # one query per set of values compared
            try:
                constraint.validate(model, instance)
                checked[constraint.name, values] = None
            except ValidationError as error:
                shown = ", ".join(
                    f"{name} {value}" for name, value in zip(names, values, strict=True)
                )
                checked[constraint.name, values] = f"{error.messages[0].rstrip('.')} ({shown})."
        if checked[constraint.name, values] is not None:
            found.append((change, names[-1], checked[constraint.name, values]))
    return found


@cache
def _check_constraints(model):
    """The model's check constraints, each with the fields it compares (in field order)."""
    return [
        (constraint, _in_field_order(model, Q(constraint.condition).referenced_base_fields))
        for constraint in model._meta.constraints
        if isinstance(constraint, models.CheckConstraint)
    ]


def _in_field_order(model, names):
    return [field.name for field in model._meta.fields if field.name in names]


def _unique_on_the_whole_file(model, constraint):
    """A unique constraint on fields, other than the natural key (the reader's check)."""
    return (
        isinstance(constraint, models.UniqueConstraint)
        and constraint.fields
        and constraint.condition is None
        and set(constraint.fields) != set(model.natural_key_fields)
    )


def _final_rows(model, names, changes, instances):
    """The values of ``names`` after the import: (change, values) for the file's objects,
    (natural key, values) for database rows it leaves out sharing a first value."""
    fields = [model._meta.get_field(name) for name in names]
    rows = [(change, _values(instances[model, change.item.key], fields)) for change in changes]
    in_file = {change.instance.pk for change in changes if change.instance is not None}
    in_file |= instances.leaving.get(model, set())  # removed: no longer there
    first = {values[0] for _, values in rows if not isinstance(values[0], tuple)}
    columns = [field.attname for field in fields] + natural_key_lookups(model)
    for chunk in chunks(first):
        stored = model.objects.filter(**{f"{columns[0]}__in": chunk}).values_list("pk", *columns)
        for pk, *values in stored:
            if pk not in in_file:
                rows.append((tuple(values[len(fields) :]), tuple(values[: len(fields)])))
    return rows


def _values(instance, fields):
    """An instance's values of ``fields``; a reference to a new object as ("new", its
    model and natural key)."""
    values = []
    for model_field in fields:
        value = getattr(instance, model_field.attname)
        if value is None and model_field.is_relation:
            value = ("new", getattr(getattr(instance, model_field.name, None), "import_key", None))
        values.append(value)
    return tuple(values)


def _unique_problems(model, constraint, changes, instances):
    """[(change, field, message)]: the file's objects whose values of a unique constraint
    another object would have too, in the file or the database."""
    holders = defaultdict(list)
    for holder, values in _final_rows(model, constraint.fields, changes, instances):
        holders[values].append(holder)
    blamed, label = _in_field_order(model, constraint.fields)[-1], model._meta.label_lower
    message = constraint.get_violation_error_message().rstrip(".")
    found = []
    for clash in (holders for holders in holders.values() if len(holders) > 1):
        for change in (holder for holder in clash if isinstance(holder, Change)):
            others = ", ".join(
                f"object {other.item.index} ({label} {format_key(other.item.key)})"
                if isinstance(other, Change)
                else f"{label} {format_key(other)} (in the database, not in this file: list "
                "it with its new values, or delete it in the admin)"
                for other in clash
                if other is not change
            )
            value = change.final[blamed]
            found.append((change, blamed, f"{message}: {blamed} {value} is also that of {others}."))
    return found


def _numbering_problems(fixture, model, changes, instances):
    """[(change, field, message)] on the highest number of a group not running 1, 2, 3, ...
    (``model.numbering``: author positions), counting database rows the file leaves out and
    failed objects as written (a mistyped slug leaves no gap); not numbers below 1 or twice."""
    group, number = model.numbering
    numbers, keys, last = defaultdict(list), {}, {}
    for holder, (within, value) in _final_rows(model, model.numbering, changes, instances):
        numbers[within].append(value)
        if isinstance(holder, Change):
            keys[within] = tuple(holder.final[group])
            if within not in last or value > last[within].final[number]:
                last[within] = holder
    failed = defaultdict(list)
    for item in fixture.items:
        if item.model is model and not item.valid and item.key is not None:
            failed[tuple(item.values.get(group) or ())].append(item.values.get(number))
    found = []
    for within, change in last.items():
        taken = numbers[within] + failed[keys[within]]
        if None in taken or min(taken) < 1 or len(set(taken)) < len(taken):
            continue
        missing = ", ".join(map(str, sorted(set(range(1, len(taken) + 1)) - set(taken))))
        if missing:
            listed = ", ".join(map(str, sorted(taken)))
            found.append(
                (
                    change,
                    number,
                    f"{number}s on {group} {format_key(keys[within])} are "
                    f"{listed}: {missing} missing (they run 1, 2, 3, ... without gaps)",
                )
            )
    return found
