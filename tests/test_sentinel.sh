#!/usr/bin/env bash
# test_sentinel.sh — Redis Sentinel promotes the counter's replica (-o backend=redis
# -o replicas=R -o sentinel=1): with --fault failover-counter and failover-lagged an insert
# run on SQLite completes, its figures checked against the stored keys (failover_lib.sh:
# duplicate_ids, lost_ids, failover_ms, the orders after the kill served); the line idbench
# prints from Sentinel's and the new primary's own state says Sentinel promoted it
# (config-epoch >= 1: Sentinel's failover completed; it aborts when the replica is already a
# master) with SLAVEOF (Sentinel's command; idbench's promotion is REPLICAOF NO ONE, which
# failover-counter would show as a REPLICAOF call); an idbench SIGKILLed mid-run leaves no
# process; no Sentinel or server is left. Needs redis-server and sqlite3 (slow suite).
# Usage: test_sentinel.sh IDBENCH
set -u
IDB=${1:?usage: test_sentinel.sh path/to/idbench}
. "$(dirname "$0")/cli_lib.sh"
. "$(dirname "$0")/failover_lib.sh"
[ -x /usr/bin/redis-server ] || { echo "SKIP: no redis-server"; exit 77; }

DETECT=1   # failover_ms set; not >= down-after (200 ms): Sentinel counts from its last reply
by_sentinel() {   # by_sentinel WHAT REPLICAOF_CALLS: the line says Sentinel promoted
  check "$1: Sentinel's failover completed (config-epoch >= 1)" \
    grep -Eq "sentinel: the primary is replica-[0-9] .*config-epoch [1-9]" "$tmp/err"
  check "$1: the new primary got SLAVEOF (Sentinel's), $2 REPLICAOF (idbench's)" \
    grep -Eq "SLAVEOF calls on it: [1-9][0-9]*, REPLICAOF calls: $2\$" "$tmp/err"
}

one "sentinel, failover-counter" counter backend=redis replicas=1 sentinel=1
by_sentinel "sentinel, failover-counter" 0
one "sentinel, 2 replicas" counter backend=redis replicas=2 sentinel=1
by_sentinel "sentinel, 2 replicas" 0
FAULT="failover-lagged@$((N / 4)):100"   # idbench's lag points the replica away: 1 REPLICAOF
one "sentinel, failover-lagged" counter backend=redis replicas=1 sentinel=1
by_sentinel "sentinel, failover-lagged" 1
check "sentinel, failover-lagged: duplicate_ids $dup > 0" test "${dup:-0}" -gt 0

# killed mid-run: once Sentinel runs (its cwd DIR/sentinel under TMPDIR), SIGKILL idbench
sentinels() { find /proc -maxdepth 2 -name cwd -exec readlink {} + 2>/dev/null |
  grep -c "^$TMPDIR.*/sentinel\$"; }
"$IDB" insert --store sqlite --strategy counter -n 10000000 --dir "$tmp/killed" \
  -o backend=redis -o replicas=1 -o sentinel=1 >/dev/null 2>&1 &
pid=$!
for _ in $(seq 300); do [ "$(sentinels)" -gt 0 ] && break; sleep 0.1; done
check "killed mid-run: Sentinel was running" test "$(sentinels)" -gt 0
kill -9 $pid
wait $pid 2>/dev/null
for _ in $(seq 50); do none_left_procs=$(find /proc -maxdepth 2 -name cwd -exec readlink {} + \
  2>/dev/null | grep -c "^$TMPDIR"); [ "$none_left_procs" = 0 ] && break; sleep 0.1; done
check "killed mid-run: no process left ($none_left_procs)" test "$none_left_procs" = 0
rm -rf "${TMPDIR:?}"/* /tmp/idb-"$pid"-* 2>/dev/null   # what the killed run could not remove
check "no Sentinel or server left, nothing left in TMPDIR" none_left
cli_done
