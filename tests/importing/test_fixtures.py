"""The shipped ICML fixtures: what they contain and how the site shows them."""

from pathlib import Path

import pytest
from django.core.management import call_command

from catalogue.models import Author, AwardEntry, Conference, Paper

# The 11 ICML 2025 award entries: English titles from seed 000, Chinese titles
# from seed 001 (honourable mentions without seed 001's "荣誉提及：" heading prefix).
AWARD_TITLES = [
    ("Conformal Prediction as Bayesian Quadrature", "共形预测作为贝叶斯求积"),
    (
        "Roll the dice & look before you leap: Going beyond the creative limits of "
        "next-token prediction",
        "突破下一令牌预测的创造性限制",
    ),
    ("The Value of Prediction in Identifying the Worst-Off", "预测在识别最弱势群体中的价值"),
    (
        "Train for the Worst, Plan for the Best: Understanding Token Ordering in Masked Diffusions",
        "掩码扩散模型中的令牌排序",
    ),
    ("Score Matching with Missing Data", "缺失数据的得分匹配"),
    (
        "CollabLLM: From Passive Responders to Active Collaborators",
        "CollabLLM：从被动响应到主动协作",
    ),
    ("Position: AI Safety should prioritize the Future of Work", "立场：AI安全应优先考虑未来工作"),
    (
        "Position: The AI Conference Peer Review Crisis Demands Author Feedback and Reviewer "
        "Rewards",
        "立场：AI会议同行评审危机需要作者反馈和审稿人奖励",
    ),
    (
        "Batch Normalization: Accelerating Deep Network Training by Reducing Internal "
        "Covariate Shift",
        "批量归一化：通过减少内部协变量偏移加速深度网络训练",
    ),
    ("Trust Region Policy Optimization", "信任区域策略优化"),
    ("Variational Inference with Normalizing Flows", "归一化流的变分推断"),
]
SEEDS = Path(__file__).resolve().parents[3] / "shared" / "seeds"


def test_fixtures_give_eleven_award_entries_on_icml_2025(icml):
    entries = AwardEntry.objects.filter(award__conference__slug="icml-2025")

    assert entries.count() == 11
    assert sorted(entries.values_list("paper__title_en", "paper__title_zh_hans")) == sorted(
        AWARD_TITLES
    )


def test_fixtures_count_winners_and_honourable_mentions(icml):
    levels = {
        (slug, level): count
        for slug, level, count in [
            ("outstanding-paper", "winner", 6),
            ("outstanding-position-paper", "winner", 2),
            ("test-of-time", "winner", 1),
            ("test-of-time", "honourable-mention", 2),
        ]
    }
    for (slug, level), count in levels.items():
        assert AwardEntry.objects.filter(award__slug=slug, level__slug=level).count() == count


def test_every_award_entry_shows_on_the_conference_page_in_both_languages(icml, client):
    english = client.get("/en/conferences/icml-2025/").content.decode()
    chinese = client.get("/zh-hans/conferences/icml-2025/").content.decode()

    for title_en, title_zh in AWARD_TITLES:
        assert title_en.replace("&", "&amp;") in english
        assert title_zh in chinese
        assert title_zh not in english


def test_loading_the_fixtures_twice_creates_no_duplicates(icml):
    counts = [Paper.objects.count(), Author.objects.count(), AwardEntry.objects.count()]

    call_command("loaddata", "icml", verbosity=0)

    assert [Paper.objects.count(), Author.objects.count(), AwardEntry.objects.count()] == counts


def test_an_author_of_two_papers_is_one_person(icml):
    jordan = Author.objects.get(slug="michael-i-jordan")

    assert sorted(jordan.papers.values_list("conference__slug", flat=True)) == [
        "icml-2015",
        "icml-2025",
    ]


def test_test_of_time_papers_are_published_at_icml_2015(icml):
    tot = Paper.objects.filter(award_entries__award__slug="test-of-time")

    assert set(tot.values_list("conference__slug", flat=True)) == {"icml-2015"}
    assert Conference.objects.get(slug="icml-2015").start_date is None  # not verified


@pytest.mark.skipif(not SEEDS.is_dir(), reason="the seed documents are not beside this clone")
def test_chinese_titles_match_seed_001(icml):
    seed = next(SEEDS.glob("001_*.txt")).read_text(encoding="utf-8")
    headings = {line.removeprefix("荣誉提及：").strip() for line in seed.splitlines()}

    for paper in Paper.objects.filter(award_entries__award__conference__slug="icml-2025"):
        assert paper.title_zh_hans in headings


def test_reimporting_the_shipped_content_keeps_an_editors_author_order(db):
    """`make run` imports fixtures/icml.json every time; an editor's work must survive."""
    call_command("import_conference", "fixtures/icml.json", verbosity=0)
    trpo = Paper.objects.get(slug="trust-region-policy-optimization")
    first, second = trpo.authorships.order_by("position")[:2]
    first.position, second.position = 99, 1
    first.save()
    second.save()
    first.position = 2
    first.save()
    trpo.title_zh_hans = "编辑改过的标题"
    trpo.save()

    call_command("import_conference", "fixtures/icml.json", verbosity=0)

    trpo.refresh_from_db()
    assert trpo.title_zh_hans == "编辑改过的标题"
    assert [a.author.slug for a in trpo.ordered_authorships][:2] == [
        "sergey-levine",
        "john-schulman",
    ]
