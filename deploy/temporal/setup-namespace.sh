#!/bin/sh
# Creates the namespace (with its retention) and registers the email workflow's search attributes
# (src/platform/contract.ts SEARCH_ATTRIBUTES; a test keeps this list equal to it). Safe to run again.
set -eu
ADDRESS=${TEMPORAL_ADDRESS:-temporal:7233}
NAMESPACE=${TEMPORAL_NAMESPACE:-default}
RETENTION=${NAMESPACE_RETENTION:-720h}
SEARCH_ATTRIBUTES="EmailStatus=Keyword EmailPriority=Keyword Mailbox=Keyword NeedsHuman=Bool DraftVersion=Int TriageClass=Keyword Category=Keyword CaseStatus=Keyword CaseOwner=Keyword"

attempt=0
until temporal operator cluster health --address "$ADDRESS"; do
  attempt=$((attempt + 1))
  if [ "$attempt" -ge 60 ]; then
    echo "Temporal at $ADDRESS did not become healthy"
    exit 1
  fi
  sleep 5
done

if temporal operator namespace describe --namespace "$NAMESPACE" --address "$ADDRESS" >/dev/null 2>&1; then
  echo "namespace $NAMESPACE exists"
else
  temporal operator namespace create --namespace "$NAMESPACE" --retention "$RETENTION" --address "$ADDRESS"
fi

for attribute in $SEARCH_ATTRIBUTES; do
  name=${attribute%%=*}
  type=${attribute#*=}
  if temporal operator search-attribute list --namespace "$NAMESPACE" --address "$ADDRESS" | grep -qw "$name"; then
    echo "search attribute $name exists"
  else
    temporal operator search-attribute create --namespace "$NAMESPACE" --name "$name" --type "$type" --address "$ADDRESS"
  fi
done
echo "namespace $NAMESPACE is set up"
