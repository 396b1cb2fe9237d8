# What scripts/backup.sh and scripts/restore.sh share; sourced, with TOOL set to the script's name.
# shellcheck shell=bash disable=SC2016  # the node program is single-quoted on purpose

# shellcheck source=scripts/console.sh
. "$(dirname "${BASH_SOURCE[0]}")/console.sh"

# mariadb_login FILE: writes a client option file with the credentials of DATABASE_URL to FILE
# (mode 0600: the password never appears on a command line) and prints the database name.
mariadb_login() {
  DATABASE_URL=${DATABASE_URL:-} CNF=$1 node -e '
    const fs = require("node:fs");
    let u;
    try { u = new URL(process.env.DATABASE_URL); } catch { process.exit(2); }
    if (!["mariadb:", "mysql:"].includes(u.protocol)) process.exit(2);
    const q = (s) => "\"" + s.replace(/\\/g, "\\\\").replace(/"/g, "\\\"") + "\"";
    const lines = ["[client]", `host=${q(u.hostname.replace(/^\[|\]$/g, ""))}`, `port=${u.port || 3306}`,
      `user=${q(decodeURIComponent(u.username) || "root")}`];
    if (u.password) lines.push(`password=${q(decodeURIComponent(u.password))}`);
    fs.writeFileSync(process.env.CNF, lines.join("\n") + "\n", { mode: 0o600 });
    console.log(decodeURIComponent(u.pathname.slice(1)) || "email_rag");
  ' || die "DATABASE_URL is not a mariadb:// or mysql:// URL"
}

# The arguments of both scripts: DIR, then the parts to take or restore (all three when none is named).
# Sets `dir` and `parts`.
read_parts() {
  [ $# -ge 1 ] || die "usage: scripts/$TOOL.sh DIR [temporal] [mariadb] [files]"
  dir=$1
  shift
  parts=("$@")
  [ ${#parts[@]} -gt 0 ] || parts=(temporal mariadb files)
  local part
  for part in "${parts[@]}"; do
    case "$part" in temporal | mariadb | files) ;; *) die "unknown part '$part' (temporal, mariadb, files)" ;; esac
  done
}
