"""Step 3: write a plan to the database with bulk queries, in one transaction."""

import datetime
from collections import defaultdict

from django.db import connection, transaction
from django.utils import translation

from catalogue import derived
from catalogue.models import (
    Author,
    Authorship,
    AwardEntry,
    Conference,
    ImportRecord,
    Institution,
    Paper,
)
from catalogue.signals import content_changed
from editorial.history import record_versions
from importing.fields import (
    BATCH_SIZE,
    FIXTURE_MODELS,
    FixtureInvalid,
    chunks,
    field_specs,
    format_key,
)
from importing.images import store_image
from importing.planning import DELETED
from importing.reconciling import remove_leftovers


def apply_plan(plan, *, source=""):
    """Write ``plan`` (images, import records, history) in one transaction by bulk queries,
    which send no model signals: ``content_changed`` goes once, with the papers and authors
    reached. The rows an import brought that the file no longer lists (``plan.removed``) go
    first, so that others can take their positions. Return the plan; :class:`FixtureInvalid`,
    writing nothing, if it has problems."""
    if plan.problems:
        raise FixtureInvalid(plan.problems)
    by_model = defaultdict(list)
    for change in plan.changes:
        by_model[change.item.model].append(change)
    primary_keys = defaultdict(dict)
    for model, keys in plan.fixture.database_keys.items():
        primary_keys[model].update(keys)
    # The authors that updated authorships leave (read before the updates change them).
    former_authors = {
        change.instance.author_id
        for change in by_model.get(Authorship, [])
        if change.action == "update" and change.instance is not None
    }
    with transaction.atomic(), translation.override("en"):
        removed_from = remove_leftovers(plan.removed)
        for model in FIXTURE_MODELS:
            _apply_model(model, by_model.get(model, []), primary_keys)
        if plan.writes_anything:
            papers, authors = _reached(plan.changes, primary_keys)
            content_changed.send(sender=apply_plan, papers=papers, authors=authors | former_authors)
        _write_records(plan.changes, source)
        record_history(plan.changes, source, removed_from)
        refresh_statistics(
            model
            for model in FIXTURE_MODELS
            if any(change.action in ("create", "update") for change in by_model.get(model, []))
        )
    return plan


def refresh_statistics(models):
    """On PostgreSQL, ``ANALYZE`` the tables of ``models`` and of their many-to-many
    ``through`` models; elsewhere nothing. Database errors propagate.

    PostgreSQL plans from statistics that only ``ANALYZE`` or autovacuum (a minute
    later) update. After make bench's import of 5,000 papers into empty tables a search
    took 343 ms of server CPU, the author page 47, the conference page 23; after
    ``ANALYZE`` (0.15 s) 13, 6 and 9 ms (benchmarks/server_time.py's "DB CPU"). SQLite
    has no statistics unless ``ANALYZE`` makes them, and is quicker without: with them,
    a search for a word at 50,000 papers walked each conference's papers row by row
    (95-220 ms) instead of the index of the matched text (26 ms).
    """
    if connection.vendor != "postgresql":
        return
    tables = []
    for model in models:
        tables.append(model._meta.db_table)
        tables += [
            field.remote_field.through._meta.db_table
            for field in model._meta.local_many_to_many
            if field.remote_field.through._meta.db_table not in tables
        ]
    if tables:
        names = ", ".join(connection.ops.quote_name(table) for table in dict.fromkeys(tables))
        with connection.cursor() as cursor:
            cursor.execute(f"ANALYZE {names}")  # the models' own table names, quoted


def record_history(changes, source, also_changed=None):
    """Write the django-reversion revisions (comment ``import_conference <file>``) with a
    version of every object created or updated, of ``also_changed`` ({model: primary
    keys}: papers whose rows were removed) and of unchanged ones without any; return how
    many."""
    changed, unversioned = defaultdict(set), defaultdict(set)
    for model, pks in (also_changed or {}).items():
        changed[model] |= pks
    for change in changes:
        if change.action == DELETED:
            continue  # not in the database: its deletion is in its own history
        versions = unversioned if change.action == "unchanged" else changed
        versions[change.item.model].add(change.pk)
    return record_versions(changed, f"import_conference {source}".strip(), missing_only=unversioned)


