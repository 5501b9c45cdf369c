"""Publishing at an hour: what ``manage.py publish_scheduled`` does each minute.

Each conference and award whose ``publish_at`` has come and that is not published yet is
published as the admin's publish action does it (``editorial.review.change_status``: saved
with the model signals the page cache and the feed follow), in a revision of its own whose
user is the publisher who scheduled it and whose comment says so. Conferences go first,
so that an award due at the same minute is public as soon as it is published.

Two runs at once publish each item once: each item is published in a transaction of its
own that first takes it again, locked (PostgreSQL: ``SELECT ... FOR UPDATE SKIP LOCKED``,
so the other run skips it, or finds it published; SQLite: the transaction holds the
database's write lock from its start, ``transaction_mode`` IMMEDIATE in settings).
"""

import datetime

from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone

from catalogue.models import Award, Conference, Status
from editorial.review import change_status

SCHEDULED_MODELS = (Conference, Award)


def due(now):
    """Every conference and award due by ``now`` (an aware datetime), unpublished: a list,
    conferences first, each the earliest first."""
    return [obj for model in SCHEDULED_MODELS for obj in model.objects.due(now)]


def publish_due(now=None):
    """Publish what is due by ``now`` (an aware datetime; default: this moment), one item
    per transaction, and return the items published (an item another run published
    meanwhile is not among them). The history names who scheduled each."""
    now = now or timezone.now()
    published = []
    for model in SCHEDULED_MODELS:
        while (obj := _publish_next(model, now)) is not None:
            published.append(obj)
    return published


def _publish_next(model, now):
    """Publish the earliest due item of ``model`` that no other run holds; it, or None."""
    with transaction.atomic():
        rows = model.objects.due(now).select_for_update(skip_locked=True, of=("self",))
        obj = rows.first()
        if obj is None:
            return None
        scheduled_at, scheduled_by = obj.publish_at, obj.scheduled_by
        User = get_user_model()
        user = User._default_manager.filter(**{User.USERNAME_FIELD: scheduled_by}).first()
        # In English, as the importer's comments: the history is written by no one's request.
        when = scheduled_at.astimezone(datetime.UTC).strftime("%Y-%m-%d %H:%M")
        comment = (
            f"Published on schedule (publish at {when} UTC), "
            f"as scheduled by {scheduled_by or 'an unknown editor'}."
        )
        change_status([obj], Status.PUBLISHED, user=user, comment=comment)
    return obj
