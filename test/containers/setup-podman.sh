#!/usr/bin/env bash
# What test/containers/container-stack.test.ts needs to build and start the stack with podman, on a
# Debian machine without a Docker daemon or an image registry; idempotent, about 1 s when all is there.
#   podman, runc, debootstrap and CNI's dnsname plugin (service names between containers): apt
#   podman-compose: PyPI, into .local/containers/venv
#   a containers.conf for sandboxes (no ulimits to set, runc as the runtime): .local/containers/
#   the base image localhost/email-rag-base:bookworm: Debian bookworm by debootstrap, imported, with
#   the certificate authorities this machine adds to Debian's (a TLS-inspecting egress proxy's):
#   the Containerfile's ca-certificates merges them, and pip and node are told to use that bundle
# The project files (Containerfile, deploy/compose.yaml) stay standard; what is podman's is here.
set -Eeuo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."

PODMAN_COMPOSE_VERSION=1.6.0
BASE_IMAGE=localhost/email-rag-base:bookworm
DIR=.local/containers
mkdir -p "$DIR"
TOOL='containers setup'
# shellcheck source=scripts/console.sh
. scripts/console.sh
[ "$(id -u)" -eq 0 ] || die "podman's builds and networks here need root: run as root"

missing=()
for pair in podman:podman runc:runc debootstrap:debootstrap; do
  command -v "${pair%%:*}" >/dev/null 2>&1 || missing+=("${pair#*:}")
done
[ -x /usr/lib/cni/dnsname ] || missing+=(golang-github-containernetworking-plugin-dnsname)
if [ ${#missing[@]} -gt 0 ]; then
  say "apt-get install ${missing[*]}"
  { DEBIAN_FRONTEND=noninteractive apt-get -q -o DPkg::Lock::Timeout=120 update &&
    DEBIAN_FRONTEND=noninteractive apt-get -q -y -o DPkg::Lock::Timeout=120 install --no-install-recommends "${missing[@]}"; } \
    >"$DIR/apt.log" 2>&1 </dev/null || die "apt-get install ${missing[*]} failed (log: $DIR/apt.log)"
fi

if ! compgen -G "$DIR/venv/lib/python3*/site-packages/podman_compose-$PODMAN_COMPOSE_VERSION.dist-info" >/dev/null; then
  say "pip install podman-compose==$PODMAN_COMPOSE_VERSION"
  { [ -x "$DIR/venv/bin/python" ] || python3 -m venv "$DIR/venv"; } &&
    "$DIR/venv/bin/python" -m pip install --disable-pip-version-check -q "podman-compose==$PODMAN_COMPOSE_VERSION" \
      >"$DIR/pip.log" 2>&1 </dev/null || die "pip install podman-compose failed (log: $DIR/pip.log)"
fi

# "setrlimit RLIMIT_NOFILE: Operation not permitted" with the default ulimits; crun cannot run
# containers in this cgroup setup, runc can.
cat >"$DIR/containers.conf" <<'CONF'
[containers]
default_ulimits = []

[engine]
runtime = "runc"
CONF
export CONTAINERS_CONF=$PWD/$DIR/containers.conf

if ! podman image exists "$BASE_IMAGE"; then
  say "base image $BASE_IMAGE: debootstrap --variant=minbase bookworm"
  mirror=$(sed -n 's/^URIs: *//p; s/^deb \(http[^ ]*\) bookworm .*/\1/p' /etc/apt/sources.list.d/* /etc/apt/sources.list 2>/dev/null | grep -v security | head -1 || true)
  rootfs=$(mktemp -d /var/tmp/email-rag-rootfs.XXXXXX)
  trap 'rm -rf "$rootfs"' EXIT
  debootstrap --variant=minbase bookworm "$rootfs" "${mirror:-http://deb.debian.org/debian}" >"$DIR/debootstrap.log" 2>&1 </dev/null ||
    die "debootstrap failed (log: $DIR/debootstrap.log)"
  # What debootstrap downloaded stays out of the image (a registry's slim image has none of it).
  rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/cache/apt/*.bin "$rootfs"/var/lib/apt/lists/*
  if compgen -G '/usr/local/share/ca-certificates/*.crt' >/dev/null; then
    mkdir -p "$rootfs/usr/local/share/ca-certificates"
    cp /usr/local/share/ca-certificates/*.crt "$rootfs/usr/local/share/ca-certificates/"
  fi
  tar -C "$rootfs" -c . | podman import --quiet \
    --change 'ENV NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt' \
    --change 'ENV PIP_CERT=/etc/ssl/certs/ca-certificates.crt' \
    --change 'CMD ["/bin/bash"]' - "$BASE_IMAGE" >/dev/null
fi
say "podman $(podman --version | awk '{print $3}'), podman-compose $PODMAN_COMPOSE_VERSION, base image $BASE_IMAGE"
