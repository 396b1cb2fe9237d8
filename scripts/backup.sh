#!/usr/bin/env bash
# Backup of a single-node email-rag install: Temporal's persistence (the dev server's SQLite file),
# MariaDB and the files the configuration names, into one folder, in the order that keeps them
# consistent (docs/backup.md). The same commands are written out there for hosts without this file.
#
#   scripts/backup.sh DIR [temporal] [mariadb] [files]     parts in the order given; default all three
#
# Environment:
#   TEMPORAL_DB    the dev server's SQLite file (its --db-filename); part `temporal`
#   DATABASE_URL   the product's database (mariadb://user:password@host:port/name); part `mariadb`
#   BACKUP_FILES   files and folders to keep, separated by ':' (the file with PAYLOAD_KEYS, the
#                  registry, OAuth2 token files, the knowledge folder, routing/autonomy/calendar
#                  files, TLS files); part `files`
#
# Run the parts in this order, and pause the intake first (`email-rag intake pause`) or stop the
# workers: Temporal's snapshot before MariaDB's dump, so that every send Temporal might repeat after
# a restore is already in the dump's send ledger. DIR gets the parts, MANIFEST and SHA256SUMS; a
# part already in DIR is refused (a second run of another part adds to it).
set -Eeuo pipefail

TOOL=backup
# shellcheck source=scripts/backup-lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/backup-lib.sh"

read_parts "$@"

# Everything in DIR is as secret as the database and the keys it holds.
umask 077
mkdir -p "$dir"
chmod 700 "$dir"

stamp() { date -u +%Y-%m-%dT%H:%M:%SZ; }
note() { printf '%s\t%s\n' "$(stamp)" "$*" >>"$dir/MANIFEST"; }
refuse_existing() { [ ! -e "$dir/$1" ] || die "$dir/$1 exists already: use an empty folder for a new backup"; }

backup_temporal() {
  [ -n "${TEMPORAL_DB:-}" ] ||
    die "TEMPORAL_DB is not set: name the dev server's --db-filename, or (a Temporal cluster) back up its database with its own tools now, before the MariaDB part"
  [ -f "$TEMPORAL_DB" ] || die "TEMPORAL_DB $TEMPORAL_DB is not a file"
  command -v sqlite3 >/dev/null || die "sqlite3 is missing (Debian: apt-get install sqlite3)"
  refuse_existing temporal.db
  # SQLite's online backup: one consistent copy while the server runs (WAL included); a plain
  # file copy of a database in WAL mode can miss committed pages or tear.
  sqlite3 "$TEMPORAL_DB" ".timeout 30000" ".backup '$dir/temporal.db'"
  local check
  check=$(sqlite3 "$dir/temporal.db" 'PRAGMA integrity_check')
  [ "$check" = ok ] || die "the copy of $TEMPORAL_DB fails SQLite's integrity check: $check"
  note "temporal	sqlite online backup of $TEMPORAL_DB"
  say "temporal: $TEMPORAL_DB -> $dir/temporal.db"
}

backup_mariadb() {
  command -v mariadb-dump >/dev/null || die "mariadb-dump is missing (Debian: apt-get install mariadb-client)"
  refuse_existing mariadb.sql
  local database
  CNF=$(mktemp)
  trap 'rm -f "$CNF"' EXIT
  database=$(mariadb_login "$CNF")
  # One transaction: a consistent snapshot of every (InnoDB) table without locking out the workers.
  # No --databases: the dump loads into a database of any name.
  mariadb-dump --defaults-extra-file="$CNF" --single-transaction --quick --hex-blob --routines --triggers \
    --events --default-character-set=utf8mb4 "$database" >"$dir/mariadb.sql.part"
  mv "$dir/mariadb.sql.part" "$dir/mariadb.sql"
  note "mariadb	mariadb-dump --single-transaction of $database"
  say "mariadb: $database -> $dir/mariadb.sql"
}

backup_files() {
  [ -n "${BACKUP_FILES:-}" ] || die "BACKUP_FILES is not set: name the key file, registry, token files, knowledge folder, … separated by ':'"
  refuse_existing files.tar
  local -a paths=()
  local p
  IFS=: read -r -a listed <<<"$BACKUP_FILES"
  for p in "${listed[@]}"; do
    [ -n "$p" ] || continue
    [ -e "$p" ] || die "BACKUP_FILES names $p, which does not exist"
    p=$(realpath "$p")
    paths+=("${p#/}")
  done
  # Relative to /, with owners and modes (token files stay 0600): restore puts them back in place.
  tar -C / -cpf "$dir/files.tar" "${paths[@]}"
  note "files	${paths[*]/#//}"
  say "files: ${#paths[@]} path(s) -> $dir/files.tar"
}

for part in "${parts[@]}"; do "backup_$part"; done
(cd "$dir" && sha256sum -- temporal.db mariadb.sql files.tar 2>/dev/null >SHA256SUMS || true)
say "done: $dir (MANIFEST, SHA256SUMS)"
