"""Settings for awardsite, read from the environment: every variable, its default and
why, and the reasons for the fixed settings below are in docs/operations.md
("Configuration"). Without ``DJANGO_SECRET_KEY`` the site starts only with
``DJANGO_DEBUG`` or ``DJANGO_INSECURE_DEV`` (``make run`` sets it)."""

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
    """The environment variable ``name``, stripped and read by ``parse`` (``default`` when
    unset). A value ``parse`` refuses with ValueError raises ImproperlyConfigured:
    "<name> must be <what>, not <value>"."""
    value = os.environ.get(name)
    if value is None:
        return default
    value = value.strip()
    try:
        return parse(value)
    except ValueError:
        raise ImproperlyConfigured(f"{name} must be {what}, not {value!r}.") from None


def env_bool(name, default=False):
    """The environment variable ``name`` as a boolean: "1", "true", "yes", "on" (any case)
    or "0", "false", "no", "off", ""; anything else raises ImproperlyConfigured."""

    def parse(value):
        if value.lower() not in {"1", "true", "yes", "on", "0", "false", "no", "off", ""}:
            raise ValueError(value)
        return value.lower() in {"1", "true", "yes", "on"}

    return env(name, default, parse, "true or false")


def env_list(name, default):
    """The comma-separated environment variable ``name`` as a list (``default`` when unset)."""
    return env(
        name, list(default), lambda value: [i.strip() for i in value.split(",") if i.strip()]
    )


def env_whole_number(name, default, *, minimum=1, what=None):
    """The environment variable ``name`` as a whole number of at least ``minimum``
    (``default`` when unset or empty); anything else raises ImproperlyConfigured saying
    it must be ``what`` (default: "a whole number of at least <minimum>")."""

    def parse(value):
        if value and not (re.fullmatch(r"[0-9]+", value) and int(value) >= minimum):
            raise ValueError(value)
        return int(value) if value else default

    return env(name, default, parse, what or f"a whole number of at least {minimum}")


def matching(pattern):
    """A ``parse`` for :func:`env`: a value matching ``pattern`` whole, or empty."""

    def parse(value):
        if value and not re.fullmatch(pattern, value):
            raise ValueError(value)
        return value

    return parse


DEBUG = env_bool("DJANGO_DEBUG")
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
SITE_URL = env("DJANGO_SITE_URL", "").rstrip("/")
if SITE_URL and not SITE_URL.startswith(("http://", "https://")):
    raise ImproperlyConfigured(
        f"DJANGO_SITE_URL must start with http:// or https://, not {SITE_URL!r}."
    )

# One app per concern (docs/architecture.md); the catalogue's label is "papers".
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

# The order matters (docs/architecture.md, "The path of a request").
MIDDLEWARE = [
    "corsheaders.middleware.CorsMiddleware",
    "django.middleware.http.ConditionalGetMiddleware",
    "pagecache.caching.PublicPageCacheMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "csp.middleware.CSPMiddleware",
    "django_permissions_policy.PermissionsPolicyMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "editorial.timezones.AdminTimeZoneMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
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
# SQLite: two editors saving at once queue for the write lock (docs/operations.md).
SQLITE_OPTIONS = {"transaction_mode": "IMMEDIATE", "timeout": 20}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    DATABASES["default"]["OPTIONS"] = {**SQLITE_OPTIONS, **DATABASES["default"].get("OPTIONS", {})}


def _number_or_empty(value):
    if value:
        float(value)  # ValueError when it is not a number
    return value


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

# English: the default, which every translated field falls back to.
LANGUAGE_CODE = "en"
LANGUAGES = [
    ("en", _("English")),
    ("zh-hans", _("Simplified Chinese")),
]
# Our catalogue (made by makemessages), then the Chinese of library strings whose own
# catalogues lack it (written by hand; makemessages writes only the first entry).
LOCALE_PATHS = [BASE_DIR / "locale", BASE_DIR / "locale_libraries"]
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
    # Django's FileSystemStorage writing each file whole or not at all (a full disk).
    "default": {"BACKEND": "catalogue.storage.WholeFileSystemStorage"},
    "staticfiles": {
        "BACKEND": (
            "django.contrib.staticfiles.storage.StaticFilesStorage"
            if DEBUG
            else "awardsite.storage.StaticFilesStorage"
        )
    },
}
SERVE_MEDIA = env_bool("DJANGO_SERVE_MEDIA", DEBUG or INSECURE_DEV)
# Static files served before collectstatic has run.
WHITENOISE_USE_FINDERS = True

SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"
SESSION_COOKIE_SECURE = env_bool("DJANGO_SECURE_COOKIES", not (DEBUG or INSECURE_DEV))
SECURE_SSL_REDIRECT = env_bool("DJANGO_SECURE_SSL_REDIRECT")
SECURE_HSTS_SECONDS = env_whole_number("DJANGO_SECURE_HSTS_SECONDS", 0, minimum=0)
SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("DJANGO_SECURE_HSTS_INCLUDE_SUBDOMAINS")
BEHIND_HTTPS_PROXY = env_bool("DJANGO_BEHIND_HTTPS_PROXY")
if BEHIND_HTTPS_PROXY:
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
CSRF_COOKIE_SECURE = SESSION_COOKIE_SECURE
# Our bilingual 403 page: Django's has an inline style the CSP blocks.
CSRF_FAILURE_VIEW = "pages.views.csrf_failure"


def one_line_warning():
    """A logging filter (LOGGING's ``"()"``) making a record one line at WARNING, without
    its traceback: for requests a visitor gets wrong, no fault of the site."""

    def shorten(record):
        record.levelno, record.levelname = logging.WARNING, "WARNING"
        record.exc_info = record.exc_text = None
        return True

    return shorten


def client_error_one_line():
    """A logging filter for ``django.request``: the record of an answer from 400 to 499
    (``status_code``, which Django's ``log_response`` sets: a body that cannot be parsed,
    a BadRequest) made one line as ``one_line_warning`` does; others, 500s with their
    tracebacks above all, pass unchanged."""
    shorten = one_line_warning()

    def filter_record(record):
        if 400 <= getattr(record, "status_code", 0) < 500:
            shorten(record)
        return True

    return filter_record


# A visitor's bad request (docs/operations.md, "Logs") is one WARNING line without a
# traceback: every SuspiciousOperation, which Django logs to django.security.<its name>
# (DisallowedHost, SuspiciousFileOperation, TooManyFieldsSent, RequestDataTooBig, ...),
# and the 4xx answers django.request logs (MultiPartParserError, BadRequest).
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {
        "one_line_warning": {"()": one_line_warning},
        "client_error_one_line": {"()": client_error_one_line},
    },
    "handlers": {
        "console": {"class": "logging.StreamHandler"},
        "client_errors": {"class": "logging.StreamHandler", "filters": ["one_line_warning"]},
    },
    "root": {"handlers": ["console"], "level": os.environ.get("DJANGO_LOG_LEVEL", "INFO")},
    "loggers": {
        "django.security": {
            "handlers": ["client_errors"],
            "level": "WARNING",
            "propagate": False,
        },
        # The most frequent: also one line for a handler added to this logger itself.
        "django.security.DisallowedHost": {"filters": ["one_line_warning"]},
        "django.request": {"filters": ["client_error_one_line"]},
        "axes": {"level": "WARNING"},
    },
}

# modeltranslation's tabbed admin would load jQuery UI from a CDN: our copy (`make vendor`).
JQUERY_UI_URL = "vendor/jquery-ui/jquery-ui.min.js"

# Teaser uploads above these are refused; the sizes the site shows (docs/operations.md).
PAPER_IMAGE_MAX_BYTES = 5 * 1024 * 1024
PAPER_IMAGE_MAX_PIXELS = 25_000_000
THUMBNAIL_ALIASES = {
    "": {
        "teaser": {"size": (960, 0), "upscale": False},
        "admin": {"size": (120, 80), "upscale": False},
        "list": {"size": (160, 100), "crop": True, "upscale": True},
        "list_2x": {"size": (320, 200), "crop": True, "upscale": True},
    }
}
THUMBNAIL_TRANSPARENCY_EXTENSION = "png"
THUMBNAIL_PRESERVE_EXTENSIONS = ("png", "webp")

# `manage.py loaddata icml` finds the shipped content here.
FIXTURE_DIRS = [BASE_DIR / "fixtures"]

