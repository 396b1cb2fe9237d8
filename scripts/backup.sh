#!/usr/bin/env bash
# Backup of a single-node email-rag install: Temporal's persistence (the SQLite file), MariaDB, the
# files the configuration names and the payload keys, in the order that keeps them consistent
# (docs/backup.md). In the app image this is `email-rag-backup`.
#
#   backup.sh DIR [PART...]                   one backup into DIR; parts in the order given
#                                             (temporal mariadb files keys; default the first three)
#   backup.sh --once [--keep N] [PART...]     one backup into a new folder of BACKUP_DIR named by
#                                             its UTC time; then the oldest beyond N are deleted
#   backup.sh --every 6h --keep N [PART...]   the same at start and every 6h (s, m, h, d) until stopped
#   backup.sh [PART...]                       with BACKUP_INTERVAL set: --every (the backup service)
#   backup.sh --check                         exit 1 unless the newest complete backup is younger than
#                                             two intervals (the service's health check)
#
# With --once and --every the parts default to all four (keys when the install has payload keys),
# the intake is paused for the Temporal and MariaDB parts unless --no-pause-intake, and a folder is
# written as NAME.partial and renamed to NAME only when complete: a failed or cut run never leaves
# a folder that looks complete (the next run removes a .partial left by a killed one).
#
# Environment:
#   TEMPORAL_DB         Temporal's SQLite file (its --db-filename); part `temporal`
#   DATABASE_URL        the product's database (mariadb://user[:password]@host:port/name), its
#                       password also from DATABASE_PASSWORD or DATABASE_PASSWORD_FILE; part `mariadb`
#   BACKUP_FILES        files and folders to keep, separated by ':' (the mailbox registry, OAuth2
#                       token files, the knowledge folder, routing/autonomy/calendar files); part `files`;
#                       one written `?PATH` is left out (and said so) while it does not exist
#   PAYLOAD_KEYS_FILE   or PAYLOAD_KEYS: the payload keys; part `keys`
#   BACKUP_DIR          where --once and --every write (a volume); BACKUP_INTERVAL and BACKUP_KEEP
#                       stand for --every and --keep, BACKUP_PAUSE_INTAKE=false for --no-pause-intake
#
# DIR mode leaves the intake to you: pause it first (`email-rag intake pause`) or stop the workers.
# A part already in DIR is refused (a second run of another part adds to it).
set -Eeuo pipefail

TOOL=$(basename "$0" .sh)
lib=$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/backup-lib.sh
[ -f "$lib" ] || lib=/usr/local/lib/email-rag/backup-lib.sh
# shellcheck source=scripts/backup-lib.sh
. "$lib"
trap cleanup_paths EXIT

stamp() { date -u +%Y-%m-%dT%H:%M:%SZ; }
note() { printf '%s\t%s\n' "$(stamp)" "$*" >>"$dir/MANIFEST"; }
refuse_existing() { [ ! -e "$dir/$1" ] || die "$dir/$1 exists already: use an empty folder for a new backup"; }

backup_temporal() {
  [ -n "${TEMPORAL_DB:-}" ] ||
    die "TEMPORAL_DB is not set: name the server's --db-filename, or (a Temporal cluster) back up its database with its own tools now, before the MariaDB part"
  [ -f "$TEMPORAL_DB" ] || die "TEMPORAL_DB $TEMPORAL_DB is not a file"
  command -v sqlite3 >/dev/null || die "sqlite3 is missing (Debian: apt-get install sqlite3)"
  refuse_existing temporal.db
  local mode check
  # A reader of a database in WAL mode writes its -shm file: the folder must be writable.
  mode=$(sqlite3 "$TEMPORAL_DB" ".timeout 30000" 'PRAGMA journal_mode') ||
    die "cannot read $TEMPORAL_DB (SQLite needs write access to its folder to read a database in WAL mode)"
  # One read transaction: the copy is the database as it was when it began, WAL included, while
  # the server goes on writing (the backup API would start over at each write of the server).
  sqlite3 "$TEMPORAL_DB" ".timeout 30000" "VACUUM INTO '${dir//\'/\'\'}/temporal.db'" ||
    die "SQLite's VACUUM INTO of $TEMPORAL_DB failed"
  check=$(sqlite3 "$dir/temporal.db" 'PRAGMA integrity_check')
  [ "$check" = ok ] || die "the copy of $TEMPORAL_DB fails SQLite's integrity check: $check"
  note "temporal	sqlite VACUUM INTO of $TEMPORAL_DB (journal_mode $mode)"
  say "temporal: $TEMPORAL_DB ($mode) -> $dir/temporal.db"
}

