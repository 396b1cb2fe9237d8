#!/bin/sh
# Debian's mysqld_exporter for the stack's MariaDB: it signs in as the product's own user (enough
# for `mysql_up` and the global status figures; the replication collectors need more and say so in
# the log) with the password from the secret file, written to a client option file that only this
# user can read.
set -eu
: "${MARIADB_HOST:=mariadb}" "${MARIADB_USER:?set MARIADB_USER}" "${MARIADB_PASSWORD_FILE:?set MARIADB_PASSWORD_FILE}"
password=''
IFS= read -r password <"$MARIADB_PASSWORD_FILE" || true
umask 077
cnf=$(mktemp)
printf '[client]\nhost=%s\nport=%s\nuser=%s\npassword="%s"\n' "$MARIADB_HOST" "${MARIADB_PORT:-3306}" "$MARIADB_USER" \
  "$(printf '%s' "$password" | sed 's/\\/\\\\/g; s/"/\\"/g')" >"$cnf"
exec prometheus-mysqld-exporter --config.my-cnf="$cnf" --web.listen-address=:9104 "$@"
