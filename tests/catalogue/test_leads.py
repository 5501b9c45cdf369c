"""A paper's lead (catalogue/leads.py): derived at save in each language, shown in lists."""

import importlib
import io
import json
from urllib.parse import urlencode

import pytest
from django.core.management import call_command
from django.db import connection
from django.db.migrations.loader import MigrationLoader

from catalogue.leads import LEAD_CHARS, first_sentence, lead
from catalogue.mathtext import math_segments
from catalogue.models import Paper
from tests import factories
from tests.browser_form import browser_post_data

# Derivation ------------------------------------------------------------------------------


def test_lead_is_the_first_sentence_of_english_text():
    text = "We study  conformal\nprediction, e.g. for trees, following Vovk et al. It works. More."

    assert lead(text) == (
        "We study conformal prediction, e.g. for trees, following Vovk et al. It works."
    )


def test_lead_ends_at_a_chinese_full_stop_without_a_space():
    assert lead("我们研究共形预测。它在树模型上有效。") == "我们研究共形预测。"
    assert lead("这是问题吗？是的。") == "这是问题吗？"


def test_lead_ends_at_ascii_punctuation_before_a_chinese_character():
    assert lead("我们研究共形预测.它在树模型上有效!其余") == "我们研究共形预测."
    assert lead("这是问题吗?是的.") == "这是问题吗?"


def test_no_ends_a_sentence_unless_a_number_follows():
    assert lead("The answer is no. We show why.") == "The answer is no."
    assert lead("See Theorem No. 5 for details. Then more.") == ("See Theorem No. 5 for details.")


def test_lead_never_ends_inside_maths():
    assert lead("We bound $x = 1. y$ and \\(a. B\\) tightly. Then more.") == (
        "We bound $x = 1. y$ and \\(a. B\\) tightly."
    )


def test_lead_of_empty_text_is_empty():
    assert lead("") == lead(None) == lead("   \n ") == ""


def test_text_without_a_full_stop_is_its_own_sentence():
    assert first_sentence("A title-like summary") == "A title-like summary"


def test_a_long_sentence_is_shortened_after_a_whole_word():
    words = "word " * 80

    shortened = lead(f"Start {words}end.")

    assert shortened.endswith("word…")
    assert len(shortened) <= LEAD_CHARS + 1
    assert f"Start {words}".startswith(shortened.removesuffix("…"))


def test_a_long_unbroken_word_is_cut_inside_rather_than_leave_one_word():
    url = "https://example.org/" + "a" * 300

    shortened = lead(f"See {url} for the code.")

    assert shortened == f"See {url}"[:LEAD_CHARS] + "…"


def test_a_long_chinese_sentence_is_shortened_between_characters():
    assert lead("中" * 300 + "。") == "中" * LEAD_CHARS + "…"


def test_shortening_leaves_a_formula_whole_or_out():
    formula = "$" + "a+" * 60 + "b$"
    text = "We prove " + "that " * 25 + f"{formula} holds for every case we tried."

    shortened = lead(text)

    assert shortened.endswith("…")
    assert formula not in shortened  # it would run over the limit: left out whole
    assert "$" not in shortened
    kept = lead("We prove " + "that " * 5 + f"{formula} holds " + "again " * 40 + ".")
    assert formula in kept
    assert [is_math for is_math, _text in math_segments(kept)].count(True) == 1


# Kept current -------------------------------------------------------------------------------

pytestmark = pytest.mark.django_db


def test_a_saved_paper_has_a_lead_per_language_from_summary_else_abstract():
    paper = factories.paper(
        summary_en="A plain summary. With more.",
        abstract_en="The abstract. More.",
        summary_zh_hans="",
        abstract_zh_hans="中文摘要。更多。",
    )

    assert (paper.lead_en, paper.lead_zh_hans) == ("A plain summary.", "中文摘要。")
    stored = Paper.objects.filter(pk=paper.pk).values("lead_en", "lead_zh_hans").get()
    assert stored == {"lead_en": "A plain summary.", "lead_zh_hans": "中文摘要。"}


def test_a_save_of_only_the_abstract_writes_the_lead_too():
    paper = factories.paper(abstract_en="Old first. Rest.")
    Paper.objects.filter(pk=paper.pk).update(abstract_en="New first. Rest.")
    paper.abstract_en = "New first. Rest."

    paper.save(update_fields=["abstract_en"])

    assert Paper.objects.get(pk=paper.pk).lead_en == "New first."


def test_an_admin_edit_of_the_summary_changes_the_lead(admin_client):
    paper = factories.paper(abstract_en="Abstract first. Rest.")
    url = f"/admin/papers/paper/{paper.pk}/change/"
    data = browser_post_data(admin_client.get(url), "paper_form")
    data["summary_en"] = ["An edited summary. Rest."]

    response = admin_client.post(url, data)

    assert response.status_code == 302
    assert Paper.objects.get(pk=paper.pk).lead_en == "An edited summary."


