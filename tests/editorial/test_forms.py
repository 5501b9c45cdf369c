"""editorial/forms.py: the search form's selects."""

import pytest
from django import forms
from django.utils.safestring import mark_safe
from django.utils.translation import gettext_lazy

from editorial.forms import ListSelect
from tests import factories

CHOICES = [
    ("", gettext_lazy("Any")),
    ("icml-2025", "ICML 2025"),
    ("a<b&\"c'", "<script>alert(1)</script> & more"),
    (2015, 2015),
    ("safe", mark_safe("<b>kept</b>")),  # noqa: S308 - checks that both escape alike
]


@pytest.mark.parametrize("value", [None, "", "icml-2025", 2015, "2015", "a<b&\"c'", "unknown"])
@pytest.mark.parametrize(
    "attrs",
    [None, {"id": "id_award", "aria-describedby": "id_award_helptext"}, {"required": True}],
)
def test_list_select_writes_the_html_of_djangos_select(value, attrs):
    assert ListSelect(choices=CHOICES).render("award", value, attrs) == forms.Select(
        choices=CHOICES
    ).render("award", value, attrs)


def test_list_select_leaves_groups_to_django():
    choices = [("Venues", [("icml", "ICML"), ("nips", "NeurIPS")]), ("", "Any")]
    assert ListSelect(choices=choices).render("v", "icml") == forms.Select(choices=choices).render(
        "v", "icml"
    )


def test_search_form_selects_render_as_before(db):
    from editorial.forms import SearchForm

    award = factories.award()
    factories.award(conference=factories.conference(name_en="<NeurIPS & co>"))
    data = {"q": "x", "year": "not a year", "conference": award.conference.slug}
    ours, djangos = SearchForm(data), SearchForm(data)
    for name in ("conference", "year", "award"):
        field = djangos.fields[name]
        field.widget = forms.Select(choices=field.choices)

        assert str(ours[name]) == str(djangos[name])


def test_search_form_choices_are_read_anew_for_each_form(db, django_assert_num_queries):
    """The choices' rows are read for each form (editorial/forms.py
    conference_choices(), award_choices()): a conference
    or award published since the last form is offered, in the newest-first order."""
    from editorial.forms import SearchForm

    old = factories.award(conference=factories.conference(year=2015, name_en="Old 2015"))
    SearchForm()
    new = factories.award(conference=factories.conference(year=2025, name_en="New 2025"))

    with django_assert_num_queries(2):
        form = SearchForm()

    assert [value for value, _label in form.fields["conference"].choices] == [
        "",
        new.conference.slug,
        old.conference.slug,
    ]
    assert [value for value, _label in form.fields["year"].choices] == ["", 2025, 2015]
    assert [value for value, _label in form.fields["award"].choices] == ["", new.slug, old.slug]


@pytest.mark.parametrize(
    ("language", "labels"),
    [("en", ["Any", "Translated", "English only"]), ("zh-hans", ["不限", "已译", "English only"])],
)
def test_search_form_choice_names_are_in_the_active_language_else_english(db, language, labels):
    """A conference's or award's option shows its name in the page's language, and its
    English name where it has none in that language (as localized_value() does)."""
    from django.utils import translation

    from editorial.forms import SearchForm

    translated = factories.conference(year=2025, name_en="Translated", name_zh_hans="已译")
    english = factories.conference(year=2015, name_en="English only", name_zh_hans="")
    factories.award(conference=translated, name_en="Translated", name_zh_hans="已译")
    factories.award(conference=english, name_en="English only", name_zh_hans="")

    with translation.override(language):
        form = SearchForm()
        conferences = [str(label) for _value, label in form.fields["conference"].choices]
        awards = [str(label) for _value, label in form.fields["award"].choices]

    assert conferences == labels
    assert awards == labels


def test_search_form_awards_follow_the_one_conference_order(db):
    """Awards of two conferences of one year come in conference order (the later start
    first, catalogue.models.querysets.conference_order()), then by position."""
    import datetime

    from editorial.forms import SearchForm

    july = factories.conference(year=2025, start_date=datetime.date(2025, 7, 13))
    december = factories.conference(
        year=2025, start_date=datetime.date(2025, 12, 2), end_date=datetime.date(2025, 12, 7)
    )
    early = factories.award(conference=july, position=0)
    late = factories.award(conference=december, position=1)

    form = SearchForm()

    assert [value for value, _label in form.fields["conference"].choices] == [
        "",
        december.slug,
        july.slug,
    ]
    assert [value for value, _label in form.fields["award"].choices] == ["", late.slug, early.slug]
