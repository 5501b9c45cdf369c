"""A published copy of the site for the static search's browser tests, and a static
host for it.

:func:`publish` runs ``manage.py publish_site`` on the test database, so the tests
search the very files a static host receives; :func:`serve` serves such a folder as a
plain static host that sends the live site's Content-Security-Policy on every file.
"""

import contextlib
import functools
import http.server
import threading
from io import StringIO

from django.core.management import call_command

# The published site's public address (its sitemap and canonical links name it).
SITE_URL = "https://awards.example.org"


def publish(settings, folder):
    """Publish the site in the test database with ``manage.py publish_site`` into
    ``folder / "site"`` (``folder``: a Path; the static files are collected into
    ``folder / "collected"``). Returns the published site's folder. Raises
    CommandError, as publish_site does, when a page does not render."""
    settings.SITE_URL = SITE_URL
    settings.STATIC_ROOT = folder / "collected"
    call_command("publish_site", str(folder / "site"), stdout=StringIO())
    return folder / "site"


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
