#!/usr/bin/env bash
# test_wlease_cli.sh — the worker leases' options and the pause-worker fault refused before
# anything starts (no server, fast): snowflake lists worker_source, lease_ms and
# on_lease_lost; a strategy without a worker field does not take worker_source; the lease
# decides the worker (no -o worker=); one writer per shard; pause-worker needs
# worker_source, an N below the order count and an MS above lease_ms; lease_ms below
# etcd's 2 s and an unknown on_lease_lost are refused; a misspelled fault's line names
# pause-worker. Each refusal exits 2 with one line and leaves no --dir behind.
# Usage: test_wlease_cli.sh IDBENCH
set -u
IDB=${1:?usage: test_wlease_cli.sh path/to/idbench}
. "$(dirname "$0")/cli_lib.sh"

expect 0 "help snowflake" -- "$IDB" help snowflake
for opt in worker_source=none lease_ms=2000 on_lease_lost=stop; do
  check "help snowflake lists $opt" grep -q "^  $opt" "$tmp/out"
done

d="$tmp/never"
ins() { "$IDB" insert --store sqlite --strategy snowflake -n 100 --dir "$d" "$@"; }
refused() {   # refused DESCRIPTION PATTERN -- ARGS...: exit 2, the line matches, no dir
  local what=$1 pat=$2; shift 3
  expect 2 "$what" -- ins "$@"
  check "$what: says why" grep -q -- "$pat" "$tmp/err"
  check "$what: nothing made" test ! -e "$d"
}
expect 2 "uuidv4 takes no worker_source" -- \
  "$IDB" insert --store sqlite --strategy uuidv4 -n 10 --dir "$d" -o worker_source=etcd
check "uuidv4: unknown option named" grep -q "worker_source" "$tmp/err"
refused "worker= with worker_source" "lease decides the worker" -- \
  -o worker_source=etcd -o worker=3
refused "pause-worker without worker_source" "needs leased workers" -- \
  --fault pause-worker@10:3000
refused "pause-worker MS not above lease_ms" "must be above lease_ms" -- \
  -o worker_source=etcd --fault pause-worker@10:2000
refused "pause-worker MS not above a longer lease_ms" "above lease_ms (5000)" -- \
  -o worker_source=postgres -o lease_ms=5000 --fault pause-worker@10:4000
refused "pause-worker N at the order count" "below the order count" -- \
  -o worker_source=etcd --fault pause-worker@100:3000
refused "lease_ms below 2 s" "lease_ms" -- -o worker_source=etcd -o lease_ms=1000
refused "on_lease_lost unknown" "on_lease_lost" -- -o worker_source=etcd -o on_lease_lost=maybe
refused "pause-worker with two faults" "one fault per run" -- -o worker_source=etcd \
  --fault pause-worker@10:3000 --fault kill-counter@5
expect 2 "a misspelled fault" -- ins --fault pause-wrker@10
check "a misspelled fault's line names pause-worker@N[:MS]" grep -qF 'pause-worker@N[:MS]' "$tmp/err"
expect 2 "worker_source with --clients 2" -- "$IDB" insert --store null --strategy snowflake \
  -n 100 --clients 2 -o worker_source=etcd
check "--clients: says one writer per shard" grep -q "one writer per shard\|takes 1 writer" "$tmp/err"
cli_done
