"""Slugs made from long titles are cut at a word boundary (issue 29, item 8): never with a
word left out and shorter ones after it ("...-reveals-about-the-and-of")."""

import io

from django.core.management import call_command

from catalogue.models import Paper
from catalogue.slugs import slug_from

LONG_TITLE = (
    "What the Loss Landscape of Overparameterized Transformers Reveals About the "
    "Generalization and Optimization of Deep Networks in Imaginary Worlds"
)
FILE = f"""\
conference:
  venue: {{acronym: CIL, name: Conference on Imaginary Learning}}
  name: CIL 2031
  year: 2031
  status: published
papers:
  - title: {LONG_TITLE}
    authors: [Bo Sample]
"""


def test_a_long_title_is_cut_after_its_last_whole_word():
    slug = slug_from(LONG_TITLE, 80)

    assert slug == "what-the-loss-landscape-of-overparameterized-transformers-reveals-about-the"


def test_a_slug_that_fits_is_whole_and_a_word_too_long_is_cut():
    assert slug_from("A Short Title", 80) == "a-short-title"
    assert slug_from("Supercalifragilistic", 10) == "supercalif"
    assert slug_from("Exactly ten", 11) == "exactly-ten"


def test_the_importer_cuts_a_long_titles_slug_at_a_word_boundary(tmp_path, db):
    path = tmp_path / "conference.yaml"
    path.write_text(FILE, encoding="utf-8")

    call_command("import_conference", str(path), stdout=io.StringIO(), stderr=io.StringIO())

    slug = Paper.objects.get().slug
    full = slug_from(LONG_TITLE, 1000)
    max_length = Paper._meta.get_field("slug").max_length
    assert len(slug) <= max_length < len(full)
    assert full.startswith(slug + "-")
