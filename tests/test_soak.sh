#!/usr/bin/env bash
# test_soak.sh — the uniqueness soak across processes. For every strategy of `idbench list`
# that promises unique IDs across processes (its fourth column, enum idb_xproc in
# strategies/strategy.h: the list is read, never typed here), PROCS processes of
# `idbench gen NAME -t 2` run at the same time on the condition the promise names:
#   always           nothing more
#   distinct-worker  -o worker=K, K = 0 .. PROCS-1
#   shared-dir       -o dir=DIR, one directory for all
# Every process must exit 0 and print its N IDs, and the merged IDs must hold no duplicate
# (sort | uniq -d is empty). Strategies that promise nothing ("none") are skipped by that
# property: counter and segment until their counter service is shared by processes.
# Bounded: PROCS x N IDs per strategy, a few seconds in all. Usage: test_soak.sh IDBENCH
set -u
IDB=${1:?usage: test_soak.sh path/to/idbench}
. "$(dirname "$0")/cli_lib.sh"
PROCS=4
N=50000

"$IDB" list >"$tmp/list"
check "idbench list works" test -s "$tmp/list"
soaked=0
while IFS=$'\t' read -r s _ _ xp; do
  case $xp in
    none) echo "skip $s: it promises nothing across processes"; continue ;;
    always) opt_of() { :; } ;;
    distinct-worker) opt_of() { echo "worker=$1"; } ;;
    shared-dir) mkdir -p "$tmp/shared-$s"; opt_of() { echo "dir=$tmp/shared-$s"; } ;;
    *) check "$s: cross_process '$xp' is one the soak knows" false; continue ;;
  esac
  pids=()
  for k in $(seq 0 $((PROCS - 1))); do
    opt=()
    o=$(opt_of "$k")
    [ -n "$o" ] && opt=(-o "$o")
    "$IDB" gen "$s" -n "$N" -t 2 "${opt[@]}" >"$tmp/ids-$s.$k" 2>"$tmp/err-$s.$k" &
    pids+=($!)
  done
  status=0
  for p in "${pids[@]}"; do wait "$p" || status=1; done
  check "$s: $PROCS processes exit 0" test "$status" -eq 0
  [ "$status" -eq 0 ] || cat "$tmp"/err-"$s".* | head -3
  check "$s: $PROCS x $N IDs printed" test "$(cat "$tmp"/ids-"$s".* | wc -l)" -eq $((PROCS * N))
  dups=$(cat "$tmp"/ids-"$s".* | LC_ALL=C sort -S 64M | uniq -d | wc -l)
  check "$s ($xp): no ID twice among $PROCS processes (got $dups)" test "$dups" -eq 0
  soaked=$((soaked + 1)); echo "$s: $SECONDS s"
done <"$tmp/list"
check "at least one strategy soaked" test "$soaked" -gt 0
cli_done
