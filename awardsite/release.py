"""The release: what turns the content into pages, as one hash. The page cache keys pages
by it and the publisher renders every page again when it changes, so a deploy never
serves a page that older code or templates rendered."""

import hashlib
import importlib.metadata
from pathlib import Path

from django.conf import settings


def _files(folder, suffixes):
    """The files under ``folder`` (none if it is missing) with one of ``suffixes`` (None: any)."""
    return sorted(
        path
        for path in folder.rglob("*")
        if path.is_file()
        and (suffixes is None or path.suffix in suffixes)
        and "__pycache__" not in path.parts
    )


# Settings that change what pages say (DEBUG picks the static files' storage).
RENDERING_SETTINGS = (
    "SITE_URL",
    "DATA_LICENCE",
    "STATIC_URL",
    "MEDIA_URL",
    "DEBUG",
    "STORAGES",
    "TIME_ZONE",
)


def fingerprint():
    """A hash (32 hex digits) of the installed packages' versions, the Python files of
    ``awardsite/`` and ``PROJECT_APPS``, templates, compiled catalogues, static files
    (and the collected manifest), ``LANGUAGES`` and ``RENDERING_SETTINGS``."""
    digest = hashlib.blake2b(digest_size=16)
    packages = sorted(
        f"{dist.metadata['Name']}=={dist.version}" for dist in importlib.metadata.distributions()
    )
    digest.update("\n".join(packages).encode())
    # The languages by code: their names are lazy translations, whose text depends on
    # the language active when this runs.
    codes = [code for code, _name in settings.LANGUAGES]
    for name, value in [
        ("LANGUAGES", codes),
        *((name, getattr(settings, name, None)) for name in RENDERING_SETTINGS),
    ]:
        digest.update(repr((name, value)).encode())
    base = Path(settings.BASE_DIR)
    files = [
        *_files(base / "awardsite", {".py"}),
        *(path for app in settings.PROJECT_APPS for path in _files(base / app, {".py"})),
        *_files(base / "templates", {".html", ".txt", ".xml"}),
        *(path for locale in settings.LOCALE_PATHS for path in _files(Path(locale), {".mo"})),
        *_files(base / "static", None),
    ]
    manifest = Path(settings.STATIC_ROOT) / "staticfiles.json"
    if manifest.is_file():
        files.append(manifest)
    for path in files:
        digest.update(str(path.relative_to(base) if path.is_relative_to(base) else path).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()
