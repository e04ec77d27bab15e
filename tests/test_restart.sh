#!/usr/bin/env bash
# test_restart.sh — state_file=PATH across real restarts of `idbench gen`, the clock stepped
# back BACK_S = 2 s by libfaketime (Debian's faketime, which ./bootstrap installs; without it this
# test fails, it is never skipped). For every strategy whose `idbench help` declares
# state_file (the list is read, not typed here):
#   - without a state file, a run 2 s behind makes IDs below the last run's (the hazard);
#   - with one, that run is refused when the strategy declares on_backwards (and with
#     on_backwards=wait it waits), and every ID it makes is above the last run's;
#   - after a run killed with SIGKILL (a crash: the file keeps the reservation), a run 1 s
#     behind still makes only IDs above the killed run's;
# (2 s rather than 1 leaves room for a slow start on a loaded machine or a sanitizer build.)
#   - a second process on a state file in use is refused.
# Usage: test_restart.sh IDBENCH
set -u
IDB=${1:?usage: test_restart.sh path/to/idbench}
. "$(dirname "$0")/cli_lib.sh"
N=20000
BACK_S=2

if ! command -v faketime >/dev/null; then
  echo "FAIL: the restart test needs faketime (libfaketime), which is not installed:" \
       "run ./bootstrap (it installs Debian's faketime)"
  exit 1
fi

# behind CMD...: run CMD with its clock BACK_S behind the real one. libfaketime is preloaded,
# so a sanitizer build must not insist on coming first in the library list.
behind() {
  ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0 faketime -f "-${BACK_S}s" "$@"
}

# above A B: every ID in file B sorts (as bytes; the text forms have one length) after every
# ID in file A.
above() {
  local max min
  max=$(LC_ALL=C sort "$1" | tail -n 1)
  min=$(LC_ALL=C sort "$2" | head -n 1)
  [ -n "$max" ] && [ -n "$min" ] && [ ${#max} -eq ${#min} ] && [[ "$max" < "$min" ]]
}

# gen_bg NAME FILE OPTS...: start a long `idbench gen` in the background writing FILE; wait
# until it has written IDs; its pid in $bg.
gen_bg() {
  local s=$1 out=$2
  shift 2
  "$IDB" gen "$s" -n 100000000 "$@" >"$out" 2>/dev/null &
  bg=$!
  for _ in $(seq 500); do [ -s "$out" ] && break; sleep 0.01; done
}

soaked=0
for s in $("$IDB" list | cut -f1); do
  "$IDB" help "$s" | grep -q '^  state_file=' || continue
  refuses=0
  "$IDB" help "$s" | grep -q '^  on_backwards=' && refuses=1
  d="$tmp/$s" && mkdir -p "$d"

  "$IDB" gen "$s" -n "$N" >"$d/a"
  behind "$IDB" gen "$s" -n "$N" >"$d/b"
  check "$s without state_file: a run $BACK_S s behind goes below the last run" \
    eval '! above "$d/a" "$d/b"'

  "$IDB" gen "$s" -n "$N" -o "state_file=$d/state" >"$d/a"
  if [ $refuses -eq 1 ]; then
    expect 1 "$s with state_file: a run $BACK_S s behind is refused" -- \
      behind "$IDB" gen "$s" -n "$N" -o "state_file=$d/state"
    check "$s: the refusal names the state file" grep -q 'state_file' "$tmp/err"
    expect 0 "$s with state_file, on_backwards=wait: waits" -- \
      behind "$IDB" gen "$s" -n "$N" -o "state_file=$d/state" -o on_backwards=wait
  else
    expect 0 "$s with state_file: a run $BACK_S s behind goes on" -- \
      behind "$IDB" gen "$s" -n "$N" -o "state_file=$d/state"
  fi
  check "$s with state_file: every ID $BACK_S s behind is above the last run's" above "$d/a" "$tmp/out"

  wait_opt=()
  [ $refuses -eq 1 ] && wait_opt=(-o on_backwards=wait)
  gen_bg "$s" "$d/killed" -o "state_file=$d/crash"
  kill -KILL "$bg"
  wait "$bg" 2>/dev/null
  head -n -1 "$d/killed" >"$d/k"               # the last line may be cut by the kill
  check "$s: the killed run wrote IDs" test -s "$d/k"
  expect 0 "$s after a crash, $BACK_S s behind" -- \
    behind "$IDB" gen "$s" -n "$N" -o "state_file=$d/crash" "${wait_opt[@]}"
  check "$s after a crash: every ID is above the killed run's" above "$d/k" "$tmp/out"

  gen_bg "$s" "$d/busy-ids" -o "state_file=$d/busy"
  expect 1 "$s: a second process on a state file in use is refused" -- \
    "$IDB" gen "$s" -n 10 -o "state_file=$d/busy"
  check "$s: the refusal says it is in use" grep -q 'in use by another instance' "$tmp/err"
  kill "$bg"
  wait "$bg" 2>/dev/null
  soaked=$((soaked + 1))
done
check "some strategy declares state_file" test "$soaked" -gt 0
cli_done
