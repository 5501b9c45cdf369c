"""Settings for awardsite, read from the environment.

Every variable is listed with its default, and why, in docs/operations.md
("Configuration"). Development works with no variable set (SQLite file, debug off
unless asked for); with debug off the site refuses to start without
``DJANGO_SECRET_KEY`` unless ``DJANGO_INSECURE_DEV`` is set by ``make run``.
"""

import logging
import os
import re
from datetime import timedelta
from pathlib import Path

import dj_database_url
from csp.constants import NONE, SELF
from django.core.exceptions import ImproperlyConfigured
from django.utils.translation import gettext_lazy as _

BASE_DIR = Path(__file__).resolve().parent.parent


def env(name, default, parse=str, what=None):
    """The environment variable ``name``, stripped and read by ``parse`` (a function of
    the text; ``default`` when the variable is unset). A value ``parse`` refuses with
    ValueError raises ImproperlyConfigured: "<name> must be <what>, not <value>"."""
    value = os.environ.get(name)
    if value is None:
        return default
    value = value.strip()
    try:
        return parse(value)
    except ValueError:
        raise ImproperlyConfigured(f"{name} must be {what}, not {value!r}.") from None


def env_bool(name, default=False):
    """The environment variable ``name`` as a boolean: "1", "true", "yes" and "on" (any
    case) are true; "0", "false", "no", "off" and "" false; anything else raises
    ImproperlyConfigured."""

    def parse(value):
        if value.lower() in {"1", "true", "yes", "on"}:
            return True
        if value.lower() in {"0", "false", "no", "off", ""}:
            return False
        raise ValueError(value)

    return env(name, default, parse, "true or false")


def env_list(name, default):
    """The comma-separated environment variable ``name`` as a list (``default`` when unset)."""
    return env(
        name, list(default), lambda value: [i.strip() for i in value.split(",") if i.strip()]
    )


def env_whole_number(name, default, *, minimum=1, what=None):
    """The environment variable ``name`` as a whole number of at least ``minimum``
    (``default`` when unset or empty). Anything else (text, a fraction, a smaller number)
    raises ImproperlyConfigured, saying the value must be ``what`` (default: "a whole
    number of at least <minimum>")."""

    def parse(value):
        if not value:
            return default
        if not re.fullmatch(r"[0-9]+", value) or int(value) < minimum:
            raise ValueError(value)
        return int(value)

    return env(name, default, parse, what or f"a whole number of at least {minimum}")


def matching(pattern):
    """A ``parse`` for :func:`env` that keeps a value matching the regular expression
    ``pattern`` whole, or the empty value, and refuses anything else."""

    def parse(value):
        if value and not re.fullmatch(pattern, value):
            raise ValueError(value)
        return value

    return parse


DEBUG = env_bool("DJANGO_DEBUG")
# make run and the tests set DJANGO_INSECURE_DEV to use a fixed development key
# and serve uploads; a production deployment sets DJANGO_SECRET_KEY and leaves it unset.
INSECURE_DEV = env_bool("DJANGO_INSECURE_DEV")
SECRET_KEY = os.environ.get("DJANGO_SECRET_KEY", "")
if not SECRET_KEY:
    if DEBUG or INSECURE_DEV:
        SECRET_KEY = "insecure-development-key-do-not-use-in-production"  # nosec B105  # dev only
    else:
        raise ImproperlyConfigured(
            "Set DJANGO_SECRET_KEY (or DJANGO_DEBUG=true / DJANGO_INSECURE_DEV=true "
            "for local development)."
        )

ALLOWED_HOSTS = env_list("DJANGO_ALLOWED_HOSTS", ["localhost", "127.0.0.1", "[::1]"])
CSRF_TRUSTED_ORIGINS = env_list("DJANGO_CSRF_TRUSTED_ORIGINS", [])
# The public address, e.g. https://awards.example.org: canonical URLs, hreflang
# alternates, feeds, the sitemap and citation metadata use it. Empty: the host
# of each request.
SITE_URL = env("DJANGO_SITE_URL", "").rstrip("/")
if SITE_URL and not SITE_URL.startswith(("http://", "https://")):
    raise ImproperlyConfigured(
        f"DJANGO_SITE_URL must start with http:// or https://, not {SITE_URL!r}."
    )

