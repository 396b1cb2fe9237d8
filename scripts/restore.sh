#!/usr/bin/env bash
# Restores what scripts/backup.sh wrote into a fresh single-node install (docs/backup.md).
#
#   scripts/restore.sh DIR [temporal] [mariadb] [files]    parts in the order given; default all three
#
# Environment:
#   TEMPORAL_DB    where the dev server's SQLite file goes (its --db-filename); must not exist yet
#   DATABASE_URL   the database to load the dump into; created when missing, refused when it has tables
#   RESTORE_ROOT   where the files go (default /: back to the paths they were taken from)
#
# Nothing may run on the restored state yet: start the Temporal dev server on TEMPORAL_DB, run
# `email-rag migrate` (a newer release adds its migrations), start the workers, check, then
# `email-rag intake resume` if the intake was paused for the backup.
set -Eeuo pipefail

TOOL=restore
# shellcheck source=scripts/backup-lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/backup-lib.sh"

read_parts "$@"
[ -f "$dir/SHA256SUMS" ] || die "$dir/SHA256SUMS is missing: not a folder written by scripts/backup.sh"
(cd "$dir" && sha256sum --quiet -c SHA256SUMS) || die "the backup in $dir does not match its SHA256SUMS"

restore_temporal() {
  [ -f "$dir/temporal.db" ] || die "$dir/temporal.db is missing (its Temporal part was not taken here)"
  [ -n "${TEMPORAL_DB:-}" ] || die "TEMPORAL_DB is not set: name the file the dev server will be started with (--db-filename)"
  # A leftover -wal file beside the target would be replayed over the restored pages.
  local f
  for f in "$TEMPORAL_DB" "$TEMPORAL_DB-wal" "$TEMPORAL_DB-shm"; do
    [ ! -e "$f" ] || die "$f exists: restore into a new file (and stop any server that uses it)"
  done
  mkdir -p "$(dirname "$TEMPORAL_DB")"
  cp "$dir/temporal.db" "$TEMPORAL_DB"
  say "temporal: $dir/temporal.db -> $TEMPORAL_DB"
}

restore_mariadb() {
  [ -f "$dir/mariadb.sql" ] || die "$dir/mariadb.sql is missing (its MariaDB part was not taken here)"
  command -v mariadb >/dev/null || die "the mariadb client is missing (Debian: apt-get install mariadb-client)"
  local database tables
  CNF=$(mktemp)
  trap 'rm -f "$CNF"' EXIT
  database=$(mariadb_login "$CNF")
  mariadb --defaults-extra-file="$CNF" -e "CREATE DATABASE IF NOT EXISTS \`${database//\`/\`\`}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci"
  tables=$(mariadb --defaults-extra-file="$CNF" -N -B -e "SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = DATABASE()" "$database")
  [ "$tables" = 0 ] || die "database $database has $tables table(s): restore into an empty or new database"
  mariadb --defaults-extra-file="$CNF" --default-character-set=utf8mb4 "$database" <"$dir/mariadb.sql"
  say "mariadb: $dir/mariadb.sql -> $database"
}

restore_files() {
  [ -f "$dir/files.tar" ] || die "$dir/files.tar is missing (its files part was not taken here)"
  local root=${RESTORE_ROOT:-/}
  mkdir -p "$root"
  # Modes come back as they were (token files 0600); existing files of the same name are replaced.
  tar -C "$root" -xpf "$dir/files.tar"
  say "files: $(tar -tf "$dir/files.tar" | wc -l) entr(y/ies) -> $root"
}

for part in "${parts[@]}"; do "restore_$part"; done
say "done; next: start Temporal on the restored file, email-rag migrate, the workers, then email-rag intake resume"
