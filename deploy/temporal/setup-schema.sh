#!/bin/sh
# Creates Temporal's two PostgreSQL databases and brings their schemas to the version of this
# admin-tools image. Safe to run again on every `docker compose up` and after an image upgrade.
set -eu
: "${POSTGRES_SEEDS:?POSTGRES_SEEDS is required}"
: "${POSTGRES_USER:?POSTGRES_USER is required}"
: "${SQL_PASSWORD:?SQL_PASSWORD is required}"
PORT=${DB_PORT:-5432}
SCHEMA=/etc/temporal/schema/postgresql/v12

until nc -z -w 5 "$POSTGRES_SEEDS" "$PORT"; do
  echo "waiting for PostgreSQL at $POSTGRES_SEEDS:$PORT"
  sleep 2
done

sql() {
  db=$1
  shift
  temporal-sql-tool --plugin postgres12 --ep "$POSTGRES_SEEDS" -u "$POSTGRES_USER" -p "$PORT" --db "$db" "$@"
}

for pair in temporal:temporal temporal_visibility:visibility; do
  db=${pair%%:*}
  dir=$SCHEMA/${pair#*:}/versioned
  sql "$db" create || echo "database $db exists"
  # update-schema fails on a database that was never set up; setup-schema -v 0.0 must run only then
  # (on a set-up database it would reset the recorded version).
  if ! sql "$db" update-schema -d "$dir"; then
    sql "$db" setup-schema -v 0.0
    sql "$db" update-schema -d "$dir"
  fi
done
echo 'Temporal schemas are up to date'
