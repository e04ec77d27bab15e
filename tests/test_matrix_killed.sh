#!/usr/bin/env bash
# test_matrix_killed.sh — a matrix killed without a word (SIGKILL mid-run) is recovered by
# the next `idbench plot DIR`, `idbench clean DIR` or `idbench matrix` beside it: meta.json
# then says "interrupted" with cells_done the number of cells that had ended (counted from
# the run's owner file, DIR/matrix.lock), its scratch directory ($TMPDIR/idbench.XXXXXX) is
# gone, and index.html beside it lists it as interrupted. A live run is left alone, and a
# scratch path planted in the owner file that is not one of ours is never removed.
# Usage: test_matrix_killed.sh IDBENCH
set -u
IDB=${1:?usage: test_matrix_killed.sh path/to/idbench}
IDB=$(cd "$(dirname "$IDB")" && pwd)/$(basename "$IDB")
. "$(dirname "$0")/cli_lib.sh"

ENDED_WANT=2          # cells that must have ended before the kill
LOOKS_MAX=600         # 0.1 s looks for them, at most

# progressed NAME: the cells the progress lines on stderr of run NAME say ended.
progressed() { local n; n=$(grep -cE '^matrix: \[[0-9]+/' "$tmp/err.$1"); echo "${n:-0}"; }
# ended NAME: the cells that ended, from the owner file of run NAME (written before the
# progress line), or from the progress lines when there is none.
ended() {
  local n
  n=$(grep -cE '^(ok|failed) ' "$tmp/results/$1/matrix.lock" 2>/dev/null) || n=$(progressed "$1")
  echo "${n:-0}"
}

# killed NAME: run `matrix --quick --out $tmp/results/NAME` with TMPDIR=$tmp/t.NAME, SIGKILL it
# once ENDED_WANT cells ended; leaves how many had ended in $done_at_kill.
killed() {
  local d=$tmp/results/$1 n=0
  mkdir -p "$tmp/results" "$tmp/t.$1"
  TMPDIR=$tmp/t.$1 "$IDB" matrix --quick --out "$d" >/dev/null 2>"$tmp/err.$1" &
  local pid=$!
  while [ "$(progressed "$1")" -lt $ENDED_WANT ] && [ $n -lt $LOOKS_MAX ]; do
    sleep 0.1; n=$((n + 1))
  done
  kill -KILL $pid
  { wait $pid; } 2>/dev/null
  done_at_kill=$(ended "$1")
  check "$1: killed mid-run with $done_at_kill cells ended" test "$done_at_kill" -ge $ENDED_WANT
  check "$1: meta.json says running after the kill" grep -q '"status": "running"' "$d/meta.json"
  check "$1: its scratch directory is left after the kill" test -n "$(ls -A "$tmp/t.$1")"
  if [ -n "$pg" ]; then     # made before the first cell: recovered() sees it go
    check "$1: its postgres server template is left after the kill" \
      test -f "$(echo "$tmp/t.$1"/idbench.*/templates)/postgres.settings"
  fi
}

# recovered NAME N: meta.json of NAME says interrupted with N cells done, scratch gone.
recovered() {
  local d=$tmp/results/$1 m=$tmp/results/$1/meta.json
  check "$1: meta.json says interrupted" grep -q '"status": "interrupted"' "$m"
  check "$1: cells_done is $2" grep -q "\"cells_done\": $2," "$m"
  check "$1: a failure says interrupted" grep -q '"matrix: interrupted (.*): [0-9]* of [0-9]* cells not run"' "$m"
  check "$1: scratch directory removed" test -z "$(ls -A "$tmp/t.$1")"
  check "$1: owner file removed" test ! -e "$d/matrix.lock"
  check "$1: index.html lists it as interrupted" \
    grep -qE "$1</a>.*<td>interrupted</td>|>$1</td>.*<td>interrupted</td>" "$tmp/results/index.html"
}

# The server templates a matrix makes (issue 28) live in its scratch directory: as root the
# server user must reach it ($tmp is mktemp's 0700). pg: postgres is installed.
pg=$(ls /usr/lib/postgresql/*/bin/initdb 2>/dev/null | head -1)
[ "$(id -u)" -eq 0 ] && chmod 0711 "$tmp"

# --- plot DIR
killed p
n=$done_at_kill
"$IDB" plot "$tmp/results/p" >/dev/null 2>"$tmp/err"
recovered p "$n"

# --- clean DIR
killed c
n=$done_at_kill
"$IDB" clean "$tmp/results/c" >"$tmp/out" 2>"$tmp/err"
check "clean: succeeds" test $? -eq 0
recovered c "$n"

# --- a new matrix beside it (stopped by SIGTERM once started: it recovered before making its
# directory); a live run beside it is left alone
killed m
n=$done_at_kill
mkdir -p "$tmp/t.live"
TMPDIR=$tmp/t.live "$IDB" matrix --quick --out "$tmp/results/live" >/dev/null 2>&1 &
live=$!
k=0
while [ ! -e "$tmp/results/live/matrix.lock" ] && [ $k -lt $LOOKS_MAX ]; do sleep 0.1; k=$((k + 1)); done
# its meta.json says running before its server templates are made (they take seconds): a run
# that holds its owner file is seen running
if [ -n "$pg" ]; then
  k=0
  while [ -z "$(ls -d "$tmp/t.live"/idbench.*/templates 2>/dev/null)" ] && [ $k -lt $LOOKS_MAX ]
  do sleep 0.05; k=$((k + 1)); done
  check "live: meta.json says running once its templates are being made" \
    grep -q '"status": "running"' "$tmp/results/live/meta.json"
fi
mkdir -p "$tmp/t.new"
TMPDIR=$tmp/t.new "$IDB" matrix --quick --out "$tmp/results/new" >/dev/null 2>&1 &
new=$!
k=0
while [ ! -e "$tmp/results/new/meta.json" ] && [ $k -lt $LOOKS_MAX ]; do sleep 0.1; k=$((k + 1)); done
kill -TERM $new
{ wait $new; } 2>/dev/null
recovered m "$n"
check "a live run is left running" grep -q '"status": "running"' "$tmp/results/live/meta.json"
check "a live run keeps its owner file" test -e "$tmp/results/live/matrix.lock"
check "a live run keeps its scratch directory" test -n "$(ls -A "$tmp/t.live")"
kill -TERM $live
{ wait $live; } 2>/dev/null

# --- a planted owner file naming a directory that is not a scratch directory of ours
mkdir -p "$tmp/results/f" "$tmp/victim/keep"
cp "$tmp/results/p/meta.json" "$tmp/results/f/meta.json"
sed -i 's/"status": "interrupted"/"status": "running"/' "$tmp/results/f/meta.json"
printf 'pid 1\nscratch %s\n' "$tmp/victim" >"$tmp/results/f/matrix.lock"
"$IDB" clean "$tmp/results/f" >/dev/null 2>"$tmp/err"
check "planted: the named directory is left" test -d "$tmp/victim/keep"
check "planted: the run is marked interrupted" grep -q '"status": "interrupted"' "$tmp/results/f/meta.json"
cli_done