backup_mariadb() {
  command -v mariadb-dump >/dev/null || die "mariadb-dump is missing (Debian: apt-get install mariadb-client)"
  refuse_existing mariadb.sql
  local cnf database
  mariadb_connect
  CLEANUP+=("$dir/mariadb.sql.part")
  # One transaction: a consistent snapshot of every (InnoDB) table without locking out the workers.
  # No --databases: the dump loads into a database of any name.
  mariadb-dump --defaults-extra-file="$cnf" --single-transaction --quick --hex-blob --routines --triggers \
    --events --default-character-set=utf8mb4 "$database" >"$dir/mariadb.sql.part" ||
    die "mariadb-dump of $database failed (above: the server's answer)"
  mv "$dir/mariadb.sql.part" "$dir/mariadb.sql"
  note "mariadb	mariadb-dump --single-transaction of $database"
  say "mariadb: $database -> $dir/mariadb.sql"
}

backup_files() {
  [ -n "${BACKUP_FILES:-}" ] || die "BACKUP_FILES is not set: name the registry, token files, knowledge folder, … separated by ':'"
  refuse_existing files.tar
  local -a paths=() listed=()
  local p
  IFS=: read -r -a listed <<<"$BACKUP_FILES"
  for p in "${listed[@]}"; do
    [ -n "$p" ] || continue
    # `?PATH`: a part of the stack that may not run (spamd scaled to 0 has no Bayes database yet).
    if [ "${p#\?}" != "$p" ]; then
      p=${p#\?}
      [ -e "$p" ] || { say "files: $p does not exist (optional): left out"; continue; }
    fi
    [ -e "$p" ] || die "BACKUP_FILES names $p, which does not exist"
    p=$(realpath "$p")
    paths+=("${p#/}")
  done
  # Relative to /, with owners and modes (token files stay 0600): restore puts them back in place.
  tar -C / -cpf "$dir/files.tar" "${paths[@]}" || die "tar of ${paths[*]/#//} failed"
  note "files	${paths[*]/#//}"
  say "files: ${#paths[@]} path(s) -> $dir/files.tar"
}

backup_keys() {
  refuse_existing payload_keys
  local keys
  keys=$(payload_keys)
  [ -n "$keys" ] || die "neither PAYLOAD_KEYS nor PAYLOAD_KEYS_FILE gives payload keys: with payloads unencrypted, leave the part 'keys' out"
  # The keys as the install reads them: one line, the first key the active one when PAYLOAD_KEY_ID is unset.
  printf '%s\n' "$(paste -sd, <<<"$keys")" >"$dir/payload_keys"
  note "keys	payload keys $(cut -d: -f1 <<<"$keys" | paste -sd' ') (from ${PAYLOAD_KEYS_FILE:-PAYLOAD_KEYS})"
  say "keys: $(wc -l <<<"$keys") payload key(s) -> $dir/payload_keys"
}

# SHA256SUMS over every part in the folder: restore refuses a folder whose parts do not match it.
write_sums() {
  local -a present=()
  local part
  for part in "${ALL_PARTS[@]}"; do [ ! -f "$dir/$(part_file "$part")" ] || present+=("$(part_file "$part")"); done
  (cd "$dir" && sha256sum -- "${present[@]}" >SHA256SUMS)
}

# One backup into `dir` (everything in it is as secret as the database and the keys it holds).
take_parts() {
  umask 077
  mkdir -p "$dir"
  chmod 700 "$dir"
  local part
  for part in "$@"; do "backup_$part"; done
  write_sums
}

# DIR mode when the first argument is neither an option nor a part (a folder named like a part: ./files).
if [ "${1:-}" != "" ] && [ "${1#--}" = "$1" ] && ! [[ " ${ALL_PARTS[*]} " == *" $1 "* ]]; then
  dir=$1
  shift
  parts=("$@")
  [ ${#parts[@]} -gt 0 ] || parts=(temporal mariadb files)
  for part in "${parts[@]}"; do check_part "$part"; done
  take_parts "${parts[@]}"
  say "done: $dir (MANIFEST, SHA256SUMS)"
  exit 0
fi

# shellcheck source=scripts/backup-schedule.sh
. "$(dirname "$lib")/backup-schedule.sh"
scheduled_main "$@"
