"""Authors' names read from a CSL-JSON proceedings file (importing/csljson.py): the
split CSL gives is kept where the site's guess would differ (issue 31, item 3)."""

import json

import pytest

from importing.csljson import index_csljson, person_fields


@pytest.mark.parametrize(
    ("person", "expected"),
    [
        # A family name of two words: the guess would say "Abaigar".
        (
            {"family": "Fischer Abaigar", "given": "Unai"},
            {
                "name": "Unai Fischer Abaigar",
                "given_name": "Unai",
                "family_name": "Fischer Abaigar",
            },
        ),
        # Particles belong to the family name, and are no longer dropped from the name.
        (
            {"family": "Schaar", "given": "Mihaela", "non-dropping-particle": "van der"},
            {"name": "Mihaela van der Schaar"},
        ),
        (
            {"family": "Velde", "given": "Pieter", "dropping-particle": "van der", "suffix": "Jr."},
            {"name": "Pieter van der Velde Jr."},
        ),
        (
            {"family": "Jimenez Rezende", "given": "Danilo", "suffix": "III"},
            {
                "name": "Danilo Jimenez Rezende III",
                "given_name": "Danilo",
                "family_name": "Jimenez Rezende",
                "name_suffix": "III",
            },
        ),
        # What the site would guess anyway is left to the guess.
        ({"family": "Schulman", "given": "John"}, {"name": "John Schulman"}),
        # A literal name (a team) is all family name.
        (
            {"literal": "OpenFict  Team"},
            {"name": "OpenFict Team", "given_name": "", "family_name": "OpenFict Team"},
        ),
        ({"family": "", "given": " "}, None),
    ],
)
def test_a_csl_name_keeps_its_split_where_the_guess_differs(person, expected):
    assert person_fields(person) == expected


def test_a_csl_item_gives_its_authors_in_order_with_their_split():
    text = json.dumps(
        [
            {
                "id": "abaigar31a",
                "title": "The Worst-Off",
                "author": [
                    {"family": "Fischer Abaigar", "given": "Unai"},
                    {"family": "Kern", "given": "Christoph"},
                    {"literal": ""},
                ],
            }
        ]
    )

    _rows, read = index_csljson(text, source="p.json")

    assert read(["abaigar31a"])["abaigar31a"]["authors"] == [
        {"name": "Unai Fischer Abaigar", "given_name": "Unai", "family_name": "Fischer Abaigar"},
        {"name": "Christoph Kern"},
    ]
