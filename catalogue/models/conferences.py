"""Venues, their conferences, and the awards given there with their levels and entries."""

from django.core.exceptions import ObjectDoesNotExist, ValidationError
from django.core.validators import MaxLengthValidator
from django.db import models
from django.db.models import Q
from django.urls import reverse
from django.utils.translation import gettext_lazy as _

from catalogue import text
from catalogue.models.base import (
    NaturalKeyMixin,
    NaturalKeyQuerySet,
    ScheduledMixin,
    publish_at_fields,
    publish_permissions,
    status_field,
)
from catalogue.models.querysets import (
    NEWEST_FIRST,
    AwardEntryQuerySet,
    AwardKindQuerySet,
    AwardQuerySet,
    ConferenceQuerySet,
    VenueQuerySet,
)
from catalogue.slugs import AsciiSlugField, SlugFromTitleMixin


class Venue(NaturalKeyMixin, models.Model):
    """A conference series, such as ICML, whose editions are conferences."""

    slug = AsciiSlugField(_("slug"), max_length=50, unique=True)
    acronym = text.CharField(_("acronym"), max_length=30)
    name = text.CharField(_("name"), max_length=200)
    website = models.URLField(_("website"), blank=True)

    objects = VenueQuerySet.as_manager()

    class Meta:
        verbose_name = _("venue")
        verbose_name_plural = _("venues")
        ordering = ["acronym"]

    def __str__(self):
        return self.acronym

    def get_absolute_url(self):
        return reverse("papers:venue-detail", kwargs={"slug": self.slug})


class Conference(NaturalKeyMixin, ScheduledMixin, SlugFromTitleMixin, models.Model):
    """One edition of a venue: ICML 2025 in Vancouver, 13-19 July 2025."""

    slug_source = "name_en"
    slug_fallback = "conference"

    venue = models.ForeignKey(
        "papers.Venue",
        on_delete=models.PROTECT,
        related_name="conferences",
        verbose_name=_("venue"),
    )
    slug = AsciiSlugField(
        _("slug"),
        max_length=50,
        unique=True,
        blank=True,
        help_text=_(
            "Language-neutral key used in URLs and fixtures, e.g. icml-2025. "
            "Leave blank to make one from the English name."
        ),
    )
    year = models.PositiveSmallIntegerField(_("year"))
    name = text.CharField(_("name"), max_length=200)
    description = text.TextField(
        _("description"), blank=True, validators=[MaxLengthValidator(text.DESCRIPTION_MAX_LENGTH)]
    )
    city = text.CharField(_("city"), max_length=100, blank=True)
    country = text.CharField(_("country"), max_length=100, blank=True)
    start_date = models.DateField(_("start date"), null=True, blank=True)
    end_date = models.DateField(_("end date"), null=True, blank=True)
    proceedings = text.CharField(
        _("proceedings"),
        max_length=200,
        blank=True,
        help_text=_("Where the papers are published, e.g. PMLR volume 267."),
    )
    website = models.URLField(_("website"), blank=True)
    status = status_field()
    publish_at, scheduled_by = publish_at_fields()

    objects = ConferenceQuerySet.as_manager()

    class Meta:
        verbose_name = _("conference")
        verbose_name_plural = _("conferences")
        ordering = NEWEST_FIRST
        permissions = publish_permissions("conference")
        constraints = [
            models.UniqueConstraint(
                fields=["venue", "year"],
                name="conference_unique_venue_year",
                violation_error_message=_("This venue already has a conference in this year."),
            ),
            models.CheckConstraint(
                condition=Q(start_date__isnull=True)
                | Q(end_date__isnull=True)
                | Q(end_date__gte=models.F("start_date")),
                name="conference_end_not_before_start",
                violation_error_message=_("The end date is before the start date."),
            ),
        ]

    def __str__(self):
        return self.name_en or self.slug

    def get_absolute_url(self):
        return reverse("papers:conference-detail", kwargs={"slug": self.slug})

    @property
    def country_shown(self):
        """Whether the conference's place names the country after the city: it has one,
        and not the city's own name ("Singapore", not "Singapore, Singapore"; compared in
        English, so that both languages agree)."""
        country = self.country_en.strip().casefold()
        return bool(country) and country != self.city_en.strip().casefold()


