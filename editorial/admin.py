"""The editors' admin: tabbed translations (modeltranslation), history with compare and
restore (django-reversion-compare), drag-and-drop author order (django-admin-sortable2),
review, publish and schedule (editorial/review.py), previews of drafts, and a "missing
Chinese" filter and column."""

from contextlib import contextmanager

import reversion
from adminsortable2.admin import SortableAdminBase, SortableTabularInline
from django.conf import settings
from django.contrib import admin, messages
from django.contrib.admin.utils import unquote
from django.core.exceptions import PermissionDenied
from django.db import models, transaction
from django.db.models import Count, F, Q, RestrictedError, Value
from django.db.models.functions import Coalesce, NullIf
from django.shortcuts import redirect
from django.templatetags.static import static
from django.utils.encoding import force_str
from django.utils.html import format_html
from django.utils.translation import get_language
from django.utils.translation import gettext_lazy as _
from easy_thumbnails.exceptions import InvalidImageFormatError
from easy_thumbnails.files import get_thumbnailer
from modeltranslation.admin import (
    TabbedDjangoJqueryTranslationAdmin,
    TranslationStackedInline,
    TranslationTabularInline,
)
from modeltranslation.translator import translator
from modeltranslation.utils import build_localized_fieldname
from reversion_compare.admin import CompareVersionAdmin

from catalogue import languages
from catalogue.languages import localized_value
from catalogue.models import (
    Author,
    Authorship,
    Award,
    AwardEntry,
    AwardKind,
    AwardLevel,
    Conference,
    Institution,
    Paper,
    PaperLink,
    Status,
    Venue,
)
from catalogue.models.querysets import conference_order
from catalogue.signals import failed_side_effects
from catalogue.slugs import SlugsMadeFormSet
from editorial.editing import EditTokenFormMixin
from editorial.forms import (
    AuthorshipForm,
    AuthorshipFormSet,
    AuthorshipRowForm,
    AwardEntryFormSet,
    AwardLevelFormSet,
    KnownAutocompleteSelect,
    TeaserImageField,
    choices_listed,
    labels_in_language,
    levels_by_award,
    maths_warnings,
)
from editorial.history import register_models
from editorial.review import ReviewAdminMixin, may_publish
from editorial.team_admin import TeamScopedAdmin, TeamScopedChoices
from editorial.teams import scoped

register_models()  # with what belongs to each, before the ModelAdmins below would

# Addresses typed without a scheme are https (Django 6's default; 5.2 warns without it).
URL_FIELDS = {models.URLField: {"assume_scheme": "https"}}


def missing_chinese_q(model):
    """A Q for rows of ``model`` with a translated field in English but not in Chinese."""
    condition = Q()
    for field in translator.get_options_for_model(model).fields:
        english, *others = languages.columns(field)
        has_english = ~Q(**{english: ""}) & Q(**{f"{english}__isnull": False})
        for chinese in others:
            condition |= has_english & (Q(**{chinese: ""}) | Q(**{f"{chinese}__isnull": True}))
    return condition


def missing_chinese_fields(obj):
    """The translated fields of ``obj`` in English but not in Chinese, in declared order."""
    missing = []
    for field in translator.get_options_for_model(type(obj)).fields:
        english, *others = (getattr(obj, column) for column in languages.columns(field))
        if english and not all(others):
            missing.append(field)
    return missing


class MissingChineseFilter(admin.SimpleListFilter):
    """Rows missing a Chinese translation; with facets on, each choice shows its count."""

    title = _("Chinese translation")
    parameter_name = "chinese"

    def lookups(self, request, model_admin):
        return [("missing", _("Missing")), ("complete", _("Complete"))]

    def queryset(self, request, queryset):
        condition = missing_chinese_q(queryset.model)
        if self.value() == "missing":
            return queryset.filter(condition)
        if self.value() == "complete":
            return queryset.exclude(condition)
        return None


def shown_translation(field):
    """An expression of the translated ``field`` as the admin shows it (the active
    language's column, else the default's), for sorting by what editors read."""
    default = build_localized_fieldname(field, settings.MODELTRANSLATION_DEFAULT_LANGUAGE)
    own = build_localized_fieldname(field, get_language() or settings.LANGUAGE_CODE)
    if own == default:
        return F(default)
    return Coalesce(NullIf(own, Value("")), F(default), output_field=models.TextField())


