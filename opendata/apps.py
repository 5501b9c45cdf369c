from django.apps import AppConfig


class OpenDataConfig(AppConfig):
    """The read-only JSON API under /api/v1/ and the downloads under /data/."""

    name = "opendata"
    verbose_name = "Open data"
