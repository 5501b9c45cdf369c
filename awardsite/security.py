"""django-axes's hooks (AXES_CLIENT_IP_CALLABLE, AXES_LOCKOUT_PARAMETERS,
AXES_LOCKOUT_CALLABLE): whose address a login attempt comes from, what its failures are
counted by, and the page a locked-out login gets; and the security headers of an error
answer made before the middleware that add them."""

import functools
import ipaddress

from axes.attempts import get_cool_off_threshold
from axes.helpers import get_cool_off
from axes.models import AccessAttempt
from csp.middleware import CSPMiddleware
from django.conf import settings
from django.contrib import admin
from django.db.models import Sum
from django.middleware.clickjacking import XFrameOptionsMiddleware
from django.middleware.security import SecurityMiddleware
from django.shortcuts import render
from django.utils.translation import gettext
from django_permissions_policy import PermissionsPolicyMiddleware


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


# What failed logins are counted by (AXES_LOCKOUT_PARAMETERS): one username from one
# address; and, once an address has LOGIN_ADDRESS_FAILURE_LIMIT failures, the address.
ONE_LOGIN = [["username", "ip_address"]]
WHOLE_ADDRESS = [*ONE_LOGIN, "ip_address"]


def lockout_parameters(request, credentials=None):
    """AXES_LOCKOUT_PARAMETERS for a login ``request`` (or one of axes's AccessAttempt
    rows): ``ONE_LOGIN``, whose ``AXES_FAILURE_LIMIT`` (5) failures lock that username at
    that address, or ``WHOLE_ADDRESS`` once the address has had
    ``settings.LOGIN_ADDRESS_FAILURE_LIMIT`` (20) failures over any usernames within the
    cool-off time (password spraying): then every login from it is locked.

    axes has one failure limit for every parameter; this gives the address a higher one,
    so that an office behind one address is not locked out by a few typos. One query."""
    address = getattr(request, "axes_ip_address", None) or getattr(request, "ip_address", None)
    if address is None or getattr(request, "axes_attempt_time", None) is None:
        return ONE_LOGIN
    recent = AccessAttempt.objects.filter(
        ip_address=address, attempt_time__gte=get_cool_off_threshold(request)
    )
    failures = recent.aggregate(total=Sum("failures_since_start"))["total"] or 0
    return WHOLE_ADDRESS if failures >= settings.LOGIN_ADDRESS_FAILURE_LIMIT else ONE_LOGIN


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


def with_security_headers(view):
    """``view`` (an error handler: ``handler400``) adding to its answer the headers the
    security middleware give every other response (settings.MIDDLEWARE): nosniff,
    Referrer-Policy and HSTS, X-Frame-Options, Content-Security-Policy,
    Permissions-Policy. Each adds only a header the answer lacks, so an answer that
    passes through them afterwards is unchanged.

    Why: the page cache sits before those middleware (so a hit skips them) and is the
    first to read the Host header; a bad Host raises DisallowedHost there, and Django's
    400 answer went back out through none of them. Only their answer hooks are run:
    SecurityMiddleware's request hook would read the Host again (HTTPS redirect)."""

    @functools.wraps(view)
    def answer(request, *args, **kwargs):
        response = view(request, *args, **kwargs)
        for middleware in (SecurityMiddleware, XFrameOptionsMiddleware, CSPMiddleware):
            response = middleware(view).process_response(request, response)
        return PermissionsPolicyMiddleware(lambda request: response)(request)

    return answer
