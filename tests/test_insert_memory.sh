#!/usr/bin/env bash
# test_insert_memory.sh — the insert runner's memory does not grow with the shard count:
# `--shards 1024 -n 100000` runs within a 2 GB address space (when each shard's key array
# was sized for all n IDs, this needed 1024 x 100000 x 33 bytes = 3.4 GB and failed).
# Skipped (77) in a sanitizer build: the sanitizers reserve terabytes of address space.
# Usage: test_insert_memory.sh IDBENCH SANITIZE (meson's b_sanitize: none, address, ...)
set -u
IDB=${1:?usage: test_insert_memory.sh path/to/idbench b_sanitize}
SANITIZE=${2:?usage: test_insert_memory.sh path/to/idbench b_sanitize}
. "$(dirname "$0")/cli_lib.sh"

AS_LIMIT_KB=$((2 * 1024 * 1024))        # ulimit -v counts KiB: 2 GiB
SMALL_LIMIT_KB=$((128 * 1024))          # 128 MiB

if [ "$SANITIZE" != none ]; then
  echo "skipped: a sanitizer build ($SANITIZE) cannot run under ulimit -v"
  exit 77
fi

# limited KB COMMAND...: run COMMAND with its address space limited to KB KiB.
limited() { local kb=$1; shift; (ulimit -v "$kb" && exec "$@"); }

# the limit is real here: 5M IDs (40 MB of latencies alone, 165 MB of keys) do not fit 128 MB
expect 1 "a run too big for its limit is refused" -- limited "$SMALL_LIMIT_KB" "$IDB" insert \
  --store pagesim --strategy snowflake -n 5000000
check "a run too big for its limit: out of memory" grep -q 'out of memory' "$tmp/err"

expect 0 "1024 shards, 100000 IDs in 2 GB of address space" -- limited "$AS_LIMIT_KB" "$IDB" \
  insert --store pagesim --strategy snowflake --shards 1024 -n 100000
check "1024 shards: every ID counted" test "$(cut -d, -f4 "$tmp/out" | tail -1)" = 100000

cli_done
