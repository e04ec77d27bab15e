#!/usr/bin/env bash
# test_input_files.sh — files idbench is given to read that are not what they claim: a
# FIFO, /dev/zero (itself, or a symlink to it), a 300 MB sparse file, in place of a results
# file (compare: insert_runs.csv; plot: insert.csv and meta.json), a workload file
# (simulate) and a matrix file (matrix). Each is refused with exit 2 and one "idbench: "
# line naming it, before a byte is read: quickly (a timeout marks a hang), under a 1 GB
# `ulimit -v` (a whole read of /dev/zero would run out), and nothing is written.
# Usage: test_input_files.sh IDBENCH SOURCE_DIR
set -u
IDB=${1:?usage: test_input_files.sh path/to/idbench SOURCE_DIR}
SRC=${2:?usage: test_input_files.sh path/to/idbench SOURCE_DIR}
IDB=$(cd "$(dirname "$IDB")" && pwd)/$(basename "$IDB")
. "$(dirname "$0")/cli_lib.sh"

LIMIT_S=30                     # far more than a refusal takes; a FIFO read whole hangs
VMEM_KB=1000000

# The sanitizers reserve terabytes of address space: no `ulimit -v` for them (the FIFO and
# /dev/zero are still caught by the timeout and the exit status).
if grep -q __asan_init "$IDB"; then VMEM_KB=unlimited; fi

# bounded CMD...: CMD under the memory limit and the timeout.
bounded() { (ulimit -v $VMEM_KB; exec timeout -s KILL $LIMIT_S "$@"); }

# plant KIND PATH: make PATH a FIFO, a symlink to /dev/zero, or a 300 MB sparse file.
plant() {
  rm -rf "$2"
  case $1 in
    fifo) mkfifo "$2" ;;
    zero) ln -s /dev/zero "$2" ;;
    big) truncate -s 300M "$2" ;;
  esac
}

# refused WHAT NAME -- CMD...: exit 2, one line naming NAME.
refused() {
  local what=$1 name=$2; shift 2
  expect 2 "$what" -- bounded "$@"
  check "$what: the line names $name" grep -qF "$name" "$tmp/err"
}

base=$tmp/base
cp -r "$SRC/results/sample" "$base"
rm -rf "$base/plots" "$base/report.md" "$base/report.html"

for kind in fifo zero big; do
  rm -rf "$tmp/a" && cp -r "$base" "$tmp/a"
  plant $kind "$tmp/a/insert_runs.csv"
  refused "compare, insert_runs.csv $kind" insert_runs.csv "$IDB" compare "$tmp/a" "$base"
  refused "compare --within, insert_runs.csv $kind" insert_runs.csv \
    "$IDB" compare --within "$tmp/a" --a counter --b uuidv4

  rm -rf "$tmp/p" && cp -r "$base" "$tmp/p"
  plant $kind "$tmp/p/insert.csv"
  refused "plot, insert.csv $kind" insert.csv "$IDB" plot "$tmp/p"
  check "plot, insert.csv $kind: no plot, no report" \
    test -z "$(ls -A "$tmp/p/plots" 2>/dev/null)" -a ! -e "$tmp/p/report.md"
  rm -rf "$tmp/p" && cp -r "$base" "$tmp/p"
  plant $kind "$tmp/p/meta.json"
  refused "plot, meta.json $kind" meta.json "$IDB" plot "$tmp/p"

  plant $kind "$tmp/w.ini"
  refused "simulate, workload $kind" w.ini "$IDB" simulate "$tmp/w.ini"
  refused "matrix, matrix file $kind" w.ini "$IDB" matrix "$tmp/w.ini" --out "$tmp/never"
  check "matrix, matrix file $kind: no results directory" test ! -e "$tmp/never"
done
refused "simulate, /dev/zero itself" /dev/zero "$IDB" simulate /dev/zero
refused "matrix, /dev/zero itself" /dev/zero "$IDB" matrix /dev/zero --out "$tmp/never"
cli_done
