#!/bin/sh
# The one-shot init of a deployment, safe to run on every start: database migrations, the Temporal
# namespace (created when missing, its search attributes and retention), the schedules, and a first review-inbox
# operator when INBOX_ADMIN_USER and INBOX_ADMIN_PASSWORD_FILE are given and the name is new.
# `email-rag doctor`, the whole-configuration check (mailbox logins and the model included), is not
# a step here: it is run by hand once the stack is up (docs/deploying.md, "First run").
set -eu

step() { printf 'init: %s\n' "$*"; }

step "migrations"
email-rag migrate
step "Temporal namespace ${TEMPORAL_NAMESPACE:-default}: search attributes, retention ${TEMPORAL_RETENTION_DAYS:-30} days"
# Exit 4: the server refused part of it (Temporal Cloud, a cluster that keeps these to its
# administrators); the WARNING lines say what to do by hand and init goes on. Anything else stops it.
setup=0
email-rag temporal setup --retention-days "${TEMPORAL_RETENTION_DAYS:-30}" || setup=$?
case $setup in
  0) ;;
  4) step "WARNING: going on without what the server refused (above); \`email-rag doctor\` checks the search attributes" ;;
  *) exit "$setup" ;;
esac
step "schedules"
email-rag schedules install
if [ -n "${INBOX_ADMIN_USER:-}" ]; then
  if [ ! -r "${INBOX_ADMIN_PASSWORD_FILE:-}" ]; then
    echo "init: INBOX_ADMIN_USER is set but INBOX_ADMIN_PASSWORD_FILE (${INBOX_ADMIN_PASSWORD_FILE:-unset}) is not a readable file" >&2
    exit 2
  fi
  step "review inbox operator $INBOX_ADMIN_USER"
  # --if-new: a password changed in the inbox later is not reset by the next start.
  email-rag inbox users add "$INBOX_ADMIN_USER" --role operator --if-new <"$INBOX_ADMIN_PASSWORD_FILE"
fi
step "done"
