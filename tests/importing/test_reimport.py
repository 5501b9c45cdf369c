"""Right the first time and re-import that corrects (issue 29, items 2 and 3): earlier
editions published with the conference naming them, statuses compared with what the last
import wrote, papers known by their key, and what the file no longer lists removed.

The conference is made up: "NIMPS 2035" (tests/data/nips-2035.yaml), shaped like a NeurIPS
edition with a test-of-time award for a paper of an earlier edition.
"""

import io
from pathlib import Path

import pytest
import yaml
from django.core.exceptions import ValidationError
from django.core.management import call_command
from django.core.management.base import CommandError

from catalogue.models import (
    Author,
    Authorship,
    AwardEntry,
    Conference,
    ImportRecord,
    Paper,
    PaperLink,
)
from tests.shipped_content import load_icml

DATA = Path(__file__).parents[1] / "data"
NIMPS = DATA / "nips-2035.yaml"


def run(*args):
    """Run import_conference; return its standard output."""
    out = io.StringIO()
    call_command("import_conference", *[str(arg) for arg in args], stdout=out, stderr=io.StringIO())
    return out.getvalue()


def copy(tmp_path, source=NIMPS, replacements=(), name="nimps.yaml"):
    """``source`` written to ``tmp_path`` with each (old, new) of ``replacements`` made once."""
    text = source.read_text(encoding="utf-8")
    for old, new in replacements:
        assert text.count(old) == 1, old
        text = text.replace(old, new)
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def export(slug, path):
    call_command(
        "export_conference", slug, "--format", "compact", "-o", str(path), stdout=io.StringIO()
    )
    return path


# --- right the first time ----------------------------------------------------------------


def test_earlier_edition_of_a_test_of_time_paper_is_published_with_the_conference(db):
    run(NIMPS)

    visible = AwardEntry.objects.published().filter(award__slug="test-of-time")

    assert Conference.objects.get(slug="nimps-2025").status == "published"
    assert [entry.paper.slug for entry in visible] == ["sleepwalking-networks"]


def test_published_earlier_edition_in_the_database_is_left_as_it_is(tmp_path, db):
    run(copy(tmp_path, replacements=[("year: 2025}", "year: 2025, status: published}")]))
    draft = copy(
        tmp_path,
        replacements=[("  status: published\n", "  status: draft\n")],
        name="draft.yaml",
    )

    output = run(draft)

    assert Conference.objects.get(slug="nimps-2025").status == "published"
    assert 'papers.conference ["nimps-2025"]' not in output


def test_dry_run_names_the_award_whose_papers_would_not_be_visible(tmp_path, db):
    path = copy(tmp_path, replacements=[("year: 2025}", "year: 2025, status: draft}")])

    output = run(path, "--dry-run")

    assert [line for line in output.splitlines() if line.startswith("not visible")] == [
        'not visible: award ["nimps-2035", "test-of-time"] is published but its paper '
        '["sleepwalking-networks"] will not be: its conference ["nimps-2025"] is draft'
    ]
    assert Paper.objects.count() == 0


def test_status_written_in_the_file_is_compared_with_the_last_import_not_an_editor(tmp_path, db):
    # The first import leaves statuses out: the conference and the paper get the default.
    run(copy(tmp_path, replacements=[("  status: published\n", "")]))
    fixed = copy(tmp_path, name="fixed.yaml")

    output = run(fixed)

    assert "conflict" not in output
    assert Conference.objects.get(slug="nimps-2035").status == "published"
    assert Paper.objects.get(slug="scaling-laws-for-mirages").status == "published"


def test_editors_status_change_is_still_kept(tmp_path, db):
    run(copy(tmp_path, replacements=[("  status: published\n", "")]))
    Conference.objects.filter(slug="nimps-2035").update(status="review")

    output = run(copy(tmp_path, name="fixed.yaml"))

    assert 'conflict papers.conference ["nimps-2035"] status' in output
    assert Conference.objects.get(slug="nimps-2035").status == "review"


# --- re-import corrects ----------------------------------------------------------------


def test_corrected_title_updates_the_paper_of_that_key_and_keeps_its_slug(tmp_path, db):
    run(NIMPS)
    corrected = copy(tmp_path, replacements=[("Tidal Attention", "Tidal Self-Attention")])

    output = run(corrected)

    paper = Paper.objects.get(key="tides")
    assert output.splitlines()[-1] == "0 created, 1 updated, 31 unchanged."
    assert (paper.slug, paper.title_en) == ("tidal-attention", "Tidal Self-Attention")
    assert Paper.objects.count() == 4


