#!/usr/bin/env bash
# test_progress.sh IDBENCH — insert's progress line (a second): on a terminal (script(1)
# gives it one) stderr shows "insert: N% (DONE of TOTAL orders)" lines once the run is past
# IDBENCH_PROGRESS_AFTER_MS (2 s by default; 0 here) and erases it at the end; stdout's CSV
# is the same as without a terminal; with stderr not a terminal nothing is printed there.
set -u
idb=$1
. "$(dirname "$0")/cli_lib.sh"
run="$idb insert --store pagesim --strategy counter -n 20000 --batch 100"

IDBENCH_PROGRESS_AFTER_MS=0 script -qfec "$run 2>$tmp/tty-err >$tmp/tty-out" /dev/null \
  >/dev/null 2>&1 </dev/null
# script gives the command a terminal on stdin/stdout/stderr; the redirections above keep
# stderr a file, so run it once more with stderr on the terminal, captured by script.
IDBENCH_PROGRESS_AFTER_MS=0 script -qfec "$run >$tmp/out2" "$tmp/typescript" >/dev/null 2>&1 </dev/null
check "progress lines on a terminal" grep -qa 'insert: .*% (.* of 20000 orders)' "$tmp/typescript"
check "the last one erased at the end" \
  grep -qaPz 'orders\), [0-9.]+ s\r\x1b\[K\r?\n\s*Script done' "$tmp/typescript"
check "stderr not a terminal: no progress" [ ! -s "$tmp/tty-err" ]
IDBENCH_PROGRESS_AFTER_MS=0 $run >"$tmp/plain" 2>"$tmp/plain-err"
check "no terminal: stderr empty" [ ! -s "$tmp/plain-err" ]
check "the same CSV header either way" [ "$(head -1 "$tmp/plain")" = "$(head -1 "$tmp/out2")" ]
check "the same pages either way (pagesim counter is deterministic)" \
  [ "$(cut -d, -f19 "$tmp/plain" | tail -1)" = "$(cut -d, -f19 "$tmp/out2" | tail -1)" ]
cli_done