# The project's apps, one per concern (docs/architecture.md). The catalogue holds every
# model (app label "papers", as before the split); the others hold behaviour.
PROJECT_APPS = [
    "catalogue",
    "editorial",
    "importing",
    "opendata",
    "pages",
    "pagecache",
    "publishing",
    "backups",
]

INSTALLED_APPS = [
    "modeltranslation",
    "awardsite.apps.AdminConfig",  # django.contrib.admin with our site (awardsite/admin.py)
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "adminsortable2",
    "easy_thumbnails",
    "reversion",
    "reversion_compare",
    "django.contrib.sitemaps",
    "csp",
    "axes",
    "ninja",  # the API's Swagger UI from its own static files (opendata/api/)
    "corsheaders",
    *PROJECT_APPS,
    "awardsite.apps.AwardsiteConfig",
]

MIDDLEWARE = [
    # First: CORS headers on every API answer, from the page cache or not (settings below).
    "corsheaders.middleware.CorsMiddleware",
    # The ETag's 304 outside the page cache, so hits get it too; the cache next, so a hit
    # skips every other middleware (their headers are stored with the page).
    "django.middleware.http.ConditionalGetMiddleware",
    "pagecache.caching.PublicPageCacheMiddleware",
    "django.middleware.security.SecurityMiddleware",
    # Before WhiteNoise, so files it serves carry the policies too.
    "csp.middleware.CSPMiddleware",
    "django_permissions_policy.PermissionsPolicyMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    # Last: turns a locked-out login into the lockout page (awardsite/security.py).
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "awardsite.urls"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.template.context_processors.i18n",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
    # The lists of papers (templates/papers/lists/, pages/jinja.py says why).
    {
        "BACKEND": "django.template.backends.jinja2.Jinja2",
        "DIRS": [BASE_DIR / "templates"],
        "OPTIONS": {"environment": "pages.jinja.environment"},
    },
]

WSGI_APPLICATION = "awardsite.wsgi.application"

# Connections are kept an hour and checked before reuse (CONN_HEALTH_CHECKS): a new
# PostgreSQL connection prepares and plans its queries anew, which doubled a worker's
# page times for its first requests; docs/operations.md, DJANGO_CONN_MAX_AGE.
DATABASES = {
    "default": dj_database_url.config(
        default=f"sqlite:///{BASE_DIR / 'db.sqlite3'}",
        conn_max_age=env_whole_number(
            "DJANGO_CONN_MAX_AGE",
            3600,
            minimum=0,
            what="a whole number of seconds (0: a new connection for each request)",
        ),
        conn_health_checks=True,
    )
}
# SQLite: BEGIN IMMEDIATE takes the write lock when a transaction starts, so a second
# editor saving at the same moment waits up to "timeout" seconds for the first instead of
# getting "database is locked" at once (a reader cannot become a writer while another
# writes, and then SQLite does not wait).
SQLITE_OPTIONS = {"transaction_mode": "IMMEDIATE", "timeout": 20}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    DATABASES["default"]["OPTIONS"] = {**SQLITE_OPTIONS, **DATABASES["default"].get("OPTIONS", {})}


def _number_or_empty(value):
    if value:
        float(value)  # ValueError when it is not a number
    return value


