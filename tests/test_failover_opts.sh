#!/usr/bin/env bash
# test_failover_opts.sh — the replicated counter server's options and columns, without
# starting any server (default suite, fast): replicas=R without a server idbench starts,
# failover-counter and failover-lagged without replicas, replication=sync without
# standbys, replication= on redis, wait_replicas on postgres or above R, cache= off
# postgres, transport=tcp with replicas, R above its maximum, and sentinel=1 off redis,
# without replicas, on a user's server or sentinel=2, and kill-counter with sentinel=1
# (idbench's restart beside Sentinel's promotion: two primaries) are each refused with
# exit 2, one line, and nothing started or left in TMPDIR; the faults' forms are listed;
# lost_ids and failover_ms are columns of insert, empty without a counter server.
# Usage: test_failover_opts.sh IDBENCH
set -u
IDB=${1:?usage: test_failover_opts.sh path/to/idbench}
. "$(dirname "$0")/cli_lib.sh"
export TMPDIR="$tmp/t"
mkdir -p "$TMPDIR"
# nothing_started: no process works in $TMPDIR and nothing was made there.
nothing_started() {
  ! find /proc -maxdepth 2 -name cwd -exec readlink {} + 2>/dev/null | grep -q "^$TMPDIR" &&
    [ -z "$(ls -A "$TMPDIR")" ]
}
ins() { "$IDB" insert --store sqlite --strategy "$1" -n 100 --dir "$tmp/d" "${@:2}"; }

refused() {   # refused WHAT WORD -- ARGS...: exit 2, one line naming WORD, nothing started
  local what=$1 word=$2; shift 3
  expect 2 "$what" -- ins "$@"
  check "$what: the line names $word" grep -q -- "$word" "$tmp/err"
  check "$what: nothing started, no --dir made" nothing_started
  check "$what: no --dir made" test ! -e "$tmp/d"
}
refused "replicas on the local backend" "backend=postgres|redis" -- counter -o replicas=1
refused "replicas on a user's server" "without dsn=" -- counter -o backend=postgres \
  -o replicas=1 -o "dsn=host=/nowhere"
refused "failover-counter without replicas" "replicas=R" -- counter -o backend=postgres \
  --fault failover-counter@10
refused "failover-counter on the local backend" "counter server" -- counter \
  --fault failover-counter@10
refused "replication=sync without standbys" "replication=sync" -- counter -o backend=postgres \
  -o replication=sync
refused "kill-counter with sentinel=1" "failover-counter" -- counter -o backend=redis \
  -o replicas=1 -o sentinel=1 --fault kill-counter@10
refused "replication= on redis" "replication=" -- counter -o backend=redis -o replicas=1 \
  -o replication=async
refused "wait_replicas on postgres" "wait_replicas" -- counter -o backend=postgres \
  -o replicas=1 -o wait_replicas=1
refused "wait_replicas above replicas" "wait_replicas" -- counter -o backend=redis \
  -o replicas=1 -o wait_replicas=2
refused "cache off postgres" "cache=N" -- counter -o backend=redis -o cache=10
refused "transport=tcp with replicas" "transport=unix" -- counter -o backend=postgres \
  -o replicas=1 -o transport=tcp
refused "replicas above 3" "replicas" -- counter -o backend=postgres -o replicas=4
refused "segment: replication=sync without standbys" "replication=sync" -- segment \
  -o backend=postgres -o replication=sync
refused "failover-counter@N at the run's end" "N must be" -- counter -o backend=postgres \
  -o replicas=1 --fault failover-counter@100
refused "failover-counter with kill-counter" "one fault" -- counter -o backend=postgres \
  -o replicas=1 --fault failover-counter@10 --fault kill-counter@20

refused "sentinel on postgres" "sentinel=1" -- counter -o backend=postgres -o replicas=1 \
  -o sentinel=1
refused "sentinel on the local backend" "sentinel=1" -- counter -o sentinel=1
refused "sentinel without replicas" "sentinel=1" -- counter -o backend=redis -o sentinel=1
refused "sentinel on a user's server" "sentinel=1" -- counter -o backend=redis \
  -o url=unix:/nowhere -o sentinel=1
refused "sentinel=2" "sentinel" -- counter -o backend=redis -o replicas=1 -o sentinel=2

refused "failover-lagged without replicas" "replicas=R" -- counter -o backend=redis \
  --fault failover-lagged@10
refused "failover-lagged on a user's server" "counter server" -- counter -o backend=redis \
  -o url=unix:/nowhere --fault failover-lagged@10:50
refused "failover-lagged@N at the run's end" "N must be" -- counter -o backend=postgres \
  -o replicas=1 --fault failover-lagged@100
refused "failover-lagged with failover-counter" "one fault" -- counter -o backend=postgres \
  -o replicas=1 --fault failover-lagged@10 --fault failover-counter@20

expect 2 "a misspelled fault lists failover-counter" -- ins counter --fault failover@1
check "the forms include failover-counter@N[:DETECT_MS]" \
  grep -q 'failover-counter@N\[:DETECT_MS\]' "$tmp/err"
check "the forms include failover-lagged@N[:LAG_MS]" \
  grep -q 'failover-lagged@N\[:LAG_MS\]' "$tmp/err"

expect 0 "insert without a counter server" -- "$IDB" insert --store null --strategy counter \
  -n 100
check "lost_ids is a column" grep -q '^.*,lost_ids,' "$tmp/out"
check "failover_ms is a column" grep -q ',failover_ms,' "$tmp/out"
check "lost_ids empty without a counter server ($(out_field lost_ids))" \
  test -z "$(out_field lost_ids)"
check "failover_ms empty without the fault ($(out_field failover_ms))" \
  test -z "$(out_field failover_ms)"
cli_done
