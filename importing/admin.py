"""The admin's import page, for editors holding ``editorial.import_conference`` (the
Editors and Venue editors groups, superusers): upload a compact conference file (with
the .bib or CSL-JSON file and the images it names), read the dry run's report in the
editor's language, then import it, or discard it. The engine is the command's
(importing/uploads.py); the review rules of editorial/review.py apply. It lives in the
importer, which may use the editors' app, not the reverse (the layers of
docs/architecture.md)."""

from pathlib import PurePath

from django import forms
from django.conf import settings
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import Http404
from django.shortcuts import redirect
from django.template.defaultfilters import filesizeformat
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.decorators import method_decorator
from django.utils.translation import gettext_lazy as _
from django.views.decorators.http import require_POST

from catalogue.models import Award, Conference
from editorial.models import ConferenceImport
from editorial.roles import IMPORT_RIGHT
from importing import uploads
from importing.fields import FixtureInvalid

COMPACT_SUFFIXES = (".yaml", ".yml", ".json")
BIBLIOGRAPHY_SUFFIXES = (".bib", ".json")
IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".gif", ".webp")
NAME_LIMIT = 100  # characters of a file's name (ConferenceImport.file_name holds 255)


class MultipleFileInput(forms.ClearableFileInput):
    """A file input that takes several files (Django's documented way)."""

    allow_multiple_selected = True


class MultipleFileField(forms.FileField):
    """A list of uploaded files, each cleaned as a FileField cleans one."""

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("widget", MultipleFileInput())
        super().__init__(*args, **kwargs)

    def clean(self, data, initial=None):
        files = data if isinstance(data, list | tuple) else [data] if data else []
        return [super(MultipleFileField, self).clean(file, initial) for file in files]


def _checked(file, suffixes, limit):
    """Raise ValidationError unless ``file`` has one of ``suffixes`` and at most ``limit``
    bytes; returns it."""
    suffix = PurePath(file.name).suffix.lower()
    if suffix not in suffixes:
        raise ValidationError(
            _("%(name)s: expected a file ending in %(suffixes)s."),
            params={"name": file.name, "suffixes": ", ".join(suffixes)},
        )
    if file.size > limit:
        raise ValidationError(
            _("%(name)s is %(size)s, over the limit of %(limit)s."),
            params={
                "name": file.name,
                "size": filesizeformat(file.size),
                "limit": filesizeformat(limit),
            },
        )
    return file


class ImportForm(forms.Form):
    """The files of one import: checked by kind, size and name, not yet read."""

    compact_file = forms.FileField(
        label=_("Compact conference file"),
        help_text=_("The conference's file, YAML or JSON (docs/compact-format.md)."),
    )
    bibliography = forms.FileField(
        label=_("BibTeX or CSL-JSON file"),
        required=False,
        help_text=_("Only if the conference's file names one."),
    )
    images = MultipleFileField(
        label=_("Images"),
        required=False,
        help_text=_("The images the conference's file names, by their file names."),
    )

    def clean_compact_file(self):
        return _checked(self.cleaned_data["compact_file"], COMPACT_SUFFIXES, uploads.MAX_FILE_SIZE)

    def clean_bibliography(self):
        file = self.cleaned_data["bibliography"]
        return file and _checked(file, BIBLIOGRAPHY_SUFFIXES, uploads.MAX_FILE_SIZE)

    def clean_images(self):
        limit = settings.PAPER_IMAGE_MAX_BYTES
        return [_checked(file, IMAGE_SUFFIXES, limit) for file in self.cleaned_data["images"]]

    def clean(self):
        cleaned = super().clean()
        files = self.files_uploaded()
        names = [file.name for file in files]
        if len(set(names)) != len(names):
            raise ValidationError(_("Two files have the same name: give each its own."))
        if any(name.startswith(".") for name in names):
            raise ValidationError(_("A file name may not begin with a dot."))
        if any(len(name) > NAME_LIMIT for name in names):
            raise ValidationError(
                _("A file name may have at most %(limit)s characters."),
                params={"limit": NAME_LIMIT},
            )
        return cleaned

    def files_uploaded(self):
        """The cleaned files but the compact file: the bibliography, then the images."""
        bibliography = self.cleaned_data.get("bibliography")
        return [
            file
            for file in [
                self.cleaned_data.get("compact_file"),
                bibliography,
                *self.cleaned_data.get("images", []),
            ]
            if file
        ]


