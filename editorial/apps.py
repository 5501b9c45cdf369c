from django.apps import AppConfig, apps
from django.db.models.signals import post_migrate
from django.utils.translation import gettext_lazy as _


class EditorialConfig(AppConfig):
    """The editors' side: the admin, its forms, history, edit tokens, roles, previews."""

    name = "editorial"
    verbose_name = _("Editing")

    def ready(self):
        from editorial.history_upgrade import upgrade_after_migrate
        from editorial.roles import sync_editors_group

        # After auth's own post_migrate handler has created the catalogue's permissions
        # and this app's (which comes after the catalogue in INSTALLED_APPS).
        post_migrate.connect(sync_editors_group, sender=self)
        # Stored history versions follow the catalogue's migrations (history_upgrade.py).
        post_migrate.connect(upgrade_after_migrate, sender=apps.get_app_config("papers"))
