"""Papers, their links, and their authorships with the affiliations given on them."""

from django.core.exceptions import ObjectDoesNotExist, ValidationError
from django.core.validators import MaxLengthValidator
from django.db import models
from django.db.models import Q
from django.urls import reverse
from django.utils.translation import gettext_lazy as _

from catalogue import languages, leads, search, text
from catalogue.derived import DerivedColumnsMixin
from catalogue.mathtext import MathLimitsValidator
from catalogue.models.base import (
    SLUG_HELP,
    NaturalKeyMixin,
    NaturalKeyQuerySet,
    publish_permissions,
    search_text_field,
    status_field,
)
from catalogue.models.querysets import AUTHORSHIPS_IN_ORDER, AuthorshipQuerySet, PaperQuerySet
from catalogue.slugs import AsciiSlugField, SlugFromTitleMixin


class Paper(NaturalKeyMixin, DerivedColumnsMixin, SlugFromTitleMixin, models.Model):
    """A published paper: its translated title, abstract and summary, and links."""

    slug_source = "title_en"
    slug_fallback = "paper"

    slug = AsciiSlugField(_("slug"), max_length=120, unique=True, blank=True, help_text=SLUG_HELP)
    # Rendered with their TeX maths (catalogue/mathtext.py), whose limits the validators
    # keep; a title is one line (text.CharField), an abstract and summary have a length limit.
    title = text.CharField(_("title"), max_length=400, validators=[MathLimitsValidator(_("Title"))])
    abstract = text.TextField(
        _("abstract"),
        blank=True,
        validators=[
            MaxLengthValidator(text.ABSTRACT_MAX_LENGTH),
            MathLimitsValidator(_("Abstract")),
        ],
    )
    summary = text.TextField(
        _("summary"),
        blank=True,
        help_text=_("An introduction for a general reader; may be longer than the abstract."),
        validators=[MaxLengthValidator(text.SUMMARY_MAX_LENGTH), MathLimitsValidator(_("Summary"))],
    )
    conference = models.ForeignKey(
        "papers.Conference",
        on_delete=models.PROTECT,
        related_name="papers",
        verbose_name=_("published at"),
        help_text=_("The conference whose proceedings published the paper."),
    )
    pages = text.CharField(
        _("pages"), max_length=30, blank=True, help_text=_("In the proceedings, e.g. 448-456.")
    )
    image = models.ImageField(_("teaser image"), upload_to="papers/", blank=True)
    image_alt = text.CharField(
        _("image description"),
        max_length=300,
        blank=True,
        help_text=_("Alternative text for readers who cannot see the image."),
    )
    status = status_field()
    # Language-neutral, as a slug: the name a compact file gives the paper, by which a
    # re-import finds it again after its title (and so its derived slug) was corrected.
    key = text.CharField(
        _("import key"),
        max_length=200,
        blank=True,
        help_text=_(
            "The paper's citation key (or key) in the imported conference file; a re-import "
            "updates the paper of this key. Unique within a conference."
        ),
    )
    authors = models.ManyToManyField(
        "papers.Author",
        through="papers.Authorship",
        related_name="papers",
        verbose_name=_("authors"),
    )
    lead = models.TextField(
        _("lead"),
        blank=True,
        default="",
        editable=False,
        help_text=_("The first sentence of the summary or abstract, shown in lists."),
    )
    search_text = search_text_field()
    # What a search matches, kept by catalogue/matching.py.
    match_text = models.TextField(_("matched text"), blank=True, default="", editable=False)

    objects = PaperQuerySet.as_manager()
    search_sources = ("title", "abstract", "summary")
    derived_columns = (search.SEARCH_TEXT, leads.LEAD)

    class Meta:
        verbose_name = _("paper")
        verbose_name_plural = _("papers")
        ordering = ["slug"]
        permissions = publish_permissions("paper")
        constraints = [
            models.UniqueConstraint(
                fields=["conference", "key"],
                condition=~Q(key=""),
                name="paper_unique_key",
                violation_error_message=_("Another paper of this conference has this import key."),
            ),
        ]
        indexes = [
            # A conference page's other papers (published_without_award_at), walked in
            # title order to the page's end and counted from the index alone, not sorted
            # (SQLite at 5,000 papers: 20 to 0.5 ms; the count 15 to 6 ms). The key is
            # included for PostgreSQL's count, which leaves out the awarded papers by key:
            # without it PostgreSQL read all 50,000 papers of make bench's data (22 ms,
            # 1.7 with it). SQLite's indexes hold the key anyway and ignore ``include``.
            models.Index(
                fields=["conference", "status", "title_en", "slug"],
                include=["id"],
                name="paper_listing_order",
            ),
        ]

    def __str__(self):
        return self.title_en or self.slug

    def get_absolute_url(self):
        return reverse("papers:paper-detail", kwargs={"slug": self.slug})

    def clean(self):
        """An image needs a description in every language (screen readers read it)."""
        super().clean()
        if self.image:
            missing = {
                field: ValidationError(
                    _("Describe the image for readers who cannot see it."), code="alt_text_missing"
                )
                for field in languages.columns("image_alt")
                if not (getattr(self, field) or "").strip()
            }
            if missing:
                raise ValidationError(missing)

    @property
    def ordered_authorships(self):
        """The authorships in order: ``authorships_in_order``'s prefetch, else sorted."""
        prefetched = getattr(self, AUTHORSHIPS_IN_ORDER, None)
        if prefetched is not None:
            return prefetched
        return sorted(self.authorships.all(), key=lambda authorship: authorship.position)