class AwardSeriesFilter(admin.SimpleListFilter):
    """Papers by award series (slug), named by the newest edition in the admin's language."""

    title = _("award")
    parameter_name = "award"

    def lookups(self, request, model_admin):
        names = {}
        awards = scoped(Award.objects.all(), request.user)  # of the editor's venues
        awards = awards.order_by(*conference_order("conference__"), "position", "slug")
        for award in awards:
            names.setdefault(award.slug, localized_value(award, "name")[0] or award.slug)
        return sorted(names.items(), key=lambda item: (item[1].casefold(), item[0]))

    def queryset(self, request, queryset):
        if self.value():
            return queryset.filter(awards__slug=self.value()).distinct()
        return None


class EditorFieldsMixin:
    """Addresses without a scheme are https; an invalid choice's error names the allowed values."""

    formfield_overrides = URL_FIELDS

    def formfield_for_choice_field(self, db_field, request, **kwargs):
        field = super().formfield_for_choice_field(db_field, request, **kwargs)
        return choices_listed(field, db_field.choices)


class ContentAdmin(TeamScopedAdmin, EditorFieldsMixin, CompareVersionAdmin):
    """History, compare (with the view permission) and restore for every content model,
    of the editor's venues (``TeamScopedAdmin``).
    Only a save that changes something enters the history, with what belongs to the
    object (``editorial.history.FOLLOW``). A change form carries an edit token. A view
    that writes warns when a side effect of its committed change failed."""

    RESTORING_VIEWS = ("_revision", "_recover")  # django-reversion's restore, recover

    @contextmanager
    def failed_side_effects_warned(self, request):
        """Run the block, then warn the editor once of each side effect of its committed
        changes that failed (``catalogue.signals.after_commit``: share cards, thumbnails;
        the change stands). Outside every transaction of the block, so that the commit
        and its side effects happen inside it."""
        with failed_side_effects() as failures:
            yield
        for warning in dict.fromkeys(str(failure) for failure in failures):
            self.message_user(request, warning, messages.WARNING)

    def add_view(self, request, form_url="", extra_context=None):
        with self.failed_side_effects_warned(request):
            return super().add_view(request, form_url, extra_context)

    def change_view(self, request, object_id, form_url="", extra_context=None):
        with self.failed_side_effects_warned(request):
            return super().change_view(request, object_id, form_url, extra_context)

    def changelist_view(self, request, extra_context=None):
        with self.failed_side_effects_warned(request):  # actions, list_editable
            return super().changelist_view(request, extra_context)

    def delete_view(self, request, object_id, extra_context=None):
        with self.failed_side_effects_warned(request):
            return super().delete_view(request, object_id, extra_context)

    @contextmanager
    def create_revision(self, request):
        """A revision holding only what ``log_addition`` and ``log_change`` add."""
        with reversion.create_revision(manage_manually=True):
            reversion.set_user(request.user)
            yield

    def get_form(self, request, obj=None, change=False, **kwargs):
        form = super().get_form(request, obj, change=change, **kwargs)
        if obj is None or obj.pk is None:
            return form
        return type(form.__name__, (EditTokenFormMixin, form), {})

    def construct_change_message(self, request, form, formsets, add=False):
        """Django's message, its field names in the editor's language (``labels_in_language``)."""
        message = super().construct_change_message(request, form, formsets, add)
        rows = [row for formset in formsets or [] for row in formset.forms]
        return labels_in_language(message, [form, *rows])

    def save_related(self, request, form, formsets, change):
        """Save, then warn of each TeX mistake in the form and its rows (the save stands)."""
        super().save_related(request, form, formsets, change)
        rows = [row for formset in formsets for row in formset.forms]
        for warning in maths_warnings([form, *rows]):
            self.message_user(request, warning, messages.WARNING)

    def log_addition(self, request, obj, message):
        if reversion.is_active():
            reversion.add_to_revision(obj)
        return super().log_addition(request, obj, message)

    def log_change(self, request, obj, message):
        """Log and record a change; nothing at all for a save that changed nothing."""
        url_name = request.resolver_match.url_name if request.resolver_match else ""
        if not message and not url_name.endswith(self.RESTORING_VIEWS):
            return None
        if reversion.is_active():
            reversion.add_to_revision(obj)
        return super().log_change(request, obj, message)

    def lookup_allowed(self, lookup, value, request):
        """Django's rule, and no NUL in a value (PostgreSQL cannot compare it: a 500)."""
        if "\x00" in value:
            return False
        return super().lookup_allowed(lookup, value, request)

    def compare_view(self, request, object_id, extra_context=None):
        if not self.has_view_or_change_permission(request):
            raise PermissionDenied
        return super().compare_view(request, object_id, extra_context)

    def revision_view(self, request, object_id, version_id, extra_context=None):
        """django-reversion's page of a version (restore it), ``restricted_as_message``."""
        view = super().revision_view
        return self.restricted_as_message(view, request, object_id, version_id, extra_context)

    def recover_view(self, request, version_id, extra_context=None):
        """django-reversion's page of a deleted object (recover it), ``restricted_as_message``."""
        view = super().recover_view
        return self.restricted_as_message(view, request, version_id, extra_context)

    def restricted_as_message(self, view, request, *args):
        """``view``'s answer; if restoring would delete what others still refer to with
        RESTRICT (a level an entry outside the version is at), the changelist with the
        reason, as django-reversion answers it for PROTECT, where it was a server error."""
        try:
            with self.failed_side_effects_warned(request):
                return view(request, *args)
        except RestrictedError as error:
            self.message_user(request, force_str(error), messages.ERROR)
            opts = self.model._meta
            return redirect(f"{self.admin_site.name}:{opts.app_label}_{opts.model_name}_changelist")


