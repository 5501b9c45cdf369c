"""The editors' admin: every model, with tabbed translation forms (modeltranslation)."""

from django.contrib import admin
from django.db.models import Count
from django.utils.translation import gettext_lazy as _
from modeltranslation.admin import TabbedDjangoJqueryTranslationAdmin

from .models import (
    Author,
    Authorship,
    Award,
    AwardEntry,
    Conference,
    Institution,
    Paper,
    PaperLink,
    Venue,
)


class TranslationAdmin(TabbedDjangoJqueryTranslationAdmin):
    """Tabbed translation fields using Django's own jQuery and our copy of jQuery UI."""


@admin.register(Venue)
class VenueAdmin(TranslationAdmin):
    list_display = ["acronym", "name", "slug"]
    search_fields = ["acronym", "name_en", "name_zh_hans", "slug"]
    prepopulated_fields = {"slug": ["acronym"]}


@admin.register(Conference)
class ConferenceAdmin(TranslationAdmin):
    list_display = ["name", "venue", "year", "city", "start_date", "end_date", "status"]
    list_filter = ["status", "venue", "year"]
    list_select_related = ["venue"]
    search_fields = ["name_en", "name_zh_hans", "city_en", "city_zh_hans", "slug"]
    autocomplete_fields = ["venue"]
    date_hierarchy = "start_date"


@admin.register(Institution)
class InstitutionAdmin(TranslationAdmin):
    list_display = ["name", "slug", "country"]
    search_fields = ["name_en", "name_zh_hans", "slug"]
    prepopulated_fields = {"slug": ["name_en"]}


@admin.register(Author)
class AuthorAdmin(admin.ModelAdmin):
    list_display = ["name", "slug", "paper_count"]
    search_fields = ["name", "other_names", "slug"]
    prepopulated_fields = {"slug": ["name"]}

    def get_queryset(self, request):
        return super().get_queryset(request).annotate(paper_count=Count("authorships"))

    @admin.display(description=_("papers"), ordering="paper_count")
    def paper_count(self, obj):
        return obj.paper_count


class AuthorshipInline(admin.TabularInline):
    model = Authorship
    extra = 0
    autocomplete_fields = ["author", "affiliations"]
    ordering = ["position"]


class PaperLinkInline(admin.TabularInline):
    model = PaperLink
    extra = 0


class AwardEntryInline(admin.TabularInline):
    model = AwardEntry
    extra = 0
    autocomplete_fields = ["award", "paper"]


@admin.register(Paper)
class PaperAdmin(TranslationAdmin):
    list_display = ["title", "conference", "slug", "status"]
    list_filter = ["status", "conference", "awards__conference", "awards__slug"]
    list_select_related = ["conference"]
    search_fields = [
        "title_en",
        "title_zh_hans",
        "slug",
        "authorships__author__name",
    ]
    autocomplete_fields = ["conference"]
    prepopulated_fields = {"slug": ["title_en"]}
    inlines = [AuthorshipInline, PaperLinkInline, AwardEntryInline]


class AwardEntryForAwardInline(admin.TabularInline):
    model = AwardEntry
    extra = 0
    autocomplete_fields = ["paper"]
    fields = ["paper", "level", "position"]


@admin.register(Award)
class AwardAdmin(TranslationAdmin):
    list_display = ["name", "conference", "slug", "position", "status"]
    list_filter = ["status", "conference", "slug"]
    list_select_related = ["conference"]
    search_fields = ["name_en", "name_zh_hans", "slug", "conference__slug"]
    autocomplete_fields = ["conference"]
    inlines = [AwardEntryForAwardInline]


@admin.register(AwardEntry)
class AwardEntryAdmin(admin.ModelAdmin):
    list_display = ["paper", "award", "level", "position"]
    list_filter = ["level", "award__conference", "award__slug"]
    list_select_related = ["paper", "award__conference"]
    search_fields = ["paper__title_en", "paper__title_zh_hans", "award__name_en"]
    autocomplete_fields = ["award", "paper"]


@admin.register(Authorship)
class AuthorshipAdmin(admin.ModelAdmin):
    list_display = ["author", "paper", "position"]
    list_select_related = ["author", "paper"]
    search_fields = ["author__name", "paper__title_en", "paper__title_zh_hans"]
    autocomplete_fields = ["author", "paper", "affiliations"]


@admin.register(PaperLink)
class PaperLinkAdmin(admin.ModelAdmin):
    list_display = ["paper", "kind", "url"]
    list_filter = ["kind"]
    list_select_related = ["paper"]
    search_fields = ["url", "paper__title_en"]
    autocomplete_fields = ["paper"]
