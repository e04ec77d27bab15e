#!/usr/bin/env bash
# test_failover.sh — the counter failover on real replication (replicas=R, --fault
# failover-counter@N), end to end: for each backend and mode (postgres async and sync, a
# CACHE 50 sequence, segment with 2 standbys; redis without WAIT and with wait_replicas=1 on
# 2 replicas) one insert run on SQLite whose primary is SIGKILLed at N/2, its figures checked
# against the stored keys (failover_lib.sh). No server is left afterwards.
# Needs PostgreSQL 15, redis-server and sqlite3 (slow suite: ~20 s a postgres run).
# Usage: test_failover.sh IDBENCH
set -u
IDB=${1:?usage: test_failover.sh path/to/idbench}
. "$(dirname "$0")/cli_lib.sh"
. "$(dirname "$0")/failover_lib.sh"

one "postgres async" counter backend=postgres replicas=1 replication=async
one "postgres sync" counter backend=postgres replicas=1 replication=sync
one "postgres async, CACHE 50" counter backend=postgres replicas=1 cache=50
one "segment on postgres, 2 standbys" segment backend=postgres replicas=2 block=64
one "redis, no WAIT" counter backend=redis replicas=1
one "redis, WAIT 1 of 2 replicas" counter backend=redis replicas=2 wait_replicas=1
check "no server left, nothing left in TMPDIR" none_left
cli_done
