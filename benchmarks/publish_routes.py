"""Where ``publish_site`` spends its CPU: each route's CPU seconds in the worker
processes, and when each worker was busy (issue 12: from scratch in under 2 minutes).

    DATABASE_URL=sqlite:////tmp/x.sqlite3 DJANGO_INSECURE_DEV=true \\
        .venv/bin/python benchmarks/publish_routes.py OUT_DIR [publish_site options...]

runs ``manage.py publish_site OUT_DIR --verbosity 2 [options]`` in this process with
each chunk of pages timed where it is rendered (``time.process_time()`` of the worker,
or of this process with ``--jobs 1``), then prints per route: pages, CPU seconds, ms a
page; per worker: busy seconds and when it finished its last chunk; and the longest
chunks (the ones that can leave a worker alone at the end). Nothing of the command's
behaviour changes: only ``publish_render._render_chunk`` and ``Site.render_many`` are
wrapped.
"""

import json
import os
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "awardsite.settings")


def main(argv):
    import django

    django.setup()
    from django.core.management import call_command

    from publishing import files as publish_files
    from publishing import site as publishing

    log = Path(tempfile.mkstemp(prefix="publish-routes-", suffix=".jsonl")[1])
    started = time.monotonic()
    render_many = publishing.Site.render_many

    def timed_render_many(self, route, items):
        # Timed per chunk as the worker consumes it (a generator: timed around each page).
        cpu = time.process_time()
        wall = time.monotonic()
        count = 0
        try:
            for result in render_many(self, route, items):
                count += 1
                yield result
        finally:
            log_chunk(route, count, cpu, wall)

    def log_chunk(route, count, cpu, wall):
        with log.open("a") as out:
            out.write(
                json.dumps(
                    {
                        "route": route.name,
                        "pages": count,
                        "cpu": time.process_time() - cpu,
                        "start": wall - started,
                        "end": time.monotonic() - started,
                        "pid": os.getpid(),
                    }
                )
                + "\n"
            )

    publishing.Site.render_many = timed_render_many
    steps = {}
    for name in ("language_choices", "copy_static", "copy_media", "finish"):
        original = getattr(publish_files.Publisher, name)

        def timed(self, *args, _original=original, _name=name, **kwargs):
            cpu = time.process_time()
            try:
                return _original(self, *args, **kwargs)
            finally:
                steps[_name] = time.process_time() - cpu

        setattr(publish_files.Publisher, name, timed)
    cpu0 = os.times()
    call_command("publish_site", *argv, verbosity=2)
    cpu1 = os.times()
    wall = time.monotonic() - started
    rows = [json.loads(line) for line in log.read_text().splitlines()]
    log.unlink()
    by_route = defaultdict(lambda: [0, 0.0])
    for row in rows:
        by_route[row["route"]][0] += row["pages"]
        by_route[row["route"]][1] += row["cpu"]
    total = sum(cpu for _pages, cpu in by_route.values())
    print(f"\nWall {wall:.1f} s; render CPU in workers {total:.1f} s")
    parent = cpu1.user - cpu0.user + cpu1.system - cpu0.system
    children = cpu1.children_user - cpu0.children_user + cpu1.children_system - cpu0.children_system
    print(f"Parent CPU {parent:.1f} s; children (workers, node, collectstatic) {children:.1f} s")
    print(f"Parent CPU of steps: {', '.join(f'{k} {v:.1f} s' for k, v in steps.items())}")
    print(f"{'route':32} {'pages':>7} {'CPU s':>8} {'ms/page':>8}")
    for name, (pages, cpu) in sorted(by_route.items(), key=lambda item: -item[1][1]):
        print(f"{name:32} {pages:7} {cpu:8.1f} {1000 * cpu / max(pages, 1):8.2f}")
    workers = defaultdict(list)
    for row in rows:
        workers[row["pid"]].append(row)
    for pid, chunks in sorted(workers.items()):
        busy = sum(chunk["end"] - chunk["start"] for chunk in chunks)
        first = min(chunk["start"] for chunk in chunks)
        last = max(chunk["end"] for chunk in chunks)
        print(f"worker {pid}: {len(chunks)} chunks, busy {busy:.1f} s, {first:.1f}-{last:.1f} s")
    print("longest chunks:")
    for row in sorted(rows, key=lambda row: -row["cpu"])[:12]:
        print(
            f"  {row['route']:32} {row['pages']:4} pages {row['cpu']:6.2f} CPU-s "
            f"{row['start']:6.1f}-{row['end']:6.1f} s"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
