#!/usr/bin/env bash
# test_claim_failover.sh — claims 10 and 11 (issue 26) through `idbench claims --quick
# --waits-store none` (slow suite: the whole quick table runs, claim 1's servers included):
#   10: a counter on an asynchronous replica repeats IDs after failover unless each
#       increment waits for a replica (--quick: postgres async and sync, failover-lagged):
#       it holds, the async run's duplicate IDs above 0, the sync run's 0;
#   11: a paused worker that keeps its expired worker ID repeats IDs, one that stops does
#       not (--quick: worker_source=postgres, pause-worker): it holds, continue's
#       duplicates above 0, stop's 0;
# and no server process or file is left. tests/mutations.txt's failover-lag-no-stop (the
# walsenders never stopped: no lag) and lease-stop-continues (stop goes on with the lost
# worker) make them "does not hold".
# Usage: test_claim_failover.sh IDBENCH
set -u
. "$(dirname "$0")/cli_lib.sh"
idb=$1
chmod 711 "$tmp"                  # the server user (postgres, as root) must reach its dir
export TMPDIR="$tmp/t"
mkdir -p "$TMPDIR"

row10() { grep '^| 10 | counter: ' "$tmp/out"; }
expect 0 "claims --quick" -- "$idb" claims --quick --waits-store none
check "claim 10 holds" eval 'row10 | grep -qE "\| holds \|$"'
async=$(row10 | grep -oE 'postgres async: [0-9]+ duplicate IDs' | grep -oE '[0-9]+')
sync=$(row10 | grep -oE 'postgres sync: [0-9]+ duplicate IDs' | grep -oE '[0-9]+')
check "postgres async repeated IDs (${async:-none})" test "${async:-0}" -gt 0
check "postgres sync repeated none (${sync:-none})" test "${sync:-x}" = 0
row11() { grep '^| 11 | snowflake: ' "$tmp/out"; }
check "claim 11 holds" eval 'row11 | grep -qE "\| holds \|$"'
cont=$(row11 | grep -oE 'on_lease_lost=continue: [0-9]+ duplicate IDs' | grep -oE '[0-9]+')
stop=$(row11 | grep -oE 'on_lease_lost=stop: [0-9]+ duplicate IDs' | grep -oE '[0-9]+')
check "a worker that continues repeated IDs (${cont:-none})" test "${cont:-0}" -gt 0
check "a worker that stops repeated none (${stop:-none})" test "${stop:-x}" = 0
check "no server left, nothing left in TMPDIR" eval \
  '! find /proc -maxdepth 2 -name cwd -exec readlink {} + 2>/dev/null | grep -q "^$TMPDIR" &&
   [ -z "$(ls -A "$TMPDIR")" ]'
cli_done