class TranslatedContentAdmin(ContentAdmin, TabbedDjangoJqueryTranslationAdmin):
    """Tabbed translation fields, history, and the "missing Chinese" filter, column and count."""

    show_facets = admin.ShowFacets.ALWAYS
    change_list_template = "admin/papers/translated_change_list.html"

    def get_list_filter(self, request):
        return [*super().get_list_filter(request), MissingChineseFilter]

    def get_list_display(self, request):
        return [*super().get_list_display(request), "chinese_translation"]

    @admin.display(description=_("Chinese"))
    def chinese_translation(self, obj):
        """A tick, or a cross and the names of the fields still without Chinese."""
        missing = missing_chinese_fields(obj)
        if not missing:
            return format_html(
                '<img src="{}" alt="{}">', static("admin/img/icon-yes.svg"), _("Complete")
            )
        names = ", ".join(str(type(obj)._meta.get_field(field).verbose_name) for field in missing)
        return format_html(
            '<img src="{}" alt=""> {}', static("admin/img/icon-no.svg"), _("Missing: %s") % names
        )

    def changelist_view(self, request, extra_context=None):
        """The list, with ``missing_chinese_count`` (one query)."""
        remaining = self.get_queryset(request).filter(missing_chinese_q(self.model)).count()
        extra_context = {**(extra_context or {}), "missing_chinese_count": remaining}
        return super().changelist_view(request, extra_context)


class PublishingAdmin(ReviewAdminMixin, TranslatedContentAdmin):
    """Review, publish and schedule (editorial/review.py), and "View on site" opening a
    draft's preview; times in the editor's time zone (editorial/timezones.py)."""

    class Media:
        js = ["js/admin-timezone.js"]

    def view_on_site(self, obj):
        """The public page of a published object, the preview of a draft."""
        url = obj.get_absolute_url()
        return url if obj.status == Status.PUBLISHED else f"{url}?{settings.PREVIEW_PARAMETER}=1"


@admin.register(Venue)
class VenueAdmin(TranslatedContentAdmin):
    list_display = ["acronym", "name", "slug"]
    search_fields = ["acronym", *languages.columns("name"), "slug"]
    prepopulated_fields = {"slug": ["acronym"]}


class AwardInline(TranslationStackedInline):
    model = Award
    formset = SlugsMadeFormSet
    extra = 0
    fields = ["name", "slug", "kind", "description", "position", "status"]
    show_change_link = True

    def get_readonly_fields(self, request, obj=None):
        """The awards' statuses are changed on their own forms without the publish right."""
        readonly = list(super().get_readonly_fields(request, obj))
        return readonly if may_publish(request.user, Award) else [*readonly, "status"]


@admin.register(AwardKind)
class AwardKindAdmin(TranslatedContentAdmin):
    """Kinds of award, every venue's: site-wide editors add, change and delete them
    (editorial/teams.py); team editors see them and choose one for an award."""

    list_display = ["name", "slug", "position"]
    search_fields = [*languages.columns("name"), "slug"]
    prepopulated_fields = {"slug": ["name_en"]}


