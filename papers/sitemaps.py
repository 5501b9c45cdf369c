"""/sitemap.xml: every published public page, in both languages, with hreflang
alternates and x-default (django.contrib.sitemaps). Each sitemap's items come
from the same ``published()`` vocabulary as the pages, so it lists nothing that
would be a 404.
"""

from django.conf import settings
from django.contrib import sitemaps
from django.urls import reverse

from .models import Author, Award, Conference, Paper


class _Sitemap(sitemaps.Sitemap):
    i18n = True
    alternates = True
    x_default = True

    def get_protocol(self, protocol=None):
        # DJANGO_SITE_URL, when set, names the public scheme and host.
        if settings.SITE_URL:
            return settings.SITE_URL.split("://", 1)[0]
        return super().get_protocol(protocol)

    def get_domain(self, site=None):
        if settings.SITE_URL:
            return settings.SITE_URL.split("://", 1)[1]
        return super().get_domain(site)


class HomeSitemap(_Sitemap):
    priority = 1.0

    def items(self):
        return ["papers:home"]

    def location(self, item):
        return reverse(item)


class ConferenceSitemap(_Sitemap):
    def items(self):
        return Conference.objects.published().order_by("slug")


class AwardSitemap(_Sitemap):
    def items(self):
        return Award.objects.published().select_related("conference").order_by("pk")


class AwardSeriesSitemap(_Sitemap):
    """One page per award series: a venue slug and an award slug with a published edition."""

    def items(self):
        return list(
            Award.objects.published()
            .values_list("conference__venue__slug", "slug")
            .order_by("conference__venue__slug", "slug")
            .distinct()
        )

    def location(self, item):
        venue_slug, slug = item
        return reverse("papers:award-series", kwargs={"venue_slug": venue_slug, "slug": slug})


class PaperSitemap(_Sitemap):
    def items(self):
        return Paper.objects.published().order_by("slug")


class AuthorSitemap(_Sitemap):
    def items(self):
        return Author.objects.published().order_by("slug")


SITEMAPS = {
    "home": HomeSitemap,
    "conferences": ConferenceSitemap,
    "awards": AwardSitemap,
    "award-series": AwardSeriesSitemap,
    "papers": PaperSitemap,
    "authors": AuthorSitemap,
}
