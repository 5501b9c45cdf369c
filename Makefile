# The two set-up commands (see README.md): `make run` and `make test`.
# Everything installs into .venv/; nothing is installed by hand.

PYTHON ?= python3.11
VENV := .venv
PY := $(VENV)/bin/python
PORT ?= 8000
# Development only: a fixed secret key for the local server and the tests.
DEV_ENV := DJANGO_INSECURE_DEV=true

.PHONY: run test install messages data check clean vendor browser tools audit bench-import \
	redis nginx bench test-postgres mutate screenshots

$(VENV)/.installed: pyproject.toml
	@command -v $(PYTHON) >/dev/null || { echo "$(PYTHON) is required (see README.md)"; exit 1; }
	$(PYTHON) -m venv $(VENV)
	$(VENV)/bin/pip install --quiet --upgrade "pip>=25.1"
	$(VENV)/bin/pip install --quiet --editable . --group dev
	touch $@

install: $(VENV)/.installed

# Catalogues are compiled by GNU gettext's msgfmt, which Django requires.
messages: install
	@command -v msgfmt >/dev/null || apt-get install -y -qq gettext || { \
		echo "msgfmt (GNU gettext) is required: install the gettext package"; exit 1; }
	$(DEV_ENV) $(PY) manage.py compilemessages --ignore=.venv --verbosity 0

# The shipped content goes in through import_conference, not loaddata, so running
# `make run` again keeps what editors changed in the admin (listed as conflicts) and
# survives a new author order; the importer also gives every object it imports a first
# version in the admin's history, so an editor's first change can be undone.
data: messages
	$(DEV_ENV) $(PY) manage.py migrate --noinput --verbosity 0
	$(DEV_ENV) $(PY) manage.py import_conference fixtures/icml.json --verbosity 0
	$(DEV_ENV) $(PY) manage.py make_share_cards --verbosity 0

run: data
	$(DEV_ENV) $(PY) manage.py collectstatic --noinput --verbosity 0
	$(DEV_ENV) $(PY) manage.py runserver 127.0.0.1:$(PORT)

# Browser tests drive Debian's Chromium (never a downloaded browser) with a CJK font.
browser:
	@command -v chromium >/dev/null && fc-list :lang=zh | grep -q . || { \
		apt-get update -qq && apt-get install -y -qq chromium fonts-wqy-microhei; } || { \
		echo "the browser tests need Debian's chromium and fonts-wqy-microhei"; exit 1; }

# Quality tools from npm (package.json, package-lock.json): axe-core and the Nu HTML
# Checker for `make test`, Lighthouse for `make audit`. The checker runs on Java.
node_modules/.installed: package.json package-lock.json
	@command -v npm >/dev/null || { apt-get update -qq && apt-get install -y -qq npm; } || { \
		echo "npm (Node.js) is required: install the npm package"; exit 1; }
	npm ci --no-audit --no-fund --ignore-scripts
	touch $@

tools: node_modules/.installed
	@command -v java >/dev/null || { apt-get update -qq && apt-get install -y -qq default-jre-headless; } || { \
		echo "Java is required by the HTML checker: install default-jre-headless"; exit 1; }

# The page cache's tests also run on Debian's redis-server (tests/pagecache/test_caching.py).
redis:
	@command -v redis-server >/dev/null || { apt-get update -qq && apt-get install -y -qq redis-server; } || { \
		echo "the Redis cache tests need Debian's redis-server"; exit 1; }

# docs/operations.md's nginx block is tried on publish_site's output (tests/publishing/test_publish_nginx.py).
nginx:
	@test -x /usr/sbin/nginx || { apt-get update -qq && apt-get install -y -qq nginx; } || { \
		echo "the published site's tests need Debian's nginx"; exit 1; }

# CI speed: both suites run on every core with pytest-xdist (CI has 2). pytest-django
# gives each worker its own test database (SQLite in memory; test_<name>_gw0, _gw1 on
# PostgreSQL); live servers and the Redis server take free ports. worksteal hands
# waiting tests to an idle worker, so the few long tests do not leave a core idle at
# the end. PYTEST_WORKERS=0 runs in one process (e.g. to debug).
PYTEST_WORKERS ?= auto
PYTEST_PARALLEL := -n $(PYTEST_WORKERS) --dist worksteal

# lint-imports: the dependency rule between the apps ([tool.importlinter] in pyproject.toml).
# bandit: the security linter, configured in pyproject.toml ([tool.bandit]).
test: messages browser tools redis nginx
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/lint-imports --no-cache
	$(VENV)/bin/bandit -c pyproject.toml -r awardsite catalogue editorial importing opendata pages pagecache publishing backups scripts benchmarks --quiet
	$(DEV_ENV) $(PY) manage.py check
	$(DEV_ENV) $(PY) manage.py makemigrations --check --dry-run
	$(VENV)/bin/pytest $(PYTEST_PARALLEL)

