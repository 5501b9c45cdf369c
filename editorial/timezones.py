"""The admin in the editor's time zone: static/js/admin-timezone.js, on the pages of the
conferences and awards, keeps the browser's zone (``Intl``) in a cookie sent to the
admin's pages only; this middleware makes it the current time zone of the admin's
views, so a publish time is shown and read in it. Without the cookie, or with a zone
Python does not know, times are in ``TIME_ZONE`` (UTC). Public pages never read it: they
are cached for everyone. A form shown in one zone and submitted in another is refused
(editorial/review.py), never misread.

Why not a per-editor setting: it needs a model of its own, and editors who travel would
have to keep it right; why not django-tz-detect: it needs its URLs, a template tag in the
admin's base template and a POST from the page, for the same cookie's worth.
"""

import zoneinfo
from urllib.parse import unquote

from django.utils import timezone

COOKIE = "admin_time_zone"
ADMIN_NAMESPACE = "admin"


def zone_named(name):
    """The ``ZoneInfo`` of the IANA name ``name`` (``"Europe/Berlin"``, or percent-encoded
    as admin-timezone.js writes it, ``"Europe%2FBerlin"``), or None for a missing,
    malformed or unknown one."""
    if not name or len(name) > 64:
        return None
    name = unquote(name)
    try:
        return zoneinfo.ZoneInfo(name)
    except (ValueError, zoneinfo.ZoneInfoNotFoundError):
        return None


class AdminTimeZoneMiddleware:
    """Activates the time zone of the ``COOKIE`` for the views of the admin site (the
    ``admin`` namespace), and deactivates it when the response is made."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        try:
            return self.get_response(request)
        finally:
            timezone.deactivate()

    def process_view(self, request, view_func, view_args, view_kwargs):
        """Activate the editor's zone for an admin view; None (the view runs)."""
        match = request.resolver_match
        if match is not None and ADMIN_NAMESPACE in match.namespaces:
            zone = zone_named(request.COOKIES.get(COOKIE))
            if zone is not None:
                timezone.activate(zone)
