"""Repair text saved before catalogue.text: CRLF line endings and NULL for empty text.

Admin forms used to store a textarea as the browser sent it (CRLF) and an empty
translated field as NULL. Every text column of the app now holds LF and "" instead;
``catalogue.text`` keeps it so. Safe to run again; the reverse is a no-op (the old values
meant the same text).
"""

from django.db import migrations, models
from django.db.models import F, Value
from django.db.models.functions import Replace


def repair_text(apps, schema_editor):
    for model in apps.get_app_config("papers").get_models():
        for field in model._meta.concrete_fields:
            if not isinstance(field, models.CharField | models.TextField):
                continue
            rows = model._base_manager.using(schema_editor.connection.alias)
            name = field.attname
            lf = Replace(Replace(F(name), Value("\r\n"), Value("\n")), Value("\r"), Value("\n"))
            rows.filter(**{f"{name}__contains": "\r"}).update(**{name: lf})
            if field.null:
                rows.filter(**{f"{name}__isnull": True}).update(**{name: ""})


class Migration(migrations.Migration):
    dependencies = [
        ("papers", "0004_paper_maths_limits"),
    ]

    operations = [
        migrations.RunPython(repair_text, migrations.RunPython.noop, elidable=True),
    ]
