"""Leads worked out again for papers already there: the sentence rule of catalogue/leads.py
changed ("no." ends a sentence unless a number follows; ASCII punctuation before a
Chinese character ends one; a long unbroken word is cut inside)."""

import importlib

from django.db import migrations

# The same filling as the migration that added the column: its languages and columns.
fill_leads = importlib.import_module("catalogue.migrations.0014_paper_lead").fill_leads


class Migration(migrations.Migration):
    dependencies = [
        ("papers", "0014_paper_lead"),
    ]

    operations = [
        migrations.RunPython(fill_leads, migrations.RunPython.noop, elidable=True),
    ]