def _fixture(abstract):
    return [
        {"model": "papers.venue", "fields": {"slug": "tv", "acronym": "TV", "name_en": "Test"}},
        {
            "model": "papers.conference",
            "fields": {
                "venue": ["tv"],
                "slug": "tv-2030",
                "year": 2030,
                "name_en": "TV 2030",
                "status": "published",
            },
        },
        {
            "model": "papers.paper",
            "fields": {
                "slug": "p1",
                "title_en": "Paper One",
                "abstract_en": abstract,
                "abstract_zh_hans": "第一句。第二句。",
                "conference": ["tv-2030"],
                "status": "published",
            },
        },
    ]


def _import(tmp_path, objects):
    path = tmp_path / "fixture.json"
    path.write_text(json.dumps(objects, ensure_ascii=False), encoding="utf-8")
    call_command("import_conference", str(path), stdout=io.StringIO(), stderr=io.StringIO())


def test_import_conference_fills_the_lead_and_keeps_it_current(tmp_path):
    _import(tmp_path, _fixture("Imported first. Rest."))
    created = Paper.objects.values("lead_en", "lead_zh_hans").get(slug="p1")

    _import(tmp_path, _fixture("Changed first. Rest."))
    updated = Paper.objects.values("lead_en", "lead_zh_hans").get(slug="p1")

    assert created == {"lead_en": "Imported first.", "lead_zh_hans": "第一句。"}
    assert updated == {"lead_en": "Changed first.", "lead_zh_hans": "第一句。"}


def test_the_migration_fills_the_leads_of_existing_papers():
    paper = factories.paper(abstract_en="Existing first. Rest.", abstract_zh_hans="已有。其余。")
    Paper.objects.filter(pk=paper.pk).update(lead="", lead_en="", lead_zh_hans="")
    migration = importlib.import_module("catalogue.migrations.0014_paper_lead")
    state = MigrationLoader(connection).project_state(("papers", "0014_paper_lead"))

    migration.fill_leads(state.apps, None)

    stored = Paper.objects.values("lead", "lead_en", "lead_zh_hans").get(pk=paper.pk)
    assert stored == {
        "lead": "Existing first.",
        "lead_en": "Existing first.",
        "lead_zh_hans": "已有。",
    }


def test_a_later_migration_refreshes_leads_for_the_changed_sentence_rule():
    paper = factories.paper(abstract_en="The answer is no. We show why.")
    Paper.objects.filter(pk=paper.pk).update(lead_en="The answer is no. We show why.")
    migration = importlib.import_module(
        "catalogue.migrations.0015_refresh_leads_for_the_sentence_rule"
    )
    state = MigrationLoader(connection).project_state(
        ("papers", "0015_refresh_leads_for_the_sentence_rule")
    )

    migration.fill_leads(state.apps, None)

    assert Paper.objects.values_list("lead_en", flat=True).get(pk=paper.pk) == ("The answer is no.")


# Shown in lists -----------------------------------------------------------------------------


@pytest.fixture
def listed():
    """An awarded paper with leads in both languages, another paper of the conference
    with an English lead only, and their author: on every list that shows papers."""
    person = factories.author()
    award = factories.award()
    awarded = factories.paper(
        conference=award.conference,
        authors=[person],
        abstract_en="Awarded lead. Rest.",
        abstract_zh_hans="获奖导语。其余。",
    )
    factories.award_entry(award, awarded)
    factories.paper(
        conference=award.conference,
        authors=[person],
        title_en="Other paper",
        abstract_en="Other lead with $x^2$. Rest.",
        abstract_zh_hans="",
    )
    return {
        "conference": award.conference.get_absolute_url(),
        "award": award.get_absolute_url(),
        "author": person.get_absolute_url(),
        # By the author's name: a match outside the abstract, so no snippet takes the
        # lead's place (see test_a_search_snippet_takes_the_place_of_the_lead).
        "search": "/en/search/?" + urlencode({"q": person.name}),
    }


@pytest.mark.parametrize("page", ["conference", "award", "author", "search"])
def test_lists_show_each_papers_lead_under_its_authors(client, listed, page):
    english = client.get(listed[page]).content.decode()
    chinese = client.get(listed[page].replace("/en/", "/zh-hans/", 1)).content.decode()

    assert '</p>\n  <p class="paper-lead">Awarded lead.</p>\n' in english
    assert '<p class="paper-lead">获奖导语。</p>' in chinese
    if page != "award":  # the other paper has no award
        assert '<p class="paper-lead">Other lead with <math' in english
        assert '<p class="paper-lead"><span lang="en" class="untranslated">Other lead' in chinese


def test_a_search_snippet_takes_the_place_of_the_lead(client, listed):
    """A snippet shows the match in its sentence, often the lead's own: one of the two."""
    english = client.get("/en/search/?q=lead").content.decode()

    assert '<p class="snippet">Awarded <mark>lead</mark>. Rest.</p>' in english
    assert 'class="paper-lead"' not in english
