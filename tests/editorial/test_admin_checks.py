"""The admin's checks an editor meets on save: level positions unique within an award (a
form error in the editor's language), and TeX mistakes warned of (the save goes through)."""

import pytest
from django.contrib.messages import get_messages

from catalogue.models import AwardLevel, Paper
from editorial.roles import create_editor
from tests import factories
from tests.editorial.test_admin import _change_url, _form_data

PASSWORD = "a-long-editor-passphrase"


@pytest.fixture
def editor_client(client, db):
    client.force_login(create_editor("editor", "editor@example.org", PASSWORD))
    return client


def _award_form(editor_client, award, levels, language):
    """POST ``award``'s change form with its level rows at ``levels`` [(slug, position)]."""
    editor_client.cookies["django_language"] = language
    url = f"/admin/papers/award/{award.pk}/change/"
    data = _form_data(editor_client.get(url))
    rows = {level.slug: n for n, level in enumerate(award.levels.order_by("position"))}
    data["levels-TOTAL_FORMS"] = str(len(levels))
    for slug, position in levels:
        n = rows.get(slug, len(rows))
        rows.setdefault(slug, n)
        data.update(
            {
                f"levels-{n}-slug": slug,
                f"levels-{n}-name_en": slug.title(),
                f"levels-{n}-name_plural_en": slug.title() + "s",
                f"levels-{n}-position": str(position),
            }
        )
    return editor_client.post(url, data)


@pytest.mark.parametrize(
    ("language", "message"),
    [
        ("en", "Another level of this award has this position."),
        ("zh-hans", "该奖项的另一个等级已使用此顺序。"),
    ],
)
def test_two_new_levels_at_one_position_are_a_form_error(editor_client, language, message):
    award = factories.award()
    factories.award_level(award, "winner")

    response = _award_form(
        editor_client, award, [("winner", 1), ("runner-up", 2), ("finalist", 2)], language
    )

    assert response.status_code == 200
    [formset] = [
        f.formset for f in response.context["inline_admin_formsets"] if f.formset.prefix == "levels"
    ]
    assert formset.non_form_errors() == [message]
    assert list(award.levels.values_list("slug", flat=True)) == ["winner"]


@pytest.mark.parametrize(
    ("language", "message"),
    [
        ("en", "Another level of this award has this position."),
        ("zh-hans", "该奖项的另一个等级已使用此顺序。"),
    ],
)
def test_a_new_level_at_a_stored_levels_position_is_a_form_error(editor_client, language, message):
    award = factories.award()
    factories.award_level(award, "winner")
    factories.award_level(award, "runner-up")

    response = _award_form(
        editor_client, award, [("winner", 1), ("runner-up", 2), ("finalist", 1)], language
    )

    assert response.status_code == 200
    [formset] = [
        f.formset for f in response.context["inline_admin_formsets"] if f.formset.prefix == "levels"
    ]
    assert formset.non_form_errors() == [message]
    assert AwardLevel.objects.filter(award=award).count() == 2


def test_levels_at_different_positions_are_saved(editor_client):
    award = factories.award()
    factories.award_level(award, "winner")

    response = _award_form(
        editor_client, award, [("winner", 1), ("runner-up", 2), ("finalist", 3)], "en"
    )

    assert response.status_code == 302
    assert list(award.levels.values_list("slug", "position")) == [
        ("winner", 1),
        ("runner-up", 2),
        ("finalist", 3),
    ]


# TeX mistakes ------------------------------------------------------------------------


def _save_paper(editor_client, paper, language, **changes):
    editor_client.cookies["django_language"] = language
    data = {**_form_data(editor_client.get(_change_url(paper))), **changes}
    return editor_client.post(_change_url(paper), data, follow=True)


@pytest.mark.parametrize(
    ("language", "warnings"),
    [
        (
            "en",
            [
                "Title [en]: the formula “\\frac{1}{” cannot be read; it is published as "
                "its TeX source. Check its braces and commands.",
                "Abstract [zh-hans]: the formula “x + \\unknowncmd” uses \\unknowncmd, a "
                "command the site does not know; it is published as written.",
            ],
        ),
        (
            "zh-hans",
            [
                "标题 [en]：公式“\\frac{1}{”无法解析，将以 TeX 源码发布。请检查其中的括号和命令。",
                "摘要 [zh-hans]：公式“x + \\unknowncmd”用到了本站不认识的命令 \\unknowncmd，"
                "将按原样发布。",
            ],
        ),
    ],
)
def test_a_tex_mistake_is_saved_with_a_warning(editor_client, language, warnings):
    paper = factories.paper()

    response = _save_paper(
        editor_client,
        paper,
        language,
        title_en="On $\\frac{1}{$ and more",
        abstract_zh_hans="我们证明 $x + \\unknowncmd$ 成立。",
    )

    shown = [
        str(message)
        for message in get_messages(response.wsgi_request)
        if message.level_tag == "warning"
    ]
    assert response.redirect_chain[-1][1] == 302
    assert shown == warnings
    paper.refresh_from_db()
    assert paper.title_en == "On $\\frac{1}{$ and more"


def test_correct_tex_is_saved_without_a_warning(editor_client):
    paper = factories.paper()

    response = _save_paper(editor_client, paper, "en", title_en="On $\\frac{1}{2}$ and $\\alpha$")

    assert response.redirect_chain[-1][1] == 302
    assert [m for m in get_messages(response.wsgi_request) if m.level_tag == "warning"] == []
    assert Paper.objects.get(pk=paper.pk).title_en == "On $\\frac{1}{2}$ and $\\alpha$"


def test_two_levels_swap_positions_in_one_save(editor_client):
    award = factories.award()
    factories.award_level(award, "winner")
    factories.award_level(award, "runner-up")

    response = _award_form(editor_client, award, [("winner", 2), ("runner-up", 1)], "en")

    assert response.status_code == 302
    assert list(award.levels.values_list("slug", "position")) == [
        ("runner-up", 1),
        ("winner", 2),
    ]
