#!/usr/bin/env bash
# Runs the test suite with node's built-in runner, one file at a time (the tests share one
# MariaDB and start their own servers; two slow cores gain nothing from running files in parallel).
#   bash scripts/run-tests.sh                      all test/**/*.test.ts
#   bash scripts/run-tests.sh test/x.test.ts ...   only these files
#   bash scripts/run-tests.sh --test-name-pattern=foo   options go to node --test
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

files=()
options=()
for arg in "$@"; do
  if [[ $arg == -* ]]; then options+=("$arg"); else files+=("$arg"); fi
done
if [ ${#files[@]} -eq 0 ]; then
  # Node 20's --test does not expand globs itself.
  mapfile -t files < <(find test -name '*.test.ts' -type f | sort)
fi
if [ ${#files[@]} -eq 0 ]; then
  echo "run-tests: no test files (test/**/*.test.ts) found" >&2
  exit 1
fi

summary_log=$(mktemp "${TMPDIR:-/tmp}/email-rag-tests.XXXXXX")
trap 'rm -f "$summary_log"' EXIT

set +e
node --import tsx --test --test-concurrency=1 --test-reporter=spec \
  --test-timeout="${TEST_TIMEOUT_MS:-600000}" "${options[@]}" "${files[@]}" 2>&1 | tee "$summary_log"
status=${PIPESTATUS[0]}
set -e

# The spec reporter closes with "ℹ pass N" / "ℹ fail N"; repeat them as one plain line.
pass=$(sed -n 's/^ℹ pass \([0-9]*\)$/\1/p' "$summary_log" | tail -n 1)
fail=$(sed -n 's/^ℹ fail \([0-9]*\)$/\1/p' "$summary_log" | tail -n 1)
if [ -n "$pass" ] && [ -n "$fail" ]; then
  echo "tests: ${pass} passed, ${fail} failed"
fi
exit "$status"
