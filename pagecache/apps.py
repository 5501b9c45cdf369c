from django.apps import AppConfig, apps
from django.db.models.signals import m2m_changed, post_delete, post_save

from catalogue.signals import content_changed

# The signals by which a change to a model's rows is seen (bulk queries send none).
CHANGE_SIGNALS = {"save": post_save, "delete": post_delete, "m2m": m2m_changed}


class PageCacheConfig(AppConfig):
    """The cache of public pages, keyed by the release and the content generation."""

    name = "pagecache"
    verbose_name = "Page cache"

    def ready(self):
        from pagecache.caching import retire_cached_pages

        # Any change to what the public pages show retires every cached page
        # (pagecache/caching.py); many-to-many changes are sent by the through models.
        catalogue = apps.get_app_config("papers")
        for model in catalogue.get_models(include_auto_created=True):
            if model._meta.model_name == "contentgeneration":
                continue
            for name, signal in CHANGE_SIGNALS.items():
                signal.connect(
                    retire_cached_pages,
                    sender=model,
                    dispatch_uid=f"papers-generation-{name}-{model._meta.label}",
                )
        # Changes no model signal announces: the importer's bulk writes, share cards.
        content_changed.connect(retire_cached_pages, dispatch_uid="papers-generation")
