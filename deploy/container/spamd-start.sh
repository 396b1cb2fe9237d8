#!/bin/sh
# SpamAssassin's spamd for the stack's triage (TRIAGE_SPAMD): the rules Debian's package ships,
# local tests only unless SPAMD_NETWORK_TESTS=true (DNS block lists, Razor, Pyzor send the
# sender's addresses and hashes of the mail out), no per-user configuration, and learning allowed
# (--allow-tell) into the Bayes database on the /var/lib/spamd volume: a person's "not spam" in
# the review inbox teaches it ham, their "spam" teaches it spam. Bayes counts only after 200 spam
# and 200 ham were learned (SpamAssassin's bayes_min_*_num); it never learns on its own
# (bayes_auto_learn 0).
# SPAMD_ALLOWED_IPS: who may connect (spamd's -A); the private ranges of container networks.
set -eu
: "${SPAMD_PORT:=7830}" "${SPAMD_CHILDREN:=3}"
: "${SPAMD_ALLOWED_IPS:=127.0.0.1,::1,10.0.0.0/8,172.16.0.0/12,192.168.0.0/16,100.64.0.0/10,fc00::/7}"
mkdir -p /var/lib/spamd/bayes
# The backup service (spamd's group) reads the database: group-readable, also files made before.
find /var/lib/spamd/bayes -maxdepth 1 -type f -exec chmod -f g+r {} + || true
set -- \
  --nouser-config \
  --allow-tell \
  --listen="0.0.0.0:$SPAMD_PORT" \
  --allowed-ips="$SPAMD_ALLOWED_IPS" \
  --max-children="$SPAMD_CHILDREN" \
  --min-children=1 \
  --helper-home-dir=/var/lib/spamd \
  --syslog=stderr \
  --cf='use_bayes 1' \
  --cf='bayes_auto_learn 0' \
  --cf='bayes_path /var/lib/spamd/bayes/bayes' \
  --cf='bayes_file_mode 0640' \
  "$@"
if [ "${SPAMD_NETWORK_TESTS:-false}" != true ]; then set -- --local "$@"; fi
exec spamd "$@"
