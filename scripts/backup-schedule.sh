# The scheduled modes of backup.sh (`--once`, `--every`): a folder per backup in BACKUP_DIR, named
# by its UTC time, the intake paused around the Temporal and MariaDB parts, retention. Sourced by
# backup.sh, whose part functions (backup_temporal, …) write into `dir`.
# shellcheck shell=bash

# How a complete backup's folder is named (its UTC start, sortable, no ':' that tar or scp would
# read as a host): 2026-12-04T060000Z. A run writes NAME.partial and renames it when complete.
NAME_PATTERN='^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{6}Z$'

scheduled_usage() {
  die "usage: $TOOL DIR [PART...] | $TOOL --once [--keep N] [--no-pause-intake] [PART...] | $TOOL --every INTERVAL --keep N [--no-pause-intake] [PART...] | $TOOL --check [--every INTERVAL]"
}

# interval_seconds 6h: the interval in seconds (s, m, h, d).
interval_seconds() {
  [[ $1 =~ ^([1-9][0-9]{0,6})([smhd])$ ]] || die "--every (BACKUP_INTERVAL) takes a whole number and a unit s, m, h or d, such as 6h: '$1'"
  local n=${BASH_REMATCH[1]}
  case "${BASH_REMATCH[2]}" in s) echo "$n" ;; m) echo $((n * 60)) ;; h) echo $((n * 3600)) ;; d) echo $((n * 86400)) ;; esac
}

