from django.apps import AppConfig


class ImportingConfig(AppConfig):
    """Conferences in and out: fixtures, the compact format, BibTeX, export."""

    name = "importing"
    verbose_name = "Importing"
