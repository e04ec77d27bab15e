#!/usr/bin/env bash
# test_failover_lag.sh — failover from a lagging replica (--fault failover-lagged@N:LAG_MS):
# the replicas stop receiving at order N (postgres: the primary's walsenders SIGSTOPped;
# redis: each replica's link pointed where nothing listens), the primary is SIGKILLed LAG_MS
# later and a replica promoted 200 ms after. Per backend and mode one insert run on SQLite,
# its figures checked against the stored keys (failover_lib.sh), and then: asynchronous
# replication (postgres async, redis without WAIT) repeats IDs (duplicate_ids > 0: what
# the primary acknowledged during the lag never reached the promoted replica), while
# postgres replication=sync and redis wait_replicas=1 repeat none. A lag longer than the
# orders take still ends in the kill (halfway through the orders left, after sleeping out the
# lag), so the failover completes and IDs repeat; a fault the orders cannot complete (the
# last order) is one line and status 2, leaving no DIR. No server is left.
# Needs PostgreSQL 15, redis-server and sqlite3 (slow suite: ~10 s a run).
# Usage: test_failover_lag.sh IDBENCH
set -u
IDB=${1:?usage: test_failover_lag.sh path/to/idbench}
. "$(dirname "$0")/cli_lib.sh"
. "$(dirname "$0")/failover_lib.sh"

DETECT=200                                  # failover-lagged's delay before the promotion
FAULT="failover-lagged@$((N / 4)):100"

# repeats WHAT: the last run's duplicate_ids above 0; none WHAT: exactly 0.
repeats() { check "$1: duplicate_ids $dup > 0 (acknowledged IDs lost with the primary)" \
  test "${dup:-0}" -gt 0; }
none() { check "$1: duplicate_ids $dup = 0" test "${dup:-x}" = 0; }

one "postgres async" counter backend=postgres replicas=1 replication=async
repeats "postgres async"
one "postgres sync" counter backend=postgres replicas=1 replication=sync
none "postgres sync"
one "redis, no WAIT" counter backend=redis replicas=1
repeats "redis, no WAIT"
one "redis, WAIT 1 of 2 replicas" counter backend=redis replicas=2 wait_replicas=1
none "redis, WAIT 1 of 2 replicas"
FAULT="failover-lagged@$((N / 4)):3000"     # far longer than the 3,000 orders left take
start=$(date +%s%N)
one "redis, a lag longer than the run" counter backend=redis replicas=1
repeats "redis, a lag longer than the run"
ms=$(( ($(date +%s%N) - start) / 1000000 ))
check "redis, a lag longer than the run: the lag was slept out ($ms ms >= 3000)" \
  test "$ms" -ge 3000
FAULT="failover-lagged@$((N - 1)):100"
expect 2 "failover-lagged at the last order: the fault cannot complete" -- "$IDB" insert \
  --store sqlite --strategy counter -n $N --dir "$tmp/lastorder" -o backend=redis \
  -o replicas=1 --fault "$FAULT"
check "failover-lagged at the last order: says the orders ran out" grep -q "orders ran out" \
  "$tmp/err"
check "failover-lagged at the last order: no DIR left" test ! -e "$tmp/lastorder"
check "no server left, nothing left in TMPDIR" none_left
cli_done
