"""Settings for awardsite, read from the environment.

Every variable is listed with its default in README.md. Development works with
no variable set (SQLite file, debug off unless asked for); with debug off the
site refuses to start without ``DJANGO_SECRET_KEY`` unless ``DJANGO_INSECURE_DEV``
is set by ``make run``.
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


def env_bool(name, default=False):
    """Return the environment variable ``name`` read as a boolean.

    "1", "true", "yes" and "on" (any case) are true; "0", "false", "no", "off"
    and "" are false. Anything else raises ImproperlyConfigured.
    """
    value = os.environ.get(name)
    if value is None:
        return default
    value = value.strip().lower()
    if value in {"1", "true", "yes", "on"}:
        return True
    if value in {"0", "false", "no", "off", ""}:
        return False
    raise ImproperlyConfigured(f"{name} must be true or false, not {value!r}.")


def env_list(name, default):
    """Return the comma-separated environment variable ``name`` as a list."""
    value = os.environ.get(name)
    if value is None:
        return list(default)
    return [item.strip() for item in value.split(",") if item.strip()]


def env_whole_number(name, default, *, minimum=1, what=None):
    """Return the environment variable ``name`` as a whole number of at least ``minimum``
    (``default`` when it is unset or empty).

    Anything else (text, a fraction, a smaller number) raises ImproperlyConfigured,
    saying the value must be ``what`` (default: "a whole number of at least minimum").
    """
    value = os.environ.get(name, "").strip() or str(default)
    if not re.fullmatch(r"[0-9]+", value) or int(value) < minimum:
        what = what or f"a whole number of at least {minimum}"
        raise ImproperlyConfigured(f"{name} must be {what}, not {value!r}.")
    return int(value)


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
SITE_URL = os.environ.get("DJANGO_SITE_URL", "").strip().rstrip("/")
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

# Connections are kept open for an hour (DJANGO_CONN_MAX_AGE, seconds; 0 closes each at
# the end of its request). A new PostgreSQL connection has none of the old one's
# prepared statements and plans (see "server_side_binding" below): psycopg prepares a
# statement at its 5th run and PostgreSQL plans each of the next 5 again, so for about
# ten requests of each kind a worker's pages take twice as long (benchmarks' data,
# author page: 58 ms, then 21-24 ms, then 10-12 ms from the 12th request). With the
# former 60 seconds every worker went through that each minute; in make bench's
# timeline (benchmarks/page_load.py) the cold server's connections turned 60 s old during
# the one-connection run of the paper page, so paper, author and search were measured
# on new connections and their p95 on PostgreSQL was twice their p50.
# A kept connection is checked (Django's CONN_HEALTH_CHECKS: one "SELECT 1" before the
# first query of a request that reuses it) and opened again if the server dropped it:
# without the check, the first request of each worker after a PostgreSQL restart or
# failover was a 500 (found by a tester). A request that hit a database error closes its
# connection (awardsite/database.py), e.g. one whose prepared statements a migration
# made wrong.
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
# SQLite (the default database): write transactions queue instead of failing. Django
# opens a transaction with a plain (deferred) BEGIN; two editors saving at the same
# moment then both read (a slug's uniqueness, catalogue/slugs.py), and the second to
# write gets "database is locked" at once, with no wait: SQLite cannot let a reader
# become a writer while another writer holds the lock, so the timeout never applies,
# and the editor got a 500 and lost the form. BEGIN IMMEDIATE takes the write lock
# when the transaction starts, where SQLite does wait: up to "timeout" seconds
# (Django 5.1+ OPTIONS; Python's own default is 5) for the other save to commit.
SQLITE_OPTIONS = {"transaction_mode": "IMMEDIATE", "timeout": 20}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    DATABASES["default"]["OPTIONS"] = {**SQLITE_OPTIONS, **DATABASES["default"].get("OPTIONS", {})}
# PostgreSQL: the planner's cost of reading a page out of order (random_page_cost), set
# for each connection (libpq's "options"). PostgreSQL's default, 4, models spinning
# disks; for data in memory or on SSD its manual suggests 1.1. With 4 the planner read
# all 15,000 authors to find a list's 80 and all 5,000 papers to sort a search's
# matches, where index look-ups take a tenth of the time (benchmarks/server_time.py).
# Empty: the server's (or the role's) own setting, e.g. behind a pooler that refuses
# start-up options.
PG_RANDOM_PAGE_COST = os.environ.get("DJANGO_PG_RANDOM_PAGE_COST", "1.1").strip()
if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql" and PG_RANDOM_PAGE_COST:
    try:
        float(PG_RANDOM_PAGE_COST)
    except ValueError:
        raise ImproperlyConfigured(
            f"DJANGO_PG_RANDOM_PAGE_COST must be a number (e.g. 1.1) or empty, "
            f"not {PG_RANDOM_PAGE_COST!r}."
        ) from None
    pg_options = DATABASES["default"].setdefault("OPTIONS", {})
    pg_options["options"] = " ".join(
        filter(None, [pg_options.get("options", ""), f"-c random_page_cost={PG_RANDOM_PAGE_COST}"])
    )

# PostgreSQL: server-side binding (psycopg 3, Django's "server_side_binding" option) and
# a "prepare_threshold" of 5 (psycopg's own default, which Django turns off unless it is
# set), so that a statement a connection has run 5 times is prepared and PostgreSQL
# stops planning it again. With client-side binding, Django's default, each query
# arrives as new text and is planned on every request: EXPLAIN ANALYZE on the
# 5,000-paper conference page showed the list queries' planning taking longer than
# running them (authors 6.1 ms against 2.8 ms). False turns both off, e.g. behind a
# transaction-mode connection pooler (PgBouncer without max_prepared_statements),
# which cannot keep a connection's prepared statements.
PG_SERVER_SIDE_BINDING = env_bool("DJANGO_PG_SERVER_SIDE_BINDING", default=True)
if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
    DATABASES["default"].setdefault("OPTIONS", {})["server_side_binding"] = PG_SERVER_SIDE_BINDING
    if PG_SERVER_SIDE_BINDING:
        DATABASES["default"]["OPTIONS"]["prepare_threshold"] = 5

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

# Internationalisation. English is the default and the language every
# translated field falls back to; see pages/templatetags/translated.py for how
# a fallback is shown to the reader.
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
# Uploaded media are served by Django itself only for local use; production
# serves MEDIA_ROOT from the web server or object storage.
SERVE_MEDIA = env_bool("DJANGO_SERVE_MEDIA", DEBUG or INSECURE_DEV)
# Serve static files straight from the app and STATICFILES_DIRS when the
# collected copy does not exist yet (make run collects them first).
WHITENOISE_USE_FINDERS = True

SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"
SESSION_COOKIE_SECURE = env_bool("DJANGO_SECURE_COOKIES", not (DEBUG or INSECURE_DEV))
# HTTPS in production: redirect plain HTTP and send HSTS once the site is known to
# work over HTTPS. Off by default so a first deployment behind a proxy is not locked out.
SECURE_SSL_REDIRECT = env_bool("DJANGO_SECURE_SSL_REDIRECT")
SECURE_HSTS_SECONDS = int(os.environ.get("DJANGO_SECURE_HSTS_SECONDS", "0"))
SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("DJANGO_SECURE_HSTS_INCLUDE_SUBDOMAINS")
if env_bool("DJANGO_BEHIND_HTTPS_PROXY"):
    # The proxy terminates TLS and says so in X-Forwarded-Proto.
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
CSRF_COOKIE_SECURE = SESSION_COOKIE_SECURE
# A failed CSRF check (an expired session, a form left open too long) gets our bilingual
# 403 page: Django's own has an inline style the Content-Security-Policy blocks and
# points to DEBUG=True.
CSRF_FAILURE_VIEW = "pages.views.csrf_failure"


def one_line_warning():
    """A logging filter (LOGGING builds it through ``"()"``) that turns a record into one
    line at WARNING: the message stays, the traceback goes. For requests a visitor gets
    wrong, often on purpose, which are no fault of the site and whose traceback says
    nothing (Django logs them as errors, with the traceback)."""

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
        # A request with a Host header not in DJANGO_ALLOWED_HOSTS (scanners send many)
        # is answered 400 and logged as one warning line, without a traceback.
        "django.security.DisallowedHost": {
            "handlers": ["console"],
            "filters": ["one_line_warning"],
            "level": "WARNING",
            "propagate": False,
        },
    },
}

# modeltranslation's tabbed admin would load jQuery UI from a CDN; serve our copy
# (from npm, see package.json and `make vendor`) so the admin calls no other host.
JQUERY_UI_URL = "vendor/jquery-ui/jquery-ui.min.js"

# Teaser images (catalogue/images.py): uploads are refused above these limits. 5 MB is
# ample for a 2,000-pixel-wide JPEG or PNG figure; 25 megapixels is about a 6,000 x 4,000
# photo, far under Pillow's own decompression-bomb threshold (89 megapixels).
PAPER_IMAGE_MAX_BYTES = 5 * 1024 * 1024
PAPER_IMAGE_MAX_PIXELS = 25_000_000
# easy-thumbnails: the sizes the site shows (templates use these names).
THUMBNAIL_ALIASES = {
    "": {
        "teaser": {"size": (960, 0), "upscale": False},
        "admin": {"size": (120, 80), "upscale": False},
    }
}
THUMBNAIL_TRANSPARENCY_EXTENSION = "png"
# Figures and diagrams stay lossless; photographs (JPEG) stay JPEG.
THUMBNAIL_PRESERVE_EXTENSIONS = ("png", "webp")

# `manage.py loaddata icml` finds the shipped content here.
FIXTURE_DIRS = [BASE_DIR / "fixtures"]

# --- Safe in public (issue 8): Content-Security-Policy, Permissions-Policy, login throttling.
# Every response (pages, admin, error pages, files served by WhiteNoise or Django)
# gets a strict policy from django-csp 4: every script and style is a file from this
# site; no inline script, no inline style or style attribute, no eval, no plugins,
# no <base>, no framing, forms post only here. No nonce is needed: the admin's
# inline styles are moved into files (templates/reversion-compare/,
# static/css/admin.css).
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
# Browsers can report what the policy blocked to a collector (lower case: django-csp
# takes settings named CSP_* for its old, pre-4.0 configuration).
csp_report_uri = os.environ.get("DJANGO_CSP_REPORT_URI", "").strip()
if csp_report_uri:
    CONTENT_SECURITY_POLICY["DIRECTIVES"]["report-uri"] = [csp_report_uri]
# Powerful browser features no page here uses are switched off for the site and
# anything it might embed (django-permissions-policy). Only names Chromium knows:
# it reports an unknown one as an error on every page ("bluetooth" is one: Chromium
# 156 says "Unrecognized feature"; tests/test_security_headers.py keeps the list).
PERMISSIONS_POLICY = {
    feature: []
    for feature in [
        "accelerometer",
        "autoplay",
        "browsing-topics",
        "camera",
        "display-capture",
        "encrypted-media",
        "geolocation",
        "gyroscope",
        "hid",
        "idle-detection",
        "local-fonts",
        "magnetometer",
        "microphone",
        "midi",
        "payment",
        "publickey-credentials-get",
        "screen-wake-lock",
        "serial",
        "usb",
        "xr-spatial-tracking",
    ]
}

# Login throttling (django-axes): after AXES_FAILURE_LIMIT failed logins for one
# username from one address, that username is refused from that address for
# AXES_COOLOFF_TIME, even with the right password. 5 failures and 15 minutes leave
# room for typing mistakes and allow one address at most 5 guesses a quarter hour
# (480 a day) at one account, instead of about 6 a second. Counting per username
# *and* address means an attacker cannot lock an editor out from the editor's own
# address. A superuser unlocks early (README: "Safe in public").
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]


AXES_FAILURE_LIMIT = env_whole_number("DJANGO_LOGIN_FAILURE_LIMIT", 5)
AXES_COOLOFF_TIME = timedelta(minutes=env_whole_number("DJANGO_LOGIN_LOCKOUT_MINUTES", 15))
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_RESET_ON_SUCCESS = True
# The lockout page: our admin template, in the visitor's language, status 429.
AXES_LOCKOUT_CALLABLE = "awardsite.security.lockout_response"
# Behind the HTTPS proxy the client's address is the one the proxy appended to
# X-Forwarded-For; otherwise the connection's own address (never a header a client sets).
BEHIND_HTTPS_PROXY = env_bool("DJANGO_BEHIND_HTTPS_PROXY")
AXES_CLIENT_IP_CALLABLE = "awardsite.security.client_ip"
# Failed logins and lock-outs are logged as warnings; axes's start-up and
# successful-login notes are left out.
LOGGING.setdefault("loggers", {})["axes"] = {"level": "WARNING"}

# Caching (pagecache/caching.py, docs/operations.md "Running at scale") ---------------------------
# One cache: Redis when REDIS_URL is set (e.g. redis://cache.internal:6379/0), shared by
# every app server; otherwise each process keeps its own in local memory. Either way a
# change retires every cached page at once: each page's key holds the content
# generation, read from the database on every request (pagecache/caching.py).
REDIS_URL = os.environ.get("REDIS_URL", "").strip()
# How long a worker waits for Redis to connect or answer (seconds) before it gives up and
# serves the page without the cache (pagecache/caching.py logs the error). redis-py 8 waits
# 5 s per attempt and retries: a Redis that hangs (a stopped process, a lost network path
# with no reset) held each page about 11 s (tests/pagecache/test_caching.py, a socket that never
# answers). A page is rendered in tens of milliseconds, so waiting longer than half a
# second for a copy of it only makes visitors wait.
_redis_timeout = os.environ.get("DJANGO_REDIS_TIMEOUT", "").strip() or "0.5"
try:
    REDIS_TIMEOUT = float(_redis_timeout)
except ValueError:
    REDIS_TIMEOUT = 0.0
if not 0.01 <= REDIS_TIMEOUT <= 60:
    raise ImproperlyConfigured(
        "DJANGO_REDIS_TIMEOUT must be a number of seconds from 0.01 to 60 (e.g. 0.5), "
        f"not {_redis_timeout!r}."
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
            # About 1,000 pages of some 10-100 KB each per process; the least recently
            # used third is dropped when full.
            "OPTIONS": {"MAX_ENTRIES": 1000},
        }
    }
PAGE_CACHE_ENABLED = env_bool("DJANGO_PAGE_CACHE", True)
# How long a page stays in the cache if nothing changes (seconds). A change retires it
# at once whatever this says, so it only bounds the memory of rarely visited pages.
PAGE_CACHE_TIMEOUT = 24 * 60 * 60
# The views whose pages the cache may store: every view of these URL namespaces (the
# public pages; the JSON API, opendata/api/), and these views by URL name (robots.txt,
# the sitemap's index and parts, the open data downloads: awardsite/urls.py). Any other
# view (the admin, the language switch, a 404) is never stored.
PAGE_CACHE_NAMESPACES = {"papers", "api-v1"}
PAGE_CACHE_URL_NAMES = {
    "robots-txt",
    "sitemap",
    "sitemap-section",
    "sitemap-section-page",
    "opendata-site-csv",
    "opendata-conference-csv",
    "opendata-site-compact",
    "opendata-conference-compact",
}
# The query parameter that asks for a preview of a draft (pages.views.PreviewMixin); a
# request carrying it is never served from the page cache, nor stored.
PREVIEW_PARAMETER = "preview"
# Cache-Control of public pages: browsers revalidate every time (a cheap 304 with the
# ETag); a CDN or proxy may keep a page DJANGO_CDN_MAX_AGE seconds, the longest a
# visitor behind it can see a page from before a change.
PAGE_CACHE_MAX_AGE = 0
PAGE_CACHE_SHARED_MAX_AGE = env_whole_number(
    "DJANGO_CDN_MAX_AGE",
    60,
    minimum=0,
    what="a whole number of seconds (0: a CDN keeps no page)",
)
# 304 Not Modified from the ETag, outside the page cache so that hits are answered too;
# the page cache right after it, so that a hit skips every other middleware. Only CORS
# comes before them: its headers depend on the request's Origin. The security, CSP and
# Permissions-Policy headers are added inside the cache, once, to the stored page: they
# do not depend on the request (a page that used a CSP nonce is never stored, and the
# scheme, on which HSTS and the HTTPS redirect depend, is part of the key).
MIDDLEWARE[MIDDLEWARE.index("corsheaders.middleware.CorsMiddleware") + 1 : 0] = [
    "django.middleware.http.ConditionalGetMiddleware",
    "pagecache.caching.PublicPageCacheMiddleware",
]

# --- Open data (issue 11): the JSON API under /api/v1/ (opendata/api/) and the downloads
# under /data/ (opendata/downloads.py).
# Any site may read them from a browser (CORS): GET only, no cookies or credentials.
CORS_URLS_REGEX = r"^/(api|data)/"
CORS_ALLOW_ALL_ORIGINS = True
CORS_ALLOW_METHODS = ["GET", "HEAD", "OPTIONS"]
CORS_EXPOSE_HEADERS = ["ETag", "Retry-After"]
# Requests one client address may make to the API (django-ninja's rate syntax:
# "<count>/<s|min|h|d>"), counted in the default cache (REDIS_URL when set). Empty: no limit.
API_RATE_LIMIT = os.environ.get("DJANGO_API_RATE_LIMIT", "120/min").strip()
if API_RATE_LIMIT and not re.fullmatch(
    r"[1-9][0-9]*/[0-9]*(s|sec|m|min|h|hour|d|day)", API_RATE_LIMIT
):
    raise ImproperlyConfigured(
        f"DJANGO_API_RATE_LIMIT must be like 120/min (or 10/s, 5000/h, 100000/d), "
        f"or empty for no limit, not {API_RATE_LIMIT!r}."
    )
# The licence the published data is offered under, named in every download and by the
# API (e.g. "CC BY 4.0"). Empty (the default): no licence is stated, and none is named.
DATA_LICENCE = os.environ.get("DJANGO_DATA_LICENCE", "").strip()

# --- Lists and share cards (issue 10): thumbnails in the lists of papers, and the share
# image of a paper without a teaser (catalogue/images.py, pages/cards.py).
# A list's slot is 160 x 100 CSS pixels; "list_2x" fills it on 2x screens (srcset). Both
# are cropped to the slot and scaled up if need be, so their size is always the slot's
# and a page names it without reading a file.
THUMBNAIL_ALIASES[""]["list"] = {"size": (160, 100), "crop": True, "upscale": True}
THUMBNAIL_ALIASES[""]["list_2x"] = {"size": (320, 200), "crop": True, "upscale": True}
# The font of the generated share cards: any TrueType/OpenType file Pillow reads, with
# Chinese glyphs for the Chinese card. Default: Debian's fonts-wqy-microhei. When the file
# is missing, cards use Pillow's built-in Latin font and English text only.
SHARE_CARD_FONT = os.environ.get(
    "DJANGO_SHARE_CARD_FONT", "/usr/share/fonts/truetype/wqy/wqy-microhei.ttc"
).strip()
# Draw a paper's share cards when an editor's change to it is committed (off in tests).
SHARE_CARDS_ON_SAVE = env_bool("DJANGO_SHARE_CARDS_ON_SAVE", True)
