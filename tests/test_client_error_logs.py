"""A visitor's bad request is one WARNING line in the log, without a traceback (issue 32,
finding 8; settings.LOGGING): a path outside the media folder, a body that cannot be
parsed, too many fields. A fault of the site keeps its traceback."""

import io
import logging

import pytest
from django.test import Client
from django.urls import path


def _fail(request):
    raise RuntimeError("boom")


urlpatterns = [path("boom/", _fail)]


@pytest.fixture
def log_lines(settings):
    """A function returning the lines that the handlers of settings.LOGGING wrote since
    the test began, each "<LEVEL> <message>" (tracebacks included)."""
    stream = io.StringIO()
    names = set(settings.LOGGING["handlers"])
    handlers = {
        handler
        for logger in [None, *settings.LOGGING["loggers"]]
        for handler in logging.getLogger(logger).handlers
        if handler.name in names
    }
    assert handlers
    saved = {handler: (handler.setStream(stream), handler.formatter) for handler in handlers}
    for handler in handlers:
        handler.setFormatter(logging.Formatter("%(levelname)s %(message)s"))
    yield lambda: stream.getvalue().splitlines()
    for handler, (old_stream, formatter) in saved.items():
        handler.setStream(old_stream)
        handler.setFormatter(formatter)


@pytest.fixture
def visitor(db):
    return Client(raise_request_exception=False)


def test_path_outside_the_media_folder_is_one_warning_line(visitor, log_lines, settings):
    assert settings.SERVE_MEDIA  # the tests' settings: Django serves the media folder

    response = visitor.get("/media/%2e%2e/secrets.txt")

    assert response.status_code == 400
    outside = settings.MEDIA_ROOT.parent / "secrets.txt"
    assert log_lines() == [
        f"WARNING The joined path ({outside}) is located outside of the base path "
        f"component ({settings.MEDIA_ROOT})"
    ]


def test_unparsable_multipart_body_is_one_warning_line(visitor, log_lines):
    response = visitor.post("/admin/login/", b"abc", content_type="multipart/form-data")

    assert response.status_code == 400
    assert log_lines() == ["WARNING Bad request (Unable to parse request body): /admin/login/"]


def test_too_many_fields_is_one_warning_line(visitor, log_lines, settings):
    fields = "&".join(f"f{n}=x" for n in range(settings.DATA_UPLOAD_MAX_NUMBER_FIELDS + 1))

    response = visitor.post(
        "/admin/login/", fields, content_type="application/x-www-form-urlencoded"
    )

    assert response.status_code == 400
    assert log_lines() == [
        "WARNING The number of GET/POST parameters exceeded settings.DATA_UPLOAD_MAX_NUMBER_FIELDS."
    ]


def test_a_fault_of_the_site_keeps_its_traceback(visitor, log_lines, settings):
    settings.ROOT_URLCONF = __name__

    response = visitor.get("/boom/")

    lines = log_lines()
    assert response.status_code == 500
    assert lines[0] == "ERROR Internal Server Error: /boom/"
    assert "Traceback (most recent call last):" in lines
    assert lines[-1] == "RuntimeError: boom"
