#!/usr/bin/env bash
# test_waits_server.sh — lock and latch waits, failed transactions, isolation and server CPU
# on the real servers (issue 24), for KIND = postgres or mariadb:
#   - private servers, --clients 4 and 1: wait_share and every wait_share_<what> within
#     [0, 1]; the lock and latch details sum to at most wait_share; wait_share, io, other and
#     wait_share_none sum to 1 (to the printed precision); the other store's classes empty;
#     server_cpu_ns_per_order above 0 and below the run's wall time x cores;
#   - at --clients 1 the old figures (rows, pages, sizes) are the same with and without the
#     wait measurement (postgres wait_sample_us=0, mariadb perf_schema=off);
#   - a failure provoked on purpose: a test session locks the table (postgres LOCK TABLE
#     past the writers' lock_timeout_ms; mariadb SELECT ... FOR UPDATE past
#     innodb_lock_wait_timeout), so failed_txns > 0, retries > 0, and every row is stored
#     exactly once (read back by the test, not by idbench);
#   - isolation=: a bad value refused (exit 2) before anything is made; the level reaches
#     the server (postgres: its statement log; mariadb: the sessions' tx_isolation);
#   - on a user's server (dsn=, socket=) server_cpu_ns_per_order is empty.
# Usage: test_waits_server.sh IDBENCH postgres|mariadb
set -u
IDB=${1:?usage: test_waits_server.sh path/to/idbench postgres|mariadb}
KIND=${2:?usage: test_waits_server.sh path/to/idbench postgres|mariadb}
. "$(dirname "$0")/cli_lib.sh"
export TMPDIR=${TMPDIR:-/tmp}
chmod 711 "$tmp"                 # the private servers' users enter their run directories
N=20000
CORES=$(nproc)
PG_CLASSES="lwlock_buffer_content lwlock_buffer_mapping lock"
MD_CLASSES="index_tree row_lock"

# in01 V: V is a number within [0, 1].
in01() { awk -v v="$1" 'BEGIN { exit !(v != "" && v + 0 >= 0 && v + 0 <= 1) }'; }
# empty V
empty() { [ -z "$1" ]; }

# The wait columns of $tmp/out: shares in [0, 1], details within the total, the whole 1;
# the classes of the other store empty; server CPU in range (private server).
check_waits() {
  local what=$1 mine=$2 theirs=$3 c v lock=0 sum
  local ws; ws=$(out_field wait_share)
  check "$what: wait_share in [0,1] ($ws)" in01 "$ws"
  check "$what: wait_share_none in [0,1]" in01 "$(out_field wait_share_none)"
  for c in $mine latch_other io; do
    v=$(out_field "wait_share_$c")
    check "$what: wait_share_$c in [0,1] ($v)" in01 "$v"
  done
  for c in $theirs; do check "$what: wait_share_$c empty" empty "$(out_field "wait_share_$c")"; done
  lock=$(for c in $mine latch_other; do out_field "wait_share_$c"; done | awk '{ s += $1 } END { print s }')
  check "$what: lock and latch details ($lock) at most wait_share ($ws)" \
    awk -v a="$lock" -v b="$ws" 'BEGIN { exit !(a <= b + 0.0005) }'
  sum=$(for c in wait_share wait_share_io wait_share_other wait_share_none; do out_field $c; done |
        awk '{ s += $1 } END { print s }')
  check "$what: wait_share + io + other + none = 1 ($sum)" \
    awk -v s="$sum" 'BEGIN { exit !(s > 0.998 && s < 1.002) }'
  check "$what: wait_ns_per_order >= 0" awk -v v="$(out_field wait_ns_per_order)" \
    'BEGIN { exit !(v != "" && v + 0 >= 0) }'
  local cpu secs; cpu=$(out_field server_cpu_ns_per_order); secs=$(out_field seconds)
  check "$what: server CPU per order ($cpu ns) > 0 and < wall x $CORES cores" \
    awk -v c="$cpu" -v n=$N -v s="$secs" -v k="$CORES" \
    'BEGIN { exit !(c != "" && c + 0 > 0 && c * n < s * 1e9 * k) }'
}

