"""Conference files uploaded in the admin (importing/admin.py), read by the
importer's own engine (``importing.pipeline.import_fixture``, as ``import_conference``).

The files of one upload are saved in a private folder of their own (mode 0700, in
Django's ``FILE_UPLOAD_TEMP_DIR`` or the system's temporary folder, never MEDIA_ROOT),
named by a random token that a :class:`~editorial.models.ConferenceImport` row gives to
the editor who uploaded them alone. The folder is kept from the dry run to the import (at
most ``LIFETIME``) and removed after it. What an editor may import: conferences of the
venues they edit (editorial/teams.py), and something published only with the publish
right (editorial/review.py)."""

import datetime
import secrets
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from django.conf import settings
from django.db import transaction
from django.utils import timezone
from django.utils.text import capfirst
from django.utils.translation import gettext as _
from reversion.models import Revision

from catalogue.models import (
    Authorship,
    Award,
    AwardEntry,
    AwardLevel,
    Conference,
    Paper,
    PaperLink,
    Status,
    Venue,
)
from editorial import teams
from editorial.models import ConferenceImport
from editorial.review import may_publish
from importing.fields import FixtureInvalid, Problem
from importing.files import MAX_FILE_SIZE  # of each file but images (the form's too)
from importing.pipeline import import_fixture
from importing.planning import DELETED

# The folders' names begin with this, followed by the token.
PREFIX = "awardsite-import-"
# How long an upload waits for its import; older ones are removed at the next upload.
LIFETIME = datetime.timedelta(days=1)
# The models whose natural key begins with their conference's slug.
UNDER_CONFERENCE = (Award, AwardLevel, AwardEntry)
# The models whose natural key begins with their paper's slug.
UNDER_PAPER = (Authorship, PaperLink)


class Refused(Exception):
    """The file is readable, but this editor may not import it: ``messages`` say why."""

    def __init__(self, messages):
        self.messages = messages
        super().__init__("; ".join(messages))


@dataclass
class Report:
    """What an import does, for the editor: object names (``"Paper: gradients"``) that are
    ``new``, ``changed`` (with the names of the fields), ``kept`` unchanged, ``conflicts``
    (an editor's change kept: name, field, value kept, the file's value), ``deleted``
    (deleted by an editor since the last import, not created again), ``removed`` (rows an
    import brought that the file no longer lists: authorships, links, award entries),
    ``added_by_editors`` (such rows an editor added: kept), ``warnings`` (the reader's
    notes, possible duplicates, and awarded papers that will not be visible), and the
    slugs of the file's ``conferences``."""

    new: list = field(default_factory=list)
    changed: list = field(default_factory=list)
    kept: list = field(default_factory=list)
    conflicts: list = field(default_factory=list)
    deleted: list = field(default_factory=list)
    removed: list = field(default_factory=list)
    added_by_editors: list = field(default_factory=list)
    warnings: list = field(default_factory=list)
    conferences: list = field(default_factory=list)


def folder_of(upload):
    """The private folder of ``upload`` (a ConferenceImport), a Path."""
    return Path(settings.FILE_UPLOAD_TEMP_DIR or tempfile.gettempdir()) / f"{PREFIX}{upload.token}"


@transaction.atomic
def save_upload(user, compact_file, others=()):
    """Save the uploaded ``compact_file`` and ``others`` (Django UploadedFiles, their names
    checked by the form: plain, distinct) in a new private folder; return the saved
    :class:`ConferenceImport` of ``user``. Removes the uploads older than ``LIFETIME``."""
    for expired in ConferenceImport.objects.filter(created__lt=timezone.now() - LIFETIME):
        remove(expired)
    upload = ConferenceImport(
        token=secrets.token_urlsafe(32), user=user, file_name=compact_file.name
    )
    folder = folder_of(upload)
    folder.mkdir(mode=0o700)
    for uploaded in (compact_file, *others):
        with open(folder / uploaded.name, "xb") as out:  # "x": never over another file
            for chunk in uploaded.chunks():
                out.write(chunk)
    upload.save()
    return upload


def remove(upload):
    """Delete ``upload``'s folder and its row (if saved)."""
    shutil.rmtree(folder_of(upload), ignore_errors=True)
    if upload.pk is not None:
        upload.delete()


def run(upload, user, *, dry_run):
    """Read ``upload`` with the importer (:func:`import_fixture`) for ``user``; with
    ``dry_run`` write nothing, else import it, the history's revisions in ``user``'s name.
    Returns ``(plan, report)``. Raises :class:`FixtureInvalid` for a file with problems
    (their text names the file without its folder), :class:`Refused` for what ``user`` may
    not import or files no longer kept; in each case nothing is written."""
    path = folder_of(upload) / upload.file_name
    if not path.parent.is_dir():
        raise Refused(
            [
                _(
                    "The uploaded files are no longer kept (an upload is kept for a day, "
                    "on the server it was sent to): upload them again."
                )
            ]
        )
    source = f"{upload.file_name} (uploaded in the admin)"
    try:
        with transaction.atomic():
            # The check needs the plan; the import runs only once it has passed.
            plan = import_fixture(path, dry_run=True, max_bytes=MAX_FILE_SIZE)
            refusals = refused(plan, user)
            if refusals:
                raise Refused(refusals)
            if not dry_run:
                last = Revision.objects.order_by("-pk").values_list("pk", flat=True).first()
                plan = import_fixture(path, source=source, max_bytes=MAX_FILE_SIZE)
                written = Revision.objects.filter(
                    pk__gt=last or 0, user=None, comment=f"import_conference {source}"
                )
                written.update(user=user)
    except FixtureInvalid as error:
        for problem in error.problems:
            problem.file = Path(problem.file).name  # every file it reads is in the folder
        raise
    except ValueError as error:  # a value the reader does not catch yet (a date 2024-12-32)
        raise FixtureInvalid([Problem(upload.file_name, str(error))]) from None
    return plan, report_of(plan)


