"""Forms: the visitors' search form, and the teaser image field, author-order and
award-level formsets and TeX warnings the editors' admin uses."""

from adminsortable2.admin import CustomInlineFormSet
from django import forms
from django.conf import settings
from django.contrib import admin
from django.contrib.admin.widgets import AutocompleteSelect, AutocompleteSelectMultiple
from django.core.exceptions import ValidationError
from django.db.models import F, UniqueConstraint
from django.forms.formsets import DELETION_FIELD_NAME
from django.utils import translation
from django.utils.choices import BaseChoiceIterator
from django.utils.html import conditional_escape, format_html, format_html_join
from django.utils.safestring import mark_safe
from django.utils.text import Truncator
from django.utils.translation import get_language, gettext_noop
from django.utils.translation import gettext_lazy as _
from modeltranslation.utils import build_localized_fieldname

from catalogue import languages
from catalogue.images import clean_image
from catalogue.mathtext import MathLimitsValidator, formula_problems
from catalogue.models import Author, Authorship, Award, Conference, Institution
from catalogue.models.querysets import conference_order
from catalogue.slugs import SlugsMadeFormSet


class TeaserImageField(forms.ImageField):
    """An image upload checked and re-encoded by ``catalogue.images.clean_image``, not by
    Django's check (Pillow without our limits): every bad upload is a form error."""

    def to_python(self, data):
        upload = forms.FileField.to_python(self, data)
        if upload is None:
            return None
        return clean_image(upload)


class AuthorshipFormSet(CustomInlineFormSet):
    """A paper's authorships, reordered by drag and drop (django-admin-sortable2). Positions
    are unique per paper, so a swap cannot be checked or saved row by row: ``clean``
    checks the whole formset's, ``save_existing_objects`` moves the rows aside first."""

    def clean(self):
        super().clean()
        seen = set()
        for form in self.forms:
            if not hasattr(form, "cleaned_data") or form.cleaned_data.get(DELETION_FIELD_NAME):
                continue
            position = form.cleaned_data.get("position")
            if position is None:
                continue  # a new row: save_new gives it the next free position
            if position < 1:
                raise ValidationError(_("Author positions start at 1."), code="position")
            if position in seen:
                raise ValidationError(
                    _("Two authors have position %(position)s."),
                    code="duplicate_position",
                    params={"position": position},
                )
            seen.add(position)

    def save_existing_objects(self, commit=True):
        if commit:
            self.model._default_manager.filter(pk__in=moving_rows(self)).move_aside()
        return super().save_existing_objects(commit)


def moving_rows(formset):
    """The primary keys of ``formset``'s saved rows whose position changes, and of those
    it deletes (whose position another row may take): the rows a formset of positions
    unique per parent moves out of the way before it saves."""
    return [
        form.instance.pk
        for form in formset.initial_forms
        if form.instance.pk and ("position" in form.changed_data or form in formset.deleted_forms)
    ]


class AwardLevelFormSet(SlugsMadeFormSet):
    """An award's levels. Two rows at one position get the model constraint's message in
    the editor's language, where Django's names the columns ("award and position").
    Positions are unique per award, so levels can swap only if the rows that move are
    first moved out of the way (as ``AuthorshipFormSet`` does), in one UPDATE."""

    POSITION_OFFSET = 10_000  # far above any level's position, below 32767

    def save_existing_objects(self, commit=True):
        if commit:
            self.model._default_manager.filter(pk__in=moving_rows(self)).update(
                position=F("position") + self.POSITION_OFFSET
            )
        return super().save_existing_objects(commit)

    def get_unique_error_message(self, unique_check):
        for constraint in self.model._meta.constraints:
            if (
                isinstance(constraint, UniqueConstraint)
                and set(constraint.fields) == set(unique_check)
                and constraint.violation_error_message != constraint.default_violation_error_message
            ):
                return constraint.get_violation_error_message()
        return super().get_unique_error_message(unique_check)


