#!/usr/bin/env bash
# Runs the test suite (test/support/runner/suite-runner.ts): each file in its own `node --test`
# process, TEST_LANES (default 3) files at once, the default embedder shared by all files.
#   bash scripts/run-tests.sh                         all test/**/*.test.ts
#   bash scripts/run-tests.sh --fast                  only the files that need no server (test/unit, test/static)
#   bash scripts/run-tests.sh test/x.test.ts ...      only these files
#   bash scripts/run-tests.sh --lanes 1 ...           one file at a time
#   bash scripts/run-tests.sh --test-name-pattern=foo options go to node --test
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
exec node --import tsx test/support/runner/suite-runner.ts "$@"
