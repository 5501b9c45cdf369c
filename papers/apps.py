from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class PapersConfig(AppConfig):
    """Conferences, awards, papers and authors."""

    default_auto_field = "django.db.models.BigAutoField"
    name = "papers"
    verbose_name = _("Awards and papers")
