from django.apps import AppConfig
from django.contrib.admin.apps import AdminConfig as DjangoAdminConfig


class AdminConfig(DjangoAdminConfig):
    """django.contrib.admin with ``awardsite.admin.AdminSite`` as ``admin.site``."""

    default_site = "awardsite.admin.AdminSite"


class AwardsiteConfig(AppConfig):
    """The project itself: settings-level wiring that belongs to no one app."""

    name = "awardsite"

    def ready(self):
        from django.core.signals import got_request_exception

        from awardsite.database import close_connections_that_failed

        # A request that failed on a database error leaves no broken connection behind.
        got_request_exception.connect(close_connections_that_failed)
