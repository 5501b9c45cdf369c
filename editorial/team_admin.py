"""Venue teams in the admin: every content admin scoped to the editor's venues
(``TeamScopedAdmin``, a base of ``ContentAdmin``; ``TeamScopedChoices`` for inlines), the
superusers' Team admin, and the "What changed" page of the editor's venues.

Django's own hooks rather than an object-permission library: an editor's rights follow
from a relation (the object's venue), which lists, autocompletes, foreign key choices and
actions need as a QuerySet filter (``get_queryset``), and django-guardian's or
django-rules' per-object checks would not give one; guardian would also need a
permission row per object and editor, kept in step with every new paper."""

from django.contrib import admin
from django.contrib.admin.utils import get_fields_from_path, unquote
from django.core.exceptions import PermissionDenied
from django.http import Http404
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.urls import path
from django.utils.translation import gettext_lazy as _
from reversion.models import Version

from editorial import changes, teams
from editorial.models import Team


class TeamScopedChoices:
    """Foreign key choices (forms, inline rows) limited to the editor's venues: another
    venue's object is not offered, and refused if submitted."""

    def formfield_for_foreignkey(self, db_field, request, **kwargs):
        remote = db_field.remote_field.model
        if remote in teams.VENUE_PATHS:
            queryset = kwargs.get("queryset")
            if queryset is None:
                queryset = self.get_field_queryset(kwargs.get("using"), db_field, request)
            if queryset is None:
                queryset = remote._default_manager.all()
            kwargs["queryset"] = teams.scoped(queryset, request.user)
        return super().formfield_for_foreignkey(db_field, request, **kwargs)


class TeamScopedAdmin(TeamScopedChoices):
    """A content admin showing an editor only the objects of their venues (``editorial.
    teams``): changelists, actions, autocompletes, list filters and foreign key choices;
    any other object's page (change, delete, history, compare, version, recover) is a
    404, before anything is reverted. A site-wide editor sees everything."""

    def get_queryset(self, request):
        return teams.scoped(super().get_queryset(request), request.user)

    def has_add_permission(self, request):
        return super().has_add_permission(request) and teams.may(request.user, "add", self.model)

    def has_change_permission(self, request, obj=None):
        allowed = super().has_change_permission(request, obj)
        return allowed and teams.may(request.user, "change", self.model)

    def has_delete_permission(self, request, obj=None):
        allowed = super().has_delete_permission(request, obj)
        return allowed and teams.may(request.user, "delete", self.model)

    def get_object(self, request, object_id, from_field=None):
        """The object among the editor's; for an editor of some venues only, a 404 for any
        other (of another venue or none; Django redirects a site-wide editor)."""
        obj = super().get_object(request, object_id, from_field)
        if obj is None and self.model in teams.VENUE_PATHS:
            if not teams.is_site_wide(request.user):
                raise Http404(_("No such object among your venues'."))
        return obj

    def get_list_filter(self, request):
        """Filters by a related object list only those of the editor's own list."""
        filters = super().get_list_filter(request)
        if teams.is_site_wide(request.user):
            return filters
        return [self._scoped_filter(item) for item in filters]

    def _scoped_filter(self, item):
        if not isinstance(item, str):
            return item
        field = get_fields_from_path(self.model, item)[-1]
        if field.is_relation and field.related_model in teams.VENUE_PATHS:
            return (item, admin.RelatedOnlyFieldListFilter)
        return item

    def compare_view(self, request, object_id, extra_context=None):
        if self.get_object(request, unquote(object_id)) is None:
            raise Http404
        return super().compare_view(request, object_id, extra_context)

    def revision_view(self, request, object_id, version_id, extra_context=None):
        """A version of this object only (django-reversion looks it up by object id,
        whatever its model), of the editor's venues: else a 404, before reverting."""
        versions = Version.objects.get_for_object_reference(self.model, unquote(object_id))
        get_object_or_404(versions, pk=version_id)
        self.get_object(request, unquote(object_id))
        return super().revision_view(request, object_id, version_id, extra_context)

    def recover_view(self, request, version_id, extra_context=None):
        """A deleted object of this model (django-reversion takes any version) and of the
        editor's venues, else a 404; recovered into another venue: a 404, rolled back."""
        version = get_object_or_404(Version.objects.get_for_model(self.model), pk=version_id)
        if not teams.versions_in_scope([version], request.user):
            raise Http404
        return super().recover_view(request, version_id, extra_context)

    def recoverlist_view(self, request, extra_context=None):
        """django-reversion's list of deleted objects, those of the editor's venues."""
        deleted = Version.objects.get_deleted(self.model).select_related("revision")
        deleted = deleted.select_related("content_type").order_by(
            *self.get_version_ordering(request)
        )
        context = {"deleted": teams.versions_in_scope(deleted, request.user)}
        return super().recoverlist_view(request, {**context, **(extra_context or {})})


def superuser(request):
    return request.user.is_active and request.user.is_superuser


@admin.register(Team)
class TeamAdmin(admin.ModelAdmin):
    """Teams, managed by superusers only; and the "What changed" page of every editor."""

    list_display = ["venue", "member_names"]
    autocomplete_fields = ["venue"]
    filter_horizontal = ["members"]

    def has_module_permission(self, request):
        return superuser(request)

    def has_view_permission(self, request, obj=None):
        return superuser(request)

    def has_add_permission(self, request):
        return superuser(request)

    def has_change_permission(self, request, obj=None):
        return superuser(request)

    def has_delete_permission(self, request, obj=None):
        return superuser(request)

    def get_queryset(self, request):
        return super().get_queryset(request).select_related("venue").prefetch_related("members")

    def formfield_for_manytomany(self, db_field, request, **kwargs):
        if db_field.name == "members":
            kwargs["queryset"] = db_field.related_model.objects.filter(is_staff=True)
        return super().formfield_for_manytomany(db_field, request, **kwargs)

    @admin.display(description=_("members"))
    def member_names(self, obj):
        return ", ".join(sorted(member.get_username() for member in obj.members.all()))

    def get_urls(self):
        changes_url = path(
            "changes/", self.admin_site.admin_view(self.changes_view), name="editorial_changes"
        )
        return [changes_url, *super().get_urls()]

    def changes_view(self, request):
        """The week's changes of each venue the editor edits (GET; staff with the view
        permission of papers, else 403): ``changes.week_by_venue``."""
        if not request.user.has_perm("papers.view_paper"):
            raise PermissionDenied
        context = {
            **self.admin_site.each_context(request),
            "title": _("This week's changes"),
            "venues": changes.week_by_venue(request.user, self.admin_site.name),
            "days": changes.WEEK.days,
        }
        return TemplateResponse(request, "admin/editorial/changes.html", context)
