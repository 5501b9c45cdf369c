"""The published site's files: :class:`Publisher` writes them into the output folder,
only when their bytes changed and each whole or not at all, keeps the manifest of what
it wrote (so that a later run removes what is no longer produced, and no other file),
copies the static and media files, and writes the language choice of each page."""

import json
import os
import re
import tempfile
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from urllib.parse import unquote

from django.conf import settings
from django.template.loader import render_to_string
from django.utils import translation
from django.utils.html import escape

# The manifest of what publish_site wrote, in the output folder: the files it may remove.
MANIFEST = ".publish-manifest.json"


class PublishError(Exception):
    """Publishing cannot go on (a page answered other than 200, an unwritable folder);
    the message names the URL or the path. Nothing is left half-written."""


def render_language_choice(path):
    """The language choice page at ``path`` (``/``, or a page's path without its
    language prefix) as text: templates/publish_root.html, linking the page in each
    language of ``settings.LANGUAGES`` with hreflang (see ``Publisher.language_choice``)."""
    links = []
    for code, _name in settings.LANGUAGES:
        links.append(
            {
                "code": code,
                "name_local": translation.get_language_info(code)["name_local"],
                "url": f"/{code}{path}",
            }
        )
    context = {"languages": links, "site_url": settings.SITE_URL, "path": path}
    return render_to_string("publish_root.html", context)


# A path no page has, which HTML escaping leaves as it is: rendered in its place, it
# marks where each choice's own path goes (Publisher.language_choice_body).
CHOICE_MARKER = "/publish-language-choice-path-marker/"


@dataclass
class Counts:
    written: int = 0
    kept: int = 0
    removed: int = 0


def page_key(route, kwargs, language):
    """A page's key in the manifest, a string: the ``repr()`` of (namespace, route name,
    language, kwargs as sorted (name, value) pairs), which tells any two pages apart.
    A string rather than the tuple itself: the manifest maps each key to its page's
    path as a JSON object, which ``json.loads`` reads in a twelfth of the time of the
    list of lists it replaced (11 MB at 5,000 papers: 0.05 s against 0.63 s), with no
    tuples to rebuild after."""
    items = sorted(kwargs.items()) if isinstance(kwargs, dict) else enumerate(kwargs)
    return repr((route.namespace or "", route.name, language, tuple(items)))


# Files the pages name under MEDIA_URL (src, srcset, href, og:image): only those are
# copied, so a draft's teaser or share card never reaches the published site.
def _media_pattern():
    prefix = re.escape("/" + settings.MEDIA_URL.strip("/") + "/")
    return re.compile(prefix + r"""([^"'\s,<>?#)]+)""")


