"""The history of content objects (django-reversion): what belongs to what, and versions
written in bulk by the importer.

An object's version is taken together with what belongs to it (django-reversion's
``follow``), so that restoring a version or recovering a deleted object brings all of it
back: a conference with its awards, an award with its levels and their entries, a paper
with its authorships (and their affiliations, in order), links and award entries.

``register_models()`` registers every content model once, explicitly (the admin would
otherwise register them implicitly, in the order it meets them, and an award met first
as a conference's inline would lose its entries). Versions leave out modeltranslation's
original columns (``title`` beside ``title_en`` and ``title_zh_hans``): they only mirror
the active language, so they would make one unchanged object look different to editors
working in different languages.
"""

import json
from collections import defaultdict

import reversion
from django.contrib.contenttypes.models import ContentType
from django.core import serializers
from django.core.serializers.json import DjangoJSONEncoder
from django.db import router
from django.utils import timezone, translation
from django.utils.encoding import force_str
from modeltranslation.translator import NotRegistered, translator
from reversion.models import Revision, Version

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
    Venue,
)

# What belongs to each model: reverse relations (related names) whose objects are saved,
# restored and recovered with it. Each one is also an inline of the model's admin.
FOLLOW = {
    Venue: (),
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


# Columns worked out from other objects' rows (a paper's matched text holds its authors'
# names: catalogue/search.py; whether an author has a published paper:
# catalogue/published_authors.py): a version does not hold them (a restore works them out
# again) and an edit token leaves them out, so renaming an author does not refuse an
# open form of each of the author's papers, nor publishing a paper an open form of
# each of its authors.
NOT_RECORDED = {"match_text", "has_published_paper"}


def recorded_fields(model):
    """The field names a version of ``model`` holds: its own fields and many-to-many
    fields, less modeltranslation's mirrored ones and ``NOT_RECORDED``."""
    excluded = {*mirrored_fields(model), *NOT_RECORDED}
    return [
        field.name
        for field in [*model._meta.local_fields, *model._meta.local_many_to_many]
        if field.name not in excluded
    ]


def register_models():
    """Register every content model with django-reversion, with its ``FOLLOW`` relations.

    Call once, after modeltranslation has added its columns (``editorial.admin`` does, before
    its ModelAdmins are built). Raises ``reversion.RegistrationError`` on a second call.
    """
    for model, follow in FOLLOW.items():
        reversion.register(model, fields=recorded_fields(model), follow=follow)


def _relation(model, name):
    """(related model, name of its foreign key to ``model``) for the related name ``name``."""
    relation = model._meta.get_field(name)
    return relation.related_model, relation.field.name


def belongings(obj):
    """``obj`` and everything that belongs to it (``FOLLOW``, recursively), in a fixed order.

    The objects a version of ``obj`` holds. One query per relation followed.
    """
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
        (owner, _relation(owner, name)[1])
        for owner, names in FOLLOW.items()
        for name in names
        if _relation(owner, name)[0] is model
    ]


def _with_owners_and_belongings(keys):
    """``keys`` ({model: set of pks}) grown by their owners, then by everything that
    belongs to those, in bulk (a few queries per model, not per object)."""
    keys = defaultdict(set, {model: set(pks) for model, pks in keys.items()})
    # Up: whoever owns a changed object changed too (a new author changes the paper).
    for model in reversed(list(FOLLOW)):
        for owner, foreign_key in _owners(model):
            for chunk in _chunks(sorted(keys[model])):
                keys[owner].update(
                    model._base_manager.filter(pk__in=chunk).values_list(
                        f"{foreign_key}_id", flat=True
                    )
                )
    # Down: a version of an owner holds all it owns.
    for model in FOLLOW:
        for name in FOLLOW[model]:
            related, foreign_key = _relation(model, name)
            for chunk in _chunks(sorted(keys[model])):
                keys[related].update(
                    related._base_manager.filter(**{f"{foreign_key}__in": chunk}).values_list(
                        "pk", flat=True
                    )
                )
    return keys


def _chunks(items):
    for start in range(0, len(items), BATCH_SIZE):
        yield items[start : start + BATCH_SIZE]


