"""Test settings: the project's settings with a fixed key and fast hashing."""

import atexit
import os
import shutil
import tempfile
from pathlib import Path

os.environ.setdefault("DJANGO_INSECURE_DEV", "true")

from awardsite.settings import *  # noqa: E402,F403

# In-memory SQLite unless DATABASE_URL names another database (e.g. PostgreSQL).
if not os.environ.get("DATABASE_URL"):
    DATABASES = {"default": {"ENGINE": "django.db.backends.sqlite3", "NAME": ":memory:"}}
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
STORAGES = {
    **STORAGES,  # noqa: F405
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}
# Whitenoise looks for collected files only when asked; tests use the finders.
WHITENOISE_AUTOREFRESH = True
# Pages are cached in tests/pagecache/test_caching.py only, which turns the cache on: elsewhere a
# page cached by one test could be served to the next, whose database was rolled back.
PAGE_CACHE_ENABLED = False
# The API's rate limit is tested in tests/opendata/test_api.py, which sets one: elsewhere (the
# schema tests send hundreds of requests) no test is throttled.
API_RATE_LIMIT = ""
# Share cards are drawn in tests/pages/test_cards.py only (thousands of papers are made elsewhere).
SHARE_CARDS_ON_SAVE = False
# Uploads, thumbnails and share cards go to a folder of the test run's own, never the
# checkout's media/ (where `make data` draws the ICML share cards a test would then see);
# tests that look at files set their own tmp_path on top. The folder goes when the process
# that made it ends (each xdist worker and each subprocess on these settings makes its own);
# a child forked from that process (publish_site's workers) leaves it alone.
MEDIA_ROOT = Path(tempfile.mkdtemp(prefix="awardsite-test-media-"))
_MEDIA_ROOT_OWNER = os.getpid()


@atexit.register
def _remove_media_root():
    if os.getpid() == _MEDIA_ROOT_OWNER:
        shutil.rmtree(MEDIA_ROOT, ignore_errors=True)