def maths_warnings(forms):
    """The warnings (strings in the active language) for the TeX mistakes in ``forms``'
    cleaned data: one per formula :func:`catalogue.mathtext.formula_problems` lists, in
    a field whose model field renders maths (has a ``MathLimitsValidator``), named by
    its form label. Deleted rows are skipped. The text is saved as it is: a warning."""
    for form in forms:
        data = getattr(form, "cleaned_data", None) or {}
        if data.get(DELETION_FIELD_NAME):
            continue
        fields = {field.name: field for field in form.instance._meta.fields}
        for name, value in data.items():
            field = fields.get(name)
            if not value or not isinstance(value, str) or field is None:
                continue
            if not any(isinstance(v, MathLimitsValidator) for v in field.validators):
                continue
            for formula, command in formula_problems(value):
                params = {
                    "field": form[name].label,
                    "formula": Truncator(" ".join(formula.split())).chars(40),
                    "command": command,
                }
                if command is None:
                    message = _(
                        "%(field)s: the formula “%(formula)s” cannot be read; it is "
                        "published as its TeX source. Check its braces and commands."
                    )
                else:
                    message = _(
                        "%(field)s: the formula “%(formula)s” uses %(command)s, a command "
                        "the site does not know; it is published as written."
                    )
                yield message % params


def labels_in_language(message, forms):
    """``message``, a change message as ``ModelAdmin.construct_change_message`` makes it,
    with each changed field named by its label in the active language. Django stores the
    labels untranslated, to translate them when the message is read, but no catalogue
    holds a label ("Position" is the message "position" with a capital; modeltranslation
    adds " [zh-hans]"), and django-reversion keeps the message as text in the editor's
    language: "已修改 … 的 Position". ``forms`` are the form and formset rows saved."""
    shown = {}
    for form in forms:
        for field in form.fields.values():
            with translation.override(None):
                stored = str(field.label)
            shown[stored] = str(field.label)
    for entry in message:
        for action in entry.values():
            if "fields" in action:
                action["fields"] = [shown.get(label, label) for label in action["fields"]]
    return message


def choices_listed(field, choices):
    """``field`` (a ChoiceField) with an invalid-choice error naming every allowed value."""
    allowed = ", ".join(str(value) for value, _label in choices if value not in ("", None))
    field.error_messages["invalid_choice"] = _(
        "Select a valid choice. %%(value)s is not one of the allowed values: %(allowed)s."
    ) % {"allowed": allowed}
    return field


class KnownAutocompleteSelect(AutocompleteSelect):
    """An autocomplete select whose chosen object is ``known`` (:class:`AwardEntryFormSet`
    sets it) when that is the value: Django's queries it for each row."""

    known = None

    def optgroups(self, name, value, attr=None):
        known = self.known
        chosen = {str(v) for v in value if str(v) not in self.choices.field.empty_values}
        if known is None or chosen != {str(known.pk)}:
            return super().optgroups(name, value, attr)
        options = []
        if not self.is_required:
            options.append(self.create_option(name, "", "", False, 0))
        label = self.choices.field.label_from_instance(known)
        options.append(self.create_option(name, known.pk, label, chosen, len(options)))
        return [(None, options, 0)]


class AwardEntryFormSet(forms.BaseInlineFormSet):
    """A paper's award entries drawn without a query per row: each entry's paper is the
    form's, its award (loaded by the inline) goes to :class:`KnownAutocompleteSelect`."""

    def add_fields(self, form, index):
        super().add_fields(form, index)
        entry = form.instance
        if self.instance.pk is not None and entry.paper_id == self.instance.pk:
            entry.paper = self.instance
        widget = form.fields["award"].widget
        widget = getattr(widget, "widget", widget)  # inside the admin's related wrapper
        if entry.pk is not None and isinstance(widget, KnownAutocompleteSelect):
            widget.known = entry.award


def levels_by_award(queryset, empty_label):
    """A callable giving an award entry's level choices: ``empty_label``, then a group
    per award ("conference: award") of ``queryset``'s levels, read once for all rows
    (labels only: the field and ``AwardEntry.clean`` check a submitted level)."""
    choices = []

    def grouped():
        if not choices:
            groups = {}
            for level in queryset:
                award = level.award
                label = f"{award.conference.name or award.conference.slug}: {award.name}"
                groups.setdefault((award.pk, label), []).append((level.pk, level.name))
            choices.append(("", empty_label))
            choices.extend((label, levels) for (_pk, label), levels in groups.items())
        return choices

    return grouped


