"""The history of content objects (django-reversion): a version holds the object with
what belongs to it (``FOLLOW``), restored and recovered together, without
modeltranslation's original columns (``title``, mirroring ``title_en`` or another).
The importer's versions are written in bulk.
"""

import json
from collections import defaultdict

import reversion
from django.contrib.contenttypes.models import ContentType
from django.core import serializers
from django.core.serializers.json import DjangoJSONEncoder
from django.db import router
from django.db.models import CharField, Max, OuterRef, Subquery
from django.db.models.functions import Cast
from django.utils import timezone, translation
from django.utils.encoding import force_str
from modeltranslation.translator import NotRegistered, translator
from reversion.models import Revision, Version

from catalogue import derived
from catalogue.models import (
    Affiliation,
    Author,
    Authorship,
    Award,
    AwardEntry,
    AwardKind,
    AwardLevel,
    Conference,
    Institution,
    Paper,
    PaperLink,
    Venue,
)

# What belongs to each model: reverse relations (related names) whose objects are saved,
# restored and recovered with it. Each one is also an inline of the model's admin.
FOLLOW = {
    Venue: (),
    AwardKind: (),
    Conference: ("awards",),
    Institution: (),
    Author: (),
    Paper: ("authorships", "links", "award_entries"),
    # An explicit through model: its rows are not in the authorship's serialisation.
    Authorship: ("affiliation_rows",),
    Affiliation: (),
    PaperLink: (),
    Award: ("levels", "entries"),
    AwardLevel: (),
    AwardEntry: (),
}
# Rows per query when versions are written in bulk (below SQLite's parameter limit).
BATCH_SIZE = 500
# What each model's __str__ reads from related objects (a version stores it as its name).
REPR_RELATED = {
    Authorship: ("author",),
    Affiliation: ("authorship__author", "institution"),
    Award: ("conference",),
    AwardLevel: ("award__conference",),
    AwardEntry: ("award__conference", "paper"),
}


def mirrored_fields(model):
    """modeltranslation's original field names of ``model`` (``title`` for ``title_en``)."""
    try:
        return tuple(translator.get_options_for_model(model).fields)
    except NotRegistered:
        return ()


# Derived columns, these and each model's ``derived_columns`` (catalogue/derived.py): not
# in versions (a restore derives them again) nor in edit tokens (renaming an author must
# not refuse open forms of the author's papers; restoring a version older than a derived
# column must not refuse its own form).
NOT_RECORDED = {"match_text"}


def recorded_fields(model):
    """The field names a version of ``model`` holds: its own fields and many-to-many
    fields, less modeltranslation's mirrored ones, derived columns and ``NOT_RECORDED``."""
    derived_columns = [name for column in derived.of(model) for name in column.columns(model)]
    excluded = {*mirrored_fields(model), *derived_columns, *NOT_RECORDED}
    return [
        field.name
        for field in [*model._meta.local_fields, *model._meta.local_many_to_many]
        if field.name not in excluded
    ]


def register_models():
    """Register every content model with its ``FOLLOW`` relations (explicitly: registered
    by the admin, an award met first as an inline would lose its entries). Call once,
    after modeltranslation; a second call raises ``reversion.RegistrationError``."""
    for model, follow in FOLLOW.items():
        reversion.register(model, fields=recorded_fields(model), follow=follow)


def related_model_and_key(model, name):
    """(related model, name of its foreign key to ``model``) for the related name ``name``."""
    relation = model._meta.get_field(name)
    return relation.related_model, relation.field.name


def belongings(obj):
    """``obj`` and all that belongs to it (``FOLLOW``, recursively; a version's objects),
    in a fixed order; a query per relation followed."""
    found, queue = [], [obj]
    while queue:
        current = queue.pop(0)
        found.append(current)
        for name in FOLLOW.get(type(current), ()):
            queue.extend(getattr(current, name).order_by("pk"))
    return found


def _owners(model):
    """(owner model, foreign key name) pairs: the models ``model``'s objects belong to."""
    return [
        (owner, related_model_and_key(owner, name)[1])
        for owner, names in FOLLOW.items()
        for name in names
        if related_model_and_key(owner, name)[0] is model
    ]


def _with_owners(keys):
    """``keys`` ({model: set of pks}) grown by their owners: whoever owns a changed object
    changed too (a new author changes the paper)."""
    keys = defaultdict(set, {model: set(pks) for model, pks in keys.items()})
    for model in reversed(list(FOLLOW)):
        for owner, foreign_key in _owners(model):
            owner_keys = model._base_manager.values_list(f"{foreign_key}_id", flat=True)
            for chunk in _chunks(sorted(keys[model])):
                keys[owner].update(owner_keys.filter(pk__in=chunk))
    return keys


def _add_belongings(keys):
    """Add to ``keys`` ({model: set of pks}) all that belongs to its objects, in one pass
    (owners come first in ``FOLLOW``)."""
    for model, names in FOLLOW.items():
        for name in names:
            related, foreign_key = related_model_and_key(model, name)
            rows = related._base_manager.values_list("pk", flat=True)
            for chunk in _chunks(sorted(keys[model])):
                keys[related].update(rows.filter(**{f"{foreign_key}__in": chunk}))


