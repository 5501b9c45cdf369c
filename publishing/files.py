"""The published site's files: :class:`Publisher` writes them into the output folder,
only when their bytes changed and each whole or not at all, and keeps the manifest of
what it wrote (so a later run removes what is no longer produced, and no other file)."""

import json
import os
import re
import tempfile
from pathlib import Path, PurePosixPath
from types import SimpleNamespace
from urllib.parse import unquote

from django.conf import settings
from django.template.loader import render_to_string
from django.utils import translation

# The manifest of what publish_site wrote, in the output folder: the files it may remove.
MANIFEST = ".publish-manifest.json"


class PublishError(Exception):
    """Publishing cannot go on (a page answered other than 200, an unwritable folder);
    the message names the URL or the path. The live site is left as it was."""


def page_key(route, kwargs, language):
    """A page's key in the manifest: the ``repr()`` of (namespace, route name, language,
    kwargs as sorted pairs); a string key of a JSON object reads back 12 times faster than
    a list of lists (11 MB at 5,000 papers: 0.05 s against 0.63 s)."""
    items = sorted(kwargs.items()) if isinstance(kwargs, dict) else enumerate(kwargs)
    return repr((route.namespace or "", route.name, language, tuple(items)))


class Publisher:
    """Writes the site into ``directory``: pages, language choices, the static files
    (collectstatic's output) and the media files pages name, each only when its bytes
    differ, through a temporary file renamed into place (``directory`` is a new version,
    publishing/versions.py, whose files are hard links to the live version's: a file is
    replaced, never written into, so the live one never changes). ``finish()`` removes
    what the last run's manifest lists and this run did not produce, and writes the
    manifest.
    ``counts``: files written, kept and removed (with ``dry_run``: would be). Raises
    PublishError when ``directory`` cannot be written or its manifest read.
    """

    def __init__(self, directory, dry_run=False):
        self.directory = Path(directory)
        self.root = str(self.directory)
        self.dry_run = dry_run
        self.counts = SimpleNamespace(written=0, kept=0, removed=0)
        self.produced = set()
        self.media = {}  # page's path -> the media files it names
        self.paths = {}  # page_key() -> the page's path, for the next run
        prefix = re.escape("/" + settings.MEDIA_URL.strip("/") + "/")
        self._media_pattern = re.compile(prefix + r"""([^"'\s,<>?#)]+)""")
        if not dry_run:
            try:
                self.directory.mkdir(parents=True, exist_ok=True)
                tempfile.TemporaryFile(dir=self.directory).close()
            except OSError as error:
                message = f"Cannot write to {self.directory}: {error.strerror}."
                raise PublishError(message) from error
        self.previous, self.previous_media, self.previous_paths = self._read_manifest()

    def _read_manifest(self):
        """(files, media files by page, page_key() -> path) of the last run; the media are
        None when the run that wrote it was interrupted (an earlier release, which wrote
        into the live folder, left such a manifest after an error): its pages cannot be
        kept."""
        path = self.directory / MANIFEST
        if not path.is_file():
            return set(), None, {}
        try:
            content = json.loads(path.read_text(encoding="utf-8"))
            media = content.get("media")
            if media is not None:
                media = {page: set(names) for page, names in media.items()}
            pages = content.get("pages")
            return set(content["files"]), media, pages if isinstance(pages, dict) else {}
        except (ValueError, KeyError, TypeError, AttributeError) as error:
            raise PublishError(f"{path} is not a manifest publish_site wrote.") from error

    def can_keep(self):
        """Whether the last run's pages may be kept without rendering them."""
        return self.previous_media is not None

    def has(self, relative, normalised=False):
        """Whether the last run wrote ``relative`` and it is still there (``normalised``:
        a path as the manifest has it; normalising it was most of the time of a kept page)."""
        relative = relative if normalised else str(PurePosixPath(relative))
        return relative in self.previous and os.path.isfile(os.path.join(self.root, relative))

    def keep_page(self, page, target):
        """Keep ``page`` ((route, kwargs, language)) as the last run wrote it; False when
        there is no such file. Its path is the manifest's, else ``target(*page)``'s
        (reversing 72,000 kept pages' URLs took seconds a run)."""
        key = page_key(*page)
        relative = self.previous_paths.get(key) or str(PurePosixPath(target(*page)[1]))
        if not self.keep(relative, normalised=True):
            return False
        self.paths[key] = relative
        return True

    def keep(self, relative, normalised=False):
        """Keep the file the last run wrote at ``relative`` with the media files it named;
        False when there is no such file. ``normalised``: as for :meth:`has`."""
        relative = relative if normalised else str(PurePosixPath(relative))
        if not self.has(relative, normalised=True):
            return False
        self.produced.add(relative)
        if names := (self.previous_media or {}).get(relative):
            self.media[relative] = names
        self.counts.kept += 1
        return True

    def write(self, relative, body, page=None):
        """Write ``body`` (bytes) at ``relative`` unless the file holds those bytes;
        ``page``: the (route, kwargs, language) of the page it is, whose media it notes."""
        media = None if page is None else self.media_of(body)
        self.record(relative, self.store(relative, body), media, page=page)

    def store(self, relative, body):
        """Write ``body`` at ``relative`` (a POSIX path inside the directory) unless the
        file holds those bytes; True when it was (``dry_run``: would be) written. Only the
        file: ``record()`` counts it, in the parent process when a worker stored it."""
        relative = str(PurePosixPath(relative))
        if relative.startswith(("/", "..")) or "/../" in relative:
            raise PublishError(f"Refusing to write outside the output folder: {relative}")
        target = self.directory / relative
        try:
            if target.is_file() and target.stat().st_size == len(body):
                if target.read_bytes() == body:
                    return False
            if not self.dry_run:
                _replace(target, body)
        except OSError as error:
            raise PublishError(f"Cannot write {target}: {error.strerror}.") from error
        return True

    def record(self, relative, written, media=None, page=None):
        """Count the file at ``relative`` as produced, ``written`` or kept; ``media``:
        the media files it names (a page's); ``page``: its (route, kwargs, language)."""
        relative = str(PurePosixPath(relative))
        self.produced.add(relative)
        if page is not None:
            self.paths[page_key(*page)] = relative
        if written:
            self.counts.written += 1
        else:
            self.counts.kept += 1
        if media is not None:
            self.media[relative] = set(media)

    def media_of(self, body):
        """The media files a page's ``body`` (bytes) names under MEDIA_URL: only those are
        copied, so a draft's image never reaches the published site."""
        if b"/" + settings.MEDIA_URL.strip("/").encode() + b"/" not in body:
            return set()
        return set(self._media_pattern.findall(body.decode("utf-8", "replace")))

    def copy_tree(self, source, prefix, only=None):
        """Copy the files under ``source`` (``only`` those relative paths, if given) to
        ``prefix`` ("static"); a copy the last run wrote is kept when it has the source's
        size and is not older (rsync's quick check)."""
        source = Path(source)
        if not source.is_dir():
            return
        if only is None:
            only = [str(path.relative_to(source)) for path in source.rglob("*") if path.is_file()]
        for relative in sorted(only):
            path, copy = source / relative, f"{prefix}/{relative}"
            if not (path.is_file() and path.resolve().is_relative_to(source.resolve())):
                continue
            if self.has(copy):
                copied, original = (self.directory / copy).stat(), path.stat()
                same_size = copied.st_size == original.st_size
                if same_size and copied.st_mtime_ns >= original.st_mtime_ns:
                    self.keep(copy)
                    continue
            self.write(copy, path.read_bytes())

    def copy_static(self):
        """collectstatic's output (hashed names, as the live site serves them)."""
        self.copy_tree(settings.STATIC_ROOT, settings.STATIC_URL.strip("/"))

    def copy_media(self):
        """The media files the published pages name (images, thumbnails, share cards)."""
        names = {unquote(name) for names in self.media.values() for name in names}
        self.copy_tree(settings.MEDIA_ROOT, settings.MEDIA_URL.strip("/"), only=names)

    def language_choice(self, path="/"):
        """Write the page at ``path`` without a language prefix (``/``, each page's
        ``x-default``), linking the page in each language: the live site redirects there
        by Accept-Language, which a static host cannot."""
        links = [
            {
                "code": code,
                "name_local": translation.get_language_info(code)["name_local"],
                "url": f"/{code}{path}",
            }
            for code, _name in settings.LANGUAGES
        ]
        context = {"languages": links, "site_url": settings.SITE_URL, "path": path}
        self.write(
            f"{path.lstrip('/')}index.html", render_to_string("publish_root.html", context).encode()
        )

    def language_choices(self, keep=False):
        """``language_choice()`` for ``/`` and every page of the first language; with
        ``keep``, those the last run wrote are kept (their bytes depend only on their path,
        the template and the settings, which the fingerprint covers)."""
        prefix = f"{settings.LANGUAGES[0][0]}/"
        pages = {
            name[len(prefix) : -len("index.html")]
            for name in self.produced
            if name.startswith(prefix) and name.endswith("/index.html")
        }
        for page in sorted(pages | {""}):
            if not (keep and self.keep(f"{page}index.html")):
                self.language_choice(f"/{page}")

    def finish(self):
        """Remove what an earlier run wrote and this one did not; write the manifest,
        unless it says what the last one says (writing its 11 MB took a second)."""
        for relative in sorted(self.previous - self.produced):
            target = self.directory / relative
            if target.is_file():
                self.counts.removed += 1
                if not self.dry_run:
                    target.unlink()
                    self._remove_empty_parents(target.parent)
        media = {page: names for page, names in self.media.items() if names}
        unchanged = (self.produced, self.paths, media) == (
            self.previous,
            self.previous_paths,
            self.previous_media,
        )
        if not (unchanged and (self.directory / MANIFEST).is_file()):
            self._write_manifest(self.produced, media)

    def _write_manifest(self, files, media):
        if self.dry_run:
            return
        content = {"files": sorted(files)}
        content["media"] = {page: sorted(names) for page, names in sorted(media.items())}
        # By path, so that it does not depend on which worker finished first.
        content["pages"] = dict(sorted(self.paths.items(), key=lambda item: item[1]))
        try:
            _replace(self.directory / MANIFEST, json.dumps(content).encode())
        except OSError as error:
            raise PublishError(f"Cannot write the manifest: {error.strerror}.") from error

    def _remove_empty_parents(self, folder):
        root = self.directory.resolve()
        folder = folder.resolve()
        while folder != root and folder.is_relative_to(root):
            try:
                folder.rmdir()
            except OSError:
                return
            folder = folder.parent


def _replace(target, body):
    """Write ``body`` at ``target`` through a temporary file in the same folder, renamed
    into place: the file is either the old one or the whole new one, and a hard link to
    the old one (the live version's) is left as it was."""
    target.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=target.parent, prefix=".publish-")
    try:
        with os.fdopen(handle, "wb") as file:
            file.write(body)
        os.chmod(temporary, 0o644)  # mkstemp makes it private; published files are public
        os.replace(temporary, target)
    except BaseException:
        os.unlink(temporary)
        raise