class AwardKind(NaturalKeyMixin, SlugFromTitleMixin, models.Model):
    """A kind of award given at many venues, such as the test of time award: a
    classification editors choose for each award, site-wide like a venue, whose page lists
    that kind at every venue."""

    slug_source = "name_en"
    slug_fallback = "kind"

    slug = AsciiSlugField(
        _("slug"),
        max_length=50,
        unique=True,
        blank=True,
        help_text=_(
            "Language-neutral key used in URLs and fixtures, e.g. test-of-time. "
            "Leave blank to make one from the English name."
        ),
    )
    name = text.CharField(
        _("name"),
        max_length=100,
        help_text=_("A plain name for the kind, e.g. Test of time award."),
    )
    description = text.TextField(
        _("description"), blank=True, validators=[MaxLengthValidator(text.DESCRIPTION_MAX_LENGTH)]
    )
    position = models.PositiveSmallIntegerField(
        _("position"), default=0, help_text=_("Order in the list of kinds, lowest first.")
    )

    objects = AwardKindQuerySet.as_manager()

    class Meta:
        verbose_name = _("award kind")
        verbose_name_plural = _("award kinds")
        ordering = ["position", "slug"]

    def __str__(self):
        return self.name_en or self.slug

    def get_absolute_url(self):
        return reverse("papers:award-kind", kwargs={"slug": self.slug})


class Award(NaturalKeyMixin, ScheduledMixin, SlugFromTitleMixin, models.Model):
    """An award given at a conference, such as the ICML 2025 Test of Time Award; the same
    ``slug`` at every edition of a venue makes an award series."""

    slug_source = "name_en"
    slug_fallback = "award"

    conference = models.ForeignKey(
        "papers.Conference",
        on_delete=models.PROTECT,
        related_name="awards",
        verbose_name=_("awarded at"),
    )
    slug = AsciiSlugField(
        _("slug"),
        max_length=80,
        blank=True,
        help_text=_(
            "The same slug at every edition links the years of one award. "
            "Leave blank to make one from the English name."
        ),
    )
    name = text.CharField(_("name"), max_length=200)
    kind = models.ForeignKey(
        "papers.AwardKind",
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="awards",
        verbose_name=_("kind"),
        help_text=_(
            "What kind of award it is, whatever the venue calls it: its page lists the "
            "awards of that kind at every venue."
        ),
    )
    description = text.TextField(
        _("description"), blank=True, validators=[MaxLengthValidator(text.DESCRIPTION_MAX_LENGTH)]
    )
    position = models.PositiveSmallIntegerField(
        _("position"), default=0, help_text=_("Order on the conference page, lowest first.")
    )
    status = status_field()
    publish_at, scheduled_by = publish_at_fields()
    announced_on = models.DateField(
        _("announcement date"),
        null=True,
        blank=True,
        help_text=_(
            "The day the award was announced, as the conference published it. The awards "
            "feed dates the award by it; leave it empty when no source gives the day."
        ),
    )
    papers = models.ManyToManyField(
        "papers.Paper",
        through="papers.AwardEntry",
        related_name="awards",
        verbose_name=_("papers"),
    )

    objects = AwardQuerySet.as_manager()
    natural_key_fields = ("conference", "slug")

    class Meta:
        verbose_name = _("award")
        verbose_name_plural = _("awards")
        ordering = ["conference", "position", "slug"]
        permissions = publish_permissions("award")
        constraints = [
            models.UniqueConstraint(fields=["conference", "slug"], name="award_unique_slug"),
        ]

    def __str__(self):
        return f"{self.conference}: {self.name_en}"

    def get_absolute_url(self):
        return reverse(
            "papers:award-detail",
            kwargs={"conference_slug": self.conference.slug, "slug": self.slug},
        )

    def slug_scope(self):
        return {"conference_id": self.conference_id}

    def get_series_url(self):
        """The page of every edition of this award at the venue."""
        return reverse(
            "papers:award-series",
            kwargs={"venue_slug": self.conference.venue.slug, "slug": self.slug},
        )


