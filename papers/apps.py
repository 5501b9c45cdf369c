from django.apps import AppConfig
from django.db.models.signals import m2m_changed, post_delete, post_migrate, post_save, pre_save
from django.utils.translation import gettext_lazy as _

# The signals by which a change to a model's rows is seen (bulk queries send none).
CHANGE_SIGNALS = {"save": post_save, "delete": post_delete, "m2m": m2m_changed}


class PapersConfig(AppConfig):
    """Conferences, awards, papers and authors."""

    default_auto_field = "django.db.models.BigAutoField"
    name = "papers"
    verbose_name = _("Awards and papers")

    def ready(self):
        from django.core.signals import got_request_exception
        from easy_thumbnails.signals import saved_file

        from awardsite.database import close_connections_that_failed

        from .caching import bump_content_generation
        from .cards import cards_after_change
        from .derived import keep_derived_columns
        from .images import make_thumbnails_of_saved_file
        from .models import Award, AwardEntry, AwardLevel, Conference, ContentGeneration, Paper
        from .roles import sync_editors_group

        # A request that failed on a database error leaves no broken connection behind.
        got_request_exception.connect(
            close_connections_that_failed, dispatch_uid="awardsite-close-failed-connections"
        )
        # After auth's own post_migrate handler has created this app's permissions.
        post_migrate.connect(sync_editors_group, sender=self, dispatch_uid="papers-editors")
        # Any change to what the public pages show retires every cached page
        # (papers/caching.py); many-to-many changes are sent by the through models.
        for model in self.get_models(include_auto_created=True):
            if model is ContentGeneration:
                continue
            for name, signal in CHANGE_SIGNALS.items():
                signal.connect(
                    bump_content_generation,
                    sender=model,
                    dispatch_uid=f"papers-generation-{name}-{model._meta.label}",
                )
        # Thumbnails are made when an image is saved, never in a visitor's request.
        saved_file.connect(
            make_thumbnails_of_saved_file, sender=Paper, dispatch_uid="papers-thumbnails"
        )
        # Share cards of papers without a teaser (papers/cards.py), drawn after commit.
        for model in (Paper, Conference, Award, AwardLevel, AwardEntry):
            for name, signal in {"save": post_save, "delete": post_delete}.items():
                signal.connect(
                    cards_after_change,
                    sender=model,
                    dispatch_uid=f"papers-cards-{name}-{model._meta.label}",
                )
        # A paper's matched text (papers/search.py) follows its sources' saves and deletions.
        from .search import MATCH_SOURCES, match_texts_follow, match_texts_follow_affiliations

        for name in MATCH_SOURCES:
            model = self.get_model(name)
            for kind, signal in {"save": post_save, "delete": post_delete}.items():
                signal.connect(
                    match_texts_follow, sender=model, dispatch_uid=f"match-text-{kind}-{name}"
                )
        m2m_changed.connect(
            match_texts_follow_affiliations,
            sender=self.get_model("authorship").affiliations.through,
            dispatch_uid="match-text-affiliations",
        )
        # Whether an author has a published paper (papers/published_authors.py) follows
        # saves of papers, conferences and authorships and deletions of authorships.
        from .published_authors import published_authors_follow, remember_sources

        for name in ("paper", "conference", "authorship"):
            model = self.get_model(name)
            pre_save.connect(
                remember_sources, sender=model, dispatch_uid=f"published-authors-pre-{name}"
            )
            post_save.connect(
                published_authors_follow, sender=model, dispatch_uid=f"published-authors-{name}"
            )
        post_delete.connect(
            published_authors_follow,
            sender=self.get_model("authorship"),
            dispatch_uid="published-authors-delete-authorship",
        )
        # Derived columns (search text, lead: papers/derived.py), worked out at save.
        for model in self.get_models():
            if getattr(model, "derived_columns", ()):
                pre_save.connect(
                    keep_derived_columns, sender=model, dispatch_uid=f"derived-{model}"
                )
