"""Stored history versions follow the models: after a ``migrate`` that applied a migration,
every version of a content object is rewritten as today's models record it
(``editorial.history``), so a version an earlier release stored still opens, compares,
restores and recovers.

Why after ``migrate`` rather than a data migration beside each model change: a data
migration runs once, at its place in the graph, and the next change to a model would need
another one, written by whoever remembers; this runs after every ``migrate`` that applied a
migration, with the models as they now are, so a migration written from now on needs nothing
unless it changes what a value means. What it does, to each version:

- fields the model no longer records are dropped (a removed field, modeltranslation's
  mirrors such as ``title``, derived columns): deserialised, a mirror would be written to
  the column of whatever language is active;
- fields it records and the version lacks get the model's default, as a new row would;
- ``CONVERSIONS`` give values whose meaning changed (a renamed field, a slug that became a
  foreign key) their meaning today: add one there when a migration does such a thing;
- a many-to-many list stored before the field had a model of its own (an authorship's
  affiliations, ordered rows since catalogue 0007) becomes versions of those rows;

and to each revision, ``KEPT``: an object whose related objects a revision may lack
(recorded before the relation was followed) gets versions of the current ones, so restoring
the revision keeps them instead of deleting them (and, with them, what refers to them with
``on_delete=RESTRICT``). A version that still cannot be read is left as it was; the history
says so when it is opened. tests/editorial/test_upgrade.py upgrades a database of each
release (tests/data/releases/) and opens every version.
"""

import json
from collections import defaultdict

from django.contrib.contenttypes.models import ContentType
from django.core import serializers
from django.core.serializers.json import DjangoJSONEncoder
from django.db import DEFAULT_DB_ALIAS, connections, transaction
from django.db.migrations.executor import MigrationExecutor
from django.utils import translation
from reversion.models import Version

from catalogue.models import Author, Award, AwardEntry, AwardLevel
from catalogue.names import guessed_fields
from editorial.history import (
    BATCH_SIZE,
    FOLLOW,
    recorded_fields,
    related_model_and_key,
    serialised_versions,
)


def level_by_slug(fields):
    """An entry's level was a slug ("winner") until levels became rows (catalogue 0007):
    {"level": the primary key of the entry's award's level of that slug}, or nothing."""
    level = fields.get("level")
    if not isinstance(level, str):
        return {}
    levels = AwardLevel.objects.filter(award_id=fields.get("award"), slug=level)
    pk = levels.values_list("pk", flat=True).first()
    return {} if pk is None else {"level": pk}


def names_guessed(fields):
    """An author stored before given and family names (catalogue 0029): the split that
    migration gave every author, guessed from the stored name; nothing for a later one."""
    if "family_name" in fields or not isinstance(fields.get("name"), str):
        return {}
    return guessed_fields(fields["name"])


# By model, functions of a stored version's fields giving the fields to set (before the
# fields the model no longer records are dropped: a renamed field reads its old name).
CONVERSIONS = {AwardEntry: [level_by_slug], Author: [names_guessed]}
# By model, the related name of objects a revision may lack: the award's levels were not
# recorded before they were rows, and an award's entries refer to them with RESTRICT.
KEPT = {Award: "levels"}


def upgrade_after_migrate(sender, plan=None, using=DEFAULT_DB_ALIAS, **kwargs):
    """``post_migrate`` receiver of the catalogue's app (``sender``): ``upgrade_versions()``
    when ``plan`` applied a migration and left the default database at today's models (not
    after ``migrate papers 0010`` nor a ``flush``, which has no plan). Returns its counts, or
    None when it did not run."""
    if not any(not backwards for _migration, backwards in plan or ()):
        return None
    if using != DEFAULT_DB_ALIAS:
        return None
    executor = MigrationExecutor(connections[using])
    if executor.migration_plan(executor.loader.graph.leaf_nodes()):
        return None
    return upgrade_versions()


