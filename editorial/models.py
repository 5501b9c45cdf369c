"""Venue teams: who edits which venue's conferences, awards and papers (editorial/teams.py)."""

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _


class Team(models.Model):
    """The editors of one venue: they add, change and delete its conferences, awards and papers."""

    venue = models.OneToOneField(
        "papers.Venue", on_delete=models.CASCADE, related_name="team", verbose_name=_("venue")
    )
    members = models.ManyToManyField(
        settings.AUTH_USER_MODEL, related_name="teams", blank=True, verbose_name=_("members")
    )

    class Meta:
        verbose_name = _("team")
        verbose_name_plural = _("teams")
        ordering = ["venue__acronym", "venue__slug"]
        # A site-wide editor edits every venue, on a team or not (editorial/teams.py).
        permissions = [("edit_every_venue", _("Can edit every venue"))]

    def __str__(self):
        return str(self.venue)


class ConferenceImport(models.Model):
    """A conference file an editor uploaded in the admin and read in a dry run, waiting
    for its import: the files are kept in a private folder named by ``token``
    (importing/uploads.py), only for ``user``."""

    token = models.CharField(_("token"), max_length=64, unique=True)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="conference_imports",
        verbose_name=_("user"),
    )
    file_name = models.CharField(_("file name"), max_length=255)
    created = models.DateTimeField(_("uploaded at"), auto_now_add=True)

    class Meta:
        verbose_name = _("conference import")
        verbose_name_plural = _("conference imports")
        ordering = ["created", "pk"]
        # Only the import right: the admin's page is no list of rows to add or change.
        default_permissions = ()
        permissions = [("import_conference", _("Can import conferences in the admin"))]

    def __str__(self):
        return self.file_name
