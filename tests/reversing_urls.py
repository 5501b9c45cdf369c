"""A URLconf for tests/catalogue/test_reversing.py: the paper route at another address."""

from django.http import HttpResponse
from django.urls import include, path

papers = (
    [path("other/<slug:slug>/", lambda request, slug: HttpResponse(), name="paper-detail")],
    "papers",
)
urlpatterns = [path("", include(papers))]
