"""Screenshots of every kind of page, to judge the design: `make screenshots DIR=folder`.

Issue 31's measure: every public page type at 390 and 1,280 px wide (a phone and a
laptop), in English and Chinese, and the admin's main pages as an editor sees them,
written as full-page PNG files to a folder of the user's choice.

1. The same throwaway site as `make audit` (``scripts/audit.py``: a new SQLite database
   with the shipped content and one drawn teaser, served by gunicorn with debug off and
   the page cache on). The database of `make run` is never touched.
2. An editor who is not a superuser (``create_editor --publisher``: site-wide, may
   publish) logs in through the admin's login form for the admin's pages.
3. Debian's Chromium, driven by Playwright, opens each page and saves it whole:
   ``<language>-<width>-<page>.png`` (``admin-<language>-<width>-<page>.png`` for the
   admin, whose language follows the browser's). ``--dark`` adds the dark colour scheme
   (``...-dark.png``).

Input: the folder (created if missing; files of the same names are replaced). Options:
``--only TEXT`` (only the pages whose address contains TEXT; repeat for several),
``--widths 390,1280``.
Output: one line per file written, and the count. Exit status 1 when a page answers
other than expected (200, or 404 for the unknown page), after writing the others.
"""

import argparse
import os
import re
import subprocess  # nosec B404  # create_editor in the throwaway site, no shell
import sys
import tempfile
from pathlib import Path

from playwright.sync_api import sync_playwright

sys.path.insert(0, str(Path(__file__).resolve().parent))

from audit import BASE_DIR, free_port, prepare_site, start_server, wait_until_up  # noqa: E402

# One address per kind of public page (tests/checked_pages.py holds the checked list),
# with the status each must answer.
PUBLIC_PAGES = [
    ("home", "", 200),
    ("venues", "venues/", 200),
    ("venue", "venues/icml/", 200),
    ("conferences", "conferences/", 200),
    ("conference", "conferences/icml-2025/", 200),
    ("conference-2015", "conferences/icml-2015/", 200),
    ("awards", "awards/", 200),
    ("award", "conferences/icml-2025/awards/test-of-time/", 200),
    ("award-series", "venues/icml/awards/test-of-time/", 200),
    ("award-kind", "awards/kinds/test-of-time/", 200),
    ("paper", "papers/conformal-prediction-as-bayesian-quadrature/", 200),
    ("paper-no-image", "papers/trust-region-policy-optimization/", 200),
    ("authors", "authors/", 200),
    ("authors-letter", "authors/letter/j/", 200),
    ("author", "authors/michael-i-jordan/", 200),
    ("search", "search/?q=learning", 200),
    ("open-data", "open-data/", 200),
    ("api-docs", "open-data/api/", 200),
    ("not-found", "no/such/page/", 404),
]
# Outside the language prefix: the API docs' own address (in English).
SITE_PAGES = [("api-docs-root", "/api/v1/docs", 200)]
ADMIN_PAGES = [
    ("index", "/admin/", 200),
    ("papers", "/admin/papers/paper/", 200),
    ("awards", "/admin/papers/award/", 200),
    ("changes", "/admin/editorial/team/changes/", 200),
]
# (name, changelist): the first object's change form.
ADMIN_FORMS = [("paper-form", "/admin/papers/paper/"), ("award-form", "/admin/papers/award/")]
LANGUAGES = ["en", "zh-hans"]
EDITOR = ("shots-editor", "a-long-screenshot-password-1")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--headless",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def add_editor(env):
    """Create ``EDITOR`` in the throwaway site: a site-wide editor and publisher."""
    subprocess.run(  # nosec B603  # our manage.py with our arguments, no shell
        [sys.executable, "manage.py", "create_editor", EDITOR[0], "--publisher"]
        + ["--password-stdin"],
        input=EDITOR[1] + "\n",
        text=True,
        cwd=BASE_DIR,
        env=env,
        check=True,
        capture_output=True,
    )


def first_change_page(page, base, changelist):
    """The address of the first object's change form in the changelist at ``changelist``."""
    page.goto(base + changelist)
    return page.locator("#result_list tbody th a").first.get_attribute("href")


def shoot(page, url, expected, path, failures):
    response = page.goto(url, wait_until="networkidle")
    status = response.status if response else None
    if status != expected:
        failures.append(f"{url}: {status}, expected {expected}")
    page.screenshot(path=str(path), full_page=True)
    print(path)


def take(browser, base, folder, args, failures):
    """Every page at every width, language and scheme; returns the number of files."""
    written = 0
    for scheme in ["light", "dark"] if args.dark else ["light"]:
        suffix = "-dark" if scheme == "dark" else ""
        for language in LANGUAGES:
            for width in args.widths:
                context = browser.new_context(
                    viewport={"width": width, "height": 900},
                    locale="zh-CN" if language == "zh-hans" else "en-GB",
                    color_scheme=scheme,
                )
                page = context.new_page()
                public = [(n, f"/{language}/{p}", s) for n, p, s in PUBLIC_PAGES] + SITE_PAGES
                pages = [(f"{language}-{width}-{n}", p, s) for n, p, s in public]
                for name, path, expected in pages + admin_pages(page, base):
                    name = name.replace("admin-", f"admin-{language}-{width}-")
                    if not args.only or any(text in path for text in args.only):
                        shoot(page, base + path, expected, folder / f"{name}{suffix}.png", failures)
                        written += 1
                context.close()
    return written


def admin_pages(page, base):
    """Logs ``page`` in as ``EDITOR``; returns ``ADMIN_PAGES`` and the first paper's and
    award's change forms, as (name, address, status)."""
    page.goto(base + "/admin/login/")
    page.fill("#id_username", EDITOR[0])
    page.fill("#id_password", EDITOR[1])
    page.click("input[type=submit]")
    pages = [(f"admin-{name}", path, status) for name, path, status in ADMIN_PAGES]
    for name, changelist in ADMIN_FORMS:
        pages.append((f"admin-{name}", first_change_page(page, base, changelist), 200))
    return pages


def main(argv=None):
    """Write the screenshots (see the module's docstring); returns the exit status."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=Path, help="where the PNG files go")
    parser.add_argument(
        "--only",
        action="append",
        default=[],
        help="only the pages whose address contains this (repeat for several)",
    )
    parser.add_argument(
        "--widths",
        default="390,1280",
        type=lambda text: [int(width) for width in re.split(r"[, ]+", text.strip())],
        help="viewport widths in CSS pixels, comma-separated (default: 390,1280)",
    )
    parser.add_argument("--dark", action="store_true", help="also in the dark colour scheme")
    args = parser.parse_args(argv)
    args.folder.mkdir(parents=True, exist_ok=True)

    failures = []
    with tempfile.TemporaryDirectory(prefix="awardsite-shots-") as site:
        env = prepare_site(Path(site))
        add_editor(env)
        port = free_port()
        server = start_server(port, env)
        base = f"http://127.0.0.1:{port}"
        try:
            wait_until_up(base + "/en/")
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(
                    executable_path=os.environ.get("CHROME_PATH", "/usr/bin/chromium"),
                    args=CHROMIUM_ARGS,
                )
                written = take(browser, base, args.folder.resolve(), args, failures)
                browser.close()
        finally:
            server.terminate()
            server.wait()
    print(f"{written} screenshots in {args.folder}")
    for failure in failures:
        print(f"unexpected answer: {failure}", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