class AwardLevel(NaturalKeyMixin, SlugFromTitleMixin, models.Model):
    """A rank an award gives (winner, runner-up, honourable mention): each award has its
    own, ordered by ``position``, the lowest (the top level) first everywhere."""

    slug_source = "name_en"
    slug_fallback = "level"

    award = models.ForeignKey(
        "papers.Award", on_delete=models.CASCADE, related_name="levels", verbose_name=_("award")
    )
    slug = AsciiSlugField(
        _("slug"),
        max_length=50,
        blank=True,
        help_text=_(
            "The level's key, e.g. winner or runner-up. "
            "Leave blank to make one from the English name."
        ),
    )
    name = text.CharField(
        _("name"), max_length=100, help_text=_("For one paper, e.g. Honourable mention.")
    )
    name_plural = text.CharField(
        _("name for several papers"),
        max_length=100,
        help_text=_("For two papers or more, e.g. Honourable mentions."),
    )
    position = models.PositiveSmallIntegerField(
        _("position"), default=0, help_text=_("Order within the award, the top level lowest.")
    )

    objects = NaturalKeyQuerySet.as_manager()
    natural_key_fields = ("award", "slug")

    class Meta:
        verbose_name = _("award level")
        verbose_name_plural = _("award levels")
        ordering = ["award", "position", "slug"]
        constraints = [
            models.UniqueConstraint(fields=["award", "slug"], name="awardlevel_unique_slug"),
            # Two levels at one position would be listed in no set order with one badge.
            models.UniqueConstraint(
                fields=["award", "position"],
                name="awardlevel_unique_position",
                violation_error_message=_("Another level of this award has this position."),
            ),
        ]

    def __str__(self):
        return f"{self.award}: {self.name_en}"

    def slug_scope(self):
        return {"award_id": self.award_id}


class AwardEntry(NaturalKeyMixin, models.Model):
    """One paper's place in an award, at one of the award's levels."""

    # The one order of an award's entries: by level (the top level first), then position.
    LEVEL_ORDER = ("level__position", "level__slug", "position", "paper__slug")
    # A paper's entries: the newest conference first, then the award's and level's place.
    PAPER_ORDER = (
        "-award__conference__year",
        "award__position",
        "award__slug",
        "level__position",
        "level__slug",
    )

    award = models.ForeignKey(
        "papers.Award", on_delete=models.CASCADE, related_name="entries", verbose_name=_("award")
    )
    paper = models.ForeignKey(
        "papers.Paper",
        on_delete=models.PROTECT,
        related_name="award_entries",
        verbose_name=_("paper"),
    )
    # RESTRICT: a level in use is deleted only with its award (and the award's entries).
    level = models.ForeignKey(
        "papers.AwardLevel",
        on_delete=models.RESTRICT,
        related_name="entries",
        verbose_name=_("level"),
        help_text=_("One of the award's own levels."),
    )
    position = models.PositiveSmallIntegerField(
        _("position"), default=0, help_text=_("Order within the same level, lowest first.")
    )

    objects = AwardEntryQuerySet.as_manager()
    natural_key_fields = ("award", "paper")

    class Meta:
        verbose_name = _("award entry")
        verbose_name_plural = _("award entries")
        ordering = ["award", "level__position", "position"]
        constraints = [
            models.UniqueConstraint(fields=["award", "paper"], name="awardentry_unique_paper"),
        ]

    def __str__(self):
        return f"{self.award}: {self.paper} ({self.level.name_en})"

    def clean(self):
        """The level must be one of this award's (objects compared: the importer's are
        checked before they are saved)."""
        super().clean()
        try:
            award, level = self.award, self.level
        except ObjectDoesNotExist:  # left empty: the fields' own checks say so
            return
        if level.award != award:
            if award.pk is None:  # a new award: no levels to list yet
                error = ValidationError(
                    _("This level belongs to another award."), code="level_of_other_award"
                )
            else:
                levels = ", ".join(award.levels.values_list("slug", flat=True))
                error = ValidationError(
                    _("This level belongs to another award; this award's levels are: %(levels)s."),
                    code="level_of_other_award",
                    params={"levels": levels or "–"},
                )
            raise ValidationError({"level": error})
