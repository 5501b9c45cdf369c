"""The published site (issue 12) in ``make bench``: how long ``publish_site`` takes, and
nginx serving its output against nginx serving one static file of the same size.

Used by benchmarks/page_load.py (its child process, on the SQLite data). Two figures from
the issue's targets:

- ``publish_site DIR`` on the benchmark's data from an empty directory (target: under
  2 minutes at 5,000 papers), then again after one edit, a paper's English title
  changed with ``save()`` as the admin does (target: under 10 s);
- Debian's nginx serving a published paper page (``/en/papers/<slug>/`` from
  ``en/papers/<slug>/index.html``, as a static host serves it) and a copy of the same
  bytes at the top of another directory (``/same-size.html``, the cheapest file nginx
  can serve), both gzipped on the fly as the live site's pages are and with the same
  open-file cache, in the same interleaved rounds (target: the page at least 90% of the
  file's req/s). nginx runs as a static host would (``try_files`` the page's
  ``index.html``, gzip, an open-file cache), on a loopback port, with its files in the
  benchmark's temporary directory.
"""

import shutil
import statistics
import subprocess  # nosec B404  # starts our own nginx and manage.py, never a shell
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
NGINX = "/usr/sbin/nginx"
SAME_SIZE = "same-size.html"
# The published site's public address (its sitemap, feeds and canonical links name it).
SITE_URL = "https://awards.example.org"
NGINX_CONF = """worker_processes {workers};
daemon off;
pid {workdir}/nginx.pid;
error_log {workdir}/nginx-error.log warn;
events {{ worker_connections 1024; }}
http {{
    include /etc/nginx/mime.types;
    default_type application/octet-stream;
    access_log off;
    sendfile on;
    tcp_nopush on;
    keepalive_timeout 65;
    gzip on;
    open_file_cache max=10000 inactive=60s;
    client_body_temp_path {workdir}/body;
    proxy_temp_path {workdir}/proxy;
    fastcgi_temp_path {workdir}/fastcgi;
    uwsgi_temp_path {workdir}/uwsgi;
    scgi_temp_path {workdir}/scgi;
    server {{
        listen 127.0.0.1:{port};
        root {root};
        index index.html;
        charset utf-8;
        location = /{same_size} {{ root {single}; }}
        location / {{ try_files $uri ${{uri}}index.html $uri/ =404; }}
    }}
}}
"""


def publish(env, directory):
    """Run ``manage.py publish_site directory`` with the servers' environment ``env``;
    return its wall time in seconds. Raises CalledProcessError when it fails."""
    started = time.perf_counter()
    subprocess.run(  # nosec B603  # our own manage.py with our own arguments, no shell
        [sys.executable, "manage.py", "publish_site", str(directory), "--site-url", SITE_URL],
        cwd=ROOT,
        env=env,
        check=True,
        stdout=subprocess.DEVNULL,
    )
    return time.perf_counter() - started


def edit_one_paper():
    """Change one published paper's English title with ``save()`` (signals and all, as an
    editor's save in the admin); return the paper."""
    from catalogue.models import Paper

    paper = Paper.objects.published().order_by("pk").first()
    paper.title_en = f"{paper.title_en} (revised)"
    paper.save()
    return paper


def start_nginx(root, workdir, port, workers=2):
    """Start Debian's nginx serving ``root`` on 127.0.0.1:``port``, with ``/same-size.html``
    from ``workdir/single``; return the process. Raises FileNotFoundError without nginx."""
    if not Path(NGINX).exists():
        raise FileNotFoundError(f"{NGINX} is missing: apt-get install nginx (make bench does)")
    conf = workdir / "nginx.conf"
    conf.write_text(
        NGINX_CONF.format(
            workers=workers,
            workdir=workdir,
            port=port,
            root=root,
            single=workdir / "single",
            same_size=SAME_SIZE,
        )
    )
    return subprocess.Popen(  # nosec B603  # Debian's nginx with our own configuration, no shell
        [NGINX, "-c", str(conf), "-p", str(workdir)],
        stderr=subprocess.DEVNULL,
    )


def measure_published(options, env, workdir, paper_path, wrk, wait_for, script):
    """Publish the data, edit one paper, publish again, then serve the output with nginx.

    ``paper_path`` is the live paper page measured (e.g. ``/en/papers/x/``); ``wrk``,
    ``wait_for`` and ``script`` are benchmarks/page_load.py's. Returns the rows for the
    table (``page`` "published" and "file", ``mode`` "nginx") and the publish times in
    seconds, from scratch and after the edit.
    """
    directory = workdir / "published"
    # nginx's workers run as another user (www-data when started by root): they need to
    # reach the files through the temporary directory, which mkdtemp() made private.
    workdir.chmod(0o755)
    scratch = publish(env, directory)
    edit_one_paper()
    after_edit = publish(env, directory)

    page_file = directory / paper_path.strip("/") / "index.html"
    single = workdir / "single"
    single.mkdir(exist_ok=True)
    shutil.copyfile(page_file, single / SAME_SIZE)
    port = options.port + 3
    nginx = start_nginx(directory, workdir, port)
    urls = {
        "published": f"http://127.0.0.1:{port}{paper_path}",
        "file": f"http://127.0.0.1:{port}/{SAME_SIZE}",
    }
    try:
        for url in urls.values():
            wait_for(url)
        runs = {name: [] for name in urls}
        for _round in range(options.rounds):
            for name, url in urls.items():
                runs[name].append(wrk(url, script, options.duration))
        single_runs = {
            name: wrk(url, script, options.single_duration, 1, 1) for name, url in urls.items()
        }
    finally:
        nginx.terminate()
        nginx.wait(timeout=30)
    size_kb = page_file.stat().st_size / 1024
    rows = []
    for name, results in runs.items():
        rows.append(
            {
                "page": name,
                "path": urls[name].split(str(port), 1)[1],
                "mode": "nginx",
                "rps": statistics.median(r["rps"] for r in results),
                "p50": statistics.median(r["p50"] for r in results),
                "p95": statistics.median(r["p95"] for r in results),
                "errors": sum(r["errors"] for r in results),
                "single_p50": single_runs[name]["p50"],
                "single_p95": single_runs[name]["p95"],
                "single_requests": single_runs[name]["requests"],
                "html_kb": size_kb,
            }
        )
    return rows, {"scratch": scratch, "after_edit": after_edit}