def record_versions(keys, comment, *, missing_only=None):
    """Write the history of the objects in ``keys``, in bulk: one revision per object,
    holding a version of the object and of everything that belongs to it (``FOLLOW``).

    ``keys`` maps a model to the primary keys of its objects that were created or changed;
    their owners and what belongs to those are added, as django-reversion's ``follow``
    would. ``missing_only`` maps a model to primary keys that get a version only if they
    have none yet (objects that predate history). Returns the revisions written, owners
    before what they own (so an object's latest version is the one of its own revision).

    One revision per object, not one for the whole import: django-reversion restores and
    recovers a whole revision, so a single revision would make recovering one deleted
    award also put back every other imported object as it was at the import, undoing
    editors' later changes. For ``import_conference``: a few queries per 500 objects,
    where ``reversion.add_to_revision`` would take several per object.
    """
    keys = _with_owners_and_belongings(keys)
    for model, pks in (missing_only or {}).items():
        keys[model].update(_without_versions(model, pks - keys[model]))
    # What belongs to the objects added above gets its versions too, down to the leaves.
    while True:
        children = _children(keys)
        added = [
            (model, pk)
            for nodes in children.values()
            for model, pk in nodes
            if pk not in keys[model]
        ]
        if not added:
            break
        for model, pk in added:
            keys[model].add(pk)
    serialised = {}
    with translation.override("en"):  # object_repr of translated models
        for model in FOLLOW:
            for pk, version in _versions(model, sorted(keys[model])):
                serialised[(model, pk)] = version
    if not serialised:
        return []
    groups = [_subtree((model, pk), children) for model in FOLLOW for pk in sorted(keys[model])]
    now = timezone.now()
    revisions = Revision.objects.bulk_create(
        [Revision(comment=comment, date_created=now) for _group in groups],
        batch_size=BATCH_SIZE,
    )
    versions = []
    for revision, group in zip(revisions, groups, strict=True):
        for node in group:
            template = serialised[node]
            versions.append(
                Version(
                    revision_id=revision.pk,
                    content_type_id=template.content_type_id,
                    object_id=template.object_id,
                    db=template.db,
                    format=template.format,
                    serialized_data=template.serialized_data,
                    object_repr=template.object_repr,
                )
            )
    Version.objects.bulk_create(versions, batch_size=BATCH_SIZE)
    return revisions


def _children(keys):
    """{(model, pk): [(related model, pk), ...]}: what directly belongs to each object of
    ``keys`` (``FOLLOW``), read a chunk of owners per query."""
    children = defaultdict(list)
    for model, names in FOLLOW.items():
        for name in names:
            related, foreign_key = _relation(model, name)
            for chunk in _chunks(sorted(keys[model])):
                rows = related._base_manager.filter(**{f"{foreign_key}__in": chunk})
                for owner, pk in rows.values_list(f"{foreign_key}_id", "pk").order_by("pk"):
                    children[(model, owner)].append((related, pk))
    return children


def _subtree(node, children):
    """``node`` and everything below it in ``children``, owners first."""
    found, queue = [], [node]
    while queue:
        current = queue.pop(0)
        found.append(current)
        queue.extend(children.get(current, ()))
    return found


def _without_versions(model, pks):
    content_type = ContentType.objects.get_for_model(model)
    ids = sorted(pks)
    have = set()
    for chunk in _chunks([force_str(pk) for pk in ids]):
        have.update(
            Version.objects.filter(content_type=content_type, object_id__in=chunk).values_list(
                "object_id", flat=True
            )
        )
    return {pk for pk in ids if force_str(pk) not in have}


def _versions(model, pks):
    """``(pk, unsaved Version)`` pairs for ``model``'s objects ``pks``, serialised as
    reversion would (its JSON format, the registered fields), a chunk of objects per query."""
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
            versions.append(
                (
                    obj.pk,
                    Version(
                        content_type=content_type,
                        object_id=force_str(obj.pk),
                        db=db,
                        format="json",
                        serialized_data=json.dumps(
                            [row], cls=DjangoJSONEncoder, ensure_ascii=False
                        ),
                        object_repr=force_str(obj),
                    ),
                )
            )
    return versions
