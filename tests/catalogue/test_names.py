"""Authors' given and family names (catalogue/names.py, Author's name fields)."""

import io

import pytest
from django.core.management import call_command

from catalogue import names
from catalogue.models import Author
from tests import factories


@pytest.mark.parametrize(
    ("name", "given", "family"),
    [
        ("John Schulman", "John", "Schulman"),
        ("Mihaela van der Schaar", "Mihaela", "van der Schaar"),
        ("Madonna", "", "Madonna"),
        ("张伟", "", "张伟"),
    ],
)
def test_an_author_without_a_family_name_gets_the_guessed_split(db, name, given, family):
    author = factories.author(name=name)

    author.refresh_from_db()
    assert (author.given_name, author.family_name) == (given, family)


def test_an_author_keeps_the_family_name_an_editor_wrote(db):
    author = factories.author(
        name="Unai Fischer Abaigar", given_name="Unai", family_name="Fischer Abaigar"
    )

    author.refresh_from_db()
    assert (author.given_name, author.family_name) == ("Unai", "Fischer Abaigar")
    assert author.sort_name == "fischer-abaigar unai"


@pytest.mark.parametrize(
    ("fields", "sort_name"),
    [
        ({"name": "John Schulman"}, "schulman john"),
        ({"name": "张伟", "given_name": "伟", "family_name": "张"}, "zhang wei"),
        ({"name": "Ágnes Tóth"}, "toth agnes"),
    ],
)
def test_sort_name_is_the_romanised_family_name_then_the_given_name(db, fields, sort_name):
    assert factories.author(**fields).sort_name == sort_name


@pytest.mark.parametrize(
    ("fields", "cited", "indexed"),
    [
        (
            {
                "name": "Unai Fischer Abaigar",
                "given_name": "Unai",
                "family_name": "Fischer Abaigar",
            },
            "Fischer Abaigar, Unai",
            "Fischer Abaigar, Unai",
        ),
        (
            {"name": "Martin Luther King Jr."},
            "King, Martin Luther, Jr.",
            "King, Martin Luther, Jr.",
        ),
        ({"name": "Madonna"}, "Madonna", "Madonna"),
        # A name in Chinese script is written family name first, without a comma.
        ({"name": "张伟", "given_name": "伟", "family_name": "张"}, "张, 伟", "张伟"),
    ],
)
def test_citation_and_index_forms_of_a_name(db, fields, cited, indexed):
    author = factories.author(**fields)

    assert (author.citation_name, author.index_name) == (cited, indexed)


@pytest.mark.parametrize(
    ("name", "reasons"),
    [
        ("John Schulman", []),
        ("Unai Fischer Abaigar", ["more than two words"]),
        ("Loek van Rossem", ["more than two words", "a particle"]),
        ("Mihaela van der Schaar", ["more than two words", "a particle"]),
        ("JOHN SCHULMAN", ["all in capitals"]),
        ("张伟", ["Chinese, Japanese or Korean script"]),
        ("Madonna", []),
        ("Michael I. Jordan", []),
    ],
)
def test_reasons_to_check_a_guessed_split(name, reasons):
    assert [str(reason) for reason in names.reasons_to_check(name)] == reasons


def test_check_author_names_lists_guessed_splits_only(db):
    factories.author(slug="john-schulman", name="John Schulman")
    factories.author(slug="danilo", name="Danilo Jimenez Rezende")
    factories.author(slug="zhang-wei", name="张伟")
    # Written by an editor: not a guess any more.
    factories.author(
        slug="unai", name="Unai Fischer Abaigar", given_name="Unai", family_name="Fischer Abaigar"
    )
    out = io.StringIO()

    call_command("check_author_names", stdout=out)

    assert out.getvalue().splitlines() == [
        "danilo: Danilo Jimenez Rezende -> given “Danilo Jimenez”, family “Rezende” "
        "(more than two words)",
        "zhang-wei: 张伟 -> given “”, family “张伟” (Chinese, Japanese or Korean script)",
        "2 names to check.",
    ]


def test_guessed_split_of_an_existing_author_follows_a_new_name(db):
    author = factories.author(name="Ada Lovelace")
    Author.objects.filter(pk=author.pk).update(given_name="", family_name="")

    author.refresh_from_db()
    author.save()

    assert (author.given_name, author.family_name) == ("Ada", "Lovelace")


def test_shipped_authors_whose_family_name_is_not_their_last_word(icml):
    """Facts from the seeds: "Fischer-Abaigar" is one family name (other sources' spelling
    of it); particles belong to the family name. Everyone else's is their last word."""
    compound = {
        author.slug: (author.given_name, author.family_name)
        for author in Author.objects.order_by("slug")
        if author.family_name != author.name.split()[-1]
    }

    assert compound == {
        "loek-van-rossem": ("Loek", "van Rossem"),
        "mihaela-van-der-schaar": ("Mihaela", "van der Schaar"),
        "unai-fischer-abaigar": ("Unai", "Fischer Abaigar"),
    }


def test_shipped_names_to_check(icml):
    out = io.StringIO()

    call_command("check_author_names", stdout=out)

    assert [line.split(":")[0] for line in out.getvalue().splitlines()] == [
        "bodhisattwa-prasad-majumder",
        "danilo-jimenez-rezende",
        "mihaela-van-der-schaar",
        "loek-van-rossem",
        "4 names to check.",
    ]