def refused(plan, user):
    """Why ``user`` may not import ``plan``: a list of messages, empty if they may. An
    object with a status published that was not (new, or its status changed) needs the
    publish right of its model; a conference (and what belongs to it) one of the venues
    ``user`` edits; a new venue, or a new or changed award kind, a site-wide editor."""
    messages = []
    for change in plan.changes:
        model = change.item.model
        publishes = change.final.get("status") == Status.PUBLISHED and (
            change.action == "create" or "status" in change.changes
        )
        if change.action != DELETED and publishes and not may_publish(user, model):
            messages.append(
                _(
                    "%(object)s would be published, and only publishers publish: write its "
                    "status as draft (or leave it out) and ask a publisher to review it."
                )
                % {"object": name_of(change.item)}
            )
    if teams.is_site_wide(user):
        return messages
    for change in plan.changes:  # shared objects only site-wide editors add or change
        action = {"create": "add", "update": "change"}.get(change.action)
        model = change.item.model
        if action and model not in teams.VENUE_PATHS and not teams.may(user, action, model):
            messages.append(
                _("%(object)s: only site-wide editors add or change these; ask one to.")
                % {"object": name_of(change.item)}
            )
    editable = set(teams.team_venues(user).values_list("slug", flat=True))
    for slug, names in _venues_reached(plan).items():
        if slug not in editable:
            messages.append(
                _("%(objects)s: the venue %(venue)s is not one of the venues you edit.")
                % {"objects": ", ".join(names), "venue": slug}
            )
    return messages


def _venues_reached(plan):
    """{venue slug: [names of the file's conferences and venues reaching it]}."""
    changes = [change for change in plan.changes if change.action != DELETED]
    conference_of_paper = {
        c.item.key[0]: c.final["conference"][0] for c in changes if c.item.model is Paper
    }
    papers = {c.item.key[0] for c in changes if c.item.model in UNDER_PAPER}
    missing = papers - set(conference_of_paper)
    conference_of_paper.update(
        Paper.objects.filter(slug__in=missing).values_list("slug", "conference__slug")
    )
    conferences = {
        c.item.key[0] for c in changes if c.item.model in (Conference, *UNDER_CONFERENCE)
    }
    conferences |= set(conference_of_paper.values())
    venue_of = {c.item.key[0]: c.final["venue"][0] for c in changes if c.item.model is Conference}
    missing = conferences - set(venue_of)
    venue_of.update(Conference.objects.filter(slug__in=missing).values_list("slug", "venue__slug"))
    reached = {}
    for change in changes:
        if change.item.model is Venue:
            reached.setdefault(change.item.key[0], []).append(name_of(change.item))
    for conference in sorted(conferences):
        name = f"{capfirst(Conference._meta.verbose_name)}: {conference}"
        reached.setdefault(venue_of.get(conference), []).append(name)
    return reached


def name_of(item):
    """An object of the file (an Item, or a row the file no longer lists: a Leftover) as
    the report names it: "Paper: gradients", in the active language (the model's verbose
    name, then its natural key)."""
    key = " / ".join(str(part) for part in item.key)
    return f"{capfirst(item.model._meta.verbose_name)}: {key}"


def _field_name(model, name):
    try:
        return str(model._meta.get_field(name).verbose_name)
    except LookupError:
        return name


def report_of(plan):
    """The :class:`Report` of ``plan``, in the active language."""
    report = Report()
    document = plan.fixture.document
    report.warnings = list(document.notes) if document is not None else []
    report.warnings += [f"not visible: {warning}" for warning in plan.warnings]
    report.removed = [name_of(leftover) for leftover in plan.removed]
    report.added_by_editors = [name_of(leftover) for leftover in plan.kept_additions]
    for change in plan.changes:
        item, name = change.item, name_of(change.item)
        if item.model is Conference:
            report.conferences.append(item.key[0])
        if change.action == "create":
            report.new.append(name)
        elif change.action == "update":
            fields = [_field_name(item.model, field_name) for field_name in change.changes]
            report.changed.append((name, fields))
        elif change.action == DELETED:
            report.deleted.append(name)
        else:
            report.kept.append(name)
        for field_name, (kept, offered) in change.conflicts.items():
            field_label = _field_name(item.model, field_name)
            report.conflicts.append((name, field_label, kept, offered))
    return report
