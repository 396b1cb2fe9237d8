#!/bin/sh
# A single-node Temporal: the temporal CLI's server with its SQLite file on the /data volume.
# WAL keeps readers off the writer's back; synchronous stays at SQLite's default (FULL), so a
# committed write survives a crash of the machine, not only of the process.
# Task priority and fairness need the new matcher (docs/queue-model.md).
set -eu
set -- \
  --db-filename /data/temporal.db \
  --sqlite-pragma journal_mode=WAL \
  --ip 0.0.0.0 \
  --port 7233 \
  --ui-port 8233 \
  --metrics-port 9233 \
  --log-format json \
  --log-level "${TEMPORAL_LOG_LEVEL:-warn}" \
  --dynamic-config-value matching.useNewMatcher=true \
  --dynamic-config-value matching.enableFairness=true \
  "$@"
if [ -n "${TEMPORAL_NAMESPACE:-}" ] && [ "$TEMPORAL_NAMESPACE" != default ]; then
  set -- "$@" --namespace "$TEMPORAL_NAMESPACE"
fi
if [ -n "${TEMPORAL_UI_CODEC_ENDPOINT:-}" ]; then
  set -- "$@" --ui-codec-endpoint "$TEMPORAL_UI_CODEC_ENDPOINT"
fi
exec temporal server start-dev "$@"
