# The console lines every script here prints; sourced, with TOOL set to the name the lines carry.
# shellcheck shell=bash

say() { printf '%s: %s\n' "$TOOL" "$*"; }
die() {
  printf '%s: ERROR: %s\n' "$TOOL" "$*" >&2
  exit 1
}
# On failure CI shows only the console, so the end of the tool's own log goes there too.
show_log() {
  [ -s "$1" ] || return 0
  tail -n 15 "$1" | sed 's/^/  | /' >&2
}
