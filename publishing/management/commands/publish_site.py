"""``manage.py publish_site DIR``: the public site as files for a plain static host.

Why: a static copy is served by any web server, object store or CDN at full speed, and
outlives the servers that made it (issue 12). Editors keep working in the admin; this
command writes what visitors see. The rules of what is published and how files are
written live in publishing/site.py.
"""

import contextlib
import time
from pathlib import Path

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError
from django.test.utils import override_settings
from tqdm import tqdm

from publishing import affected as publish_affected
from publishing import changes as publish_changes
from publishing import files as publish_files
from publishing import render as publish_render
from publishing import search_index as static_search
from publishing import site as publishing


class Command(BaseCommand):
    help = (
        "Write every public page in both languages, the feeds, the sitemap, robots.txt, "
        "the citation downloads, the open-data files, the static and media files into DIR, "
        "at the paths a static host serves for the live URLs. Only files whose bytes "
        "changed are written; files an earlier run wrote that are no longer produced are "
        "removed (DIR/.publish-manifest.json lists them); no other file is touched."
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

        ``jobs`` worker processes render the pages (publishing/render.py); inside a
        database transaction, whose data they could not see, this process does, and
        says so. Raises CommandError when no public address is known (sitemaps, feeds
        and canonical links need one), when DIR cannot be written, when ``jobs`` is
        below 1, or when a page answers other than 200 (naming its URL); files already
        written then stay complete and listed in the manifest, as after Ctrl-C.
        """
        if jobs < 1:
            raise CommandError(f"--jobs must be 1 or more, not {jobs}.")
        if jobs > 1:
            can_fork, why_not = publish_render.can_fork()
            if not can_fork:
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
        collect = not (no_collectstatic or dry_run)
        current = publish_changes.fingerprint()
        if collect and publish_changes.collected_already(previous, current):
            # What collectstatic reads (static/, the packages) and writes (its manifest)
            # is as the last run left it: collecting again, which compresses every file
            # again, would give the same files (about 3 s a run).
            collect = False
        if collect:
            with self.step("collectstatic"):
                call_command("collectstatic", interactive=False, verbosity=0)
            current = publish_changes.fingerprint()  # collectstatic's manifest may differ
        # Pages rendered afresh (not from the page cache), for the public address.
        with override_settings(
            PAGE_CACHE_ENABLED=False,
            SITE_URL=site_url,
            ALLOWED_HOSTS=[site_url.partition("://")[2].partition("/")[0].partition(":")[0]],
        ):
            try:
                publisher = publish_files.Publisher(directory, dry_run=dry_run)
            except publish_files.PublishError as error:
                raise CommandError(str(error)) from error
            site = publishing.Site(site_url)
            search = None  # the search's files being built (start_search)
            try:
                # Taken before rendering: an edit saved during the run is seen by the next.
                with self.step("snapshot"):
                    content = publish_changes.snapshot(current)
                    content["collected"] = not no_collectstatic
                    changes = publish_affected.affected(previous, content)
                if not publisher.can_keep():
                    changes = publish_affected.Affected(everything=True)
                site.reuse_conference_archives(publisher, changes)
                # From scratch, each page's language choice is written as the page is
                # recorded, while the workers render (after an edit they are kept).
                publisher.choices_as_recorded = changes.everything
                with self.step("listing pages"):
                    pages = list(publishing.pages())
                bar = tqdm(
                    total=len(pages),
                    desc="Publishing",
                    unit="page",
                    file=self.stderr._out,
                    disable=True if verbosity < 1 else None,  # None: only on a terminal
                )
                with (
                    bar,
                    publish_render.Rendering(
                        site, publisher, pages, jobs=jobs, progress=bar.update
                    ) as rendering,
                ):
                    with self.step("pages"):
                        # The pages the changes name go to the workers first; this
                        # process meanwhile starts the search and keeps the others,
                        # rendering those it cannot keep too. A route's ``after`` pages
                        # (the site's compact archive, made from the files just
                        # written) are rendered last, here, where all are recorded.
                        covered = [changes.covers(route.name, kwargs) for route, kwargs, _ in pages]
                        rendering.add(i for i, cover in enumerate(covered) if cover)
                    with self.step("search"):
                        # node builds the index while the pages are rendered.
                        search = self.start_search(publisher, changes)
                    with self.step("pages"):
                        todo = []
                        for i, page in enumerate(pages):
                            if covered[i]:
                                continue
                            if publisher.keep_page(page, site.target):
                                bar.update()
                            else:
                                todo.append(i)
                        rendering.add(todo)
                        rendered = rendering.finish()
                with self.step("search"):
                    self.publish_search(publisher, search)
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
            except (publish_files.PublishError, static_search.SearchIndexError) as error:
                publisher.interrupted()
                raise CommandError(str(error)) from error
            except KeyboardInterrupt:
                publisher.interrupted()
                raise
            finally:
                if search is not None:
                    search.cancel()
            if not dry_run:
                publish_changes.write(content, state)
        if verbosity >= 2:
            steps = ", ".join(f"{name} {seconds:.1f} s" for name, seconds in self.steps.items())
            self.stdout.write(f"Time by step: {steps}.")
        counts = publisher.counts
        done = "Would publish" if dry_run else "Published"
        self.stdout.write(
            self.style.SUCCESS(
                f"{done} {len(pages)} pages ({rendered} rendered) to {directory} in "
                f"{time.monotonic() - started:.1f} s: {counts.written} files written, "
                f"{counts.kept} kept, {counts.removed} removed."
            )
        )

    @contextlib.contextmanager
    def step(self, name):
        """Times what runs within as step ``name`` (wall-clock seconds, printed with
        --verbosity 2: where a publish spends its time)."""
        began = time.monotonic()
        try:
            yield
        finally:
            self.steps[name] = self.steps.get(name, 0) + time.monotonic() - began

    def start_search(self, publisher, changes):
        """The published site's search (publishing/search_index.py: its page, index and
        results in each language) begun when the content changed or a file of it is
        missing (``static_search.start_search_files``: node builds the index meanwhile),
        else None: ``publish_search()`` keeps the files. Raises SearchIndexError when
        node is missing."""
        paths = static_search.search_paths()
        if not (changes.everything or changes.site) and all(map(publisher.has, paths)):
            return None
        if changes.everything:
            return static_search.start_search_files()
        return static_search.start_search_files(publisher.directory, changes.papers)

    def publish_search(self, publisher, search):
        """Write the search's files once ``search`` (``start_search()``'s) is built, or
        keep the last run's when it is None. Raises SearchIndexError when node fails."""
        if search is None:
            for relative in static_search.search_paths():
                publisher.keep(relative)
            return
        for relative, data in search().items():
            publisher.write(relative, data)
