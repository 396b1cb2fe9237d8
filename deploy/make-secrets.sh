#!/bin/sh
# Writes the stack's secrets as files for deploy/compose.yaml (EMAIL_RAG_SECRETS, default
# deploy/secrets/), each only when it is missing: running it again changes nothing. Random values
# for what the stack makes up itself; the mailbox's and the LLM's credentials are yours to write
# (an empty file means "not set").
# The folder is readable by its owner only; the files inside are readable by all, because the
# containers run as their own users (uid 10001 and MariaDB's) and see only the file, not the folder.
set -eu
dir=${EMAIL_RAG_SECRETS:-$(dirname "$0")/secrets}
mkdir -p "$dir"
chmod 0700 "$dir"

random() { head -c "$1" /dev/urandom | base64 | tr -d '\n=' | tr '+/' '-_'; }
write() {
  [ -e "$dir/$1" ] && return 0
  printf '%s\n' "$2" >"$dir/$1"
  chmod 0644 "$dir/$1"
  echo "wrote $dir/$1"
}

write db_password "$(random 24)"
write db_root_password "$(random 24)"
# AES-256-GCM: an id and 32 random bytes in standard base64 (PAYLOAD_KEYS in docs/configuration.md).
write payload_keys "k$(date +%Y%m):$(head -c 32 /dev/urandom | base64 | tr -d '\n')"
write codec_token "$(random 32)"
write inbox_session_secret "$(random 48)"
write inbox_admin_password "$(random 18)"
write grafana_admin_password "$(random 18)"
write imap_password ''
write smtp_password ''
write llm_api_key ''
# Temporal beyond the stack's own server (docs/temporal-server.md): PEM files, an API key; empty = not set.
write temporal_api_key ''
write temporal_tls_ca ''
write temporal_tls_cert ''
write temporal_tls_key ''
echo "secrets in $dir; write the mailbox password into $dir/imap_password (and smtp_password, llm_api_key when needed)"
echo "the review inbox's first operator signs in as \${INBOX_ADMIN_USER:-admin} with the password in $dir/inbox_admin_password"
