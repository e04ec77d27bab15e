#!/usr/bin/env bash
# test_failover.sh — the counter failover on real replication (replicas=R, --fault
# failover-counter@N), end to end: for each backend and mode (postgres async and sync, a
# CACHE 50 sequence, segment with 2 standbys; redis without WAIT and with wait_replicas=1 on
# 2 replicas) one insert run on SQLite whose primary is SIGKILLed at N/2, then each shard's
# keys dumped with the sqlite3 CLI (integers: the store keeps an 8-byte key as one) and the run's figures checked against them:
# duplicate_ids = IDs handed out (ids - failed_orders) - distinct keys stored (and refused),
# lost_ids = (highest - lowest + 1) - distinct keys, every handed-out ID stored or refused,
# failover_ms at least the DETECT_MS asked, and the orders after the kill served (by the
# promoted server: the old primary is dead), so few failed. No server is left afterwards.
# Needs PostgreSQL 15, redis-server and sqlite3 (slow suite: ~20 s a postgres run).
# Usage: test_failover.sh IDBENCH
set -u
IDB=${1:?usage: test_failover.sh path/to/idbench}
. "$(dirname "$0")/cli_lib.sh"
command -v sqlite3 >/dev/null || { echo "SKIP: no sqlite3"; exit 77; }
export TMPDIR="$tmp/t"
mkdir -p "$TMPDIR"
chmod 711 "$tmp"
none_left() {
  ! find /proc -maxdepth 2 -name cwd -exec readlink {} + 2>/dev/null | grep -q "^$TMPDIR" &&
    [ -z "$(ls -A "$TMPDIR")" ]
}

N=4000
DETECT=150
run=0
# one NAME STRATEGY OPTION...: the run, then its checks against the stored keys.
one() {
  local name=$1 strategy=$2; shift 2
  local opts=() d="$tmp/run$((run += 1))"
  for o in "$@"; do opts+=(-o "$o"); done
  expect 0 "$name: failover at $((N / 2))" -- "$IDB" insert --store sqlite --strategy \
    "$strategy" -n $N --batch 100 --dir "$d" -o timeout_ms=300 "${opts[@]}" \
    --fault "failover-counter@$((N / 2)):$DETECT"
  [ -s "$tmp/out" ] || return
  sqlite3 "$d"/shard-0/orders.sqlite 'SELECT id FROM orders' | sort -n >"$tmp/keys"
  local dup rows failed lost fms stored distinct lo hi
  dup=$(out_field duplicate_ids) rows=$(out_field duplicate_rows)
  failed=$(out_field failed_orders) lost=$(out_field lost_ids) fms=$(out_field failover_ms)
  stored=$(wc -l <"$tmp/keys")
  distinct=$(uniq "$tmp/keys" | wc -l)
  lo=$(head -1 "$tmp/keys") hi=$(tail -1 "$tmp/keys")
  check "$name: every handed-out ID stored or refused ($stored + $rows = $N - $failed)" \
    test $((stored + rows)) -eq $((N - failed))
  # one shard: a repeated ID is refused by the shard's key, so the stored keys are distinct
  check "$name: duplicate_ids $dup = handed out $((N - failed)) - distinct stored $distinct" \
    test "$dup" -eq $((N - failed - distinct))
  check "$name: lost_ids $lost = ($hi - $lo + 1) - distinct $distinct" \
    test "$lost" -eq $((hi - lo + 1 - distinct))
  check "$name: failover_ms $fms >= DETECT_MS $DETECT" \
    awk -v f="$fms" -v d=$DETECT 'BEGIN { exit !(f != "" && f >= d) }'
  check "$name: the orders after the kill were served ($failed failed)" \
    test "$failed" -lt $((N / 10))
  check "$name: IDs above the kill's were handed out ($hi > $((N / 2)))" test "$hi" -gt $((N / 2))
}

one "postgres async" counter backend=postgres replicas=1 replication=async
one "postgres sync" counter backend=postgres replicas=1 replication=sync
one "postgres async, CACHE 50" counter backend=postgres replicas=1 cache=50
one "segment on postgres, 2 standbys" segment backend=postgres replicas=2 block=64
one "redis, no WAIT" counter backend=redis replicas=1
one "redis, WAIT 1 of 2 replicas" counter backend=redis replicas=2 wait_replicas=1
check "no server left, nothing left in TMPDIR" none_left
cli_done
