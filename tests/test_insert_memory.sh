#!/usr/bin/env bash
# test_insert_memory.sh — the insert runner's memory does not grow with the shard count:
# `--shards 1024 -n 100000` runs within a 2 GB address space (when each shard's key array
# was sized for all n IDs, this needed 1024 x 100000 x 33 bytes = 3.4 GB and failed);
# and a 1M-ID pagesim run peaks (VmHWM from /proc, the whole process) at most
# RSS_PER_ID_MAX bytes per ID for 64-bit keys (counter) and RSS_PER_ID16_MAX for 16-byte
# keys (uuidv4): issue 13 (measured 44 and 73; with a latency kept per ID on pagesim,
# which measures none, 51 and 78; the code before pagesim's compact pages, 185).
# Skipped (77) in a sanitizer build: the sanitizers reserve terabytes of address space.
# Usage: test_insert_memory.sh IDBENCH SANITIZE (meson's b_sanitize: none, address, ...)
set -u
IDB=${1:?usage: test_insert_memory.sh path/to/idbench b_sanitize}
SANITIZE=${2:?usage: test_insert_memory.sh path/to/idbench b_sanitize}
. "$(dirname "$0")/cli_lib.sh"

AS_LIMIT_KB=$((2 * 1024 * 1024))        # ulimit -v counts KiB: 2 GiB
SMALL_LIMIT_KB=$((128 * 1024))          # 128 MiB
MEM_IDS=1000000
RSS_PER_ID_MAX=48                       # bytes per ID, whole process, 8-byte keys
RSS_PER_ID16_MAX=80                     # ... 16-byte keys
POLL_S=0.02

if [ "$SANITIZE" != none ]; then
  echo "skipped: a sanitizer build ($SANITIZE) cannot run under ulimit -v"
  exit 77
fi

# limited KB COMMAND...: run COMMAND with its address space limited to KB KiB.
limited() { local kb=$1; shift; (ulimit -v "$kb" && exec "$@"); }

# the limit is real here: 5M IDs (40 MB of keys alone, about 185 MB in all) do not fit 128 MB
expect 1 "a run too big for its limit is refused" -- limited "$SMALL_LIMIT_KB" "$IDB" insert \
  --store pagesim --strategy snowflake -n 5000000
check "a run too big for its limit: out of memory" grep -q 'out of memory' "$tmp/err"

expect 0 "1024 shards, 100000 IDs in 2 GB of address space" -- limited "$AS_LIMIT_KB" "$IDB" \
  insert --store pagesim --strategy snowflake --shards 1024 -n 100000
check "1024 shards: every ID counted" test "$(cut -d, -f4 "$tmp/out" | tail -1)" = 100000

# peak_kb COMMAND...: run COMMAND (stdout in $tmp/out), print its peak resident set (VmHWM
# in /proc/PID/status, polled until it exits; the high-water mark only grows, so the last
# reading is the peak unless it came in the last POLL_S) in KiB.
peak_kb() {
  "$@" >"$tmp/out" 2>"$tmp/err" &
  local pid=$! hwm=0 v
  while kill -0 "$pid" 2>/dev/null; do
    v=$(awk '/^VmHWM:/ { print $2 }' "/proc/$pid/status" 2>/dev/null)
    [ -n "$v" ] && hwm=$v
    sleep "$POLL_S"
  done
  wait "$pid" || echo "FAIL: $* exited $?" >&2
  echo "$hwm"
}

for case in "counter $RSS_PER_ID_MAX" "uuidv4 $RSS_PER_ID16_MAX"; do
  set -- $case
  mkdir -p "$tmp/m-$1"
  kb=$(peak_kb "$IDB" insert --store pagesim --strategy "$1" -n "$MEM_IDS" --dir "$tmp/m-$1")
  per_id=$((kb * 1024 / MEM_IDS))
  echo "pagesim $1: peak $kb KiB, $per_id bytes per ID (at most $2)"
  check "pagesim $1, $MEM_IDS IDs: every ID counted" \
    test "$(cut -d, -f4 "$tmp/out" | tail -1)" = "$MEM_IDS"
  check "pagesim $1, $MEM_IDS IDs: $per_id bytes per ID <= $2" test "$per_id" -le "$2"
  check "pagesim $1: the peak was read" test "$kb" -gt 0
done

cli_done
