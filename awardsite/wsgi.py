"""WSGI entry point: ``gunicorn awardsite.wsgi``."""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "awardsite.settings")

application = get_wsgi_application()

from pagecache import caching  # noqa: E402  # needs the apps loaded above

# The release the page cache's keys name, read now rather than in a visitor's request.
caching.release()