# Only files from this site, no inline code, no framing (docs/operations.md, "Safe in public").
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
# Lower case: django-csp reads CSP_* names as its pre-4.0 configuration.
csp_report_uri = env("DJANGO_CSP_REPORT_URI", "")
if csp_report_uri:
    CONTENT_SECURITY_POLICY["DIRECTIVES"]["report-uri"] = [csp_report_uri]
# Features no page uses, off; only names Chromium knows (tests/test_security_headers.py).
PERMISSIONS_POLICY = {
    feature: []
    for feature in (
        "accelerometer autoplay browsing-topics camera display-capture encrypted-media "
        "geolocation gyroscope hid idle-detection local-fonts magnetometer microphone midi "
        "payment publickey-credentials-get screen-wake-lock serial usb xr-spatial-tracking"
    ).split()
}

# Login throttling per username and address, and per address over every username
# (password spraying): docs/operations.md, "Safe in public".
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]
AXES_FAILURE_LIMIT = env_whole_number("DJANGO_LOGIN_FAILURE_LIMIT", 5)
AXES_COOLOFF_TIME = timedelta(minutes=env_whole_number("DJANGO_LOGIN_LOCKOUT_MINUTES", 15))
LOGIN_ADDRESS_FAILURE_LIMIT = env_whole_number(
    "DJANGO_LOGIN_ADDRESS_FAILURE_LIMIT",
    4 * AXES_FAILURE_LIMIT,
    minimum=AXES_FAILURE_LIMIT,
    what=f"a whole number of at least DJANGO_LOGIN_FAILURE_LIMIT ({AXES_FAILURE_LIMIT})",
)
AXES_LOCKOUT_PARAMETERS = "awardsite.security.lockout_parameters"
AXES_RESET_ON_SUCCESS = True
AXES_LOCKOUT_CALLABLE = "awardsite.security.lockout_response"
AXES_CLIENT_IP_CALLABLE = "awardsite.security.client_ip"


def _seconds(value):
    seconds = float(value or "0.5")
    if not 0.01 <= seconds <= 60:
        raise ValueError(value)
    return seconds


# The page cache (docs/operations.md, "Running at scale").
REDIS_URL = env("REDIS_URL", "")
REDIS_TIMEOUT = env(
    "DJANGO_REDIS_TIMEOUT", 0.5, _seconds, "a number of seconds from 0.01 to 60 (e.g. 0.5)"
)
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
            "OPTIONS": {"MAX_ENTRIES": 1000},
        }
    }
PAGE_CACHE_ENABLED = env_bool("DJANGO_PAGE_CACHE", True)
PAGE_CACHE_TIMEOUT = 24 * 60 * 60  # seconds, if nothing changes
# Seconds a worker trusts the content generation it read (pagecache.caching.current_generation).
PAGE_CACHE_GENERATION_TTL = 1.0
# Asks for a preview of a draft (pages.views.PreviewMixin): never cached.
PREVIEW_PARAMETER = "preview"
PAGE_CACHE_MAX_AGE = 0
PAGE_CACHE_SHARED_MAX_AGE = env_whole_number(
    "DJANGO_CDN_MAX_AGE",
    60,
    minimum=0,
    what="a whole number of seconds (0: a CDN keeps no page)",
)

# Open data, read by any site from a browser: GET only, no credentials.
CORS_URLS_REGEX = r"^/(api|data)/"
CORS_ALLOW_ALL_ORIGINS = True
CORS_ALLOW_METHODS = ["GET", "HEAD", "OPTIONS"]
CORS_EXPOSE_HEADERS = ["ETag", "Retry-After"]
API_RATE_LIMIT = env(
    "DJANGO_API_RATE_LIMIT",
    "120/min",
    matching(r"[1-9][0-9]*/[0-9]*(s|sec|m|min|h|hour|d|day)"),
    "like 120/min (or 10/s, 5000/h, 100000/d), or empty for no limit",
)
DATA_LICENCE = env("DJANGO_DATA_LICENCE", "")

SHARE_CARD_FONT = env("DJANGO_SHARE_CARD_FONT", "/usr/share/fonts/truetype/wqy/wqy-microhei.ttc")
SHARE_CARDS_ON_SAVE = env_bool("DJANGO_SHARE_CARDS_ON_SAVE", True)
