from django.apps import AppConfig
from django.db.models.signals import post_migrate, pre_save
from django.utils.translation import gettext_lazy as _


class PapersConfig(AppConfig):
    """Conferences, awards, papers and authors."""

    default_auto_field = "django.db.models.BigAutoField"
    name = "papers"
    verbose_name = _("Awards and papers")

    def ready(self):
        from .roles import sync_editors_group
        from .search import keep_search_text

        # After auth's own post_migrate handler has created this app's permissions.
        post_migrate.connect(sync_editors_group, sender=self, dispatch_uid="papers-editors")
        for model in self.get_models():
            if hasattr(model, "search_sources"):
                pre_save.connect(keep_search_text, sender=model, dispatch_uid=f"search-{model}")
