"""django-axes's hooks (AXES_CLIENT_IP_CALLABLE, AXES_LOCKOUT_CALLABLE): whose address a
login attempt comes from, and the page a locked-out login gets."""

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
    """The address (IPv4 or IPv6) a request comes from, or None: behind the proxy
    (``DJANGO_BEHIND_HTTPS_PROXY``) the last entry of X-Forwarded-For, which the proxy
    appended (the client wrote the others), else REMOTE_ADDR."""
    if settings.BEHIND_HTTPS_PROXY:
        forwarded = request.META.get("HTTP_X_FORWARDED_FOR", "")
        last = _valid_ip(forwarded.rsplit(",", 1)[-1])
        if last:
            return last
    return _valid_ip(request.META.get("REMOTE_ADDR"))


def lockout_response(request, original_response=None, credentials=None):
    """The "login locked" page (status 429, the visitor's language) after
    ``AXES_FAILURE_LIMIT`` failures: for how many minutes (``AXES_COOLOFF_TIME``, also
    Retry-After in seconds) and who can unlock it."""
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
