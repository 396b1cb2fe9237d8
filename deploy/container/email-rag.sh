#!/bin/sh
# `email-rag` in the container: the CLI of the image, with secrets read from files.
# Compose and Kubernetes mount secrets as files; the product reads its settings from the
# environment. For each secret setting NAME below, NAME_FILE names a file whose first line becomes
# NAME (NAME itself, when set, wins; an empty file leaves NAME unset). DATABASE_PASSWORD(_FILE) is put into DATABASE_URL, so the
# URL in the compose file carries no password. TEMPORAL_API_KEY_FILE is one of them (Temporal Cloud).
set -eu

SECRET_SETTINGS='DATABASE_PASSWORD PAYLOAD_KEYS CODEC_TOKEN IMAP_PASSWORD SMTP_PASSWORD LLM_API_KEY
EMBEDDING_API_KEY INBOX_SESSION_SECRET INBOX_OIDC_CLIENT_SECRET TEMPORAL_API_KEY ARANGO_PASSWORD
QDRANT_API_KEY'

for name in $SECRET_SETTINGS; do
  eval "file=\${${name}_FILE:-}; value_set=\${${name}+set}"
  [ -n "$file" ] || continue
  [ -z "$value_set" ] || continue
  if [ ! -r "$file" ]; then
    echo "email-rag: ${name}_FILE=$file is not a readable file (a secret the container user, uid $(id -u), can read)" >&2
    exit 2
  fi
  # The first line, without its line end: `echo secret > file` must not put a newline into a password.
  value=''
  IFS= read -r value <"$file" || true
  unset "${name}_FILE"
  [ -n "$value" ] || continue
  export "$name=$value"
done

# Temporal's certificate settings are paths the product reads itself (PEM files; compose mounts
# them as secrets). The stack names them always, and deploy/make-secrets.sh writes them empty: an
# empty file (or one of blanks) means "not set", so a plain-text Temporal stays plain text.
for name in TEMPORAL_TLS_CA TEMPORAL_TLS_CERT TEMPORAL_TLS_KEY; do
  eval "file=\${${name}:-}"
  [ -n "$file" ] && [ -r "$file" ] || continue
  grep -q '[^[:space:]]' "$file" || unset "$name"
done

if [ -n "${DATABASE_PASSWORD:-}" ] && [ -n "${DATABASE_URL:-}" ]; then
  DATABASE_URL=$(node -e '
    const u = new URL(process.env.DATABASE_URL);
    u.password = encodeURIComponent(process.env.DATABASE_PASSWORD);
    process.stdout.write(u.href);
  ')
  export DATABASE_URL
  unset DATABASE_PASSWORD
fi

exec node /app/bin/email-rag.js "$@"