# PostgreSQL: the planner's random_page_cost on each connection, and server-side binding
# with psycopg's prepare_threshold, so a query run again is not planned again
# (docs/operations.md, DJANGO_PG_RANDOM_PAGE_COST and DJANGO_PG_SERVER_SIDE_BINDING).
PG_SERVER_SIDE_BINDING = env_bool("DJANGO_PG_SERVER_SIDE_BINDING", default=True)
if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
    pg_options = DATABASES["default"].setdefault("OPTIONS", {})
    random_page_cost = env(
        "DJANGO_PG_RANDOM_PAGE_COST", "1.1", _number_or_empty, "a number (e.g. 1.1) or empty"
    )
    if random_page_cost:
        cost = f"-c random_page_cost={random_page_cost}"
        pg_options["options"] = " ".join(filter(None, [pg_options.get("options", ""), cost]))
    pg_options["server_side_binding"] = PG_SERVER_SIDE_BINDING
    if PG_SERVER_SIDE_BINDING:
        pg_options["prepare_threshold"] = 5

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

# English is the default and the language every translated field falls back to (how a
# fallback is shown: the {% translated %} tag, pages/templatetags/awards.py).
LANGUAGE_CODE = "en"
LANGUAGES = [
    ("en", _("English")),
    ("zh-hans", _("Simplified Chinese")),
]
LOCALE_PATHS = [BASE_DIR / "locale"]
USE_I18N = True
TIME_ZONE = "UTC"
USE_TZ = True

MODELTRANSLATION_DEFAULT_LANGUAGE = "en"
MODELTRANSLATION_LANGUAGES = ("en", "zh-hans")
MODELTRANSLATION_FALLBACK_LANGUAGES = {"default": ("en",), "en": ()}

STATIC_URL = "static/"
STATIC_ROOT = Path(os.environ.get("DJANGO_STATIC_ROOT", BASE_DIR / "staticfiles"))
STATICFILES_DIRS = [BASE_DIR / "static"]
MEDIA_URL = "media/"
MEDIA_ROOT = Path(os.environ.get("DJANGO_MEDIA_ROOT", BASE_DIR / "media"))
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": (
            "django.contrib.staticfiles.storage.StaticFilesStorage"
            if DEBUG
            else "awardsite.storage.StaticFilesStorage"
        )
    },
}
# Django serves uploads only for local use; production serves MEDIA_ROOT itself.
SERVE_MEDIA = env_bool("DJANGO_SERVE_MEDIA", DEBUG or INSECURE_DEV)
# Serve static files from the apps and STATICFILES_DIRS before collectstatic has run.
WHITENOISE_USE_FINDERS = True

SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"
SESSION_COOKIE_SECURE = env_bool("DJANGO_SECURE_COOKIES", not (DEBUG or INSECURE_DEV))
# HTTPS redirect and HSTS are off by default, so a first deployment behind a proxy is
# not locked out.
SECURE_SSL_REDIRECT = env_bool("DJANGO_SECURE_SSL_REDIRECT")
SECURE_HSTS_SECONDS = env_whole_number("DJANGO_SECURE_HSTS_SECONDS", 0, minimum=0)
SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("DJANGO_SECURE_HSTS_INCLUDE_SUBDOMAINS")
BEHIND_HTTPS_PROXY = env_bool("DJANGO_BEHIND_HTTPS_PROXY")
if BEHIND_HTTPS_PROXY:
    # The proxy terminates TLS and says so in X-Forwarded-Proto.
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
CSRF_COOKIE_SECURE = SESSION_COOKIE_SECURE
# Our bilingual 403 page for a failed CSRF check: Django's has an inline style the
# Content-Security-Policy blocks.
CSRF_FAILURE_VIEW = "pages.views.csrf_failure"


def one_line_warning():
    """A logging filter (built by LOGGING's ``"()"``) that turns a record into one line
    at WARNING, without its traceback: for requests a visitor gets wrong, which are no
    fault of the site."""

    def shorten(record):
        record.levelno, record.levelname = logging.WARNING, "WARNING"
        record.exc_info = record.exc_text = None
        return True

    return shorten


LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {"one_line_warning": {"()": one_line_warning}},
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": os.environ.get("DJANGO_LOG_LEVEL", "INFO")},
    "loggers": {
        # A Host header not in DJANGO_ALLOWED_HOSTS (scanners send many): a 400 and one line.
        "django.security.DisallowedHost": {
            "handlers": ["console"],
            "filters": ["one_line_warning"],
            "level": "WARNING",
            "propagate": False,
        },
        # Failed logins and lock-outs; not axes's start-up and successful-login notes.
        "axes": {"level": "WARNING"},
    },
}