class OrderedAutocompleteSelectMultiple(AutocompleteSelectMultiple):
    """The admin's autocomplete for several objects, the chosen ones in the value's order."""

    def optgroups(self, name, value, attr=None):
        groups = super().optgroups(name, value, attr)
        order = {str(part): index for index, part in enumerate(value)}
        for _group, options, _index in groups:
            options.sort(key=lambda option: order.get(str(option["value"]), len(order)))
        return groups


class OrderedInstitutionsField(forms.ModelMultipleChoiceField):
    """Institutions chosen in order: ``clean`` returns a list, first chosen first."""

    def clean(self, value):
        chosen = {str(obj.pk): obj for obj in super().clean(value)}
        return [chosen[str(pk)] for pk in dict.fromkeys(value or []) if str(pk) in chosen]


class AuthorshipForm(forms.ModelForm):
    """An authorship with its affiliations in the order picked (``models.Affiliation``)."""

    affiliations = OrderedInstitutionsField(
        queryset=Institution.objects.all(),
        required=False,
        label=_("affiliations"),
        help_text=_("In the order the paper lists them."),
    )

    class Meta:
        model = Authorship
        fields = ["paper", "author", "position", "affiliations"]

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        field = self.fields["affiliations"]
        field.widget = OrderedAutocompleteSelectMultiple(
            Authorship._meta.get_field("affiliations"), admin.site
        )
        field.widget.choices = field.choices  # as the field does for its own widget
        if self.instance.pk:  # in the paper's order, not the institutions' own
            self.initial["affiliations"] = [
                row.institution_id for row in self.instance.affiliation_rows.all()
            ]

    def clean(self):
        """A row whose author was deleted since (rows of a recovered paper) says how to
        mend it, not only that the field is required."""
        cleaned_data = super().clean()
        missing = self.instance.author_id
        if "author" in self.errors and missing and not Author.objects.filter(pk=missing).exists():
            self.errors["author"] = self.error_class(
                [
                    _(
                        "This author (#%(id)s) was deleted after the paper. Recover the "
                        "author first (Authors, Recover deleted authors), or choose another "
                        "author or delete this row."
                    )
                    % {"id": missing}
                ]
            )
        return cleaned_data

    def save(self, commit=True):
        """Save as Django does, then the affiliations in order (in ``save_m2m``)."""
        authorship = super().save(commit=False)
        save_m2m = self.save_m2m

        def save_m2m_and_affiliations():
            save_m2m()
            if "affiliations" in self.cleaned_data:
                authorship.set_affiliations(self.cleaned_data["affiliations"])

        self.save_m2m = save_m2m_and_affiliations
        if commit:
            authorship.save()
            self.save_m2m()
        return authorship


class AuthorshipRowForm(AuthorshipForm):
    """A row of ``AuthorshipFormSet``: ``position`` is a plain form field (not a model
    field of the form), so the model's validation leaves it to the formset."""

    position = Authorship._meta.get_field("position").formfield(required=False)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if self.instance.pk:
            self.initial.setdefault("position", self.instance.position)

    def clean(self):
        cleaned_data = super().clean()
        if cleaned_data.get("position") is not None:
            self.instance.position = cleaned_data["position"]
        return cleaned_data


# Longer queries are refused with a form error rather than searched.
QUERY_MAX_LENGTH = 200


def _attributes(attrs):
    """HTML attributes as Django's ``django/forms/widgets/attrs.html`` writes them."""
    return format_html_join(
        "",
        "{}",
        (
            (format_html(" {}", name) if value is True else format_html(' {}="{}"', name, value),)
            for name, value in attrs.items()
            if value is not False
        ),
    )


class ListSelect(forms.Select):
    """Django's ``Select`` HTML without a template per option (groups go to Django's).
    For the uncached search page's 50 ms target: at 200 options (one per award series)
    Django's takes 13 ms, this 0.1 ms (measured for issue 28)."""

    def render(self, name, value, attrs=None, renderer=None):
        choices = list(self.choices)
        if any(isinstance(label, (list, tuple)) for _value, label in choices):
            return super().render(name, value, attrs, renderer)
        # As ChoiceWidget.optgroups(): only the first option among the values is selected.
        wanted = self.format_value(value)
        options, selected = [], False
        for option_value, label in choices:
            option_value = "" if option_value is None else str(option_value)
            chosen = not selected and option_value in wanted
            selected = selected or chosen
            options.append(
                f'\n  <option value="{conditional_escape(option_value)}"'
                f"{' selected' if chosen else ''}>{conditional_escape(label)}</option>\n"
            )
        attrs = self.build_attrs(self.attrs, attrs)
        return format_html(
            '<select name="{}"{}>{}\n</select>',
            name,
            _attributes(attrs),
            mark_safe("".join(options)),  # noqa: S308 - every value escaped above
        )


