"""Review before publishing, and publishing at an hour, in the editors' admin.

A conference, award or paper goes draft -> ready for review -> published. Publishing,
returning a published item to draft and scheduling need the publish right of its model
(``papers.publish_<model>``, the Publishers group: editorial/roles.py); an editor without
it asks for review. Each step is a revision of the history, whose user and comment say
who asked, who published or scheduled, and when. A restore or recovery that would
publish, unpublish or reschedule something needs the right too. ``publish_scheduled``
(editorial/scheduling.py) publishes what is due.
"""

import reversion
from django import forms
from django.contrib import admin, messages
from django.contrib.admin.widgets import AdminSplitDateTime
from django.shortcuts import redirect
from django.utils import timezone
from django.utils.formats import date_format
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext_lazy
from reversion.models import Version

from catalogue.models import Status
from editorial.forms import choices_listed

SCHEDULE_FIELD = "publish_time"  # the form's field for ``publish_at`` (not editable)
ZONE_FIELD = "time_zone"  # the zone the form showed its times in
# The history's comment on each step (a revision's comment starts with it).
STEP_NOTES = {
    Status.DRAFT: _("Returned to draft."),
    Status.REVIEW: _("Asked for review."),
    Status.PUBLISHED: _("Published."),
}


def may_publish(user, model):
    """Whether ``user`` holds the publish right of ``model`` (a model with a status)."""
    return user.has_perm(f"{model._meta.app_label}.publish_{model._meta.model_name}")


def is_scheduled(model):
    """Whether ``model`` can be published at an hour (it has ``publish_at``)."""
    return any(field.name == "publish_at" for field in model._meta.concrete_fields)


def shown_time(value):
    """``value`` (an aware datetime) in the active time zone, with the zone's name."""
    local = timezone.localtime(value)
    return f"{date_format(local, 'DATETIME_FORMAT')} ({timezone.get_current_timezone_name()})"


def change_status(objects, status, *, user, comment):
    """Give ``status`` to ``objects`` (saved one by one: the model signals the page cache
    and the feed follow are sent) in one revision of ``user`` (None: nobody) and
    ``comment``; publishing or returning to draft clears a schedule. Returns them."""
    with reversion.create_revision():
        reversion.set_user(user)
        reversion.set_comment(str(comment))
        for obj in objects:
            obj.status = status
            fields = ["status"]
            if status != Status.REVIEW and is_scheduled(type(obj)):
                obj.publish_at, obj.scheduled_by = None, ""
                fields += ["publish_at", "scheduled_by"]
            obj.save(update_fields=fields)
    return objects


def publication_changes(revision, user):
    """The names of the objects restoring ``revision`` would publish, unpublish or
    reschedule whose publish right ``user`` lacks (empty: it may restore it)."""
    refused = []
    for version in Version.objects.filter(revision=revision).select_related("content_type"):
        model = version.content_type.model_class()
        if model is None or not any(f.name == "status" for f in model._meta.concrete_fields):
            continue
        if may_publish(user, model):
            continue
        fields = version.field_dict  # history_upgrade keeps versions readable
        names = ["status", "publish_at"] if is_scheduled(model) else ["status"]
        now = model._base_manager.filter(pk=version.object_id).values(*names).first() or {}
        published = {
            fields.get("status") == Status.PUBLISHED,
            now.get("status") == Status.PUBLISHED,
        }
        if len(published) > 1 or fields.get("publish_at") != now.get("publish_at"):
            refused.append(version.object_repr)
    return refused


def schedule_form(form):
    """``form`` (a ModelForm class) with the ``publish_at`` field of a publisher, shown and
    read in the active time zone, and the zone it was shown in: a form submitted in
    another zone (the browser's changed, admin_timezone.js) is refused, not misread."""

    def clean(self):
        cleaned_data = super(new, self).clean()
        value = cleaned_data.get(SCHEDULE_FIELD)
        zone = timezone.get_current_timezone_name()
        if value is not None and cleaned_data.get(ZONE_FIELD) != zone:
            self.data = self.data.copy()
            self.data[self.add_prefix(ZONE_FIELD)] = zone
            self.add_error(
                SCHEDULE_FIELD,
                _("Times are now shown in %(zone)s: check this one and save again.")
                % {"zone": zone},
            )
        elif SCHEDULE_FIELD in self.changed_data and value is not None:
            if value <= timezone.now():
                self.add_error(SCHEDULE_FIELD, _("This time has passed: publish it now instead."))
            elif cleaned_data.get("status", self.instance.status) == Status.PUBLISHED:
                self.add_error(SCHEDULE_FIELD, _("A published item is not scheduled."))
        return cleaned_data

    def __init__(self, *args, **kwargs):
        super(new, self).__init__(*args, **kwargs)
        self.fields[SCHEDULE_FIELD].initial = self.instance.publish_at
        self.fields[SCHEDULE_FIELD].help_text = _(
            "Published automatically at this date and time, in %(zone)s (your browser's "
            "time zone); empty: not scheduled."
        ) % {"zone": timezone.get_current_timezone_name()}
        self.fields[ZONE_FIELD].initial = timezone.get_current_timezone_name()

    attrs = {
        SCHEDULE_FIELD: forms.SplitDateTimeField(
            label=_("publish at"),
            required=False,
            widget=AdminSplitDateTime,
        ),
        ZONE_FIELD: forms.CharField(label=_("time zone"), required=False, widget=forms.HiddenInput),
        "__init__": __init__,
        "clean": clean,
    }
    new = type(form.__name__, (form,), attrs)
    return new


