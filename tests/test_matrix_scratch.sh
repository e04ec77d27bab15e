#!/usr/bin/env bash
# test_matrix_scratch.sh — however a matrix ends, it leaves no temporary directory behind:
# small matrices run with TMPDIR set to a private directory of this test (so parallel
# tests do not interfere), and that directory must be as empty afterwards as before, for a
# matrix whose cells all succeed, one whose store is skipped (its binary overridden to a
# missing path: no cell at all), one whose every cell fails at the server's preflight (as
# root: a TMPDIR the server's user cannot pass through), one whose cell fails on bad input
# found only when it runs (a workload file that is there but not a workload), a bad matrix
# file (exit 2, before anything runs), one stopped by SIGINT, and one whose reader went
# away (SIGPIPE: it died of that with its scratch directory left, empty, before tmpdir.c
# caught SIGPIPE too). Usage: test_matrix_scratch.sh IDBENCH
set -u
IDB=${1:?usage: test_matrix_scratch.sh path/to/idbench}
IDB=$(cd "$(dirname "$IDB")" && pwd)/$(basename "$IDB")
. "$(dirname "$0")/cli_lib.sh"
set -m            # job control: a background job gets SIGINT (without it, the shell ignores it)

SIGINT_AFTER_S=2  # the interrupted matrix is stopped this long after it started

# The matrix's TMPDIR, and the directory the matrices run in. As root, the servers' users
# must be able to pass through TMPDIR to a cell's directory (the preflight checks it).
mkdir -p "$tmp/t" "$tmp/cwd"
chmod 711 "$tmp"

# matrix FILE BODY: a matrix file of BODY (sections with their keys; printf's escapes) and,
# for every other section that runs by default, that section turned off.
matrix() {
  local body; body=$(printf '%b' "$2")
  { printf '[matrix]\nrepeat = 1\n'
    for sec in generation insert curve openloop simulate claims; do
      grep -qx "\[$sec\]" <<<"$body" || printf '[%s]\nenabled = 0\n' "$sec"
    done
    printf '%s\n' "$body"; } >"$tmp/$1"
}

# ends WHAT STATUS [ENV=VALUE...] -- ARGS...: run `idbench matrix ARGS` in $tmp/cwd with
# TMPDIR=$T (default $tmp/t) and the environment given, check its exit status and that $T
# holds afterwards what it held before (nothing). Leaves stdout in $tmp/out, stderr in
# $tmp/err.
ends() {
  local what=$1 want=$2 env=() t=${T:-$tmp/t}; shift 2
  while [ "$1" != -- ]; do env+=("$1"); shift; done
  shift
  local before; before=$(ls -A "$t")
  (cd "$tmp/cwd" && env TMPDIR="$t" "${env[@]}" "$IDB" matrix "$@") \
    >"$tmp/out" 2>"$tmp/err"
  local got=$?
  check "$what: exit status $got (want $want)" test "$got" -eq "$want"
  [ "$got" -eq "$want" ] || sed 's/^/  stderr: /' "$tmp/err" | tail -3
  check "$what: no temporary directory left ($(ls -A "$t"))" test "$(ls -A "$t")" = "$before"
}

matrix ok.ini '[insert]\nenabled = 1\nstrategies = counter, uuidv4\nstores = pagesim, null
sizes = 500'
ends "every cell succeeds" 0 -- "$tmp/ok.ini" --out "$tmp/r-ok"
check "every cell succeeds: no failed cell" grep -q '"cells_failed": 0' "$tmp/r-ok/meta.json"

matrix pg.ini '[insert]\nenabled = 1\nstrategies = counter\nstores = postgres\nsizes = 100'
ends "every store skipped" 0 IDBENCH_POSTGRES="$tmp/none" -- "$tmp/pg.ini" --out "$tmp/r-skip"
check "every store skipped: said so" grep -q 'store postgres skipped: ' "$tmp/err"

if [ "$(id -u)" = 0 ] && "$IDB" help postgres >/dev/null 2>&1 &&
   [ -x /usr/lib/postgresql/15/bin/postgres ]; then
  # as root, a TMPDIR the server's user (postgres) cannot pass through: the preflight of
  # every cell refuses the cell's directory, before any server file is made
  mkdir -p "$tmp/closed/t" && chmod 700 "$tmp/closed"
  matrix pf.ini "[insert]\nenabled = 1\nstrategies = counter, uuidv4\nstores = postgres
sizes = 100"
  T=$tmp/closed/t ends "every cell fails at the preflight" 1 -- "$tmp/pf.ini" --out "$tmp/r-pf"
  check "every cell fails at the preflight: the preflight said why" \
    grep -q 'cannot reach' "$tmp/r-pf/meta.json"
  check "every cell fails at the preflight: no cell succeeded" \
    grep -q '"cells_failed": 2' "$tmp/r-pf/meta.json"
else
  echo "skipped: every cell failing at the preflight (not root, or no PostgreSQL here)"
fi

printf 'this is not a workload\n' >"$tmp/not-a-workload.ini"
matrix bad-wl.ini "[simulate]\nenabled = 1\nworkloads = not-a-workload.ini"
ends "a cell refuses its input when it runs" 1 -- "$tmp/bad-wl.ini" --out "$tmp/r-wl"
check "a cell refuses its input when it runs: recorded" \
  grep -q '"cells_failed": 1' "$tmp/r-wl/meta.json"

matrix bad.ini '[insert]\nenabled = 1\nstores = nosuchstore'
ends "a bad matrix file" 2 -- "$tmp/bad.ini" --out "$tmp/r-bad"
check "a bad matrix file: nothing made" test ! -e "$tmp/r-bad"

# SIGINT while an insert cell runs (a long one: it is killed)
matrix long.ini '[insert]\nenabled = 1\nstrategies = uuidv4\nstores = sqlite\nsizes = 5000000'
before=$(ls -A "$tmp/t")
(cd "$tmp/cwd" && TMPDIR="$tmp/t" exec "$IDB" matrix "$tmp/long.ini" --out "$tmp/r-int") \
  >"$tmp/out" 2>"$tmp/err" &
pid=$!
sleep "$SIGINT_AFTER_S"
check "SIGINT: a temporary directory while it runs" test -n "$(ls -A "$tmp/t")"
kill -s INT $pid
{ wait $pid; } 2>/dev/null
status=$?
check "SIGINT: died of it (status $status)" test $status -eq $((128 + $(kill -l INT)))
check "SIGINT: no temporary directory left ($(ls -A "$tmp/t"))" \
  test "$(ls -A "$tmp/t")" = "$before"

# SIGPIPE: whoever reads its progress goes away after the first line (`| head -1`); the
# next line it writes raises SIGPIPE, which by default kills it where it stands
matrix many.ini '[insert]\nenabled = 1\nstrategies = counter, uuidv4, uuidv7, snowflake
stores = pagesim, null\nsizes = 2000'
before=$(ls -A "$tmp/t")
(cd "$tmp/cwd" && TMPDIR="$tmp/t" "$IDB" matrix "$tmp/many.ini" --out "$tmp/r-pipe" 2>&1 |
  head -1 >"$tmp/out"; exit "${PIPESTATUS[0]}")
status=$?
check "SIGPIPE: died of it (status $status)" test $status -eq $((128 + $(kill -l PIPE)))
check "SIGPIPE: no temporary directory left ($(ls -A "$tmp/t"))" \
  test "$(ls -A "$tmp/t")" = "$before"
check "SIGPIPE: meta.json says interrupted" \
  grep -q '"status": "interrupted"' "$tmp/r-pipe/meta.json"

cli_done
