"""Login throttling hooks for django-axes (settings: AXES_CLIENT_IP_CALLABLE and
AXES_LOCKOUT_CALLABLE): whose address a login attempt comes from, and the page a
locked-out login gets."""

import ipaddress

from axes.helpers import get_cool_off
from django.conf import settings
from django.contrib import admin
from django.shortcuts import render
from django.utils.translation import gettext


def _valid_ip(value):
    """``value`` stripped if it is an IPv4 or IPv6 address, else None."""
    value = (value or "").strip()
    try:
        ipaddress.ip_address(value)
    except ValueError:
        return None
    return value


def client_ip(request):
    """The address a request comes from, as a string (IPv4 or IPv6), or None.

    Behind the TLS-terminating proxy (``DJANGO_BEHIND_HTTPS_PROXY``) every request
    arrives from the proxy, which appends the address it saw to X-Forwarded-For, so
    the client is the last entry there; the entries before it are whatever the
    client sent and are ignored. Without the proxy, X-Forwarded-For is ignored
    altogether (anyone can send it) and the connection's REMOTE_ADDR counts.
    """
    if settings.BEHIND_HTTPS_PROXY:
        forwarded = request.META.get("HTTP_X_FORWARDED_FOR", "")
        last = _valid_ip(forwarded.rsplit(",", 1)[-1])
        if last:
            return last
    return _valid_ip(request.META.get("REMOTE_ADDR"))


def lockout_response(request, original_response=None, credentials=None):
    """The admin's "login locked" page, in the visitor's language, with status 429.

    django-axes calls this when a login is refused because of too many failures
    (settings.AXES_FAILURE_LIMIT for one username from one address). The page says
    for how many minutes (settings.AXES_COOLOFF_TIME) and who can unlock it;
    Retry-After gives the same time in seconds.
    """
    cool_off = get_cool_off(request)
    minutes = round(cool_off.total_seconds() / 60)
    context = {
        **admin.site.each_context(request),
        "title": gettext("Login locked"),
        "failure_limit": settings.AXES_FAILURE_LIMIT,
        "minutes": minutes,
    }
    response = render(request, "admin/lockout.html", context, status=429)
    response["Retry-After"] = str(int(cool_off.total_seconds()))
    return response
