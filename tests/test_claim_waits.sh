#!/usr/bin/env bash
# test_claim_waits.sh — claim 8 (many writers: ordered keys wait more per order than random
# keys) on real stores, through `idbench claims --quick --waits-store S` (slow suite: the
# whole table runs, claim 1's counter servers included; about a minute):
#   - sqlite and lmdb measure their write-lock wait: claim 8 gets a verdict (holds or does
#     not hold, never unknown), both runs' wait shares in [0, 1], every figure measured;
#   - postgres (the default store): a verdict when its server reports waits, "unknown"
#     naming the empty figures when it does not, "unknown: skipped" when it is not installed
#     — never a pass without figures.
# Usage: test_claim_waits.sh IDBENCH
set -u
. "$(dirname "$0")/cli_lib.sh"
idb=$1
chmod 711 "$tmp"                  # the server user (postgres, as root) must reach its dir
export TMPDIR=$tmp

row8() { grep '^| 8 | uuidv7: ' "$tmp/out"; }
# has_verdict: row 8 ends with "holds" or "does not hold" (and its failed checks)
has_verdict() { row8 | grep -qE '\| (holds|does not hold)[^|]*\|$'; }
for st in sqlite lmdb; do
  expect 0 "claims --waits-store $st" -- "$idb" claims --quick --waits-store $st --no-failover
  check "$st: claim 8 has a verdict" has_verdict
  for s in $(row8 | grep -oE 'wait share [0-9.]+' | awk '{ print $3 }'); do
    check "$st: wait share $s in [0,1]" awk -v s="$s" 'BEGIN { exit !(s >= 0 && s <= 1) }'
  done
  check "$st: two wait shares measured" [ "$(row8 | grep -oE 'wait share [0-9.]+ \(measured\)' | wc -l)" -eq 2 ]
done
expect 0 "claims (postgres, the default)" -- "$idb" claims --quick --no-failover
r=$(row8)
if grep -q 'wait figures empty' <<<"$r"; then
  check "postgres without waits: unknown, not a pass" grep -q '| unknown: store postgres reported no wait figures' <<<"$r"
elif grep -q 'skipped' <<<"$r"; then
  check "postgres not installed: unknown" grep -q '| unknown: skipped' <<<"$r"
else
  check "postgres: a verdict from its wait figures" has_verdict
fi
cli_done
