"""The admin site: Django's, with an autocomplete endpoint that answers malformed
requests with a 4xx (Django's own answers some of them with a 500).

Installed as the default site through ``awardsite.apps.AdminConfig``, the documented
way to replace ``admin.site`` ("Overriding the default admin site"), so every
``@admin.register`` in editorial/admin.py registers on it.
"""

from django.contrib import admin
from django.contrib.admin.views.autocomplete import AutocompleteJsonView
from django.core.exceptions import BadRequest, PermissionDenied
from django.db.models import ForeignObjectRel
from django.utils.translation import gettext_lazy as _


class StrictAutocompleteJsonView(AutocompleteJsonView):
    """The JSON behind the admin's autocomplete fields, refusing what no widget sends.

    - ``field_name`` naming a reverse relation (a paper's ``awards`` or
      ``authorships``): 403, as Django answers every other unusable field. Django 5.2
      would look up the field's ``limit_choices_to``, which only forward relations
      have, and fail with a 500.
    - ``term`` containing a NUL character: 400. PostgreSQL cannot store or compare
      text with NUL, so the search would fail with a 500 there.

    Everything else is Django's: a missing or unknown app, model or field is a 403,
    a ``page`` that is not a number or out of range a 404.
    """

    def process_request(self, request):
        term, model_admin, source_field, to_field_name = super().process_request(request)
        if isinstance(source_field, ForeignObjectRel):
            raise PermissionDenied
        if "\x00" in term:
            raise BadRequest("The search term contains a NUL character.")
        return term, model_admin, source_field, to_field_name


class AdminSite(admin.AdminSite):
    """Django's admin site with ``StrictAutocompleteJsonView`` as its autocomplete,
    named after the site in the editor's language (not "Django administration")."""

    site_header = _("Conference Awards")
    site_title = _("Conference Awards")
    index_title = _("Awards, papers and authors")

    def autocomplete_view(self, request):
        return StrictAutocompleteJsonView.as_view(admin_site=self)(request)