# The figures of $tmp/out that do not depend on time, as one line.
fixed_figures() {
  local c
  for c in leaf_pages depth index_bytes table_bytes duplicate_ids failed_txns retries; do
    printf '%s=%s ' "$c" "$(out_field $c)"
  done
}

# Private servers: the wait columns at C = 4 and 1, and C = 1 without the measurement.
private_runs() {
  local off=$1 mine=$2 theirs=$3 c
  for c in 4 1; do
    expect 0 "$KIND --clients $c (private server)" -- "$IDB" insert --store "$KIND" \
      --strategy uuidv7 -n $N --batch 100 --seed 3 --clients $c --dir "$tmp/run$c"
    check_waits "$KIND C=$c" "$mine" "$theirs"
  done
  local with; with=$(fixed_figures)
  expect 0 "$KIND --clients 1, no wait measurement" -- "$IDB" insert --store "$KIND" \
    --strategy uuidv7 -n $N --batch 100 --seed 3 --dir "$tmp/run-off" -s "$off"
  check "$KIND C=1: the old figures unchanged by the measurement ($with)" \
    [ "$(fixed_figures)" = "$with" ]
  check "$KIND C=1 without measurement: wait_share empty" empty "$(out_field wait_share)"
  expect 2 "$KIND: isolation=snapshot refused" -- "$IDB" insert --store "$KIND" \
    --strategy uuidv7 -n 10 --dir "$tmp/bad" -s isolation=snapshot
  check "$KIND: the refused run made nothing" [ ! -e "$tmp/bad" ]
}

pg_part() {
  . "$(dirname "$0")/pg_cluster.sh"
  trap 'pg_stop_all; rm -rf "$tmp"' EXIT
  private_runs wait_sample_us=0 "$PG_CLASSES" "$MD_CLASSES"
  pg_start A "log_statement = 'all'" || { echo "FAIL: a PostgreSQL cluster"; exit 1; }
  local log; log=$(dirname "$(pg_datadir "$A")")/log
  sql() { PGOPTIONS="-c client_min_messages=warning" psql -X -At "$A" -c "$1"; }
  # A session locks the table for 1.5 s once rows arrive; the writers give up after 200 ms.
  ( for ((i = 0; i < 600; i++)); do
      s=$(sql "SELECT nspname FROM pg_namespace WHERE nspname LIKE 'idbench\\_%'")
      [ -n "$s" ] && [ "$(sql "SELECT count(*) > 1000 FROM $s.orders" 2>/dev/null)" = t ] && break
      sleep 0.05
    done
    sql "BEGIN; LOCK TABLE $s.orders IN EXCLUSIVE MODE; SELECT pg_sleep(1.5); COMMIT" >/dev/null
  ) &
  local locker=$!
  expect 0 "postgres: a run meeting a held lock" -- "$IDB" insert --store postgres \
    --strategy uuidv4 -n 60000 --batch 100 --seed 5 --clients 4 -s "dsn=$A" -s keep=1 \
    -s lock_timeout_ms=200 -s isolation=serializable
  wait $locker
  check "postgres: failed transactions counted ($(out_field failed_txns))" \
    [ "$(out_field failed_txns)" -gt 0 ]
  check "postgres: and retried" [ "$(out_field retries)" -gt 0 ]
  check "postgres dsn=: server CPU empty" empty "$(out_field server_cpu_ns_per_order)"
  local s; s=$(sql "SELECT nspname FROM pg_namespace WHERE nspname LIKE 'idbench\\_%'")
  check "postgres: every row once" \
    [ "$(sql "SELECT count(*) || ' ' || count(DISTINCT id) FROM $s.orders")" = "60000 60000" ]
  check "postgres: the sessions at SERIALIZABLE" \
    grep -q "SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL SERIALIZABLE" "$log"
}

