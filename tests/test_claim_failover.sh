#!/usr/bin/env bash
# test_claim_failover.sh — claim 10 (issue 26: a counter on an asynchronous replica repeats
# IDs after failover unless each increment waits for a replica) through `idbench claims
# --quick --waits-store none` (slow suite: the whole quick table runs, claim 1's servers
# included; claim 10 --quick is postgres async and sync with failover-lagged): row 10
# holds, its two modes measured (the async one with duplicate IDs above 0, the sync one
# with 0), and no server process or file is left. tests/mutations.txt's
# failover-lag-no-stop (the walsenders never stopped: no lag) makes it "does not hold".
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
check "no server left, nothing left in TMPDIR" eval \
  '! find /proc -maxdepth 2 -name cwd -exec readlink {} + 2>/dev/null | grep -q "^$TMPDIR" &&
   [ -z "$(ls -A "$TMPDIR")" ]'
cli_done
