#!/usr/bin/env bash
# Start Debian's PostgreSQL 15 for `make test-postgres` (.ci/run runs it on every change).
#
# Idempotent, and works on a fresh machine: installs the postgresql package when it is
# missing (waiting for apt's lock), creates the cluster if the package left none, starts
# it with pg_ctlcluster (there is no systemd here), then creates the role and the
# database when they do not exist. The cluster is made UTF-8 with the C.UTF-8 locale, so
# Chinese text is stored as is and pg_trgm finds trigrams in it.
#
# Environment: POSTGRES_ROLE (default awardsite), POSTGRES_PASSWORD (awardsite),
# POSTGRES_DB (awardsite_test). Run as root (it uses apt-get and su postgres).
set -euo pipefail

VERSION=15
ROLE=${POSTGRES_ROLE:-awardsite}
PASSWORD=${POSTGRES_PASSWORD:-awardsite}
DB=${POSTGRES_DB:-awardsite_test}
export LANG=C.UTF-8 LC_ALL=C.UTF-8

if [ ! -x "/usr/lib/postgresql/$VERSION/bin/postgres" ]; then
    apt-get -o DPkg::Lock::Timeout=600 update -qq
    DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -qq \
        "postgresql-$VERSION" postgresql-common
fi
if ! pg_lsclusters --no-header | awk '{print $1, $2}' | grep -qx "$VERSION main"; then
    pg_createcluster --locale C.UTF-8 --encoding UTF8 "$VERSION" main
fi
status=$(pg_lsclusters --no-header | awk -v v="$VERSION" '$1 == v && $2 == "main" {print $4}')
if [ "$status" != "online" ]; then
    pg_ctlcluster "$VERSION" main start
fi

psql_admin() {
    su postgres -c "psql --quiet --no-psqlrc --set ON_ERROR_STOP=1 --tuples-only --no-align $*"
}
encoding=$(psql_admin "-c 'SHOW server_encoding'")
if [ "$encoding" != "UTF8" ]; then
    echo "PostgreSQL $VERSION main uses $encoding; the site needs UTF8 (recreate the cluster" \
        "with: pg_createcluster --locale C.UTF-8 $VERSION main)" >&2
    exit 1
fi
psql_admin <<SQL
DO \$\$
BEGIN
    IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '$ROLE') THEN
        CREATE ROLE "$ROLE" LOGIN CREATEDB PASSWORD '$PASSWORD';
    END IF;
END
\$\$;
ALTER ROLE "$ROLE" LOGIN CREATEDB;
SQL
if [ -z "$(psql_admin "-c \"SELECT 1 FROM pg_database WHERE datname = '$DB'\"")" ]; then
    psql_admin "-c 'CREATE DATABASE \"$DB\" OWNER \"$ROLE\"'"
fi
echo "PostgreSQL $VERSION: postgres://$ROLE:***@localhost:$(pg_lsclusters --no-header | awk -v v="$VERSION" '$1 == v && $2 == "main" {print $3}')/$DB"