def without_nul(text):
    """``text`` with each NUL replaced by U+FFFD, as browsers show it (``None`` stays)."""
    return text.replace("\x00", "\ufffd") if isinstance(text, str) else text


class ChoiceShownField(forms.ChoiceField):
    """A ChoiceField whose invalid-choice error shows the refused value ``without_nul``
    (no choice holds NUL nor U+FFFD, so a value with either is refused alike)."""

    def to_python(self, value):
        return without_nul(super().to_python(value))


class TypedChoiceShownField(ChoiceShownField, forms.TypedChoiceField):
    """A TypedChoiceField whose error shows the refused value as ChoiceShownField does."""


class QueryInput(forms.SearchInput):
    """The search box, showing a query with NUL characters as ``without_nul`` does."""

    def format_value(self, value):
        return without_nul(super().format_value(value))


# The search form's choices are plain rows (model instances took about 4 ms a page).
def conference_choices():
    """The published conferences, newest first: dicts of slug, year and name columns."""
    return (
        Conference.objects.published()
        .newest_first()
        .rewrite(False)
        .values("slug", "year", *languages.columns("name"))
    )


def award_choices():
    """The published awards in conference order: dicts of slug and name columns."""
    return (
        Award.objects.published()
        .order_by(*conference_order("conference__"), "position", "slug")
        .rewrite(False)
        .values("slug", *languages.columns("name"))
    )


def _localized_name():
    """A function of a choice row giving its name as ``localized_value()`` would."""
    language = get_language() or settings.LANGUAGE_CODE
    active = build_localized_fieldname("name", language)
    default = build_localized_fieldname("name", settings.MODELTRANSLATION_DEFAULT_LANGUAGE)
    return lambda values: values[active] or values[default] or ""


class ListedChoices(BaseChoiceIterator):
    """Choices that Django's ``normalize_choices()`` passes through (a few ms a page)."""

    def __init__(self, choices):
        self.choices = choices

    def __iter__(self):
        return iter(self.choices)


# Django's message for a NUL (ProhibitNullCharactersValidator), kept in our catalogue,
# whose Chinese overrides Django's wrong one (tests/catalogue/test_search.py).
NULL_CHARACTERS_MESSAGE = gettext_noop("Null characters are not allowed.")


class SearchForm(forms.Form):
    """The search page's query string: text, and a published conference, year and award
    series (two queries). Unknown values, text over ``QUERY_MAX_LENGTH`` and NUL
    characters are form errors, never queries."""

    q = forms.CharField(
        label=_("Search for"),
        max_length=QUERY_MAX_LENGTH,
        required=False,
        widget=QueryInput,
        help_text=_("Words from a title, abstract or summary, an author or an institution."),
    )
    conference = ChoiceShownField(label=_("Conference"), required=False, widget=ListSelect)
    year = TypedChoiceShownField(
        label=_("Year"), required=False, coerce=int, empty_value=None, widget=ListSelect
    )
    award = ChoiceShownField(label=_("Award"), required=False, widget=ListSelect)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        any_choice = [("", _("Any"))]
        name = _localized_name()
        conferences = list(conference_choices())
        self.fields["conference"].choices = ListedChoices(
            any_choice + [(values["slug"], name(values)) for values in conferences]
        )
        years = sorted({values["year"] for values in conferences}, reverse=True)
        self.fields["year"].choices = ListedChoices(any_choice + [(year, year) for year in years])
        series = {}
        for values in award_choices():
            if values["slug"] not in series:
                series[values["slug"]] = name(values)
        self.fields["award"].choices = ListedChoices(any_choice + list(series.items()))

    def shown_query(self):
        """The query as the page's title repeats it, ``without_nul``."""
        return without_nul(self["q"].value())

    def has_criteria(self):
        """Whether the (valid) form asks for anything: text or a filter."""
        return any(self.cleaned_data.get(name) not in (None, "") for name in self.fields)