class Authorship(NaturalKeyMixin, models.Model):
    """An author's place on a paper, with the affiliations given on that paper."""

    paper = models.ForeignKey(
        "papers.Paper",
        on_delete=models.CASCADE,
        related_name="authorships",
        verbose_name=_("paper"),
    )
    author = models.ForeignKey(
        "papers.Author",
        on_delete=models.PROTECT,
        related_name="authorships",
        verbose_name=_("author"),
    )
    position = models.PositiveSmallIntegerField(
        _("position"), help_text=_("1 for the first author, 2 for the second, and so on.")
    )
    affiliations = models.ManyToManyField(
        "papers.Institution",
        through="papers.Affiliation",
        blank=True,
        related_name="authorships",
        verbose_name=_("affiliations"),
    )

    objects = AuthorshipQuerySet.as_manager()
    natural_key_fields = ("paper", "author")
    numbering = ("paper", "position")  # (group, number): 1, 2, 3... in a paper, no gaps

    class Meta:
        verbose_name = _("authorship")
        verbose_name_plural = _("authorships")
        ordering = ["paper", "position"]
        constraints = [
            models.UniqueConstraint(
                fields=["paper", "position"],
                name="authorship_unique_position",
                violation_error_message=_("Another author of this paper has this position."),
            ),
            models.UniqueConstraint(fields=["paper", "author"], name="authorship_unique_author"),
            models.CheckConstraint(
                condition=Q(position__gte=1),
                name="authorship_position_from_1",
                violation_error_message=_("Author positions start at 1."),
            ),
        ]
        indexes = [
            # A person's papers from the author's side (the author page's queries):
            # without it SQLite started from every published paper, 12 ms against 0.4.
            models.Index(fields=["author", "paper"], name="authorship_author_paper"),
        ]

    def __str__(self):
        try:
            author = self.author
        except ObjectDoesNotExist:  # recovered with its paper, its author deleted since
            author = _("deleted author #%(id)s") % {"id": self.author_id}
        return f"{author} ({self.position})"

    def set_affiliations(self, institutions):
        """Make ``institutions`` (in order, first listed first) this authorship's affiliations."""
        self.affiliation_rows.exclude(institution__in=institutions).delete()
        current = {row.institution_id: row for row in self.affiliation_rows.all()}
        for position, institution in enumerate(institutions, start=1):
            row = current.get(institution.pk) or Affiliation(
                authorship=self, institution=institution
            )
            if row.pk is None or row.position != position:
                row.position = position
                row.save()


class Affiliation(models.Model):
    """One institution of an authorship, in the order the paper lists them (first first)."""

    authorship = models.ForeignKey(
        "papers.Authorship",
        on_delete=models.CASCADE,
        related_name="affiliation_rows",
        verbose_name=_("authorship"),
    )
    institution = models.ForeignKey(
        "papers.Institution",
        on_delete=models.PROTECT,
        related_name="affiliation_rows",
        verbose_name=_("institution"),
    )
    position = models.PositiveSmallIntegerField(
        _("position"),
        default=0,
        help_text=_("Order among the author's affiliations on this paper, lowest first."),
    )

    class Meta:
        verbose_name = _("affiliation")
        verbose_name_plural = _("affiliations")
        # No unique position: the order is the point, ties fall back to the order of entry.
        ordering = ["authorship", "position", "pk"]
        constraints = [
            models.UniqueConstraint(
                fields=["authorship", "institution"], name="affiliation_unique_institution"
            ),
        ]

    def __str__(self):
        return f"{self.authorship}: {self.institution}"


class PaperLink(NaturalKeyMixin, models.Model):
    """A typed external link of a paper: its proceedings, arXiv, code, dataset, video, ..."""

    class Kind(models.TextChoices):
        # Declaration order is the order links are shown in.
        PMLR = "pmlr", _("PMLR proceedings")
        PROCEEDINGS = "proceedings", _("Proceedings")
        OPENREVIEW = "openreview", _("OpenReview")
        ARXIV = "arxiv", _("arXiv")
        POSTER = "poster", _("Conference poster page")
        PDF = "pdf", _("PDF")
        DOI = "doi", _("DOI")
        PROJECT = "project", _("Project page")
        CODE = "code", _("Code")
        DATASET = "dataset", _("Dataset")
        VIDEO = "video", _("Video")
        SLIDES = "slides", _("Slides")

    paper = models.ForeignKey(
        "papers.Paper", on_delete=models.CASCADE, related_name="links", verbose_name=_("paper")
    )
    kind = models.CharField(_("kind"), max_length=20, choices=Kind.choices)
    url = models.URLField(_("URL"), max_length=500)

    objects = NaturalKeyQuerySet.as_manager()
    natural_key_fields = ("paper", "kind")

    class Meta:
        verbose_name = _("link")
        verbose_name_plural = _("links")
        ordering = ["paper", "kind"]
        constraints = [
            models.UniqueConstraint(fields=["paper", "kind"], name="paperlink_unique_kind"),
        ]

    def __str__(self):
        return f"{self.get_kind_display()}: {self.url}"

    @classmethod
    def kind_label(cls, kind):
        """The label of ``kind`` in the active language, else ``kind``."""
        return str(dict(cls.Kind.choices).get(kind, kind))

    @property
    def sort_key(self):
        """The kind's place in ``Kind`` (declaration order is display order)."""
        return KIND_ORDER.get(self.kind, len(KIND_ORDER))


KIND_ORDER = {kind: position for position, kind in enumerate(PaperLink.Kind.values)}
