"""WSGI entry point: ``gunicorn awardsite.wsgi``.

Once Django is loaded, the objects it made (modules, models, admin, settings: about
100,000 that the cyclic garbage collector tracks) are moved out of the collector's
reach with ``gc.freeze()``, as Instagram does in its Django workers and as Python's
documentation of ``gc.freeze`` suggests for long-lived processes. They live as long as
the process anyway, yet a full (oldest-generation) collection walked all of them: in a
worker serving the benchmark's pages (benchmarks/pages.py' data on PostgreSQL) one
request in about 600 paused 70 to 127 ms of CPU for it, more than the 25 ms a page may
take; with them frozen, such a request pauses 12 to 39 ms (a collection runs about one
request in 225: the oldest generation is now smaller, so it fills sooner) and the
collector's total time fell by about a third. Each worker loads this module after
gunicorn forks it (and the master with ``--preload``, whose workers then share the
frozen objects' memory pages).

Then the collector's first threshold is raised from Python's 700 to 10,000 (net new
container objects between collections of the youngest generation): a page frees what it
made by reference counting once it is sent (awardsite/templates.py and pages/views.py's
HeadIsGetMixin break the reference cycles that kept it), so the collector need not look
at it while it is being made. With 700, the largest conference page (make bench's
data on PostgreSQL, benchmarks/pages.py) ran about two collections per request, the
older generations' in one request in six (0.5 to 2 ms) and in one in 75 (4 to 13 ms),
their CPU about 1 ms per request on average, a tenth of the worker's; with 10,000 and
no cycles, one collection runs in about 100 requests, 0.03 ms per request on average
(gc.callbacks in the benchmark's gunicorn workers). The objects a collection can still
find (about 60 per request) wait for it a little longer: a few megabytes at most.
"""

import gc
import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "awardsite.settings")

application = get_wsgi_application()

gc.collect()  # the garbage of the start-up is not kept for ever
gc.freeze()
gc.set_threshold(10_000, *gc.get_threshold()[1:])