@admin.register(Conference)
class ConferenceAdmin(PublishingAdmin):
    list_display = ["name", "venue", "year", "city", "start_date", "end_date", "status"]
    list_filter = ["status", "venue", "year"]
    list_select_related = ["venue"]
    search_fields = [*languages.columns("name"), *languages.columns("city"), "slug"]
    autocomplete_fields = ["venue"]
    date_hierarchy = "start_date"
    prepopulated_fields = {"slug": ["name_en"]}
    inlines = [AwardInline]


@admin.register(Institution)
class InstitutionAdmin(TranslatedContentAdmin):
    list_display = ["name", "slug", "country"]
    search_fields = [*languages.columns("name"), "slug"]
    prepopulated_fields = {"slug": ["name_en"]}


@admin.register(Author)
class AuthorAdmin(ContentAdmin):
    # In the author index's order (family name first): the split is what citations use,
    # so the list shows it for editors to check against the name.
    list_display = ["name", "family_name", "given_name", "slug", "paper_count"]
    search_fields = ["name", "given_name", "family_name", "native_name", "other_names", "slug"]
    ordering = ["sort_name", "slug"]
    prepopulated_fields = {"slug": ["name"]}

    def get_queryset(self, request):
        return super().get_queryset(request).annotate(paper_count=Count("authorships"))

    @admin.display(description=_("papers"), ordering="paper_count")
    def paper_count(self, obj):
        return obj.paper_count


class AuthorshipInline(SortableTabularInline):
    """Authors in order: drag a row by its handle; the positions are renumbered."""

    model = Authorship
    form = AuthorshipRowForm
    formset = AuthorshipFormSet
    extra = 0
    autocomplete_fields = ["author"]
    ordering = ["position"]

    def get_formset(self, request, obj=None, **kwargs):
        # The position is a plain field of the row form (see AuthorshipRowForm).
        kwargs["fields"] = ["paper", "author", "affiliations"]
        return super().get_formset(request, obj, **kwargs)


class PaperLinkInline(EditorFieldsMixin, admin.TabularInline):
    model = PaperLink
    extra = 0


class AwardEntryInline(TeamScopedChoices, admin.TabularInline):
    """A paper's awards, levels grouped by award, with as many queries for twenty entries
    as for one (``levels_by_award``, ``AwardEntryFormSet``)."""

    model = AwardEntry
    formset = AwardEntryFormSet
    extra = 0
    autocomplete_fields = ["award", "paper"]

    def get_queryset(self, request):
        return super().get_queryset(request).select_related("award__conference", "level")

    def formfield_for_foreignkey(self, db_field, request, **kwargs):
        if db_field.name == "award":
            kwargs["widget"] = KnownAutocompleteSelect(
                db_field, self.admin_site, using=kwargs.get("using")
            )
        if db_field.name != "level":
            return super().formfield_for_foreignkey(db_field, request, **kwargs)
        levels = AwardLevel.objects.select_related("award__conference")
        kwargs["queryset"] = levels.order_by(
            *conference_order("award__conference__"),
            "award__position",
            "award__slug",
            "position",
            "slug",
        )
        field = super().formfield_for_foreignkey(db_field, request, **kwargs)
        field.choices = levels_by_award(field.queryset, field.empty_label)
        return field


