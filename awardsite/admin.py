"""The admin site (``admin.site``, through ``awardsite.apps.AdminConfig``), whose
autocomplete endpoint answers malformed requests with a 4xx, not Django's 500."""

from django.contrib import admin
from django.contrib.admin.views.autocomplete import AutocompleteJsonView
from django.core.exceptions import BadRequest, PermissionDenied
from django.db.models import ForeignObjectRel
from django.utils.translation import gettext_lazy as _


class StrictAutocompleteJsonView(AutocompleteJsonView):
    """The admin's autocomplete JSON, refusing what no widget sends: a ``field_name``
    naming a reverse relation is a 403 (Django 5.2 fails reading its
    ``limit_choices_to``), a ``term`` holding NUL a 400 (PostgreSQL cannot compare it)."""

    def process_request(self, request):
        term, model_admin, source_field, to_field_name = super().process_request(request)
        if isinstance(source_field, ForeignObjectRel):
            raise PermissionDenied
        if "\x00" in term:
            raise BadRequest("The search term contains a NUL character.")
        return term, model_admin, source_field, to_field_name


class AdminSite(admin.AdminSite):
    """Django's admin site, named in the editor's language, with ``StrictAutocompleteJsonView``."""

    site_header = _("Conference Awards")
    site_title = _("Conference Awards")
    index_title = _("Awards, papers and authors")

    def autocomplete_view(self, request):
        return StrictAutocompleteJsonView.as_view(admin_site=self)(request)
