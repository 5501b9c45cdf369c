"""tests/shipped_content.py: its quick copy of the shipped content is what loaddata
gives, on every database the suite runs on."""

import pytest
from django.core import serializers
from django.core.management import call_command

from tests import factories, shipped_content


def _content():
    """Every row of the ``papers`` tables, by natural key where a model has one and
    without primary keys (they follow the database's sequences, which loaddata moves)."""
    rows = []
    for model in shipped_content._content_models():
        for entry in serializers.serialize(
            "python",
            model._base_manager.order_by("pk"),
            use_natural_foreign_keys=True,
            use_natural_primary_keys=True,
        ):
            entry.pop("pk", None)
            rows.append(repr(entry))
    return sorted(rows)


@pytest.mark.django_db(transaction=True)
def test_quick_copy_of_the_shipped_content_equals_loaddata():
    shipped_content.load_icml()  # the first load in this process reads the rows back
    call_command("flush", "--noinput", verbosity=0)
    call_command("loaddata", "icml", verbosity=0)
    loaded = _content()
    call_command("flush", "--noinput", verbosity=0)

    shipped_content.load_icml()
    copied = _content()

    assert shipped_content._rows  # the copy was made, not a loaddata
    assert len(loaded) > 200
    assert copied == loaded
    # The sequences were moved past the copied keys: new rows take new keys.
    factories.award_entry(factories.award(), factories.paper())
