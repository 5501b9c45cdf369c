"""Authors and institutions."""

from django.core.validators import MaxLengthValidator
from django.db import models
from django.db.models import Exists, OuterRef, Q
from django.urls import reverse
from django.utils.translation import gettext_lazy as _

from catalogue import search, text
from catalogue.derived import DerivedColumn, DerivedColumnsMixin
from catalogue.models.base import SLUG_HELP, NaturalKeyMixin, search_text_field
from catalogue.models.papers import Authorship
from catalogue.models.querysets import AuthorQuerySet, InstitutionQuerySet
from catalogue.orcid import validate_orcid
from catalogue.slugs import AsciiSlugField, SlugFromTitleMixin


class Institution(NaturalKeyMixin, DerivedColumnsMixin, SlugFromTitleMixin, models.Model):
    """A university, laboratory or company that authors are affiliated with."""

    slug_source = "name_en"
    slug_fallback = "institution"

    slug = AsciiSlugField(_("slug"), max_length=100, unique=True, blank=True, help_text=SLUG_HELP)
    name = text.CharField(_("name"), max_length=200)
    country = text.CharField(_("country"), max_length=100, blank=True)
    website = models.URLField(_("website"), blank=True)
    search_text = search_text_field()

    objects = InstitutionQuerySet.as_manager()
    search_sources = ("name",)
    derived_columns = (search.SEARCH_TEXT,)

    class Meta:
        verbose_name = _("institution")
        verbose_name_plural = _("institutions")
        ordering = ["slug"]

    def __str__(self):
        return self.name_en or self.slug


def has_published_paper_rule():
    """The rule ``Author.has_published_paper`` keeps, an ``Exists`` of a published authorship."""
    return Exists(Authorship.objects.published().filter(author=OuterRef("pk")))


def _refresh_has_published_paper(author):
    """Set ``author``'s column from the rows stored now."""
    value = author.pk is not None and Authorship.objects.published().filter(author=author).exists()
    author.has_published_paper = value


# A derived column with no source among the author's fields: worked out at every save,
# raw ones included, but one limited by ``update_fields``.
HAS_PUBLISHED_PAPER = DerivedColumn(
    "has_published_paper",
    sources=lambda model: (),
    columns=lambda model: ("has_published_paper",),
    refresh=_refresh_has_published_paper,
)


class Author(NaturalKeyMixin, DerivedColumnsMixin, SlugFromTitleMixin, models.Model):
    """One person, across every paper they wrote (affiliations belong to authorships)."""

    slug_source = "name"
    slug_fallback = "author"

    slug = AsciiSlugField(_("slug"), max_length=100, unique=True, blank=True, help_text=SLUG_HELP)
    name = text.CharField(
        _("name"), max_length=200, help_text=_("The name as the person publishes it.")
    )
    other_names = text.TextField(
        _("other names"),
        blank=True,
        help_text=_("Other spellings seen in publications, one per line."),
        validators=[MaxLengthValidator(text.OTHER_NAMES_MAX_LENGTH)],
    )
    homepage = models.URLField(_("homepage"), blank=True)
    orcid = text.CharField(_("ORCID iD"), max_length=19, blank=True, validators=[validate_orcid])
    search_text = search_text_field()
    # What ``Author.objects.published()`` reads, kept by catalogue/published_authors.py.
    has_published_paper = models.BooleanField(
        _("has a published paper"), default=False, editable=False
    )

    objects = AuthorQuerySet.as_manager()
    search_sources = ("name", "other_names")
    derived_columns = (search.SEARCH_TEXT, HAS_PUBLISHED_PAPER)

    class Meta:
        verbose_name = _("author")
        verbose_name_plural = _("authors")
        ordering = ["name", "slug"]
        indexes = [
            # The A-Z index of authors, its count and letters, read from this partial index
            # alone (the id is SQLite's rowid anyway, and lets PostgreSQL scan it only).
            models.Index(
                fields=["slug", "name", "id"],
                condition=Q(has_published_paper=True),
                name="author_published_slug",
            ),
        ]

    def __str__(self):
        return self.name

    def get_absolute_url(self):
        return reverse("papers:author-detail", kwargs={"slug": self.slug})

    @property
    def other_name_list(self):
        return [line.strip() for line in self.other_names.splitlines() if line.strip()]
