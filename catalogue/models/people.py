"""Authors and institutions."""

from django.core.validators import MaxLengthValidator
from django.db import models
from django.db.models import Exists, OuterRef, Q
from django.urls import reverse
from django.utils.translation import gettext_lazy as _

from catalogue import names, search, text
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


def _refresh_sort_name(author):
    """Set ``author.sort_name`` (names.sort_name), first giving the author the guessed split
    of its name (names.guess) when it has neither a given nor a family name: an import or
    an editor that wrote only the name, a version of the history stored before the fields
    existed. The split is not a derived column: editors write it, and the history keeps it."""
    if not author.given_name and not author.family_name:
        for field, value in names.guessed_fields(author.name).items():
            setattr(author, field, value)
    author.sort_name = names.sort_name(author.given_name, author.family_name, author.name)


SORT_NAME = DerivedColumn(
    "sort_name",
    sources=lambda model: ("name", "given_name", "family_name"),
    columns=lambda model: ("sort_name",),
    refresh=_refresh_sort_name,
)


class Author(NaturalKeyMixin, DerivedColumnsMixin, SlugFromTitleMixin, models.Model):
    """One person, across every paper they wrote (affiliations belong to authorships)."""

    slug_source = "name"
    slug_fallback = "author"

    slug = AsciiSlugField(_("slug"), max_length=100, unique=True, blank=True, help_text=SLUG_HELP)
    name = text.CharField(
        _("name"), max_length=200, help_text=_("The name as the person publishes it.")
    )
    given_name = text.CharField(
        _("given name"),
        max_length=200,
        blank=True,
        help_text=_(
            "First name(s), as citations abbreviate them. Left empty with the family "
            "name, both are guessed from the name."
        ),
    )
    family_name = text.CharField(
        _("family name"),
        max_length=200,
        blank=True,
        help_text=_(
            "The name citations and the author index sort by, particles included "
            "(“Fischer Abaigar”, “van der Schaar”); a one-word name or a team whole here."
        ),
    )
    name_suffix = text.CharField(
        _("name suffix"), max_length=20, blank=True, help_text=_("Jr., Sr., II, III and the like.")
    )
    native_name = text.CharField(
        _("name in native script"),
        max_length=200,
        blank=True,
        help_text=_("The name in the person's own script, when it is not the name above."),
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
    # The author index's order and letters (names.sort_name), kept from the name fields.
    sort_name = models.CharField(_("sort name"), max_length=401, editable=False, default="")
    # What ``Author.objects.published()`` reads, kept by catalogue/published_authors.py.
    has_published_paper = models.BooleanField(
        _("has a published paper"), default=False, editable=False
    )

    objects = AuthorQuerySet.as_manager()
    search_sources = ("name", "other_names")
    derived_columns = (search.SEARCH_TEXT, HAS_PUBLISHED_PAPER, SORT_NAME)

    class Meta:
        verbose_name = _("author")
        verbose_name_plural = _("authors")
        ordering = ["name", "slug"]
        indexes = [
            # The A-Z index of authors, its count and letters, read from this partial index
            # alone (the id is SQLite's rowid anyway, and lets PostgreSQL scan it only).
            models.Index(
                fields=[
                    "sort_name",
                    "slug",
                    "name",
                    "given_name",
                    "family_name",
                    "name_suffix",
                    "id",
                ],
                condition=Q(has_published_paper=True),
                name="author_published_sort_name",
            ),
        ]

    def __str__(self):
        return self.name

    def get_absolute_url(self):
        return reverse("papers:author-detail", kwargs={"slug": self.slug})

    @property
    def name_parts(self):
        """The :class:`catalogue.names.Name` citations write."""
        return names.parts(self.given_name, self.family_name, self.name_suffix)

    @property
    def citation_name(self):
        """The name as "Family, Given" (Google Scholar's ``citation_author``, RIS)."""
        return names.citation_name(self.name_parts)

    @property
    def index_name(self):
        """The name as the author index writes it: "Family, Given", or as published
        when written family name first (Chinese script) or without a given name."""
        return names.index_name(self.name_parts, self.name)

    @property
    def other_name_list(self):
        return [line.strip() for line in self.other_names.splitlines() if line.strip()]