md_part() {
  private_runs perf_schema=off "$MD_CLASSES" "$PG_CLASSES"
  local sock i
  # srv and pid stay global: the EXIT trap runs after this function has returned (as
  # locals they were gone then, and `set -u` stopped the trap before its kill: the server
  # outlived every run)
  srv=$(mktemp -d /tmp/idb-mdw-XXXXXX); sock=$srv/s.sock; pid=
  trap 'if [ -n "${pid:-}" ]; then kill -9 "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; fi
        rm -rf "${srv:-}" "$tmp"' EXIT
  local run_as=()
  if [ "$(id -u)" -eq 0 ]; then run_as=(--user=mysql); chown mysql "$srv"; fi
  chmod 0700 "$srv"
  mariadb-install-db --no-defaults --datadir="$srv/data" "${run_as[@]}" \
    --auth-root-authentication-method=socket --skip-test-db >"$srv/install.log" 2>&1 ||
    { echo "FAIL: mariadb-install-db"; exit 1; }
  mariadbd --no-defaults --datadir="$srv/data" --socket="$srv/s.sock" --skip-networking \
    "${run_as[@]}" --innodb-buffer-pool-size=16777216 --performance-schema=ON \
    --log-error="$srv/err.log" >/dev/null 2>&1 &
  pid=$!
  for ((i = 0; i < 600; i++)); do
    mariadb-admin -S "$sock" ping >/dev/null 2>&1 && break
    sleep 0.1
  done
  sql() { mariadb -S "$sock" -N -e "$1"; }
  # A session locks the gap above every row for 2.5 s once rows arrive; the
  # writers give up after innodb_lock_wait_timeout = 1 s. Meanwhile another reads the
  # writers' isolation level (their transactions are open while they wait).
  ( for ((i = 0; i < 600; i++)); do
      d=$(sql "SHOW DATABASES LIKE 'idbench%'")
      [ -n "$d" ] && [ "$(sql "SELECT count(*) > 1000 FROM \`$d\`.orders" 2>/dev/null)" = 1 ] && break
      sleep 0.05
    done
    # the locker at SERIALIZABLE, so that its own transaction is told from the writers';
    # it locks the gap above every key (the supremum: an empty range far above the
    # counter's), where the writers append: taken at once, not behind their open rows
    sql "SET SESSION TRANSACTION ISOLATION LEVEL SERIALIZABLE; BEGIN;
         SELECT count(*) FROM \`$d\`.orders WHERE id > 1000000000000 FOR UPDATE;
         DO SLEEP(2.5); COMMIT" >/dev/null &
    # the writers' transactions, open while they wait: looked for until one is seen or the
    # run has ended (a count of looks ran out on a loaded machine before one was seen)
    until [ -e "$tmp/run_ended" ]; do
      sql "SELECT DISTINCT t.TRX_ISOLATION_LEVEL FROM information_schema.INNODB_TRX t
           WHERE t.TRX_ISOLATION_LEVEL <> 'SERIALIZABLE'" >"$tmp/levels" 2>/dev/null
      grep -q . "$tmp/levels" && break
      sleep 0.01
    done
    wait
  ) &
  local locker=$!
  expect 0 "mariadb: a run meeting a held lock" -- "$IDB" insert --store mariadb \
    --strategy counter -n 60000 --batch 100 --seed 5 --clients 4 -s "socket=$sock" \
    -s keep=1 -s lock_wait_timeout=1 -s isolation=read_committed
  touch "$tmp/run_ended"
  wait $locker
  check "mariadb: failed transactions counted ($(out_field failed_txns))" \
    [ "$(out_field failed_txns)" -gt 0 ]
  check "mariadb: and retried" [ "$(out_field retries)" -gt 0 ]
  check "mariadb socket=: server CPU empty" empty "$(out_field server_cpu_ns_per_order)"
  local d; d=$(sql "SHOW DATABASES LIKE 'idbench%'")
  check "mariadb: every row once" \
    [ "$(sql "SELECT concat(count(*), ' ', count(DISTINCT id)) FROM \`$d\`.orders")" = "60000 60000" ]
  check "mariadb: the sessions at READ COMMITTED ($(cat "$tmp/levels" 2>/dev/null))" \
    grep -qx "READ COMMITTED" "$tmp/levels"
}

case $KIND in
  postgres) pg_part ;;
  mariadb) md_part ;;
  *) echo "usage: test_waits_server.sh IDBENCH postgres|mariadb" >&2; exit 2 ;;
esac
cli_done
