"""``publish_site``'s render loop, in this process or in worker processes (one process
renders the 5,000-paper data set's ~72,000 pages in about 10 minutes of CPU).

With ``jobs`` > 1, ``jobs`` workers are forked once Django is set up, sharing its
settings, URLconf, ``Site`` and ``Publisher``, each opening its own database connection.
A worker renders a chunk of pages and writes their files (``Publisher.store()``); the
parent records them (``Publisher.record()``), so the manifest and counts stay in one
process. On Ctrl-C or a failed page the parent tells the workers to stop after the page
at hand, records what they wrote, then raises (a second Ctrl-C: at once).
"""

import contextlib
import multiprocessing
import os
import signal
import sys
import threading
import traceback

from django.db import connection, connections

from publishing.files import PublishError

# Pages a worker renders per task (a page takes about 2 to 15 ms).
CHUNK = 100

# Set before forking; the workers read them (nothing is pickled but indices and results).
_work = {}


def default_jobs():
    """The processors this process may run on (``--jobs``'s default)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


def can_fork():
    """(whether worker processes may render, the reason why not or "")."""
    if connection.in_atomic_block:
        return False, "inside a database transaction, whose data other connections cannot see"
    if connection.vendor == "sqlite" and connection.is_in_memory_db():
        return False, "the database is in this process's memory"
    if "fork" not in multiprocessing.get_all_start_methods():
        return False, "this platform cannot fork"
    return True, ""


class Rendering(contextlib.ExitStack):
    """Renders pages ((route, kwargs, language) of ``pages``) with ``site`` and writes each
    with ``publisher``, in ``jobs`` processes, in steps so this process works meanwhile:
    ``add(indices)`` hands pages over (the workers start with the first call bringing
    more than one chunk, if ``jobs`` > 1); ``finish()`` waits, records, renders here the
    pages the workers did not and then the ``after`` routes', and returns how many were
    rendered; ``progress(n)`` is called as pages are done. Raises PublishError naming the
    URL of a failed page, or KeyboardInterrupt, once every page written so far is
    recorded. Leaving the context (an ExitStack) stops the workers and gives Ctrl-C back."""

    def __init__(self, site, publisher, pages, jobs=1, progress=None):
        super().__init__()
        self.site, self.publisher, self.pages = site, publisher, pages
        self.jobs, self.progress = jobs, progress
        self.here, self.later, self.running = [], [], []
        self.pool = self.stop = None
        self.interrupted = []

    def add(self, indices):
        """Render the pages ``indices`` (of ``pages``), in workers when they run."""
        indices = list(indices)
        # A worker cannot see what the others wrote; this process has recorded it.
        self.later += [i for i in indices if getattr(self.pages[i][0], "after", False)]
        indices = [i for i in indices if not getattr(self.pages[i][0], "after", False)]
        chunks = _chunks(self.pages, indices)
        if self.pool is None and (self.jobs <= 1 or len(chunks) < 2):
            self.here += indices
            return
        if self.pool is None:
            context = multiprocessing.get_context("fork")
            self.stop = context.Event()
            _work.update(site=self.site, publisher=self.publisher, pages=self.pages, stop=self.stop)
            connections.close_all()  # each worker opens its own
            self.callback(_work.clear)
            self.interrupted = self.enter_context(_interrupts_stop(self.stop))
            self.pool = context.Pool(self.jobs, initializer=_worker_started)
            self.callback(self.pool.join)
            self.callback(self.pool.terminate)  # at once after an error
        self.running.append(self.pool.imap_unordered(_render_chunk, chunks))

    def finish(self):
        """Wait for the workers and record their pages, then render this process's;
        returns the number of pages rendered (raising as the class says)."""
        rendered = self._collect() if self.pool is not None else 0
        for indices in (self.here, self.later):
            rendered += _render_here(self.site, self.publisher, self.pages, indices, self.progress)
        return rendered

    def _collect(self):
        failure, rendered = None, 0
        try:
            for results in self.running:
                for done, error in results:
                    for i, relative, written, media in done:
                        self.publisher.record(relative, written, media, page=self.pages[i])
                    rendered += len(done)
                    if self.progress:
                        self.progress(len(done))
                    if error and not failure:
                        self.stop.set()  # the other workers stop after the page at hand
                        failure = PublishError(error)
            self.pool.close()
        finally:
            self.close()
        if failure:
            raise failure
        if self.interrupted:
            raise KeyboardInterrupt
        return rendered


def _render_here(site, publisher, pages, indices, progress):
    for chunk in _chunks(pages, indices):
        rendered = site.render_many(*_items(pages, chunk))
        for i, (_uri, relative, body) in zip(chunk, rendered, strict=True):
            publisher.write(relative, body, page=pages[i])
            if progress:
                progress(1)
    return len(indices)


def _items(pages, chunk):
    """(route, [(kwargs, language)]) of a chunk of pages of one route."""
    return pages[chunk[0]][0], [(pages[i][1], pages[i][2]) for i in chunk]


def _chunks(pages, indices):
    """``indices`` in chunks of one route each, routes with fewer pages first: those with
    fewer than CHUNK pages one page a chunk (site-wide downloads, sitemaps: the slow ones,
    started early so no worker is left with one at the end), then chunks of CHUNK."""
    by_route = {}
    for i in indices:
        by_route.setdefault(pages[i][0].name, []).append(i)
    few, many = [], []
    for items in sorted(by_route.values(), key=len):
        size = CHUNK if len(items) >= CHUNK else 1
        chunks = [items[start : start + size] for start in range(0, len(items), size)]
        (few if len(items) < CHUNK else many).extend(chunks)
    return few + many


@contextlib.contextmanager
def _interrupts_stop(stop):
    """Within: Ctrl-C sets ``stop`` instead of raising, and the list given is then not
    empty; a second Ctrl-C raises at once (what the workers wrote since their last chunk
    is not in the manifest). Off the main thread, Ctrl-C raises as ever."""
    interrupted = []
    if threading.current_thread() is not threading.main_thread():
        yield interrupted
        return

    def handler(_signum, _frame):
        if interrupted:
            raise KeyboardInterrupt
        interrupted.append(True)
        stop.set()
        sys.stderr.write(
            "\nStopping once the pages being rendered are written (Ctrl-C again: at once).\n"
        )

    previous = signal.signal(signal.SIGINT, handler)
    try:
        yield interrupted
    finally:
        signal.signal(signal.SIGINT, previous)


def _worker_started():
    # Ctrl-C reaches the whole process group: the parent decides when workers stop.
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _render_chunk(chunk):
    """In a worker: render and store ``chunk``'s pages; returns ([(index in ``pages``,
    path, written, media names)], error message or None), stopping at the first page
    that fails or when the parent says stop."""
    site, publisher, pages, stop = (_work[key] for key in ("site", "publisher", "pages", "stop"))
    done = []
    rendered = site.render_many(*_items(pages, chunk))
    for i in chunk:
        if stop.is_set():
            break
        try:
            _uri, relative, body = next(rendered)
            written = publisher.store(relative, body)
        except PublishError as error:
            return done, str(error)
        except Exception:  # reported by the parent, which stops every worker
            uri, _relative = site.target(*pages[i])
            return done, f"{uri} failed to render:\n{traceback.format_exc()}"
        done.append((i, relative, written, sorted(publisher.media_of(body))))
    return done, None
