from django.contrib.admin.apps import AdminConfig as DjangoAdminConfig


class AdminConfig(DjangoAdminConfig):
    """django.contrib.admin with ``awardsite.admin.AdminSite`` as ``admin.site``."""

    default_site = "awardsite.admin.AdminSite"
