#!/bin/sh
# MariaDB from Debian's package, set up on the first start of an empty volume from the
# environment, with the names of the official mariadb image: MARIADB_DATABASE, MARIADB_USER and
# the secret files MARIADB_PASSWORD_FILE and MARIADB_ROOT_PASSWORD_FILE. Later starts only start it.
set -eu
datadir=/var/lib/mysql

first_line() {
  line=''
  IFS= read -r line <"$1" || true
  printf '%s' "$line"
}
sql_string() { printf "'%s'" "$(printf '%s' "$1" | sed "s/\\\\/\\\\\\\\/g; s/'/\\\\'/g")"; }

if [ ! -d "$datadir/mysql" ]; then
  : "${MARIADB_DATABASE:?set MARIADB_DATABASE}" "${MARIADB_USER:?set MARIADB_USER}"
  : "${MARIADB_PASSWORD_FILE:?set MARIADB_PASSWORD_FILE}" "${MARIADB_ROOT_PASSWORD_FILE:?set MARIADB_ROOT_PASSWORD_FILE}"
  password=$(first_line "$MARIADB_PASSWORD_FILE")
  root_password=$(first_line "$MARIADB_ROOT_PASSWORD_FILE")
  [ -n "$password" ] && [ -n "$root_password" ] || {
    echo "mariadb-start: the password files are empty" >&2
    exit 2
  }
  echo "mariadb-start: new data directory: creating database $MARIADB_DATABASE and user $MARIADB_USER"
  # Installed into a scratch folder and moved: a start cut short here leaves no half-made volume.
  rm -rf "$datadir/.init"
  mariadb-install-db --datadir="$datadir/.init" --auth-root-authentication-method=normal --skip-test-db >/dev/null
  db=$(printf '%s' "$MARIADB_DATABASE" | sed 's/`/``/g')
  mariadbd --datadir="$datadir/.init" --bootstrap --skip-networking <<SQL
FLUSH PRIVILEGES;
ALTER USER 'root'@'localhost' IDENTIFIED BY $(sql_string "$root_password");
CREATE USER 'root'@'%' IDENTIFIED BY $(sql_string "$root_password");
GRANT ALL PRIVILEGES ON *.* TO 'root'@'%' WITH GRANT OPTION;
CREATE DATABASE IF NOT EXISTS \`$db\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci;
CREATE USER $(sql_string "$MARIADB_USER")@'%' IDENTIFIED BY $(sql_string "$password");
GRANT ALL PRIVILEGES ON \`$db\`.* TO $(sql_string "$MARIADB_USER")@'%';
SQL
  for entry in "$datadir/.init"/* "$datadir/.init"/.[!.]*; do
    [ -e "$entry" ] && mv "$entry" "$datadir/"
  done
  rmdir "$datadir/.init"
fi
exec mariadbd --datadir="$datadir"
