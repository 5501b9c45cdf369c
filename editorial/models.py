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
