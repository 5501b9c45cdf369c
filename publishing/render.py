"""``publish_site``'s render loop: the pages to render, in this process or in worker
processes (issue 12: the 5,000-paper data set published from scratch in under 2 minutes;
one process renders its ~72,000 pages in about 10 minutes of CPU).

With ``jobs`` > 1 the pages are rendered by ``jobs`` worker processes forked from this
one once Django is set up, so they share its settings (``override_settings`` included),
its URLconf and the ``Site`` and ``Publisher`` objects; the database connections are
closed before forking, so each worker opens its own (SQLite and PostgreSQL alike). A
worker renders a chunk of pages, writes their files itself (``Publisher.store()``) and
returns, for each page, its path, whether it was written and the media files it names;
the parent records them (``Publisher.record()``: the manifest and the counts stay in one
process). The workers ignore SIGINT: on Ctrl-C, or when a page fails, the parent tells
them to stop after the page at hand, collects what they wrote so that the manifest names
it (``Publisher.interrupted()``), and only then raises (a second Ctrl-C: at once); no
worker outlives the call.

Data visible only inside the caller's transaction (a test case on PostgreSQL, an
``atomic()`` block) is invisible to another connection, so inside a transaction the
pages are rendered in this process, whatever ``jobs`` says.
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

# Pages a worker renders per task: large enough that passing results costs little, small
# enough that both workers finish together (a page takes about 2 to 15 ms).
CHUNK = 100

# Set by ``render()`` before forking; the workers read them (fork: nothing is pickled
# but the chunks' indices and the results).
_work = {}


def default_jobs():
    """The processors this process may run on (``--jobs``'s default)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


def can_fork():
    """(whether worker processes may render, the reason why not or ""): not inside a
    transaction (they could not see its data), nor on an in-memory SQLite database (a
    process's own), and only where ``fork`` exists."""
    if connection.in_atomic_block:
        return False, "inside a database transaction, whose data other connections cannot see"
    if connection.vendor == "sqlite" and connection.is_in_memory_db():
        return False, "the database is in this process's memory"
    if "fork" not in multiprocessing.get_all_start_methods():
        return False, "this platform cannot fork"
    return True, ""


def render(site, publisher, pages, indices, jobs=1, progress=None):
    """Render ``pages[i]`` (route, kwargs, language) for each ``i`` of ``indices`` with
    ``site`` (``publishing.Site``) and write each with ``publisher``
    (``publishing.files.Publisher``): ``store()`` in the process that rendered it, then
    ``record()`` here. ``jobs``: worker processes (1: this process; see the module's
    docstring); pages whose route says ``after`` are rendered here once the others are
    recorded. ``progress(n)`` is called as pages are done. Returns the number of pages
    rendered. Raises PublishError naming the URL of a page that answered other than 200
    (or failed), after every page written so far is recorded; KeyboardInterrupt likewise.
    ``Rendering`` does the same in steps, for a caller with work of its own meanwhile.
    """
    with Rendering(site, publisher, pages, jobs=jobs, progress=progress) as rendering:
        rendering.add(indices)
        return rendering.finish()


class Rendering:
    """``render()`` in steps, so that this process does other work while the workers
    render: ``add(indices)`` hands pages over at once (the workers are started by the
    first call that brings more than one chunk of pages, with ``jobs`` > 1; else the
    pages are rendered here by ``finish()``), ``finish()`` waits for the workers, records
    what they wrote, renders the pages left to this process and the ``after`` ones, and
    returns how many pages were rendered, raising as ``render()`` does. After one edit,
    ``publish_site`` hands the pages it knows changed to the workers first, then decides
    which of the other 72,000 it keeps (a second of this process's time at 5,000
    papers) while the workers render them (issue 12: under 10 s after one edit).

    A context manager: leaving it stops the workers, whatever happened (an error of
    the caller between ``add()`` and ``finish()`` included), and gives Ctrl-C back."""

    def __init__(self, site, publisher, pages, jobs=1, progress=None):
        self.site, self.publisher, self.pages = site, publisher, pages
        self.jobs, self.progress = jobs, progress
        self.here = []  # rendered by this process in finish()
        self.later = []  # pages whose route says ``after``
        self.running = []  # the workers' results, one iterator per add()
        self.pool = None
        self.stop = None
        self.interrupted = []
        self._exits = contextlib.ExitStack()

    def __enter__(self):
        return self

    def __exit__(self, *_exc):
        self.close()

    def add(self, indices):
        """Render the pages ``indices`` (of ``pages``), in workers when they run."""
        indices = list(indices)
        # Pages built from other pages' files (the whole site's compact archive, from
        # the conferences' archives): a worker cannot see what the others wrote, this
        # process has recorded it (about 15 s of CPU at 5,000 papers when exported again).
        self.later += [i for i in indices if getattr(self.pages[i][0], "after", False)]
        indices = [i for i in indices if not getattr(self.pages[i][0], "after", False)]
        if not indices:
            return
        chunks = _chunks(self.pages, indices)
        if self.pool is None and (self.jobs <= 1 or len(chunks) < 2):
            self.here += indices
            return
        if self.pool is None:
            self._start()
        self.running.append(self.pool.imap_unordered(_render_chunk, chunks))

    def _start(self):
        context = multiprocessing.get_context("fork")
        self.stop = context.Event()
        _work.update(site=self.site, publisher=self.publisher, pages=self.pages, stop=self.stop)
        connections.close_all()  # each worker opens its own
        self._exits.callback(_work.clear)
        self.interrupted = self._exits.enter_context(_interrupts_stop(self.stop))
        self.pool = context.Pool(self.jobs, initializer=_worker_started)
        # At once after an error; else they are idle by then.
        self._exits.callback(self.pool.join)
        self._exits.callback(self.pool.terminate)

    def finish(self):
        """Wait for the workers and record their pages, then render this process's;
        returns the number of pages rendered (see ``render()`` for what it raises)."""
        rendered = 0
        if self.pool is not None:
            rendered += self._collect()
        rendered += _render_here(self.site, self.publisher, self.pages, self.here, self.progress)
        return rendered + _render_here(
            self.site, self.publisher, self.pages, self.later, self.progress
        )

    def _collect(self):
        failure = None
        rendered = 0
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

    def close(self):
        """Stop the workers (if any still run) and give Ctrl-C back."""
        self._exits.close()


def _render_here(site, publisher, pages, indices, progress):
    for chunk in _chunks(pages, indices):
        rendered = site.render_many(*_items(pages, chunk))
        for i, (uri, relative, body) in zip(chunk, rendered, strict=True):
            publisher.page(uri, relative, body, page=pages[i])
            if progress:
                progress(1)
    return len(indices)


def _items(pages, chunk):
    """(route, [(kwargs, language)]) of a chunk of pages of one route."""
    return pages[chunk[0]][0], [(pages[i][1], pages[i][2]) for i in chunk]


def _chunks(pages, indices):
    """``indices`` in chunks of up to CHUNK of one route each, those of the routes with
    few pages first, one page a chunk: those
    are the slow ones (site-wide downloads, sitemaps, lists of everything), started
    early so that no worker is left with one at the end. Then the other routes', the
    routes with fewer pages first for the same reason: their pages are the longer ones
    (pages of the A-Z index of authors, 60 ms each, against a paper's citation file's
    0.4 ms), and the chunks left for the end are the shortest."""
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
    """Within: Ctrl-C (SIGINT) sets ``stop`` instead of raising KeyboardInterrupt, so the
    loop above still records what the workers wrote; the list given is then not empty.
    A second Ctrl-C raises at once (the workers are terminated: a page that takes long,
    such as an open-data download, is not waited for; what they wrote since their last
    chunk is not in the manifest, and the file one was writing may stay behind as a
    ``.publish-*`` temporary file). Off the main thread, where Python cannot handle
    signals, Ctrl-C raises as ever."""
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
