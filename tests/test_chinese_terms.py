"""One term, one translation (issue 31, item 4): the shipped Chinese uses the glossary
of docs/editors.md ("Chinese terms"), read from that table so that editors keep it in
one place.

Checked: every translation in the Chinese catalogues (``locale/`` and
``locale_libraries/``) and the Chinese the content's editors wrote in
``fixtures/icml.json``. Left out: text quoted from the seed documents (papers' titles,
abstracts, summaries and leads) and proper names (institutions; a venue's name, also
where a description repeats it), which keep their own words.
"""

import json
from pathlib import Path

import polib

ROOT = Path(__file__).resolve().parents[1]
EDITORS_GUIDE = ROOT / "docs" / "editors.md"
CATALOGUES = [
    ROOT / "locale" / "zh_Hans" / "LC_MESSAGES" / "django.po",
    ROOT / "locale_libraries" / "zh_Hans" / "LC_MESSAGES" / "django.po",
]
FIXTURE = ROOT / "fixtures" / "icml.json"
# (model, field) of the fixture whose Chinese is quoted from the seeds or is a name.
QUOTED_OR_NAMES = {
    ("papers.paper", "title_zh_hans"),
    ("papers.paper", "abstract_zh_hans"),
    ("papers.paper", "summary_zh_hans"),
    ("papers.paper", "lead_zh_hans"),
    ("papers.institution", "name_zh_hans"),
    ("papers.venue", "name_zh_hans"),
}


def glossary():
    """The rows of docs/editors.md's "Chinese terms" table, as
    [(english, chinese, [variants])]; "—" in the "Not" column is no variant."""
    section = EDITORS_GUIDE.read_text(encoding="utf-8").split("### Chinese terms", 1)[1]
    rows = []
    for line in section.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) != 3 or cells[0] in ("English", "---"):
            continue
        english, chinese, variants = cells
        rows.append((english, chinese, [v.strip() for v in variants.split(",") if v != "—"]))
    return rows


def catalogue_texts():
    """Every translation of the Chinese catalogues, as [(where, text)]."""
    texts = []
    for path in CATALOGUES:
        for entry in polib.pofile(str(path)):
            translations = entry.msgstr_plural.values() if entry.msgid_plural else [entry.msgstr]
            where = f"{path.relative_to(ROOT)}: {entry.msgid[:60]!r}"
            texts.extend((where, text) for text in translations)
    return texts


def fixture_texts(objects):
    """The Chinese the editors wrote in a fixture's ``objects``, as [(where, text)]: every
    ``*_zh_hans`` field but those of QUOTED_OR_NAMES, with the venues' Chinese names
    taken out."""
    names = [
        item["fields"]["name_zh_hans"]
        for item in objects
        if item["model"] == "papers.venue" and item["fields"].get("name_zh_hans")
    ]
    texts = []
    for item in objects:
        for field, value in item["fields"].items():
            if (
                not field.endswith("_zh_hans")
                or not isinstance(value, str)
                or (item["model"], field) in QUOTED_OR_NAMES
            ):
                continue
            for name in names:
                value = value.replace(name, "")
            texts.append((f"{item['model']} {item['fields'].get('slug', '')} {field}", value))
    return texts


def variants_used(texts, rows):
    """[(where, variant, chinese)] for each glossary variant found in ``texts``."""
    return [
        (where, variant, chinese)
        for where, text in texts
        for _english, chinese, variants in rows
        for variant in variants
        if variant in text
    ]


def test_glossary_names_a_translation_and_variants():
    rows = glossary()

    assert len(rows) > 20
    assert all(chinese for _english, chinese, _variants in rows)
    assert ("honourable mention", "荣誉提及", ["荣誉提名"]) in rows
    assert ("proceedings", "论文集", ["会议录", "会刊"]) in rows


def test_chinese_catalogues_use_only_glossary_terms():
    assert variants_used(catalogue_texts(), glossary()) == []


def test_shipped_content_uses_only_glossary_terms():
    objects = json.loads(FIXTURE.read_text(encoding="utf-8"))

    assert variants_used(fixture_texts(objects), glossary()) == []


def test_a_variant_in_the_content_is_found():
    objects = [
        {"model": "papers.venue", "fields": {"slug": "icml", "name_zh_hans": "国际机器学习大会"}},
        {
            "model": "papers.awardlevel",
            "fields": {"name_zh_hans": "荣誉提名", "name_plural_zh_hans": "荣誉提及"},
        },
        {
            "model": "papers.conference",
            "fields": {"slug": "icml-2025", "description_zh_hans": "第 42 届国际机器学习大会。"},
        },
    ]

    found = variants_used(fixture_texts(objects), glossary())

    assert found == [("papers.awardlevel  name_zh_hans", "荣誉提名", "荣誉提及")]