class ReviewAdminMixin:
    """For the ModelAdmin of a model with a status: the review and publish actions, the
    status choices and the schedule of the editor's right, and the history's note of each
    step (``publication_note``)."""

    actions = ["ask_for_review", "publish", "unpublish"]

    def has_publish_permission(self, request):
        """The publish right of this model (the publish actions' ``permissions``)."""
        return may_publish(request.user, self.model)

    def formfield_for_choice_field(self, db_field, request, **kwargs):
        """Without the publish right, the status offers draft and ready for review only."""
        field = super().formfield_for_choice_field(db_field, request, **kwargs)
        if db_field.name == "status" and not self.has_publish_permission(request):
            choices = [choice for choice in field.choices if choice[0] != Status.PUBLISHED]
            field.choices = choices
            field = choices_listed(field, choices)
        return field

    def get_readonly_fields(self, request, obj=None):
        """Without the publish right, a published item's status and any schedule are shown,
        not edited."""
        fields = list(super().get_readonly_fields(request, obj))
        publisher = self.has_publish_permission(request)
        if not publisher and obj is not None and obj.status == Status.PUBLISHED:
            fields.append("status")
        if is_scheduled(self.model):
            fields += ["scheduled_by"] if publisher else ["publish_at", "scheduled_by"]
        return fields

    def get_form(self, request, obj=None, change=False, **kwargs):
        """The form, with the schedule's field for an editor with the publish right."""
        if is_scheduled(self.model) and self.has_publish_permission(request):
            kwargs["form"] = schedule_form(kwargs.get("form", self.form))
        return super().get_form(request, obj, change=change, **kwargs)

    def save_model(self, request, obj, form, change):
        """Save, after taking the schedule from a publisher's form, and note for the history
        the step taken: asked for review, published, returned to draft, (un)scheduled."""
        before = form.initial.get("status", obj.status) if change else Status.DRAFT
        notes = []
        if SCHEDULE_FIELD in form.cleaned_data and SCHEDULE_FIELD in form.changed_data:
            obj.publish_at = form.cleaned_data[SCHEDULE_FIELD]
            obj.scheduled_by = request.user.get_username() if obj.publish_at else ""
            if obj.publish_at:
                notes.append(_("Scheduled for %(time)s.") % {"time": shown_time(obj.publish_at)})
            else:
                notes.append(_("Schedule cancelled."))
        if obj.status != before:
            notes.insert(0, STEP_NOTES[obj.status])
        obj.publication_note = " ".join(str(note) for note in notes)
        super().save_model(request, obj, form, change)

    def log_addition(self, request, obj, message):
        entry = super().log_addition(request, obj, message)
        self.add_publication_note(obj)
        return entry

    def log_change(self, request, obj, message):
        entry = super().log_change(request, obj, message)
        self.add_publication_note(obj)
        return entry

    def add_publication_note(self, obj):
        """Put the step ``save_model`` noted before the revision's comment."""
        note = getattr(obj, "publication_note", "")
        if note and reversion.is_active():
            reversion.set_comment(" ".join(filter(None, [note, reversion.get_comment()])))

    def revision_view(self, request, object_id, version_id, extra_context=None):
        refused = self.refused_restore(request, version_id)
        return refused or super().revision_view(request, object_id, version_id, extra_context)

    def recover_view(self, request, version_id, extra_context=None):
        refused = self.refused_restore(request, version_id)
        return refused or super().recover_view(request, version_id, extra_context)

    def refused_restore(self, request, version_id):
        """For a restore or recovery (a POST) that would change what is published or
        scheduled without the right: the same page again, saying why; else None."""
        version = Version.objects.filter(pk=version_id).select_related("revision").first()
        if request.method != "POST" or version is None:
            return None
        refused = publication_changes(version.revision, request.user)
        if not refused:
            return None
        message = _(
            "Nothing was restored: this version would publish, return to draft or reschedule "
            "%(objects)s, which needs the publish right. Ask a publisher to restore it."
        )
        self.message_user(request, message % {"objects": ", ".join(refused)}, messages.ERROR)
        return redirect(request.path)

    def set_status(self, request, queryset, status, message):
        """Give ``status`` to the items of ``queryset`` in one revision (the history shows
        who and when, and the step: ``STEP_NOTES``), and say how many (``message``, by
        ``count``)."""
        changed = change_status(
            list(queryset), status, user=request.user, comment=STEP_NOTES[status]
        )
        self.message_user(request, message % {"count": len(changed)}, messages.SUCCESS)

    @admin.action(permissions=["change"], description=_("Ask for review of the selected items"))
    def ask_for_review(self, request, queryset):
        """Mark the selected drafts ready for review (published items are left as they are)."""
        message = ngettext_lazy(
            "%(count)d item is ready for review.", "%(count)d items are ready for review.", "count"
        )
        self.set_status(request, queryset.filter(status=Status.DRAFT), Status.REVIEW, message)

    @admin.action(permissions=["publish"], description=_("Publish the selected items"))
    def publish(self, request, queryset):
        """Make the selected items visible to visitors now (a schedule is cleared)."""
        message = ngettext_lazy("%(count)d item published.", "%(count)d items published.", "count")
        unpublished = queryset.exclude(status=Status.PUBLISHED)
        self.set_status(request, unpublished, Status.PUBLISHED, message)

    @admin.action(permissions=["publish"], description=_("Return the selected items to draft"))
    def unpublish(self, request, queryset):
        """Hide the selected items from visitors again (editors can still preview them);
        a draft's schedule is cleared too."""
        message = ngettext_lazy(
            "%(count)d item returned to draft.", "%(count)d items returned to draft.", "count"
        )
        if is_scheduled(self.model):
            queryset = queryset.exclude(status=Status.DRAFT, publish_at=None)
        else:
            queryset = queryset.exclude(status=Status.DRAFT)
        self.set_status(request, queryset, Status.DRAFT, message)