# modeltranslation's tabbed admin would load jQuery UI from a CDN: our copy (`make vendor`).
JQUERY_UI_URL = "vendor/jquery-ui/jquery-ui.min.js"

# Teaser images (catalogue/images.py): uploads above these are refused. 5 MB is ample
# for a 2,000-pixel figure; 25 megapixels (about 6,000 x 4,000) is far under Pillow's
# decompression-bomb threshold (89 megapixels).
PAPER_IMAGE_MAX_BYTES = 5 * 1024 * 1024
PAPER_IMAGE_MAX_PIXELS = 25_000_000
# easy-thumbnails: the sizes the site shows (templates use these names). A list's slot is
# 160 x 100 CSS pixels and "list_2x" fills it on 2x screens; both are cropped to the slot
# and scaled up if need be, so a page names their size without reading a file.
THUMBNAIL_ALIASES = {
    "": {
        "teaser": {"size": (960, 0), "upscale": False},
        "admin": {"size": (120, 80), "upscale": False},
        "list": {"size": (160, 100), "crop": True, "upscale": True},
        "list_2x": {"size": (320, 200), "crop": True, "upscale": True},
    }
}
THUMBNAIL_TRANSPARENCY_EXTENSION = "png"
# Figures and diagrams stay lossless; photographs (JPEG) stay JPEG.
THUMBNAIL_PRESERVE_EXTENSIONS = ("png", "webp")

# `manage.py loaddata icml` finds the shipped content here.
FIXTURE_DIRS = [BASE_DIR / "fixtures"]

# A strict policy on every response (django-csp 4; docs/operations.md, "Safe in public"):
# scripts, styles and the rest only as files from this site, no inline code, no framing.
# JSON-LD (<script type="application/ld+json">) is data, never run, so it is allowed.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [SELF],
        "script-src": [SELF],
        "style-src": [SELF],
        "img-src": [SELF],
        "font-src": [SELF],
        "connect-src": [SELF],
        "object-src": [NONE],
        "base-uri": [NONE],
        "frame-ancestors": [NONE],
        "form-action": [SELF],
    }
}
# Where browsers report what the policy blocked (lower case: django-csp reads CSP_*
# names as its pre-4.0 configuration).
csp_report_uri = env("DJANGO_CSP_REPORT_URI", "")
if csp_report_uri:
    CONTENT_SECURITY_POLICY["DIRECTIVES"]["report-uri"] = [csp_report_uri]
# Powerful browser features no page uses, off (django-permissions-policy). Only names
# Chromium knows: it reports an unknown one ("bluetooth") as an error on every page
# (tests/test_security_headers.py keeps the list).
PERMISSIONS_POLICY = {
    feature: []
    for feature in (
        "accelerometer autoplay browsing-topics camera display-capture encrypted-media "
        "geolocation gyroscope hid idle-detection local-fonts magnetometer microphone midi "
        "payment publickey-credentials-get screen-wake-lock serial usb xr-spatial-tracking"
    ).split()
}

# Login throttling (django-axes; docs/operations.md, "Safe in public"): a username is
# refused from one address after AXES_FAILURE_LIMIT failures from it, for
# AXES_COOLOFF_TIME. Counted per username and address, so nobody can lock an editor out
# of the editor's own address.
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]
AXES_FAILURE_LIMIT = env_whole_number("DJANGO_LOGIN_FAILURE_LIMIT", 5)
AXES_COOLOFF_TIME = timedelta(minutes=env_whole_number("DJANGO_LOGIN_LOCKOUT_MINUTES", 15))
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_RESET_ON_SUCCESS = True
# The lockout page (our template, the visitor's language, status 429), and the client's
# address: behind the HTTPS proxy the one it appended to X-Forwarded-For.
AXES_LOCKOUT_CALLABLE = "awardsite.security.lockout_response"
AXES_CLIENT_IP_CALLABLE = "awardsite.security.client_ip"


