# What the backup and restore scripts share; sourced, with TOOL set to the script's name. In the
# source tree they sit beside it; in the app image in /usr/local/lib/email-rag (the commands are
# /usr/local/bin/email-rag-backup and email-rag-restore).
# shellcheck shell=bash disable=SC2016  # the node program is single-quoted on purpose

# shellcheck source=scripts/console.sh
. "$(dirname "${BASH_SOURCE[0]}")/console.sh"

# The parts of a backup and the file each leaves in its folder, in the order they are taken:
# Temporal's snapshot before MariaDB's dump (docs/backup.md explains why).
ALL_PARTS=(temporal mariadb files keys)
part_file() {
  case "$1" in
    temporal) echo temporal.db ;;
    mariadb) echo mariadb.sql ;;
    files) echo files.tar ;;
    keys) echo payload_keys ;;
  esac
}

# Files and folders to remove when the script ends, however it ends (one EXIT trap for all).
CLEANUP=()
cleanup_paths() {
  local p
  for p in "${CLEANUP[@]}"; do rm -rf -- "$p"; done
}

# The first line of a file, without its line end (as the image's entrypoint reads *_FILE secrets).
first_line() {
  local line=''
  IFS= read -r line <"$1" || true
  printf '%s' "$line"
}

# secret NAME: the value of NAME, or the first line of the file NAME_FILE names (NAME wins when
# set), as the image's entrypoint reads the product's secrets; empty when neither is set.
secret() {
  local name=$1 file_var="${1}_FILE"
  if [ -n "${!name+set}" ]; then
    printf '%s' "${!name}"
    return
  fi
  local file=${!file_var:-}
  [ -n "$file" ] || return 0
  [ -r "$file" ] || die "$file_var=$file is not a readable file (a secret uid $(id -u) can read)"
  first_line "$file"
}

# mariadb_login FILE: writes a client option file with the credentials of DATABASE_URL to FILE
# (mode 0600: the password never appears on a command line) and prints the database name. The
# password is the URL's, or DATABASE_PASSWORD(_FILE)'s when given (the compose file's URL has none).
mariadb_login() {
  local password
  password=$(secret DATABASE_PASSWORD)
  DB_PASSWORD=$password DATABASE_URL=${DATABASE_URL:-} CNF=$1 node -e '
    const fs = require("node:fs");
    let u;
    try { u = new URL(process.env.DATABASE_URL); } catch { process.exit(2); }
    if (!["mariadb:", "mysql:"].includes(u.protocol)) process.exit(2);
    const q = (s) => "\"" + s.replace(/\\/g, "\\\\").replace(/"/g, "\\\"") + "\"";
    const lines = ["[client]", `host=${q(u.hostname.replace(/^\[|\]$/g, ""))}`, `port=${u.port || 3306}`,
      `user=${q(decodeURIComponent(u.username) || "root")}`];
    const password = process.env.DB_PASSWORD || decodeURIComponent(u.password);
    if (password) lines.push(`password=${q(password)}`);
    fs.writeFileSync(process.env.CNF, lines.join("\n") + "\n", { mode: 0o600 });
    console.log(decodeURIComponent(u.pathname.slice(1)) || "email_rag");
  ' || die "DATABASE_URL is not a mariadb:// or mysql:// URL"
}

# A client option file for DATABASE_URL, removed at exit; sets `cnf` and `database`.
mariadb_connect() {
  command -v mariadb >/dev/null || die "the mariadb client is missing (Debian: apt-get install mariadb-client)"
  cnf=$(mktemp)
  CLEANUP+=("$cnf")
  database=$(mariadb_login "$cnf")
}

# check_part NAME: dies unless NAME is a part.
check_part() {
  case "$1" in temporal | mariadb | files | keys) ;; *) die "unknown part '$1' (temporal, mariadb, files, keys)" ;; esac
}

# The payload keys of this install (PAYLOAD_KEYS, or the first line of PAYLOAD_KEYS_FILE), one
# `id:key` a line.
payload_keys() {
  secret PAYLOAD_KEYS | tr ',' '\n' | sed 's/^[[:space:]]*//; s/[[:space:]]*$//' | sed '/^$/d'
}
