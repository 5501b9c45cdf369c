"""WSGI entry point: ``gunicorn awardsite.wsgi``."""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "awardsite.settings")

application = get_wsgi_application()
