#!/usr/bin/env bash
# test_range_shared.sh — any number of processes on one `range` directory wait for the lease
# lock instead of failing ("database is locked"): four `idbench gen range` processes of 1M IDs
# each with range_size=1000 (about 4,000 leases, each an fsync'd transaction) on one
# directory all succeed, print all their IDs, and no ID is printed twice. Usage:
# test_range_shared.sh IDBENCH
set -u
IDB=${1:?usage: test_range_shared.sh path/to/idbench}
. "$(dirname "$0")/cli_lib.sh"

N=1000000
PROCS=4
mkdir "$tmp/rg"
pids=()
for i in $(seq $PROCS); do
  "$IDB" gen range -n $N -o dir="$tmp/rg" -o range_size=1000 -o shard="$i" \
    >"$tmp/ids$i" 2>"$tmp/err$i" &
  pids+=($!)
done
for i in $(seq $PROCS); do
  wait "${pids[$((i - 1))]}"
  rc=$?
  check "process $i succeeds (status $rc: $(head -c 200 "$tmp/err$i"))" test "$rc" -eq 0
  check "process $i prints nothing on stderr" test ! -s "$tmp/err$i"
  check "process $i prints $N IDs" test "$(wc -l <"$tmp/ids$i")" -eq $N
done
check "no ID twice across the processes" \
  test -z "$(cat "$tmp"/ids[0-9]* | sort | uniq -d | head -3)"
cli_done