def test_key_is_stored_and_unique_within_a_conference(tmp_path, db):
    run(NIMPS)
    clash = copy(
        tmp_path,
        replacements=[("  - key: tides\n", "  - key: tides\n    slug: tidal-attention-2\n")],
    )

    err = io.StringIO()
    with pytest.raises(CommandError, match="nothing was written"):
        call_command("import_conference", str(clash), stdout=io.StringIO(), stderr=err)

    assert err.getvalue().startswith(
        f"{clash}:40:5, papers[3].slug: the key tides is that of the paper tidal-attention of "
        "nimps-2035: write its slug tidal-attention (or leave slug out); another paper needs "
        "another key"
    )
    assert sorted(Paper.objects.values_list("key", flat=True)) == [
        "lanterns",
        "mirage",
        "sleepwalk",
        "tides",
    ]


def test_entry_and_author_the_file_no_longer_lists_are_removed(tmp_path, db):
    run(NIMPS)
    shorter = copy(
        tmp_path,
        replacements=[
            ("runner-up: [lanterns, tides]", "runner-up: [lanterns]"),
            ("authors: [Chen Wenjing, Tomás Okafor]", "authors: [Chen Wenjing]"),
        ],
    )

    output = run(shorter)

    tides = Paper.objects.get(key="tides")
    assert not AwardEntry.objects.filter(paper=tides).exists()
    assert [a.author.slug for a in tides.authorships.all()] == ["chen-wenjing"]
    assert 'remove papers.awardentry ["nimps-2035", "best-paper", "tidal-attention"]' in output
    assert not ImportRecord.objects.filter(
        model="papers.awardentry", key__contains="tidal"
    ).exists()
    assert output.splitlines()[-1] == "0 created, 0 updated, 30 unchanged, 2 removed."


def test_what_editors_added_is_kept_and_listed(tmp_path, db):
    run(NIMPS)
    tides = Paper.objects.get(key="tides")
    added = Author.objects.create(slug="added-by-editor", name="Added By Editor")
    Authorship.objects.create(paper=tides, author=added, position=3)
    PaperLink.objects.create(paper=tides, kind="code", url="https://code.example.org/tides")

    output = run(NIMPS)

    assert tides.authorships.count() == 3
    assert tides.links.count() == 1
    assert 'kept papers.authorship ["tidal-attention", "added-by-editor"]' in output
    assert 'kept papers.paperlink ["tidal-attention", "code"]' in output
    assert "2 added by editors kept" in output.splitlines()[-1]


def test_export_writes_the_key_and_reimports_as_the_same_papers(tmp_path, db):
    run(NIMPS)
    exported = export("nimps-2035", tmp_path / "export.yaml")

    output = run(exported)

    assert "  key: tides\n" in exported.read_text(encoding="utf-8")
    assert output.splitlines()[-1].startswith("Nothing to change")


def test_shipped_icml_authors_not_imported_are_kept_then_removed_once_imported(tmp_path, db):
    load_icml()
    exported = export("icml-2025", tmp_path / "icml.yaml")
    document = yaml.safe_load(exported.read_text(encoding="utf-8"))
    paper = next(paper for paper in document["papers"] if len(paper.get("authors", ())) > 2)
    last = Paper.objects.get(slug=paper["slug"]).authorships.order_by("position").last()
    paper["authors"].pop()
    shorter = tmp_path / "shorter.yaml"
    shorter.write_text(yaml.safe_dump(document, allow_unicode=True), encoding="utf-8")
    removed_key = f'papers.authorship ["{paper["slug"]}", "{last.author.slug}"]'

    loaded_output = run(shorter)  # loaddata wrote no import records: as an editor's rows

    assert Authorship.objects.filter(pk=last.pk).exists()
    assert f"kept {removed_key}" in loaded_output
    run(exported)
    removed_output = run(shorter)
    assert not Authorship.objects.filter(pk=last.pk).exists()
    assert f"remove {removed_key}" in removed_output


def test_title_corrected_in_the_bibtex_file_updates_the_paper_of_its_citation_key(tmp_path, db):
    run(DATA / "iclr-2036.yaml")
    copy(
        tmp_path,
        DATA / "iclr-2036.bib",
        [("Distribution Shfit", "Distribution Shift")],
        "iclr-2036.bib",
    )
    path = copy(tmp_path, DATA / "iclr-2036.yaml", name="iclr-2036.yaml")

    output = run(path)

    paper = Paper.objects.get(key="vance2036phantom")
    assert output.splitlines()[-1] == "0 created, 1 updated, 28 unchanged."
    assert (paper.slug, paper.title_en) == (
        "phantom-representations-under-distribution-shfit",
        "Phantom Representations Under Distribution Shift",
    )
    assert Paper.objects.count() == 3


def test_admin_form_refuses_a_key_another_paper_of_the_conference_has(db):
    run(NIMPS)
    paper = Paper.objects.get(key="lanterns")
    paper.key = "tides"

    with pytest.raises(ValidationError) as refused:
        paper.validate_constraints()

    assert refused.value.messages == ["Another paper of this conference has this import key."]