# The suite again on PostgreSQL 15, the production database. scripts/postgres.sh
# installs Debian's PostgreSQL when missing, starts it and creates the role and the
# database (see the script for POSTGRES_ROLE, POSTGRES_PASSWORD, POSTGRES_DB). The
# browser tests run once, under `make test`: they check what Chromium sees, which the
# database does not change, and would add minutes here. The tests marked
# no_database (pyproject.toml) run once too: they never get the test database (tests/conftest.py
# refuses the marker on one that does), and a subprocess they start runs on a SQLite
# file of its own or on none, so a second run here would repeat the first.
POSTGRES_DB ?= awardsite_test
POSTGRES_URL ?= postgres://awardsite:awardsite@localhost:5432/$(POSTGRES_DB)

$(VENV)/.postgres: $(VENV)/.installed
	$(VENV)/bin/pip install --quiet --editable ".[postgres]"
	touch $@

test-postgres: messages $(VENV)/.postgres
	POSTGRES_DB=$(POSTGRES_DB) bash scripts/postgres.sh
	DATABASE_URL=$(POSTGRES_URL) $(DEV_ENV) $(PY) manage.py makemigrations --check --dry-run
	DATABASE_URL=$(POSTGRES_URL) $(VENV)/bin/pytest $(PYTEST_PARALLEL) -m "not browser and not no_database"

# Lighthouse 12 (mobile defaults) on every kind of public page in both languages, on a
# throwaway copy of the shipped content (scripts/audit.py): prints one table of the
# performance, accessibility, best-practices and SEO scores; fails below 0.95.
# AUDIT_ARGS passes options, e.g. AUDIT_ARGS="--port 8400 --runs 3 --only /zh-hans/".
audit: messages browser tools
	$(PY) scripts/audit.py $(AUDIT_ARGS)

# Full-page screenshots of every kind of page at 390 and 1,280 px in both languages, and
# the admin's main pages as an editor sees them (scripts/screenshots.py), in DIR:
# `make screenshots DIR=/tmp/shots` (SHOTS_ARGS passes options, e.g. "--dark --only paper").
DIR ?= screenshots
screenshots: messages browser
	$(PY) scripts/screenshots.py "$(DIR)" $(SHOTS_ARGS)

# Times import_conference on a synthetic 5,000-paper conference (target: import < 60 s).
bench-import: install
	$(DEV_ENV) $(PY) benchmarks/import_conference.py

# Public pages under load against a trivial view, cached and uncached: prints one table
# and whether issue 13's targets are met (see benchmarks/page_load.py). BENCH_ARGS passes
# options, e.g. BENCH_ARGS="--papers 50000" or BENCH_ARGS="--postgres postgres://...
# --postgres-redis redis://127.0.0.1:6379/0" (PostgreSQL with a Redis page cache).
bench: messages
	@command -v wrk >/dev/null && test -x /usr/sbin/nginx || { apt-get update -qq && \
		apt-get install -y -qq wrk nginx; } || { \
		echo "the benchmark needs Debian's wrk and nginx"; exit 1; }
	$(VENV)/bin/pip install --quiet --editable ".[postgres]"
	$(PY) benchmarks/page_load.py $(BENCH_ARGS)

# Mutation testing of the security-critical code (issue 28) with Cosmic Ray: the sanitiser,
# who gets a cached page, the import rules, edit tokens, the published filter and CSV
# writing. scripts/mutate.py holds the one list of what is mutated (modules, or functions
# in them) and of the tests each mutant runs, and prints killed / total per module and
# every surviving mutant as a diff. Mutants are written into the files one at a time:
# leave the checkout alone while it runs (the files are put back at the end). The whole
# run is about 640 mutants at 5 to 15 s each, one to three hours on 2 cores; MUTATE_ARGS
# picks targets or runs pytest-xdist per mutant, e.g. MUTATE_ARGS="--only sanitiser csv"
# (37 and 159 mutants) or "--workers 2"; "--list" names the targets.
mutate: messages
	$(PY) scripts/mutate.py $(MUTATE_ARGS)

clean:
	rm -rf $(VENV) db.sqlite3 staticfiles node_modules .mutate

# Refresh the committed third-party browser assets from the npm registry.
vendor:
	npm install --no-audit --no-fund --ignore-scripts
	mkdir -p static/vendor/jquery-ui
	cp node_modules/jquery-ui/dist/jquery-ui.min.js node_modules/jquery-ui/LICENSE.txt static/vendor/jquery-ui/
	mkdir -p static/vendor/minisearch
	cp node_modules/minisearch/dist/es/index.js node_modules/minisearch/dist/es/index.js.map node_modules/minisearch/LICENSE.txt static/vendor/minisearch/