class Publisher:
    """Writes the site into ``directory``: pages, the language choice at ``/``, static
    files (collectstatic's output in ``STATIC_ROOT``) and the media files pages name.

    ``write()`` writes a file only when its bytes differ from what is there, through a
    temporary file renamed into place (a reader never sees half a file). ``finish()``
    removes files the previous run's manifest lists that this run did not produce, and
    writes the new manifest. ``counts`` holds what was written, kept and removed (with
    ``dry_run``: would be; nothing is written or removed).

    With ``choices_as_recorded`` set, the language choice of each page of the first
    language (``language_choices()``) is written as soon as the page is recorded: in a
    parallel publish, by this process while the workers render, instead of after them
    (from scratch at 5,000 papers, 36,000 files, mostly the file system's time: 11 s
    of the run's 158; issue 12). ``language_choices()`` then writes only the rest.
    """

    def __init__(self, directory, dry_run=False):
        self.directory = Path(directory)
        self.dry_run = dry_run
        self.counts = Counts()
        self.produced = set()
        self.media = {}  # page's path -> the media files it names
        self.paths = {}  # page_key() -> the page's path, for the next run
        self._media_pattern = _media_pattern()
        self.choices = set()  # the language choices written this run
        self.choices_as_recorded = False
        self._choice_parts = None  # see language_choice_body()
        self._choice_prefix = f"{settings.LANGUAGES[0][0]}/"
        if dry_run:
            self.previous = self._read_manifest()
            return
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            probe = tempfile.NamedTemporaryFile(dir=self.directory, delete=True)  # noqa: SIM115
            probe.close()
        except OSError as error:
            raise PublishError(f"Cannot write to {self.directory}: {error.strerror}.") from error
        self.previous = self._read_manifest()

    def _read_manifest(self):
        """The files the last run wrote; sets ``previous_media`` to the media files each
        of its pages named (None when the manifest has none: its pages cannot be kept)."""
        path = self.directory / MANIFEST
        self.previous_media = None
        self.previous_paths = {}
        self._root = str(self.directory)
        if not path.is_file():
            return set()
        try:
            content = json.loads(path.read_text(encoding="utf-8"))
            files = set(content["files"])
            media = content.get("media")
            if media is not None:
                self.previous_media = {page: set(names) for page, names in media.items()}
                # {page_key(): path}; another shape (an older manifest's list) is left
                # unread: each kept page's path is then found by reversing its URL.
                pages = content.get("pages")
                self.previous_paths = pages if isinstance(pages, dict) else {}
            return files
        except (ValueError, KeyError, TypeError, AttributeError) as error:
            raise PublishError(f"{path} is not a manifest publish_site wrote.") from error

    def can_keep(self):
        """Whether the last run's pages may be kept without rendering them (its manifest
        says which media files each page names)."""
        return self.previous_media is not None

    def has(self, relative):
        """Whether the last run wrote ``relative`` and it is still there."""
        relative = str(PurePosixPath(relative))
        return relative in self.previous and os.path.isfile(os.path.join(self._root, relative))

    def keep_page(self, page, target):
        """Keep the page ``page`` ((route, kwargs, language), as ``pages()`` gives it) as
        the last run wrote it, when it did and the file is still there; False (nothing
        done) otherwise. Its path comes from the last run's manifest, else from
        ``target()`` (``Site.target``): at 72,000 pages, reversing the URL of each kept
        page took seconds on every run."""
        key = page_key(*page)
        relative = self.previous_paths.get(key)
        if relative is None:
            _uri, relative = target(*page)
            relative = str(PurePosixPath(relative))
        if not self._keep(relative):
            return False
        self.paths[key] = relative
        return True

    def keep(self, relative):
        """Keep the page the last run wrote at ``relative`` as it is, with the media files
        it named; False (nothing done) when there is no such file to keep."""
        return self._keep(str(PurePosixPath(relative)))

    def _keep(self, relative):
        """``keep()`` of a path in its POSIX normal form, as the manifest lists them: a
        kept page is one of 72,000 after one edit, and normalising its path again, with
        an empty set of media files for most, was most of the time of keeping it."""
        if relative not in self.previous or not os.path.isfile(os.path.join(self._root, relative)):
            return False
        self.produced.add(relative)
        names = self.previous_media.get(relative)
        if names:
            self.media[relative] = names
        self.counts.kept += 1
        return True

    def write(self, relative, body):
        """Write ``body`` (bytes) at ``relative`` (a POSIX path inside the directory)
        unless the file already holds exactly those bytes."""
        self.record(relative, self.store(relative, body))

    def store(self, relative, body):
        """Write ``body`` at ``relative`` unless the file already holds exactly those
        bytes (with ``dry_run``: write nothing); True when it was (would be) written.
        Only the file: ``record()`` counts it. A worker process of a parallel publish
        (publishing/render.py) stores pages, and the parent records them."""
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
        """Count the file ``store()`` wrote (``written``) or found unchanged at
        ``relative`` as produced by this run; ``media``: the media files it names
        (a page's, see ``media_of()``; None for a file that is not a page); ``page``:
        the page's (route, kwargs, language), so that the next run finds its path in
        the manifest without reversing its URL."""
        relative = str(PurePosixPath(relative))
        self.produced.add(relative)
        if page is not None:
            self.paths[page_key(*page)] = relative
        if self.choices_as_recorded:
            self._choice_as_recorded(relative)
        if written:
            self.counts.written += 1
        else:
            self.counts.kept += 1
        if media is not None:
            self.media[relative] = set(media)

    def media_of(self, body):
        """The names of the media files a page's ``body`` (bytes) names under MEDIA_URL."""
        if b"/" + settings.MEDIA_URL.strip("/").encode() + b"/" not in body:
            return set()
        return set(self._media_pattern.findall(body.decode("utf-8", "replace")))

    def page(self, uri, relative, body, page=None):
        """Write a rendered page and note the media files it names; ``page``: its
        (route, kwargs, language), so that the next run finds its path in the manifest."""
        self.record(relative, self.store(relative, body), self.media_of(body), page=page)

    def copy_tree(self, source, prefix, only=None):
        """Copy the files under ``source`` to ``prefix`` (e.g. "static"); ``only``: the
        relative paths to copy (default every file)."""
        source = Path(source)
        if not source.is_dir():
            return
        if only is None:
            only = sorted(
                str(path.relative_to(source)) for path in source.rglob("*") if path.is_file()
            )
        for relative in sorted(only):
            path = source / relative
            if path.is_file() and path.resolve().is_relative_to(source.resolve()):
                if not self._unchanged_copy(path, f"{prefix}/{relative}"):
                    self.write(f"{prefix}/{relative}", path.read_bytes())

    def _unchanged_copy(self, source, relative):
        """Keep the copy of ``source`` the last run wrote at ``relative`` when it has the
        same size and is not older than the source (rsync's quick check: every static
        file read and compared took a second per run); False when it must be compared."""
        if not self.has(relative):
            return False
        copied = os.stat(os.path.join(self._root, relative))
        original = source.stat()
        if copied.st_size != original.st_size or copied.st_mtime_ns < original.st_mtime_ns:
            return False
        self.produced.add(relative)
        self.counts.kept += 1
        return True

    def copy_static(self):
        """collectstatic's output (hashed names, as the live site serves them)."""
        self.copy_tree(settings.STATIC_ROOT, settings.STATIC_URL.strip("/"))

    def copy_media(self):
        """The media files the published pages name (images, thumbnails, share cards)."""
        names = {unquote(name) for names in self.media.values() for name in names}
        self.copy_tree(settings.MEDIA_ROOT, settings.MEDIA_URL.strip("/"), only=names)

    def language_choice(self, path="/"):
        """The page at ``path`` without a language prefix (``/``, and each page's
        ``x-default`` alternate): a small page linking the page in each language, with
        hreflang. The live site redirects there by Accept-Language; a static host
        cannot, unless told to (README: "Publishing to a static host")."""
        relative = f"{path.lstrip('/')}index.html"
        self.choices.add(relative)
        self.write(relative, self.language_choice_body(path))

    def language_choice_body(self, path):
        """The bytes of the language choice at ``path`` (templates/publish_root.html).

        The template is rendered once per run, for a marker path, and each choice is
        that text with the marker replaced by ``path``, HTML-escaped as the template
        escapes it: the path is the only thing that differs from one choice to another,
        and the template only prints it (a render took 0.35 ms, 3 µs this way: 12 s
        of the parent's CPU at the 5,000-paper data set's 36,000 pages; issue 12).
        tests/publishing/test_publish.py compares the two ways for awkward paths."""
        if self._choice_parts is None:
            self._choice_parts = render_language_choice(CHOICE_MARKER).split(CHOICE_MARKER)
        return escape(path).join(self._choice_parts).encode()

    def language_choices(self, keep=False):
        """``language_choice()`` for ``/`` and every page of the first language that has
        none yet (see ``choices_as_recorded``). With
        ``keep``, the choices the last run wrote are kept without rendering them: their
        bytes depend only on their path, the template and the settings, which
        ``publish_changes.fingerprint()`` covers (36,000 renders took 10 s a run)."""
        pages = [self._choice_path(name) for name in self.produced]
        for page in ["", *sorted(page for page in pages if page)]:
            relative = f"{page}index.html"
            if relative in self.choices:
                continue
            if keep and self.has(relative):
                self.produced.add(relative)
                self.counts.kept += 1
            else:
                self.language_choice(f"/{page}")

    def _choice_as_recorded(self, relative):
        """With ``choices_as_recorded``: write the language choice of the page just
        recorded at ``relative``, if it is a page of the first language."""
        page = self._choice_path(relative)
        if page is not None:
            self.language_choice(f"/{page}")

    def _choice_path(self, relative):
        """The path (without the leading slash) of the language choice for the file
        ``relative``: a page of the first language (``en/x/index.html`` -> ``x/``), else
        None."""
        prefix = self._choice_prefix
        if relative.startswith(prefix) and relative.endswith("/index.html"):
            return relative[len(prefix) : -len("index.html")] or None
        return None

    def finish(self):
        """Remove what an earlier run wrote and this one did not; write the manifest,
        unless it would say what the last one says (the same files, pages' paths and
        media files: after an edit that adds or removes no page, writing its 11 MB at
        5,000 papers took a second)."""
        for relative in sorted(self.previous - self.produced):
            target = self.directory / relative
            if target.is_file():
                self.counts.removed += 1
                if not self.dry_run:
                    target.unlink()
                    self._remove_empty_parents(target.parent)
        if (
            self.previous_media is not None
            and self.produced == self.previous
            and self.paths == self.previous_paths
            and {page: names for page, names in self.media.items() if names} == self.previous_media
            and (self.directory / MANIFEST).is_file()
        ):
            return
        self._write_manifest(self.produced)

    def interrupted(self):
        """After an error: the manifest names what this run wrote too, besides what the
        last one did, so a later run still removes those files when they are gone."""
        self._write_manifest(self.previous | self.produced, media=None)

    def _write_manifest(self, files, media=True):
        """Write the manifest: ``files``, and with ``media`` the media files each page
        named (left out after an interrupted run, so the next one renders every page)."""
        if self.dry_run:
            return
        content = {"files": sorted(files)}
        if media:
            # Only the pages that name media files: a page left out names none (most
            # pages; listing them all made the manifest twice as long to write and read).
            content["media"] = {
                page: sorted(names) for page, names in sorted(self.media.items()) if names
            }
            # page_key() -> path, by path, so that the manifest does not depend on
            # which worker process finished first.
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
    into place: the file is either the old one or the whole new one."""
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
