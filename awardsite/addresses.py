"""The site's public address, which every absolute link names (``DJANGO_SITE_URL``)."""

from django.conf import settings


def absolute_url(path, request=None):
    """``path`` (e.g. "/en/papers/x/") as an absolute URL on ``settings.SITE_URL`` when
    set (the public host, even behind a proxy), else on the host of ``request``. An
    absolute URL is returned unchanged. Raises ValueError without either."""
    if path.startswith(("http://", "https://")):
        return path
    if settings.SITE_URL:
        return settings.SITE_URL + path
    if request is None:
        raise ValueError("absolute_url() needs a request when SITE_URL is not set.")
    return request.build_absolute_uri(path)