@transaction.atomic
def upgrade_versions():
    """Rewrite every stored version of a content model of the default database as today's
    models record it, and add to the revisions the versions of rows that stood in a list
    and of the ``KEPT`` related objects they lack. Idempotent. Returns (versions rewritten,
    versions added). On SQLite, 9 s for 24,000 versions of release 7f74238 (rewritten), 1.2 s
    for 28,000 already current."""
    models = {ContentType.objects.get_for_model(model).pk: model for model in FOLLOW}
    versions = Version.objects.filter(content_type__in=models, format="json").order_by("pk")
    defaults, numbers, rewritten, added, last = {}, defaultdict(int), 0, 0, 0
    # In batches by primary key: the memory it takes does not grow with the history.
    while batch := list(versions.filter(pk__gt=last)[:BATCH_SIZE]):
        last, changed, rows_added = batch[-1].pk, [], []
        for version in batch:
            model = models[version.content_type_id]
            try:
                rows = json.loads(version.serialized_data)
            except ValueError:
                continue
            rows_added += _through_rows(model, version, rows[0].get("fields", {}), numbers)
            upgraded = [_upgraded(model, row, defaults) for row in rows]
            if upgraded != rows:
                version.serialized_data = _json(upgraded)
                changed.append(version)
        Version.objects.bulk_update(changed, ["serialized_data"], batch_size=BATCH_SIZE)
        Version.objects.bulk_create(rows_added, batch_size=BATCH_SIZE)
        rewritten, added = rewritten + len(changed), added + len(rows_added)
    kept = [version for owner, name in KEPT.items() for version in _kept_versions(owner, name)]
    Version.objects.bulk_create(kept, batch_size=BATCH_SIZE)
    return rewritten, added + len(kept)


def _json(rows):
    return json.dumps(rows, cls=DjangoJSONEncoder, ensure_ascii=False)


def _upgraded(model, row, defaults):
    """The stored object ``row`` ({"model", "pk", "fields"}) as ``model`` records it today;
    ``defaults`` caches each model's serialised defaults."""
    fields = dict(row.get("fields", {}))
    for convert in CONVERSIONS.get(model, ()):
        fields.update(convert(fields))
    if model not in defaults:
        columns = [model._meta.get_field(name) for name in recorded_fields(model)]
        names = [field.name for field in columns if field.serialize and not field.many_to_many]
        defaults[model] = serializers.serialize("python", [model()], fields=names)[0]["fields"]
        # Lists of a many-to-many field are stored only where it has no model of its own.
        defaults[model].update(
            (field.name, [])
            for field in columns
            if field.many_to_many and field.remote_field.through._meta.auto_created
        )
    kept = {name: value for name, value in fields.items() if name in defaults[model]}
    kept.update((name, value) for name, value in defaults[model].items() if name not in kept)
    return {**row, "fields": kept}


def _through_rows(model, version, fields, numbers):
    """Unsaved versions of the rows a many-to-many list in ``fields`` stood for before the
    field had a model of its own (an authorship's affiliations until catalogue 0007), in the
    list's order (``position``). They are new rows (no primary key: restoring the revision
    inserts them, after deleting today's rows, which it does not hold), under object ids
    below zero, which no row has (``numbers`` counts them down by revision)."""
    found = []
    for field in model._meta.local_many_to_many:
        through = field.remote_field.through
        if field.name not in fields or through._meta.auto_created:
            continue
        positions = any(column.name == "position" for column in through._meta.fields)
        owner = model._meta.pk.to_python(version.object_id)
        for position, target in enumerate(fields[field.name], start=1):
            row = {field.m2m_field_name(): owner, field.m2m_reverse_field_name(): target}
            row.update({"position": position} if positions else {})
            numbers[version.revision_id] -= 1
            found.append(
                Version(
                    revision_id=version.revision_id,
                    content_type=ContentType.objects.get_for_model(through),
                    object_id=str(numbers[version.revision_id]),
                    db=version.db,
                    format="json",
                    serialized_data=_json(
                        [{"model": through._meta.label_lower, "pk": None, "fields": row}]
                    ),
                    object_repr=version.object_repr,
                )
            )
    return found


def _kept_versions(owner, name):
    """Unsaved versions of the current objects of each ``owner``'s relation ``name``, one for
    each revision holding the owner and none of the related model's objects."""
    related, foreign_key = related_model_and_key(owner, name)
    owner_type = ContentType.objects.get_for_model(owner)
    related_type = ContentType.objects.get_for_model(related)
    having = set(
        Version.objects.filter(content_type=related_type).values_list("revision_id", flat=True)
    )
    lacking = defaultdict(set)  # owner's pk: revisions
    for revision, object_id in Version.objects.filter(content_type=owner_type).values_list(
        "revision_id", "object_id"
    ):
        if revision not in having:
            lacking[owner._meta.pk.to_python(object_id)].add(revision)
    rows = related._base_manager.filter(**{f"{foreign_key}__in": list(lacking)})
    owned = list(rows.values_list(f"{foreign_key}_id", "pk").order_by("pk"))
    with translation.override("en"):  # object_repr, as record_versions writes it
        serialised = dict(serialised_versions(related, [pk for _owner, pk in owned]))
    return [
        Version(revision_id=revision, **serialised[pk])
        for owner_pk, pk in owned
        for revision in sorted(lacking[owner_pk])
    ]
