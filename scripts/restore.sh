#!/usr/bin/env bash
# Restores a backup of backup.sh into a fresh single-node install (docs/backup.md). In the app
# image this is `email-rag-restore`.
#
#   restore.sh DIR [--force] [PART...]    parts: temporal mariadb files keys; default every part in DIR
#
# First SHA256SUMS is checked, then every part's target, and only then is anything written: a
# refused restore changes nothing.
#
# Environment:
#   TEMPORAL_DB        where Temporal's SQLite file goes (its --db-filename); refused when it exists,
#                      unless --force (and the server that used it is stopped: that is checked)
#   DATABASE_URL       the database to load the dump into (password also from DATABASE_PASSWORD or
#                      DATABASE_PASSWORD_FILE); created when missing, refused when it has tables
#                      unless --force (then emptied first)
#   RESTORE_ROOT       where the files go (default /: back to the paths they were taken from)
#   PAYLOAD_KEYS_FILE  or PAYLOAD_KEYS: the keys the restored install will run with; part `keys`
#                      checks that they hold every key of the backup (it writes no secret)
#
# Nothing may run on the restored state yet: start Temporal on TEMPORAL_DB, run `email-rag migrate`
# (a newer release adds its migrations), start the workers, check, then `email-rag intake resume`
# (the backup was taken with the intake paused).
set -Eeuo pipefail

TOOL=$(basename "$0" .sh)
lib=$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/backup-lib.sh
[ -f "$lib" ] || lib=/usr/local/lib/email-rag/backup-lib.sh
# shellcheck source=scripts/backup-lib.sh
. "$lib"
trap cleanup_paths EXIT

force=''
parts=()
dir=''
for arg in "$@"; do
  case "$arg" in
    --force) force=1 ;;
    --*) die "usage: $TOOL DIR [--force] [temporal] [mariadb] [files] [keys]" ;;
    *) if [ -z "$dir" ]; then dir=$arg; else check_part "$arg" && parts+=("$arg"); fi ;;
  esac
done
[ -n "$dir" ] || die "usage: $TOOL DIR [--force] [temporal] [mariadb] [files] [keys]"
[ -d "$dir" ] || die "$dir is not a folder"
[ "${dir%.partial}" = "$dir" ] || die "$dir is the folder of a backup run that did not complete"
[ -f "$dir/SHA256SUMS" ] || die "$dir/SHA256SUMS is missing: not a complete backup"
# Every part in the folder must be listed, and every listed file must match.
for part in "${ALL_PARTS[@]}"; do
  file=$(part_file "$part")
  [ ! -e "$dir/$file" ] || grep -Eq "^[0-9a-f]{64}  $file\$" "$dir/SHA256SUMS" || die "$dir/$file is not in SHA256SUMS"