# The parts in the order that keeps them consistent, whatever order they were named in; all four
# when none is named (keys only when the install has payload keys).
ordered_parts() {
  local part named keys
  if [ $# -eq 0 ]; then
    keys=$(payload_keys)
    set -- temporal mariadb files
    [ -z "$keys" ] || set -- "$@" keys
  fi
  for part in "${ALL_PARTS[@]}"; do
    for named in "$@"; do if [ "$named" = "$part" ]; then echo "$part" && break; fi; done
  done
}

# Pauses the intake for the parts that must see the same state (docs/backup.md); sets
# `intake_paused` when this run paused something and so must resume it. An intake that was paused
# already (by a person, or in a restored snapshot) is left as it is.
pause_intake() {
  command -v email-rag >/dev/null ||
    die "email-rag is not on PATH: the intake cannot be paused (with the workers stopped, give --no-pause-intake)"
  local out rc=0 counts changed paused already running
  out=$(email-rag intake pause --by backup --json) || rc=$?
  counts=$(node -e '
    const r = JSON.parse(require("node:fs").readFileSync(0, "utf8"));
    console.log(`${r.paused.length + r.watchersStopped.length} ${r.paused.length} ${r.alreadyPaused.length} ${r.pollsRunning.join(",")}`);
  ' <<<"$out" 2>/dev/null) || die "email-rag intake pause failed (exit $rc, the reason above)"
  read -r changed paused already running <<<"$counts"
  if [ "$changed" != 0 ]; then
    intake_paused=1
    # Should this run be killed before it resumes, the next one finds this and resumes.
    printf '%s\n' "$name" >"$BACKUP_DIR/.intake-paused"
  fi
  say "intake: $paused schedule(s) paused by this backup, $already paused already"
  [ "$rc" = 0 ] || die "the intake is not quiet: poll runs still running after the wait: ${running:-?}"
  if [ "$changed" = 0 ]; then
    note "intake	paused already ($already schedule(s)): left as it was"
  else
    note "intake	paused by this backup: $paused schedule(s), the IDLE watchers stopped"
  fi
}

resume_intake() {
  local out
  out=$(email-rag intake resume) || {
    printf '%s: ERROR: email-rag intake resume failed: the intake is still paused; run it by hand\n' "$TOOL" >&2
    return 1
  }
  intake_paused=''
  rm -f -- "$BACKUP_DIR/.intake-paused"
  say "intake resumed: $(paste -sd';' <<<"$out")"
}

# Deletes the oldest complete backups beyond `keep`; a folder without SHA256SUMS or with another
# name (a run in progress, one copied in by hand) is neither counted nor deleted.
prune() {
  [ -n "$keep" ] || return 0
  local -a complete=() deleted=()
  local d i
  for d in "$BACKUP_DIR"/*; do
    if [[ $(basename "$d") =~ $NAME_PATTERN ]] && [ -f "$d/SHA256SUMS" ]; then complete+=("$d"); fi
  done
  for ((i = 0; i < ${#complete[@]} - keep; i++)); do
    rm -rf -- "${complete[i]}"
    deleted+=("$(basename "${complete[i]}")")
  done
  say "retention: $((${#complete[@]} - ${#deleted[@]})) complete backup(s) kept (at most $keep), deleted: ${deleted[*]:-none}"
}

# The service's health: the newest complete backup is younger than two intervals.
check_recent() {
  local d newest='' t age
  for d in "$BACKUP_DIR"/*; do
    if [[ $(basename "$d") =~ $NAME_PATTERN ]] && [ -f "$d/SHA256SUMS" ]; then newest=$(basename "$d"); fi
  done
  [ -n "$newest" ] || die "no complete backup in $BACKUP_DIR yet"
  [[ $newest =~ ^(.{10})T(..)(..)(..)Z$ ]]
  t=$(date -u -d "${BASH_REMATCH[1]} ${BASH_REMATCH[2]}:${BASH_REMATCH[3]}:${BASH_REMATCH[4]}" +%s)
  age=$(($(date +%s) - t))
  [ "$age" -le $((2 * seconds)) ] ||
    die "the newest complete backup, $newest, is $((age / 60)) min old, more than twice the interval $every: the service's log says why"
  say "the newest complete backup, $newest, is $((age / 60)) min old"
}

on_run_exit() {
  local rc=$?
  [ -z "$intake_paused" ] || resume_intake || rc=1
  cleanup_paths
  exit "$rc"
}

# One backup into a new folder of BACKUP_DIR, then retention. One run at a time (a lock on the
# folder, also across containers); a run's .partial folder goes when the run fails.
run_backup() {
  exec 9>>"$BACKUP_DIR/.lock"
  if ! flock -n 9; then
    say "another backup run holds $BACKUP_DIR/.lock: waiting for it to end"
    flock 9
  fi
  local d name started part last_locked=''
  # Under the lock no other run is under way: a .partial folder is what a killed run left.
  for d in "$BACKUP_DIR"/*.partial; do
    [ -d "$d" ] || continue
    rm -rf -- "$d"
    say "removed $(basename "$d"), left by a run that was cut off"
  done
  if [ -f "$BACKUP_DIR/.intake-paused" ]; then
    say "the run $(cat "$BACKUP_DIR/.intake-paused") was cut off with the intake paused: resuming it"
    resume_intake || die "the intake paused by a run that was cut off could not be resumed"
  fi
  name=$(date -u +%Y-%m-%dT%H%M%SZ)
  while [ -e "$BACKUP_DIR/$name" ]; do
    sleep 1
    name=$(date -u +%Y-%m-%dT%H%M%SZ)
  done
  dir="$BACKUP_DIR/$name.partial"
  intake_paused=''
  CLEANUP+=("$dir")
  trap on_run_exit EXIT
  started=$(date +%s)
  say "$(stamp) backup $name: ${parts[*]}"
  umask 077
  mkdir -m 700 "$dir"
  for part in "${parts[@]}"; do case "$part" in temporal | mariadb) last_locked=$part ;; esac; done
  [ "$pause" = false ] || [ -z "$last_locked" ] || pause_intake
  [ "$pause" = true ] || note "intake	not paused (--no-pause-intake)"
  for part in "${parts[@]}"; do
    "backup_$part"
    if [ "$part" = "$last_locked" ] && [ -n "$intake_paused" ]; then resume_intake || die "the intake could not be resumed"; fi
  done
  write_sums
  note "complete	${parts[*]}"
  mv -- "$dir" "$BACKUP_DIR/$name"
  say "$(stamp) backup $name complete: $(du -sh "$BACKUP_DIR/$name" | cut -f1), $(($(date +%s) - started)) s"
  prune
}

# Runs a backup every `seconds` (from the start of one to the start of the next) until SIGTERM or
# SIGINT; a stop during a run lets the run end first. A failed run is logged and the next tick
# tries again.
run_every() {
  local stop='' sleeper='' started next rc wait_s
  trap 'stop=1; [ -z "$sleeper" ] || kill "$sleeper" 2>/dev/null || true' TERM INT
  say "every $every, the newest $keep kept in $BACKUP_DIR; parts: ${parts[*]}; the intake paused for the temporal and mariadb parts: $pause"
  while [ -z "$stop" ]; do
    started=$(date +%s)
    set +e
    (
      set -e
      run_backup
    )
    rc=$?
    set -e
    next=$((started + seconds))
    [ "$rc" = 0 ] ||
      printf '%s: %s ERROR: the backup run failed (exit %s, the reason above); nothing of it was kept; next try at %s\n' \
        "$TOOL" "$(stamp)" "$rc" "$(date -u -d "@$next" +%Y-%m-%dT%H:%M:%SZ)" >&2
    [ -z "$stop" ] || break
    wait_s=$((next - $(date +%s)))
    [ "$wait_s" -gt 0 ] || wait_s=0
    sleep "$wait_s" &
    sleeper=$!
    wait "$sleeper" 2>/dev/null || true
    sleeper=''
  done
  say "stopped"
}

scheduled_main() {
  local once='' check='' every_flag='' every=${BACKUP_INTERVAL:-} keep=${BACKUP_KEEP:-} pause=${BACKUP_PAUSE_INTAKE:-true} seconds
  local -a named=()
  while [ $# -gt 0 ]; do
    case "$1" in
      --once) once=1 ;;
      --check) check=1 ;;
      --every | --keep)
        [ $# -ge 2 ] || die "$1 needs a value"
        if [ "$1" = --every ]; then every=$2 every_flag=1; else keep=$2; fi
        shift
        ;;
      --no-pause-intake) pause=false ;;
      --*) scheduled_usage ;;
      *)
        check_part "$1"
        named+=("$1")
        ;;
    esac
    shift
  done
  [ -z "$once" ] || [ -z "$every_flag" ] || die "--once and --every exclude each other"
  [ -n "${BACKUP_DIR:-}" ] || die "BACKUP_DIR is not set: the folder (a volume) the backups go to"
  if [ -n "$check" ]; then
    [ -n "$every" ] || die "--check needs the interval: --every INTERVAL (or BACKUP_INTERVAL)"
    seconds=$(interval_seconds "$every")
    check_recent
    return
  fi
  [ -n "$once" ] || [ -n "$every" ] || scheduled_usage
  [ -d "$BACKUP_DIR" ] && [ -w "$BACKUP_DIR" ] || die "BACKUP_DIR $BACKUP_DIR is not a folder uid $(id -u) can write"
  [ -z "$keep" ] || [[ $keep =~ ^[1-9][0-9]{0,5}$ ]] || die "--keep (BACKUP_KEEP) takes a whole number of backups, at least 1: '$keep'"
  [[ $pause =~ ^(true|false)$ ]] || die "BACKUP_PAUSE_INTAKE takes true or false: '$pause'"
  command -v flock >/dev/null || die "flock is missing (Debian: util-linux)"
  local listed
  listed=$(ordered_parts "${named[@]}")
  mapfile -t parts <<<"$listed"
  if [ -n "$once" ]; then
    run_backup
  else
    [ -n "$keep" ] || die "--every needs --keep N (or BACKUP_KEEP): how many complete backups to keep"
    seconds=$(interval_seconds "$every")
    run_every
  fi
}