def _children(roots):
    """{(model, pk): [(related model, pk), ...]}: what directly belongs to each object
    below ``roots`` ((model, pk) pairs), each list in ``FOLLOW``'s then primary key order."""
    children, level = defaultdict(list), defaultdict(set)
    for model, pk in roots:
        level[model].add(pk)
    while level:
        below = defaultdict(set)
        for model, pks in level.items():
            for name in FOLLOW[model]:
                related, foreign_key = related_model_and_key(model, name)
                rows = related._base_manager.values_list(f"{foreign_key}_id", "pk").order_by("pk")
                for chunk in _chunks(sorted(pks)):
                    for owner, pk in rows.filter(**{f"{foreign_key}__in": chunk}):
                        children[(model, owner)].append((related, pk))
                        below[related].add(pk)
        level = below
    return children


def _chunks(items):
    for start in range(0, len(items), BATCH_SIZE):
        yield items[start : start + BATCH_SIZE]


def record_versions(keys, comment, *, missing_only=None):
    """Write in bulk the history of the objects in ``keys`` ({model: pks}) and their owners,
    a revision per object with all that belongs to it, and of ``missing_only`` ones without
    a version yet; return the number of revisions written. A few queries per 500 objects
    (several per object with ``reversion.add_to_revision``).

    The revisions are written ``BATCH_SIZE`` at a time, each batch's subtrees read and
    serialised when it is written: at 50,000 papers (1.5 million versions) all at once
    took more memory than the rest of the import (``benchmarks/import_conference.py``).
    An object in several batches' subtrees (an authorship: its paper's and its own) is
    read once for each."""
    keys = _with_owners(keys)
    for model, pks in (missing_only or {}).items():
        keys[model].update(_without_versions(model, pks - keys[model]))
    _add_belongings(keys)
    now, written = timezone.now(), 0
    for model in FOLLOW:
        for chunk in _chunks(sorted(keys[model])):
            roots = [(model, pk) for pk in chunk]
            children = _children(roots)
            groups = [_subtree(node, children) for node in roots]
            serialised = _serialised({node for group in groups for node in group})
            revisions = Revision.objects.bulk_create(
                [Revision(comment=comment, date_created=now) for _group in groups],
                batch_size=BATCH_SIZE,
            )
            versions = [
                Version(revision=revision, **serialised[node])
                for revision, group in zip(revisions, groups, strict=True)
                for node in group
            ]
            Version.objects.bulk_create(versions, batch_size=BATCH_SIZE)
            written += len(revisions)
    return written


def _serialised(nodes):
    """{(model, pk): Version fields} of the objects ``nodes``, as reversion serialises them."""
    by_model = defaultdict(list)
    for model, pk in nodes:
        by_model[model].append(pk)
    serialised = {}
    with translation.override("en"):  # object_repr of translated models
        for model, pks in by_model.items():
            serialised.update(
                ((model, pk), version) for pk, version in serialised_versions(model, sorted(pks))
            )
    return serialised


def _subtree(node, children):
    """``node`` and everything below it in ``children``, owners first."""
    found, queue = [], [node]
    while queue:
        current = queue.pop(0)
        found.append(current)
        queue.extend(children.get(current, ()))
    return found


def _without_versions(model, pks):
    """The primary keys ``pks`` of ``model``'s objects that have no version yet."""
    versions, have = Version.objects.get_for_model(model), set()
    for chunk in _chunks(sorted(force_str(pk) for pk in pks)):
        have.update(versions.filter(object_id__in=chunk).values_list("object_id", flat=True))
    return {pk for pk in pks if force_str(pk) not in have}


def serialised_versions(model, pks):
    """``(pk, Version fields)`` of ``model``'s objects ``pks``, serialised as reversion
    would (JSON, the registered fields)."""
    if not pks:
        return []
    content_type = ContentType.objects.get_for_model(model)
    fields = recorded_fields(model)
    db = router.db_for_write(model)
    versions = []
    for chunk in _chunks(pks):
        objects = list(
            model._base_manager.filter(pk__in=chunk).select_related(*REPR_RELATED.get(model, ()))
        )
        # Many-to-many fields all have a through model, whose rows are versions of their own.
        rows = serializers.serialize("python", objects, fields=fields)
        for obj, row in zip(objects, rows, strict=True):
            version = {
                "content_type": content_type,
                "object_id": force_str(obj.pk),
                "db": db,
                "format": "json",
                "serialized_data": json.dumps([row], cls=DjangoJSONEncoder, ensure_ascii=False),
                "object_repr": force_str(obj),
            }
            versions.append((obj.pk, version))
    return versions


def _versions_of(model):
    """The versions of ``model``'s objects, by a join on the content type (no query of
    ContentType's cache, which a cold process would add to a page's count)."""
    return Version.objects.filter(
        db=router.db_for_write(model),
        content_type__app_label=model._meta.app_label,
        content_type__model=model._meta.model_name,
    )


def last_changed(model):
    """A subquery for ``annotate()`` on ``model``'s rows: when the row was last changed,
    the date (aware datetime) of its newest version in its history (django-reversion:
    every save in the admin and every import writes one), None for a row without one.
    The catalogue's models keep no modification time of their own."""
    versions = _versions_of(model).filter(object_id=Cast(OuterRef("pk"), CharField()))
    newest = versions.order_by("-revision__date_created").values("revision__date_created")
    return Subquery(newest[:1])


def latest_change(model):
    """When any object of ``model`` last changed (the newest version's date, an aware
    datetime), or None: one query."""
    return _versions_of(model).aggregate(latest=Max("revision__date_created"))["latest"]
