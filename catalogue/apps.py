from django.apps import AppConfig
from django.db.models.signals import m2m_changed, post_delete, post_save, pre_save
from django.utils.translation import gettext_lazy as _


class CatalogueConfig(AppConfig):
    """Every model of the site. The label stays ``papers``, the app's name before the
    split by concern, so the tables, content types and history are unchanged."""

    default_auto_field = "django.db.models.BigAutoField"
    name = "catalogue"
    label = "papers"
    verbose_name = _("Awards and papers")

    def ready(self):
        from easy_thumbnails.signals import saved_file

        from catalogue import matching, published_authors
        from catalogue.derived import keep_derived_columns
        from catalogue.images import make_thumbnails_of_saved_file
        from catalogue.signals import content_changed

        # Each receiver is a module's function: Django connects it once for a sender.
        # Thumbnails are made when an image is saved, never in a visitor's request.
        saved_file.connect(make_thumbnails_of_saved_file, sender=self.get_model("paper"))
        # A paper's matched text follows its sources' saves and deletions (matching.py).
        for name in matching.MATCH_SOURCES:
            post_save.connect(matching.match_texts_follow, sender=self.get_model(name))
            post_delete.connect(matching.match_texts_follow, sender=self.get_model(name))
        affiliations = self.get_model("authorship").affiliations.through
        m2m_changed.connect(matching.match_texts_follow_affiliations, sender=affiliations)
        content_changed.connect(matching.match_texts_follow_content)
        # Whether an author has a published paper follows its sources (published_authors.py).
        follow = published_authors.published_authors_follow
        for name in published_authors.SOURCES:
            pre_save.connect(published_authors.remember_sources, sender=self.get_model(name))
            post_save.connect(follow, sender=self.get_model(name))
        post_delete.connect(follow, sender=self.get_model("authorship"))
        content_changed.connect(published_authors.published_authors_follow_content)
        # Derived columns (search text, lead: catalogue/derived.py), worked out at save.
        for model in self.get_models():
            if getattr(model, "derived_columns", ()):
                pre_save.connect(keep_derived_columns, sender=model)
