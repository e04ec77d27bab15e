#!/usr/bin/env bash
# test_interrupt.sh — an interrupted run leaves nothing behind: `idbench matrix`, `insert`
# (without --dir) and `plot` stopped by SIGTERM or SIGINT die of that signal within moments,
# no process they started survives them (every one is found by a tag in its environment),
# no temporary directory remains in their private $TMPDIR, and an interrupted matrix says
# so in meta.json. Usage: test_interrupt.sh IDBENCH SOURCE_DIR
set -u
IDB=${1:?usage: test_interrupt.sh path/to/idbench SOURCE_DIR}
SRC=${2:?usage: test_interrupt.sh path/to/idbench SOURCE_DIR}
IDB=$(cd "$(dirname "$IDB")" && pwd)/$(basename "$IDB")
. "$(dirname "$0")/cli_lib.sh"
set -m            # job control: a background job gets SIGINT (without it, the shell ignores it)

tag=idbench-interrupt-$$-$RANDOM
GRACE_TENTHS=20   # how long (0.1 s) processes may take to go after the command died

# tagged: the pids of live processes started by a command under test (zombies have no
# environment: they are dead).
tagged() {
  grep -lsxz "IDB_TEST_TAG=$tag" /proc/[0-9]*/environ | cut -d/ -f3 | tr '\n' ' '
}

# interrupt SIGNAL AFTER CHILD WHAT -- COMMAND...: run COMMAND in $tmp/cwd in the background
# with TMPDIR=$tmp/t, send SIGNAL after AFTER seconds (CHILD=1: and once a child of it is
# running), and check that it died of it and left no process and no temporary directory.
# Leaves stdout in $tmp/out, stderr in $tmp/err.
interrupt() {
  local sig=$1 after=$2 child=$3 what=$4; shift 5
  rm -rf "$tmp/t" && mkdir -p "$tmp/t" "$tmp/cwd"
  (cd "$tmp/cwd" && TMPDIR="$tmp/t" IDB_TEST_TAG=$tag exec "$@") >"$tmp/out" 2>"$tmp/err" &
  local pid=$! n=0 kids=0
  sleep "$after"
  if [ "$child" = 1 ]; then                  # until a child runs (at most 100 looks more)
    while kids=$(tagged | wc -w) && [ "$kids" -lt 2 ] && [ $n -lt 100 ]; do n=$((n + 1)); done
    check "$what: a child running" test "$kids" -gt 1
  fi
  n=0
  check "$what: still running when signalled" kill -0 $pid
  check "$what: had made its temporary directory" test -n "$(ls -A "$tmp/t")"
  kill -s "$sig" $pid
  { wait $pid; } 2>/dev/null               # (not the shell's "Terminated" notice)
  local status=$?
  check "$what: died of SIG$sig (status $status)" test $status -eq $((128 + $(kill -l "$sig")))
  while [ -n "$(tagged)" ] && [ $n -lt $GRACE_TENTHS ]; do sleep 0.1; n=$((n + 1)); done
  check "$what: no process left ($(tagged))" test -z "$(tagged)"
  check "$what: no temporary directory left" test -z "$(ls -A "$tmp/t")"
  check "$what: nothing on stdout" test ! -s "$tmp/out"
}

# meta_says DIR WHAT: DIR/meta.json says interrupted, with the cells that ran and failed.
meta_says() {
  local m=$1/meta.json what=$2
  check "$what: meta.json says interrupted" grep -q '"status": "interrupted"' "$m"
  check "$what: meta.json counts the cells that ran" grep -qE '"cells_done": [0-9]' "$m"
  check "$what: cells without results are failed, not 0" grep -qE '"cells_failed": [1-9]' "$m"
  check "$what: a failure says interrupted" grep -q '"matrix: interrupted (.*): [0-9]* of [0-9]* cells not run"' "$m"
  check "$what: fewer cells ran than planned" test "$(grep -oP '"cells": \K[0-9]+' "$m")" -gt \
    "$(grep -oP '"cells_done": \K[0-9]+' "$m")"
  check "$what: no report" test ! -e "$1/report.md"
  check "$what: no temporary file in the results" test -z "$(find "$1" -name '*.tmp*')"
}

# --- the quick matrix (its cells are short: one may be running or not)
interrupt TERM 2 0 "matrix --quick, TERM" -- "$IDB" matrix --quick --out "$tmp/q1"
meta_says "$tmp/q1" "matrix --quick, TERM"
check "matrix, TERM: says it was interrupted" grep -q '^matrix: interrupted (' "$tmp/err"

# --- a matrix of one long insert cell (a forked child), and Ctrl-C; the default location
cat >"$tmp/long.ini" <<'EOF'
[generation]
enabled = 0
[insert]
strategies = uuidv4
stores = sqlite
sizes = 5000000
[curve]
enabled = 0
[simulate]
enabled = 0
[claims]
enabled = 0
EOF
mkdir -p "$tmp/cwd/results/before" && ln -s before "$tmp/cwd/results/latest"
interrupt INT 2 1 "matrix of an insert cell, INT" -- "$IDB" matrix "$tmp/long.ini"
run_dir=$(ls -d "$tmp"/cwd/results/20* 2>/dev/null | head -1)
meta_says "$run_dir" "matrix of an insert cell, INT"
check "matrix, INT: the insert cell was killed" grep -q '"insert sqlite uuidv4 .*: interrupted (' "$run_dir/meta.json"
check "matrix, INT: the insert cell did not run to its end" grep -q '"cells_done": 0,' "$run_dir/meta.json"
check "matrix, INT: results/latest not moved" test "$(readlink "$tmp/cwd/results/latest")" = before
rm -rf "$tmp/cwd/results"

# --- insert without --dir: its stores live in a temporary directory
for sig in TERM INT; do
  interrupt $sig 1.5 0 "insert, $sig" -- "$IDB" insert --store sqlite --strategy uuidv4 -n 2000000
done

# --- plot, while gnuplot draws (a copy of results/sample: every plot, no matrix to run)
cp -r "$SRC/results/sample" "$tmp/q2"
rm -rf "$tmp/q2/plots" "$tmp/q2/report.md"
interrupt TERM 0.5 1 "plot, TERM" -- "$IDB" plot "$tmp/q2"
check "plot, TERM: no report" test ! -e "$tmp/q2/report.md"
check "plot, TERM: no temporary file" test -z "$(find "$tmp/q2" -name '*.tmp*')"

cli_done