@admin.register(ConferenceImport)
class ConferenceImportAdmin(admin.ModelAdmin):
    """The import page is its "list": upload (GET), dry run (POST); an upload's page
    imports it (POST) or discards it (POST .../discard/). No rows are added or changed."""

    def has_module_permission(self, request):
        return request.user.has_perm(IMPORT_RIGHT)

    def has_view_permission(self, request, obj=None):
        return request.user.has_perm(IMPORT_RIGHT)

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False

    def get_urls(self):
        name = f"{self.opts.app_label}_{self.opts.model_name}"
        view = self.admin_site.admin_view
        return [
            path("<slug:token>/", view(self.import_view), name=f"{name}_import"),
            path("<slug:token>/discard/", view(self.discard_view), name=f"{name}_discard"),
            *super().get_urls(),
        ]

    def _render(self, request, template, **context):
        context = {
            **self.admin_site.each_context(request),
            "opts": self.opts,
            "title": _("Import a conference"),
            **context,
        }
        return TemplateResponse(request, f"admin/editorial/{template}", context)

    def _upload_of(self, request, token):
        """The user's upload ``token``; Http404 for another's or an unknown one, 403 without
        the import right."""
        if not self.has_view_permission(request):
            raise PermissionDenied
        try:
            return ConferenceImport.objects.get(token=token, user=request.user)
        except ConferenceImport.DoesNotExist:
            raise Http404(_("No upload of yours with this token.")) from None

    def changelist_view(self, request, extra_context=None):
        """GET: the upload form. POST (multipart: compact_file, optional bibliography and
        images): save the files, run the dry run, and show its report with the button to
        import; or the form with its errors, the file's problems or why the editor may not
        import it, having kept nothing. Staff with the import right, else 403."""
        if not self.has_view_permission(request):
            raise PermissionDenied
        form = ImportForm(request.POST or None, request.FILES or None)
        if request.method != "POST" or not form.is_valid():
            return self._render(request, "conference_import.html", form=form)
        files = form.files_uploaded()
        upload = uploads.save_upload(request.user, files[0], files[1:])
        try:
            _plan, report = uploads.run(upload, request.user, dry_run=True)
        except (FixtureInvalid, uploads.Refused) as error:
            uploads.remove(upload)
            problems = [str(p) for p in getattr(error, "problems", [])]
            refusals = getattr(error, "messages", [])
            return self._render(
                request, "conference_import.html", form=form, problems=problems, refusals=refusals
            )
        return self._render(
            request,
            "conference_import.html",
            form=ImportForm(),
            upload=upload,
            report=report,
            problems=[],
            refusals=[],
        )

    @method_decorator(require_POST)
    def import_view(self, request, token):
        """POST: import the user's upload ``token`` as its dry run showed it (read again:
        the database may have changed), remove its files, and show what was imported with
        links to the previews and the changelists. 404 for a token not the user's."""
        upload = self._upload_of(request, token)
        try:
            _plan, report = uploads.run(upload, request.user, dry_run=False)
        except (FixtureInvalid, uploads.Refused) as error:
            problems = [str(p) for p in getattr(error, "problems", [])]
            refusals = getattr(error, "messages", [])
            return self._render(
                request,
                "conference_import.html",
                form=ImportForm(),
                problems=problems,
                refusals=refusals,
            )
        finally:
            uploads.remove(upload)
        return self._render(
            request, "conference_import_done.html", report=report, links=links(report)
        )

    @method_decorator(require_POST)
    def discard_view(self, request, token):
        """POST: remove the user's upload ``token`` unimported; back to the upload form."""
        uploads.remove(self._upload_of(request, token))
        messages.info(request, _("The upload was discarded: nothing was imported."))
        return redirect(f"{self.admin_site.name}:editorial_conferenceimport_changelist")


def links(report):
    """For each conference of ``report``: ``(conference, preview URL, [(award, preview
    URL)], URL of its papers' changelist, of its awards' changelist)``."""
    found = []
    query = f"?{settings.PREVIEW_PARAMETER}=1"
    conferences = Conference.objects.filter(slug__in=report.conferences).order_by("slug")
    awards = Award.objects.filter(conference__in=conferences).order_by("conference", "slug")
    for conference in conferences:
        filtered = f"?conference__id__exact={conference.pk}"
        found.append(
            {
                "conference": conference,
                "preview": conference.get_absolute_url() + query,
                "change": reverse("admin:papers_conference_change", args=[conference.pk]),
                "awards": [
                    (award, award.get_absolute_url() + query)
                    for award in awards
                    if award.conference_id == conference.pk
                ],
                "papers_changelist": reverse("admin:papers_paper_changelist") + filtered,
                "awards_changelist": reverse("admin:papers_award_changelist") + filtered,
            }
        )
    return found
