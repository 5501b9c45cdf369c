from django.apps import AppConfig, apps
from django.db.models.signals import post_delete, post_save

from catalogue.signals import content_changed


class PagesConfig(AppConfig):
    """The public pages: views, URLs, tags, metadata, citations, feeds, sitemaps, cards."""

    name = "pages"
    verbose_name = "Public pages"

    def ready(self):
        from pages.cards import cards_after_change, cards_after_content

        # Share cards of papers without a teaser (pages/cards.py), drawn after commit.
        catalogue = apps.get_app_config("papers")
        models = (
            "paper",
            "conference",
            "award",
            "awardlevel",
            "awardentry",
            "author",
            "authorship",
        )
        for name in models:
            model = catalogue.get_model(name)
            for kind, signal in {"save": post_save, "delete": post_delete}.items():
                signal.connect(
                    cards_after_change,
                    sender=model,
                    dispatch_uid=f"papers-cards-{kind}-{model._meta.label}",
                )
        # And those of the papers an import wrote in bulk (no model signals).
        content_changed.connect(cards_after_content, dispatch_uid="papers-cards-content")
