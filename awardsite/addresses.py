"""The site's public address, which every absolute link names (``DJANGO_SITE_URL``)."""

from django.conf import settings


def absolute_url(path, request=None):
    """``path`` (e.g. "/en/papers/x/") as an absolute URL.

    Uses ``settings.SITE_URL`` (from ``DJANGO_SITE_URL``) when it is set, so
    links in feeds, sitemaps and metadata name the public host even behind a
    proxy; otherwise the host of ``request``. A URL that is already absolute
    is returned unchanged. Raises ValueError without either.
    """
    if path.startswith(("http://", "https://")):
        return path
    if settings.SITE_URL:
        return settings.SITE_URL + path
    if request is None:
        raise ValueError("absolute_url() needs a request when SITE_URL is not set.")
    return request.build_absolute_uri(path)
