#!/usr/bin/env bash
# test_clients_server.sh — idbench insert --clients C on PostgreSQL (a throw-away cluster,
# pg_cluster.sh; stopped however the test ends): 4 sessions insert exactly the rows one
# session inserts (seeded uuidv4: the same IDs), read back with psql, not through idbench:
# n rows, n distinct keys, the same keys; no failed transaction; wait_share measured (the
# sampler of pg_waits.c) within [0, 1] (tests/test_waits_server.sh checks the rest).
# Usage: test_clients_server.sh IDBENCH
set -u
IDB=${1:?usage: test_clients_server.sh path/to/idbench}
. "$(dirname "$0")/cli_lib.sh"
. "$(dirname "$0")/pg_cluster.sh"
trap 'pg_stop_all; rm -rf "$tmp"' EXIT
pg_start A "shared_buffers = 1MB" || { echo "could not start a PostgreSQL cluster" >&2; exit 1; }
n=4000
sql() { PGOPTIONS="-c client_min_messages=warning" psql -X -At "$1" -c "$2"; }
schema() { sql "$A" "SELECT nspname FROM pg_namespace WHERE nspname LIKE 'idbench\\_%'"; }
for c in 1 4; do
  expect 0 "postgres --clients $c" -- "$IDB" insert --store postgres --strategy uuidv4 -n $n \
    --batch 100 --seed 7 --clients $c -s "dsn=$A" -s keep=1
  check "--clients $c: no failed transactions" [ "$(out_field failed_txns)" = 0 ]
  check "--clients $c: wait_share in [0,1]" \
    awk -v v="$(out_field wait_share)" 'BEGIN { exit !(v != "" && v >= 0 && v <= 1) }'
  s=$(schema)
  sql "$A" "SELECT id FROM $s.orders ORDER BY id" >"$tmp/keys-$c"
  check "--clients $c: $n rows" [ "$(wc -l <"$tmp/keys-$c")" -eq $n ]
  check "--clients $c: $n distinct keys" \
    [ "$(sql "$A" "SELECT count(DISTINCT id) FROM $s.orders")" -eq $n ]
  sql "$A" "DROP SCHEMA $s CASCADE" >/dev/null
done
check "4 sessions stored exactly one session's keys" cmp -s "$tmp/keys-1" "$tmp/keys-4"
cli_done
