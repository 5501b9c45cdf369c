"""WSGI entry point: ``gunicorn awardsite.wsgi``.

Once the site is loaded, ``gc.freeze()`` (Python's documented call) moves every object
made so far (modules, settings, models, views) into a generation the garbage
collector never scans again. Each page leaves its data in reference cycles (Django's
template context refers to itself), so full collections come every dozen requests or
so, and each one walked the whole loaded site. The URLconf, and with it the views, the
API and the admin, is loaded first (``resolve()``, whatever ``ROOT_URLCONF`` is), or
the first request would load it after the freeze. Measured in one process on
benchmarks/server_time.py's data (5,000 papers at one conference, the conference page,
300 requests, CPU time): a full collection took 58 ms without the freeze, 12 ms with
it, and 6 ms with the URLconf loaded first; the page's p95 went from 78 to 47 and then
38 ms (p50 33-35 ms throughout; target: p95 at most 50 ms).
"""

import contextlib
import gc
import os

from django.core.wsgi import get_wsgi_application
from django.urls import Resolver404, resolve

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "awardsite.settings")

application = get_wsgi_application()
with contextlib.suppress(Resolver404):
    resolve("/")
gc.freeze()
