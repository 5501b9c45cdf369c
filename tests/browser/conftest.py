"""Browser tests: Debian's Chromium driven by Playwright against pytest-django's live_server.

Playwright's own browser downloads are never used (`make test` installs Debian's
chromium); the flags keep Chromium from calling any other host.
"""

import os
import shutil

import pytest

from tests.shipped_content import load_icml

# live_server runs in a thread; Playwright's sync API runs an event loop in this one.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--headless",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args):
    return {**browser_type_launch_args, "executable_path": CHROMIUM, "args": CHROMIUM_ARGS}


@pytest.fixture
def site(live_server, transactional_db):
    """The live server's base URL, with the shipped ICML content loaded."""
    load_icml()
    return live_server.url


@pytest.fixture
def page(page, site):
    """A page that fails the test on any request to another host."""
    foreign = []
    page.on(
        "request",
        lambda request: (
            foreign.append(request.url)
            if not request.url.startswith((site, "data:", "about:"))
            else None
        ),
    )
    yield page
    assert foreign == []


EDITOR_PASSWORD = "a-long-editor-passphrase"


@pytest.fixture
def editor_page(page, site, settings, tmp_path):
    """``page`` logged in to the admin as an editor (staff, not a superuser) who may
    publish (the Publishers group too).

    Uploads go to a temporary MEDIA_ROOT.
    """
    from editorial.roles import create_editor

    settings.MEDIA_ROOT = tmp_path
    create_editor("editor", "editor@example.org", EDITOR_PASSWORD, publisher=True)
    page.goto(f"{site}/admin/login/")
    page.fill("#id_username", "editor")
    page.fill("#id_password", EDITOR_PASSWORD)
    page.click("input[type=submit]")
    page.wait_for_url(f"{site}/admin/")
    return page


# Content-Security-Policy (issue 8) ----------------------------------------------------

# Runs in every page and popup before the page's own scripts (Playwright injects it
# through the DevTools protocol, which the policy does not govern).
CSP_LISTENER = """
document.addEventListener("securitypolicyviolation", (event) => {
  window.reportCspViolation({
    page: location.href,
    directive: event.effectiveDirective,
    blocked: event.blockedURI,
    source: event.sourceFile,
    line: event.lineNumber,
  });
}, true);
"""


@pytest.fixture
def csp_violations():
    """The Content-Security-Policy violations Chromium reported during the test."""
    return []


@pytest.fixture
def context(context, csp_violations):
    """Every browser test fails on a Content-Security-Policy violation, in any page or
    popup it opens."""
    context.expose_binding(
        "reportCspViolation", lambda source, violation: csp_violations.append(violation)
    )
    context.add_init_script(CSP_LISTENER)
    yield context
    for open_page in context.pages:
        open_page.evaluate("0")  # a round trip: reports still on their way arrive
    assert csp_violations == []


@pytest.fixture
def console_errors(context):
    """Console errors and uncaught exceptions of every page and popup, as (text, URL)."""
    errors = []
    context.on(
        "console",
        lambda message: (
            errors.append((message.text, message.location.get("url", "")))
            if message.type == "error"
            else None
        ),
    )
    context.on("weberror", lambda error: errors.append((str(error.error), "")))
    return errors
