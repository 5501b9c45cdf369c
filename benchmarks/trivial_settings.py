"""Settings of the page benchmark's yardstick (benchmarks/page_load.py): the site's settings
with one trivial view behind Django's stock middleware (``startproject``'s list).

Used only by the benchmark, which serves it on its own port; the site never loads it.
"""

from awardsite.settings import *  # noqa: F403

ROOT_URLCONF = "trivial_urls"
MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]
