"""ORCID iDs (catalogue/orcid.py): the check digit, on the model as in the importer."""

import pytest
from django.core.exceptions import ValidationError

from catalogue.models import Author
from catalogue.orcid import is_orcid


@pytest.mark.parametrize(
    ("value", "valid"),
    [
        # ORCID's own examples (support.orcid.org), one with the check digit X.
        ("0000-0002-1825-0097", True),
        ("0000-0001-5109-3700", True),
        ("0000-0002-1694-233X", True),
        ("0000-0002-1825-0098", False),  # wrong check digit
        ("0000-0002-1694-2330", False),
        ("https://orcid.org/0000-0002-1825-0097", False),  # the URL, not the iD
        ("0000000218250097", False),
        ("", False),
        (None, False),
    ],
)
def test_is_orcid(value, valid):
    assert is_orcid(value) is valid


def test_an_editor_cannot_save_a_mistyped_orcid(db):
    author = Author(slug="ann", name="Ann A", orcid="0000-0002-1825-0098")

    with pytest.raises(ValidationError) as error:
        author.full_clean()

    assert list(error.value.message_dict) == ["orcid"]
    assert error.value.error_dict["orcid"][0].code == "invalid_orcid"
    Author(slug="bob", name="Bob B", orcid="").full_clean()  # blank stays allowed