done
(cd "$dir" && sha256sum --quiet --strict -c SHA256SUMS) || die "the backup in $dir does not match its SHA256SUMS: refused"
if [ ${#parts[@]} -eq 0 ]; then
  for part in "${ALL_PARTS[@]}"; do [ ! -f "$dir/$(part_file "$part")" ] || parts+=("$part"); done
fi
for part in "${parts[@]}"; do
  [ -f "$dir/$(part_file "$part")" ] || die "$dir/$(part_file "$part") is missing (the part '$part' was not taken in this backup)"
done

# A connection still holding the file: the server runs (SQLite gives an exclusive lock to nobody else).
sqlite_in_use() {
  local out
  out=$(sqlite3 "$1" ".timeout 3000" 'PRAGMA locking_mode=EXCLUSIVE' 'BEGIN EXCLUSIVE' 'ROLLBACK' 2>&1) && return 1
  [[ $out =~ locked|busy ]]
}

check_temporal() {
  [ -n "${TEMPORAL_DB:-}" ] || die "TEMPORAL_DB is not set: name the file the server will be started with (--db-filename)"
  command -v sqlite3 >/dev/null || die "sqlite3 is missing (Debian: apt-get install sqlite3)"
  if [ -e "$TEMPORAL_DB" ]; then
    [ -n "$force" ] || die "$TEMPORAL_DB exists: restore into a new file, or give --force to replace it (with its server stopped)"
    ! sqlite_in_use "$TEMPORAL_DB" || die "$TEMPORAL_DB is in use: stop the Temporal server first (compose: docker compose stop temporal)"
  fi
  # A leftover -wal file beside the target would be replayed over the restored pages.
  local f
  for f in "$TEMPORAL_DB-wal" "$TEMPORAL_DB-shm"; do
    [ ! -e "$f" ] || [ -n "$force" ] || die "$f exists: restore into a new file, or give --force (with the server stopped)"
  done
}

restore_temporal() {
  local target_dir
  target_dir=$(dirname "$TEMPORAL_DB")
  mkdir -p "$target_dir"
  rm -f -- "$TEMPORAL_DB" "$TEMPORAL_DB-wal" "$TEMPORAL_DB-shm"
  # Written beside the target and renamed: the server never finds half a file.
  cp "$dir/temporal.db" "$TEMPORAL_DB.restoring"
  CLEANUP+=("$TEMPORAL_DB.restoring")
  # The server's user owns its folder: as root, the file goes to that user too.
  [ "$(id -u)" != 0 ] || chown --reference="$target_dir" "$TEMPORAL_DB.restoring"
  chmod 0644 "$TEMPORAL_DB.restoring"
  mv "$TEMPORAL_DB.restoring" "$TEMPORAL_DB"
  say "temporal: $dir/temporal.db -> $TEMPORAL_DB"
}

check_mariadb() {
  local cnf database
  mariadb_connect
  local tables
  tables=$(mariadb --defaults-extra-file="$cnf" -N -B -e "SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = '${database//\'/\'\'}'") ||
    die "cannot reach the database of DATABASE_URL (above: the server's answer)"
  [ "$tables" = 0 ] || [ -n "$force" ] ||
    die "database $database has $tables table(s): restore into an empty or new database, or give --force to replace them"
}

restore_mariadb() {
  local cnf database quoted
  mariadb_connect
  quoted="\`${database//\`/\`\`}\`"
  # --force: the database emptied by dropping and creating it (the dump's tables only would leave
  # tables of a newer schema behind).
  [ -z "$force" ] || mariadb --defaults-extra-file="$cnf" -e "DROP DATABASE IF EXISTS $quoted"
  mariadb --defaults-extra-file="$cnf" -e "CREATE DATABASE IF NOT EXISTS $quoted CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci"
  mariadb --defaults-extra-file="$cnf" --default-character-set=utf8mb4 "$database" <"$dir/mariadb.sql" ||
    die "loading $dir/mariadb.sql into $database failed (above: the server's answer)"
  say "mariadb: $dir/mariadb.sql -> $database"
}

# The folders the backup took (the members of files.tar whose parent is not one).
top_members() {
  local -A seen=()
  local member
  while IFS= read -r member; do seen["${member%/}"]=1; done < <(tar -tf "$dir/files.tar")
  for member in "${!seen[@]}"; do [ -n "${seen[$(dirname "$member")]:-}" ] || echo "$member"; done
}

# A folder on a read-only mount (the configuration folder of the apps) would fail the unpacking
# half-way: one that holds what the backup holds already (put in place on the host) is left out,
# another is refused. Sets `keep_as_is`.
check_files() {
  local root=${RESTORE_ROOT:-/} top target scratch
  keep_as_is=()
  while IFS= read -r top; do
    target="${root%/}/$top"
    [ ! -e "$target" ] || [ -w "$target" ] && continue
    scratch=$(mktemp -d)
    CLEANUP+=("$scratch")
    tar -C "$scratch" -xf "$dir/files.tar" "$top"
    diff -r -q "$scratch/$top" "$target" >/dev/null ||
      die "$target cannot be written by uid $(id -u) (a read-only mount?) and differs from the backup: put the backup's copy in place (tar -xf files.tar $top), mount it read-write for the restore, set RESTORE_ROOT to unpack elsewhere, or leave the part 'files' out"
    keep_as_is+=("$top")
  done < <(top_members)
}

restore_files() {
  local root=${RESTORE_ROOT:-/} top
  local -a exclude=()
  mkdir -p "$root"
  for top in "${keep_as_is[@]}"; do
    exclude+=(--exclude="$top")
    say "files: $root${top} is read-only and as in the backup: left as it is"
  done
  # Modes come back as they were (token files 0600), owners too when run as root; existing files
  # of the same name are replaced.
  tar -C "$root" -xpf "$dir/files.tar" "${exclude[@]}" || die "extracting $dir/files.tar into $root failed"
  say "files: $(tar -tf "$dir/files.tar" "${exclude[@]}" | wc -l) entr(y/ies) -> $root"
}

# The keys are a secret of the new install (a compose secret, a key store): the restore does not
# write them, it refuses to go on while the install lacks a key the restored histories need.
check_keys() {
  local have missing='' entry
  have=$(payload_keys)
  [ -n "$have" ] ||
    die "PAYLOAD_KEYS_FILE (or PAYLOAD_KEYS) gives no payload keys: install $dir/payload_keys as the new install's key file first (compose: deploy/secrets/payload_keys)"
  while IFS= read -r entry; do
    [ -n "$entry" ] || continue
    grep -Fxq -- "$entry" <<<"$have" || missing+=" ${entry%%:*}"
  done < <(tr ',' '\n' <"$dir/payload_keys" | sed 's/^[[:space:]]*//; s/[[:space:]]*$//')
  [ -z "$missing" ] ||
    die "the install's payload keys lack key(s)$missing of the backup, without which its histories cannot be read: install $dir/payload_keys as its key file (compose: deploy/secrets/payload_keys) and run the restore again"
}

restore_keys() { say "keys: the install has every payload key of the backup"; }

# The keys first: without them nothing else of the backup is of use.
checks=()
[[ " ${parts[*]} " != *" keys "* ]] || checks+=(keys)
for part in "${parts[@]}"; do [ "$part" = keys ] || checks+=("$part"); done
for part in "${checks[@]}"; do "check_$part"; done
for part in "${parts[@]}"; do "restore_$part"; done
say "done; next: start Temporal on the restored file, email-rag migrate, the workers, email-rag mailboxes check (an OAuth2 mailbox whose provider retired the backup's refresh token: email-rag mailboxes authorize ID), then email-rag intake resume"