def _reached(changes, primary_keys):
    """``(papers, authors)``: primary keys of the papers whose matched text (catalogue/
    matching.py) or share card and authors whose ``has_published_paper`` ``changes`` may
    change: papers created or updated, of authorships and award entries created or
    updated, of authors and institutions updated; authors of authorships created or
    updated, of papers and conferences updated."""
    papers, authors = set(), set()
    updated = defaultdict(set)  # model -> primary keys of the objects updated
    for change in changes:
        if change.action not in ("create", "update"):
            continue
        model = change.item.model
        if model is Paper:
            papers.add(change.pk)
        elif model is Authorship:
            papers.add(primary_keys[Paper][tuple(change.final["paper"])])
            authors.add(primary_keys[Author][tuple(change.final["author"])])
        elif model is AwardEntry:  # the award a paper's share card names
            papers.add(primary_keys[Paper][tuple(change.final["paper"])])
        if change.action == "update":
            updated[model].add(change.pk)
    # What the objects updated reach through authorships.
    for model, lookup, reached, column in (
        (Author, "author__in", papers, "paper_id"),
        (Institution, "affiliation_rows__institution__in", papers, "paper_id"),
        (Paper, "paper__in", authors, "author_id"),
        (Conference, "paper__conference__in", authors, "author_id"),
    ):
        for chunk in chunks(sorted(updated[model])):
            rows = Authorship.objects.filter(**{lookup: chunk})
            reached.update(rows.values_list(column, flat=True))
    return papers, authors


def _python_value(spec, value, primary_keys, change):
    if spec.kind == "reference":
        return None if value is None else primary_keys[spec.target][tuple(value)]
    if spec.kind == "date":
        return value and datetime.date.fromisoformat(value)
    if spec.kind == "image":
        if not value:
            return ""
        image = change.item.images[spec.name]
        return store_image(image.name, image.data)
    return value


def _apply_model(model, changes, primary_keys):
    specs = field_specs(model)
    plain = [spec for spec in specs.values() if spec.kind != "references"]
    # Rows that change places first step aside, the model's own way (authors: so that
    # no intermediate state breaks the one-author-per-position constraint).
    moving = [c.pk for c in changes if c.action == "update" and "position" in c.changes]
    if moving and hasattr(model.objects, "move_aside"):
        for chunk in chunks(moving):
            model.objects.filter(pk__in=chunk).move_aside()
    # Created BATCH_SIZE at a time, keeping only the primary keys: at 50,000 papers the
    # 450,000 new model instances, all held, took 400 MB (benchmarks/import_conference.py).
    for chunk in chunks(change for change in changes if change.action == "create"):
        instances = []
        for change in chunk:
            kwargs = {
                spec.attname: _python_value(spec, change.final[spec.name], primary_keys, change)
                for spec in plain
            }
            instances.append(model(**kwargs))
            derived.refresh(instances[-1])  # bulk_create sends no pre_save signal
        # Primary keys come back (RETURNING: SQLite 3.35+, PostgreSQL).
        model.objects.bulk_create(instances)
        for change, instance in zip(chunk, instances, strict=True):
            change.pk = instance.pk
    for change in changes:
        if change.pk is not None:
            primary_keys[model][change.item.key] = change.pk
    # Updates, grouped by the set of fields they change.
    groups = defaultdict(list)
    for change in changes:
        if change.action != "update":
            continue
        names = set()
        for name in change.changes:
            spec = specs[name]
            if spec.kind == "references":
                continue
            setattr(
                change.instance,
                spec.attname,
                _python_value(spec, change.final[name], primary_keys, change),
            )
            names.add(spec.attname)
            if spec.translated:  # keep modeltranslation's original column in step
                names.add(spec.field.translated_field.attname)
        names |= derived.refresh_changed(change.instance, names)
        if names:
            groups[frozenset(names)].append(change.instance)
    for names, instances in groups.items():
        model.objects.bulk_update(instances, sorted(names), batch_size=BATCH_SIZE)
    for spec in specs.values():
        if spec.kind == "references":
            _apply_many_to_many(model, spec, changes, primary_keys)


def _apply_many_to_many(model, spec, changes, primary_keys):
    through = getattr(model, spec.name).through
    source = f"{model._meta.model_name}_id"
    target = f"{spec.target._meta.model_name}_id"
    touched = [
        change
        for change in changes
        if (change.action == "create" and change.final[spec.name]) or spec.name in change.changes
    ]
    if not touched:
        return
    for chunk in chunks([change.pk for change in touched if change.action == "update"]):
        through.objects.filter(**{f"{source}__in": chunk}).delete()
    ordered = not through._meta.auto_created  # a through model with a position
    for chunk in chunks(touched):
        rows = [
            through(
                **{source: change.pk, target: primary_keys[spec.target][tuple(key)]},
                **({"position": position} if ordered else {}),
            )
            for change in chunk
            for position, key in enumerate(change.final[spec.name], start=1)
        ]
        through.objects.bulk_create(rows, batch_size=BATCH_SIZE)


def _write_records(changes, source):
    """Save what the import set on each object whose record changed, as upserts of
    ``BATCH_SIZE`` records, each batch made when written (all at once, the records of
    a 5,000-paper import held 17 MB more at the peak; of 50,000, ten times that)."""
    for chunk in chunks(change for change in changes if change.record_changed):
        records = [
            ImportRecord(
                model=change.item.label,
                key=format_key(change.item.key),
                values=change.record_values,
                source=source,
            )
            for change in chunk
        ]
        ImportRecord.objects.bulk_create(
            records,
            update_conflicts=True,
            unique_fields=["model", "key"],
            update_fields=["values", "source", "imported_at"],
        )