def _seconds(value):
    seconds = float(value or "0.5")
    if not 0.01 <= seconds <= 60:
        raise ValueError(value)
    return seconds


# The page cache (pagecache/caching.py; docs/operations.md, "Running at scale"): Redis
# when REDIS_URL is set, shared by every app server, else each process's local memory.
REDIS_URL = env("REDIS_URL", "")
# Seconds a worker waits for Redis before it serves the page uncached: redis-py's own
# default held each page about 11 s when Redis hung (tests/pagecache/test_caching.py).
REDIS_TIMEOUT = env(
    "DJANGO_REDIS_TIMEOUT", 0.5, _seconds, "a number of seconds from 0.01 to 60 (e.g. 0.5)"
)
# redis-py's connection pool options (Django's RedisCache passes OPTIONS on to it).
REDIS_CACHE_OPTIONS = {"socket_connect_timeout": REDIS_TIMEOUT, "socket_timeout": REDIS_TIMEOUT}
if REDIS_URL:
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": REDIS_URL,
            "KEY_PREFIX": "awardsite",
            "OPTIONS": REDIS_CACHE_OPTIONS,
        }
    }
else:
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
            "LOCATION": "awardsite",
            # About 1,000 pages of 10-100 KB per process; a third dropped when full.
            "OPTIONS": {"MAX_ENTRIES": 1000},
        }
    }
PAGE_CACHE_ENABLED = env_bool("DJANGO_PAGE_CACHE", True)
# Seconds a page stays cached if nothing changes (a change retires it at once).
PAGE_CACHE_TIMEOUT = 24 * 60 * 60
# The query parameter that asks for a preview of a draft (pages.views.PreviewMixin); a
# request carrying it is never served from the page cache, nor stored.
PREVIEW_PARAMETER = "preview"
# Cache-Control of public pages: browsers revalidate every time (a 304 from the ETag);
# a CDN may keep a page DJANGO_CDN_MAX_AGE seconds.
PAGE_CACHE_MAX_AGE = 0
PAGE_CACHE_SHARED_MAX_AGE = env_whole_number(
    "DJANGO_CDN_MAX_AGE",
    60,
    minimum=0,
    what="a whole number of seconds (0: a CDN keeps no page)",
)

# Open data: the JSON API (opendata/api/) and the downloads (opendata/downloads.py), read
# by any site from a browser (CORS): GET only, no credentials.
CORS_URLS_REGEX = r"^/(api|data)/"
CORS_ALLOW_ALL_ORIGINS = True
CORS_ALLOW_METHODS = ["GET", "HEAD", "OPTIONS"]
CORS_EXPOSE_HEADERS = ["ETag", "Retry-After"]
# Requests one client address may make to the API (django-ninja's "<count>/<unit>"),
# counted in the default cache. Empty: no limit.
API_RATE_LIMIT = env(
    "DJANGO_API_RATE_LIMIT",
    "120/min",
    matching(r"[1-9][0-9]*/[0-9]*(s|sec|m|min|h|hour|d|day)"),
    "like 120/min (or 10/s, 5000/h, 100000/d), or empty for no limit",
)
# The licence the data is offered under, named by every download and the API. Empty: none.
DATA_LICENCE = env("DJANGO_DATA_LICENCE", "")

# Share cards (pages/cards.py): any font file Pillow reads, with Chinese glyphs. A missing
# file: Pillow's built-in Latin font and English text only.
SHARE_CARD_FONT = env("DJANGO_SHARE_CARD_FONT", "/usr/share/fonts/truetype/wqy/wqy-microhei.ttc")
# Draw a paper's share cards when an editor's change to it is committed (off in tests).
SHARE_CARDS_ON_SAVE = env_bool("DJANGO_SHARE_CARDS_ON_SAVE", True)
