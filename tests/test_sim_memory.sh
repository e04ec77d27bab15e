#!/usr/bin/env bash
# test_sim_memory.sh — the simulator's peak memory per order on a moderate run: ten
# seconds of workloads/internet-hour.ini (about 1M orders, 1,024 instances, 64 shards),
# peak resident set (VmHWM from /proc, the whole process) per order, for snowflake (64-bit
# IDs) at most U64_BYTES_PER_ORDER_MAX and for uuidv7 (128-bit) at most
# U128_BYTES_PER_ORDER_MAX. Issue 13's target is about 32 for 64-bit IDs; measured 36 and
# 47 (of which ~12.5 MB, 13 bytes an order here, is the process before any order: 23.5 and
# 34.7 above it; docs/simulator.md, "Memory"), where the simulator that stored the stream
# and idb_id records took 115 for both. Skipped (77) in a sanitizer build (its shadow
# memory).
# Usage: test_sim_memory.sh IDBENCH SOURCE_ROOT SANITIZE
set -u
IDB=${1:?usage: test_sim_memory.sh path/to/idbench source_root b_sanitize}
ROOT=${2:?usage: test_sim_memory.sh path/to/idbench source_root b_sanitize}
SANITIZE=${3:?usage: test_sim_memory.sh path/to/idbench source_root b_sanitize}
. "$(dirname "$0")/cli_lib.sh"

U64_BYTES_PER_ORDER_MAX=40
U128_BYTES_PER_ORDER_MAX=56
SECONDS_OF_ORDERS=10
POLL_S=0.02

if [ "$SANITIZE" != none ]; then
  echo "skipped: a sanitizer build ($SANITIZE) has shadow memory"
  exit 77
fi

# peak STRATEGY MAX: run the slice for STRATEGY, check its bytes per order against MAX.
peak() {
  local st=$1 max=$2 pid hwm=0 v orders per rc
  "$IDB" simulate "$ROOT/workloads/internet-hour.ini" --format csv --strategies "$st" \
    --set "workload.duration_s=$SECONDS_OF_ORDERS" >"$tmp/out-$st" 2>"$tmp/err-$st" &
  pid=$!
  while kill -0 "$pid" 2>/dev/null; do
    v=$(awk '/^VmHWM:/ { print $2 }' "/proc/$pid/status" 2>/dev/null)
    [ -n "$v" ] && hwm=$v
    sleep "$POLL_S"
  done
  wait "$pid"
  rc=$?
  check "$st: the simulation ran" test "$rc" -eq 0
  orders=$(awk -F, 'NR == 2 { print $3 }' "$tmp/out-$st")
  check "$st: it played orders" test "${orders:-0}" -gt 0
  per=$((hwm * 1024 / ${orders:-1}))
  echo "$st: peak $hwm KiB for $orders orders: $per bytes per order (at most $max)"
  check "$st: $per bytes per order <= $max" test "$per" -le "$max"
}

peak snowflake "$U64_BYTES_PER_ORDER_MAX"
peak uuidv7 "$U128_BYTES_PER_ORDER_MAX"
cli_done
