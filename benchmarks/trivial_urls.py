"""The benchmark's trivial view, ``HttpResponse("ok")`` at ``/``: the URLconf of
benchmarks/trivial_settings.py."""

from django.http import HttpResponse
from django.urls import path


def trivial(request):
    """Answer "ok": the least a Django view can do, the yardstick of benchmarks/page_load.py."""
    return HttpResponse("ok")


urlpatterns = [path("", trivial)]
