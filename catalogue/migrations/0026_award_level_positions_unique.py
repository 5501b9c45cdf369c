# Two levels of one award at one position were allowed (migration 0007 gave every level
# it did not know position 3, next to the honourable mentions): the public page listed
# them in no set order with the same badge. Existing duplicates are moved down, keeping
# the order the pages showed (position, then slug), before the constraint is added. The
# history is unaffected: no field changes, so stored versions read as before.

from django.db import migrations, models


def separate_shared_positions(apps, schema_editor):
    """Give each level of an award its own position: walking the levels in the order the
    pages showed them, a level at or above the one before moves to the next position."""
    AwardLevel = apps.get_model("papers", "AwardLevel")
    previous_award, previous_position = None, None
    for level in AwardLevel.objects.order_by("award_id", "position", "slug", "pk"):
        if level.award_id == previous_award and level.position <= previous_position:
            level.position = previous_position + 1
            level.save(update_fields=["position"])
        previous_award, previous_position = level.award_id, level.position


class Migration(migrations.Migration):

    dependencies = [
        ("papers", "0025_one_line_names_and_text_limits"),
    ]

    operations = [
        migrations.RunPython(separate_shared_positions, migrations.RunPython.noop),
        migrations.AddConstraint(
            model_name="awardlevel",
            constraint=models.UniqueConstraint(
                fields=("award", "position"),
                name="awardlevel_unique_position",
                violation_error_message="Another level of this award has this position.",
            ),
        ),
    ]
