"""``manage.py publish_site DIR``: the public site as files for a plain static host.

Why: a static copy is served by any web server, object store or CDN at full speed, and
outlives the servers that made it. Editors keep working in the admin; this command
writes what visitors see (publishing/site.py says what and how).
"""

import contextlib
import sys
import time
from pathlib import Path

from django.conf import settings
from django.contrib.staticfiles.storage import staticfiles_storage
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError
from django.test.utils import override_settings
from tqdm import tqdm

from publishing import changes as publish_changes
from publishing import render as publish_render
from publishing import search_index as static_search
from publishing import site as publishing
from publishing.files import Publisher, PublishError
from publishing.versions import Versions


def static_manifest_missing():
    """Whether the static storage's manifest (hashed names) is missing from STATIC_ROOT:
    collectstatic has not run, and every ``{% static %}`` fails."""
    name = getattr(staticfiles_storage, "manifest_name", None)
    return name is not None and not staticfiles_storage.exists(name)


class Command(BaseCommand):
    help = (
        "Write every public page in both languages, the feeds, the sitemap, robots.txt, "
        "the citation downloads, the open-data files, the static and media files into DIR, "
        "at the paths a static host serves for the live URLs. Each run builds a new "
        "version in DIR.versions/ (files it keeps are hard links to the last version's) "
        "and then makes DIR a link to it in one step; the version before is kept for "
        "rollback. Files an earlier run wrote that are no longer produced are left out "
        "(DIR/.publish-manifest.json lists them); other files in DIR are carried over."
    )

    def add_arguments(self, parser):
        parser.add_argument("directory", metavar="DIR", help="The output folder (made if missing).")
        parser.add_argument(
            "--site-url",
            default=None,
            help="The public address, e.g. https://awards.example.org (default: DJANGO_SITE_URL).",
        )
        parser.add_argument(
            "--dry-run",
            action="store_true",
            help="Render every page, say what would be written, kept and removed; write nothing.",
        )
        parser.add_argument(
            "--no-collectstatic",
            action="store_true",
            help="Copy STATIC_ROOT as it is instead of running collectstatic first.",
        )
        parser.add_argument(
            "--jobs",
            type=int,
            default=publish_render.default_jobs(),
            help="Worker processes rendering pages (default: the processors this process "
            "may use; 1: render in this process, as it does inside a transaction).",
        )

    def handle(
        self, *args, directory, site_url, dry_run, no_collectstatic, jobs, verbosity, **options
    ):
        """Publishes into ``directory``; prints the files written, kept and removed.
        Raises CommandError when no public address is known, DIR cannot be written,
        ``jobs`` is below 1, STATIC_ROOT has no collectstatic manifest with
        --no-collectstatic, a page answers other than 200 (naming its URL), or a file
        cannot be written (a full disk): in one line, DIR left as it was, as after
        Ctrl-C or a kill.
        """
        self.verbosity = verbosity
        if jobs < 1:
            raise CommandError(f"--jobs must be 1 or more, not {jobs}.")
        can_fork, why_not = publish_render.can_fork()
        if jobs > 1 and not can_fork:
            jobs = 1
            if verbosity >= 1:
                self.stderr.write(f"Rendering in this process, not in workers: {why_not}.")
        site_url = (site_url or settings.SITE_URL).strip().rstrip("/")
        if not site_url.startswith(("http://", "https://")):
            raise CommandError(
                "The published site needs its public address for its sitemap, feeds and "
                "canonical links: set DJANGO_SITE_URL or pass --site-url https://..."
            )
        started = time.monotonic()
        self.steps = {}
        state = Path(directory) / publish_changes.SNAPSHOT
        previous = publish_changes.read(state)
        current = publish_changes.fingerprint()
        # A dry run collects only when the pages could not name the static files else;
        # collecting what the last run collected would give the same files (3 s a run).
        if no_collectstatic and static_manifest_missing():
            raise CommandError(
                "STATIC_ROOT has no collectstatic manifest, so the pages cannot name the "
                "static files: run collectstatic, or publish without --no-collectstatic."
            )
        if dry_run:
            collect = not no_collectstatic and static_manifest_missing()
        else:
            collect = not no_collectstatic and not publish_changes.collected_already(
                previous, current
            )
        if collect:
            with self.step("collectstatic"):
                try:
                    call_command("collectstatic", interactive=False, verbosity=0)
                except OSError as error:
                    raise CommandError(f"collectstatic failed: {error}.") from error
            current = publish_changes.fingerprint()  # collectstatic's manifest may differ
        # Pages rendered afresh (not from the page cache) for the public address: Django
        # has no documented way to change settings for a while but its tests' own.
        with override_settings(
            PAGE_CACHE_ENABLED=False,
            SITE_URL=site_url,
            ALLOWED_HOSTS=[site_url.partition("://")[2].partition("/")[0].partition(":")[0]],
        ):
            if dry_run:
                try:
                    publisher = Publisher(directory, dry_run=True)
                    _content, pages, rendered = self.publish(
                        publisher, previous, current, site_url, jobs
                    )
                except PublishError as error:
                    raise CommandError(str(error)) from error
            else:
                pages, rendered, publisher = self.publish_version(
                    directory, previous, current, site_url, jobs, not no_collectstatic
                )
        if verbosity >= 2:
            steps = ", ".join(f"{name} {seconds:.1f} s" for name, seconds in self.steps.items())
            self.stdout.write(f"Time by step: {steps}.")
        counts = publisher.counts
        self.stdout.write(
            self.style.SUCCESS(
                f"{'Would publish' if dry_run else 'Published'} {len(pages)} pages "
                f"({rendered} rendered) to {directory} in {time.monotonic() - started:.1f} s: "
                f"{counts.written} files written, {counts.kept} kept, {counts.removed} removed."
            )
        )

    def publish_version(self, directory, previous, current, site_url, jobs, collected):
        """Publish a new version of ``directory`` beside it and switch to it in one step
        (publishing/versions.py); returns (the pages, how many were rendered, the
        publisher). Raises CommandError in one line for a page that fails, a full disk
        or any file that cannot be written; then, as after Ctrl-C or a kill, ``directory``
        is the previous version, whole."""
        versions = Versions(directory)
        build, removing = None, versions.remove_old()
        try:
            with self.step("linking the last version"):
                build = versions.begin()
            publisher = Publisher(build)
            content, pages, rendered = self.publish(publisher, previous, current, site_url, jobs)
            content["collected"] = collected
            with self.step("switching"):
                publish_changes.write(content, build / publish_changes.SNAPSHOT)
                versions.switch(build)
        except BaseException as error:
            if build is not None:
                versions.discard(build)
            if isinstance(error, PublishError):
                raise CommandError(f"{error} {directory} is left as it was.") from error
            if isinstance(error, OSError):
                where = f" ({error.filename})" if error.filename else ""
                raise CommandError(
                    f"Cannot publish: {error.strerror or error}{where}. "
                    f"{directory} is left as it was."
                ) from error
            raise
        finally:
            if removing is not None:
                removing.wait()
        return pages, rendered, publisher

    def publish(self, publisher, previous, current, site_url, jobs):
        """Render what changed since the snapshot ``previous`` and keep the rest; returns
        (the new snapshot, the pages, how many were rendered). Raises PublishError when a
        page, a file or the search cannot be made."""
        site = publishing.Site(site_url)
        search = None
        try:
            # Taken before rendering: an edit saved during the run is seen by the next.
            with self.step("snapshot"):
                content = publish_changes.snapshot(current)
                changes = publish_changes.affected(previous, content)
            if not publisher.can_keep():
                changes = publish_changes.Affected(everything=True)
            site.reuse_conference_archives(publisher, changes)
            with self.step("listing pages"):
                pages = list(publishing.pages())
            bar = tqdm(
                total=len(pages),
                desc="Publishing",
                unit="page",
                file=sys.stderr,
                disable=True if self.verbosity < 1 else None,  # None: only on a terminal
            )
            rendering = publish_render.Rendering(site, publisher, pages, jobs, bar.update)
            with bar, rendering:
                # The workers render what changed while node builds the search and this
                # process keeps the other pages (rendering those it cannot keep).
                with self.step("pages"):
                    covered = [changes.covers(route.name, kwargs) for route, kwargs, _ in pages]
                    rendering.add(i for i, cover in enumerate(covered) if cover)
                with self.step("search"):
                    search = self.start_search(site, publisher, changes)
                with self.step("pages"):
                    todo = []
                    for i, page in enumerate(pages):
                        if not covered[i]:
                            if publisher.keep_page(page, site.target):
                                bar.update()
                            else:
                                todo.append(i)
                    rendering.add(todo)
                    rendered = rendering.finish()
            with self.step("search"):
                if search is None:
                    for relative in static_search.search_paths():
                        publisher.keep(relative)
                else:
                    for relative, data in search().items():
                        publisher.write(relative, data)
                    search = None
            with self.step("404 pages"):
                for relative, body in publishing.not_found_pages(site).items():
                    publisher.write(relative, body)
            with self.step("language choices"):
                publisher.language_choices(keep=not changes.everything)
            with self.step("static and media files"):
                publisher.copy_static()
                publisher.copy_media()
            with self.step("removing and manifest"):
                publisher.finish()
        except static_search.SearchIndexError as error:
            raise PublishError(str(error)) from error
        finally:
            if search is not None:
                search.cancel()
        return content, pages, rendered

    @contextlib.contextmanager
    def step(self, name):
        """Times what runs within as step ``name`` (seconds, printed with --verbosity 2)."""
        began = time.monotonic()
        try:
            yield
        finally:
            self.steps[name] = self.steps.get(name, 0) + time.monotonic() - began

    def start_search(self, site, publisher, changes):
        """The site's search (publishing/search_index.py) begun when the content changed or
        one of its files is missing, else None: its files are kept. Raises
        SearchIndexError when node is missing."""
        paths = static_search.search_paths()
        if not (changes.everything or changes.site) and all(map(publisher.has, paths)):
            return None
        if changes.everything:
            return static_search.start_search_files(site)
        return static_search.start_search_files(site, publisher.directory, changes.papers)
