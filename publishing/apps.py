from django.apps import AppConfig


class PublishingConfig(AppConfig):
    """The public site published as static files (``manage.py publish_site``)."""

    name = "publishing"
    verbose_name = "Static publishing"
