"""A published copy of the site for the static search's tests, and a static host for it.

Until ``manage.py publish_site`` lands (issue 12), :func:`mirror` writes the pages the
search's tests visit the way a static host serves them (``/en/`` as
``en/index.html``), fetched from the live views by Django's test client, and copies
the static files; :func:`build_search_index` then adds the search, as publish_site
will. :func:`serve` serves such a folder as a plain static host that sends the live
site's Content-Security-Policy on every file.
"""

import contextlib
import functools
import http.server
import shutil
import threading
from pathlib import Path

from django.conf import settings

from papers.static_search import build_search_index

# The pages a search leads to, after each language prefix.
MIRRORED = [
    "",
    "conferences/",
    "awards/",
    "authors/",
    "papers/conformal-prediction-as-bayesian-quadrature/",
]


def mirror(client, directory):
    """Write the live site's pages in ``MIRRORED`` (both languages), the static files
    and the search into ``directory`` (a Path). Returns the live site's
    Content-Security-Policy header, for :func:`serve`."""
    policy = None
    for code, _name in settings.LANGUAGES:
        for path in MIRRORED:
            response = client.get(f"/{code}/{path}")
            assert response.status_code == 200, path
            policy = response["Content-Security-Policy"]
            folder = directory / code / path
            folder.mkdir(parents=True, exist_ok=True)
            (folder / "index.html").write_bytes(response.content)
    # The tests' storage gives unhashed addresses (/static/css/site.css).
    shutil.copytree(Path(settings.BASE_DIR) / "static", directory / "static")
    build_search_index(directory)
    return policy


@contextlib.contextmanager
def serve(directory, policy):
    """A static host for ``directory`` on a free local port, adding the header
    ``Content-Security-Policy: <policy>`` to every answer; yields its base URL. The
    query string is ignored, as by any static host."""

    class Handler(http.server.SimpleHTTPRequestHandler):
        def end_headers(self):
            self.send_header("Content-Security-Policy", policy)
            super().end_headers()

        def log_message(self, format, *args):  # noqa: A002 - the base class's name
            pass

    server = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(Handler, directory=str(directory))
    )
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()