@admin.register(Paper)
class PaperAdmin(SortableAdminBase, PublishingAdmin):
    list_display = ["shown_title", "conference", "slug", "status", "teaser_state"]
    list_filter = ["status", "conference", "awards__conference", AwardSeriesFilter]
    list_select_related = ["conference"]
    search_fields = [*languages.columns("title"), "slug", "authorships__author__name"]
    autocomplete_fields = ["conference"]
    prepopulated_fields = {"slug": ["title_en"]}
    readonly_fields = ["teaser_thumbnail"]
    formfield_overrides = {**URL_FIELDS, models.ImageField: {"form_class": TeaserImageField}}
    inlines = [AuthorshipInline, PaperLinkInline, AwardEntryInline]

    def revision_view(self, request, object_id, version_id, extra_context=None):
        """Restore a version, its author order too: the authorships are moved aside first
        (django-reversion saves them one by one), rolled back unless restored."""
        paper_id = unquote(object_id)
        if not paper_id.isdigit():  # no such paper: django-reversion answers 404
            return super().revision_view(request, object_id, version_id, extra_context)
        with self.failed_side_effects_warned(request), transaction.atomic():
            Authorship.objects.filter(paper_id=paper_id).move_aside()
            response = super().revision_view(request, object_id, version_id, extra_context)
            if Authorship.objects.filter(paper_id=paper_id).moved_aside().exists():
                transaction.set_rollback(True)
        return response

    def get_object(self, request, object_id, from_field=None):
        """The paper, with ``stored_image``: its teaser's name before the form changes it."""
        paper = super().get_object(request, object_id, from_field)
        if paper is not None:
            paper.stored_image = paper.image.name
        return paper

    def get_queryset(self, request):
        """Papers with ``shown_title`` (``shown_translation``), which the title column sorts by."""
        return super().get_queryset(request).annotate(shown_title=shown_translation("title"))

    @admin.display(description=_("title"), ordering="shown_title")
    def shown_title(self, obj):
        """The title in the admin's language, or the English one while it has none."""
        return obj.title

    @admin.display(description=_("teaser image"))
    def teaser_state(self, obj):
        if not obj.image:
            return "–"
        if not obj.image.storage.exists(obj.image.name):
            return format_html("<strong>{}</strong>", _("missing file"))
        return _("stored")

    @admin.display(description=_("current teaser"))
    def teaser_thumbnail(self, obj):
        """The stored teaser, small; after a refused form, still the stored one."""
        name = getattr(obj, "stored_image", obj.image.name)
        if not name:
            return "–"
        try:
            url = get_thumbnailer(obj.image.storage, relative_name=name)["admin"].url
        except (OSError, InvalidImageFormatError):  # a missing or unreadable file
            return format_html("<strong>{}</strong>", _("The stored image cannot be read."))
        return format_html('<img src="{}" alt="{}">', url, obj.image_alt_en)


class AwardLevelInline(TranslationTabularInline):
    """An award's levels, the top one first; a blank slug is made from the English name."""

    model = AwardLevel
    formset = AwardLevelFormSet
    extra = 0
    fields = ["slug", "name", "name_plural", "position"]


class AwardEntryForAwardInline(TeamScopedChoices, admin.TabularInline):
    """An award's papers; the level list offers this award's levels only."""

    model = AwardEntry
    extra = 0
    autocomplete_fields = ["paper"]
    fields = ["paper", "level", "position"]

    def get_formset(self, request, obj=None, **kwargs):
        # On the formset's own form class, as the inline is shared by concurrent requests.
        formset = super().get_formset(request, obj, **kwargs)
        levels = AwardLevel.objects.filter(award=obj if obj is not None and obj.pk else None)
        formset.form.base_fields["level"].queryset = levels.select_related("award__conference")
        return formset


@admin.register(Award)
class AwardAdmin(PublishingAdmin):
    list_display = ["name", "conference", "kind", "slug", "position", "status"]
    list_filter = ["status", "conference", "kind", "slug"]
    list_select_related = ["conference", "kind"]
    search_fields = [*languages.columns("name"), "slug", "conference__slug"]
    autocomplete_fields = ["conference", "kind"]
    prepopulated_fields = {"slug": ["name_en"]}
    inlines = [AwardLevelInline, AwardEntryForAwardInline]

    def get_queryset(self, request):
        """With the conference str(award) names, and the kind the list shows (a
        select_related here makes the changelist skip ``list_select_related``)."""
        return super().get_queryset(request).select_related("conference", "kind")


@admin.register(AwardEntry)
class AwardEntryAdmin(ContentAdmin):
    list_display = ["paper", "award", "level", "position"]
    list_filter = ["level__slug", "award__conference", "award__slug"]
    list_select_related = ["paper", "award__conference", "level__award__conference"]
    search_fields = [*languages.columns("title", "paper__"), "award__name_en"]
    autocomplete_fields = ["award", "paper"]


@admin.register(Authorship)
class AuthorshipAdmin(ContentAdmin):
    list_display = ["author", "paper", "position"]
    list_select_related = ["author", "paper"]
    search_fields = ["author__name", *languages.columns("title", "paper__")]
    autocomplete_fields = ["author", "paper"]
    form = AuthorshipForm


@admin.register(PaperLink)
class PaperLinkAdmin(ContentAdmin):
    list_display = ["paper", "kind", "url"]
    list_filter = ["kind"]
    list_select_related = ["paper"]
    search_fields = ["url", "paper__title_en"]
    autocomplete_fields = ["paper"]
