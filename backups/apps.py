from django.apps import AppConfig


class BackupsConfig(AppConfig):
    """Whole-site backups and restores (``manage.py backup``, ``manage.py restore``)."""

    name = "backups"
    verbose_name = "Backups"
