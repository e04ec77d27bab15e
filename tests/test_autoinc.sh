#!/usr/bin/env bash
# test_autoinc.sh — strategy autoinc (the database assigns the key) on a user's PostgreSQL
# and MariaDB server this script starts (pg_cluster.sh; a mariadbd on a private socket),
# stopped on every exit path. idbench inserts with keep=1, so the tables stay; their
# keys are then counted here with psql / mariadb, independently of idbench's figures: every
# shard's table holds 1..n_k (the identity / AUTO_INCREMENT counting from 1), the run's
# duplicate_ids equals the keys two shards' tables share (a join), one shard has none and
# no order break; on two MariaDB servers whose AUTO_INCREMENT interleave (increment 2, offsets
# 1 and 2), one per shard, duplicate_ids is 0 (a key computed by the runner instead of read
# back would repeat: the mutation that test catches). Also the refusals (exit 2, nothing made).
# Usage: test_autoinc.sh IDBENCH
set -u
IDB=${1:?usage: test_autoinc.sh path/to/idbench}
. "$(dirname "$0")/cli_lib.sh"
. "$(dirname "$0")/pg_cluster.sh"

srv=$(mktemp -d /tmp/idb-ai-XXXXXX)
pids=()
stop_server() { :; }
trap 'stop_server; rm -rf "$srv" "$tmp"; for d in "${PG_CLUSTERS[@]}"; do
  pg_as "$PGBIN/pg_ctl" -D "$d/data" -m immediate -w -s stop 2>/dev/null; rm -rf "$d"; done' EXIT

# The value of column NAME in the CSV header + row of file $1.
col() { awk -F, -v n="$2" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == n) c = i }
                           NR == 2 { print $c }' "$1"; }

# --- refusals, before anything is made
expect 2 "autoinc on sqlite" -- "$IDB" insert --store sqlite --strategy autoinc -n 10 --dir "$tmp/r1"
check "autoinc on sqlite: nothing made" test ! -e "$tmp/r1"
expect 2 "autoinc with 16-byte keys" -- "$IDB" insert --store postgres --strategy autoinc -n 10 \
  -s key_bytes=16 --dir "$tmp/r2"
expect 2 "autoinc with method=copy" -- "$IDB" insert --store postgres --strategy autoinc -n 10 \
  -s method=copy --dir "$tmp/r3"
expect 2 "autoinc with mariadb secondary=1" -- "$IDB" insert --store mariadb --strategy autoinc \
  -n 10 -s secondary=1 --dir "$tmp/r4"
expect 2 "autoinc with --clients 2" -- "$IDB" insert --store mariadb --strategy autoinc -n 10 \
  --clients 2 --dir "$tmp/r5"
check "refusals made nothing" test ! -e "$tmp/r2" -a ! -e "$tmp/r3" -a ! -e "$tmp/r4" -a ! -e "$tmp/r5"

# --- PostgreSQL: two shards on one user's server, schemas kept
pg_start dsn || { echo "FAIL: postgres"; exit 1; }
psqlq() { pg_as "$PGBIN/psql" -X -A -t -q -d "$dsn" -c "$1"; }
expect 0 "postgres autoinc, 2 shards" -- "$IDB" insert --store postgres --strategy autoinc \
  -n 3000 --shards 2 --batch 250 -s "dsn=$dsn" -s keep=1
cp "$tmp/out" "$tmp/pg.csv"
mapfile -t schemas < <(sed -n 's/.*kept schema \([a-z0-9_]*\).*/\1/p' "$tmp/err")
check "postgres: two schemas kept" test "${#schemas[@]}" -eq 2
total=0
for s in "${schemas[@]}"; do
  IFS='|' read -r n nd lo hi <<<"$(psqlq "SELECT count(*), count(DISTINCT id), min(id), max(id) FROM $s.orders")"
  check "postgres $s: keys 1..$n, none twice" test "$nd" = "$n" -a "$lo" = 1 -a "$hi" = "$n"
  total=$((total + n))
done
check "postgres: every order stored" test "$total" -eq 3000
both=$(psqlq "SELECT count(*) FROM ${schemas[0]}.orders JOIN ${schemas[1]}.orders USING (id)")
check "postgres: duplicate_ids ($(col "$tmp/pg.csv" duplicate_ids)) = keys both shards hold ($both)" \
  test "$(col "$tmp/pg.csv" duplicate_ids)" = "$both" -a "$both" -gt 0
expect 0 "postgres autoinc, 1 shard" -- "$IDB" insert --store postgres --strategy autoinc -n 2000 \
  -s "dsn=$dsn"
check "postgres 1 shard: no duplicate, no order break" \
  test "$(col "$tmp/out" duplicate_ids)" = 0 -a "$(col "$tmp/out" order_breaks)" = 0

# --- MariaDB: the same on a user's server; then two servers whose AUTO_INCREMENT interleave
# (increment 2, offsets 1 and 2), one per shard: their keys never meet, so duplicate_ids must be
# 0 — a key the runner computed instead of reading it back (1, 2, 3 on each shard) would repeat
run_as=()
if [ "$(id -u)" -eq 0 ]; then run_as=(--user=mysql); chown mysql "$srv"; fi
chmod 0700 "$srv"
pids=()
# start_md NAME [mariadbd options]: a server in $srv/NAME, socket $srv/NAME.sock
start_md() {
  local d=$srv/$1
  shift
  # (TMPDIR unset: the server's user may not enter the caller's)
  env -u TMPDIR mariadb-install-db --no-defaults --datadir="$d" "${run_as[@]}" \
    --auth-root-authentication-method=socket --skip-test-db >"$d.install.log" 2>&1 ||
    { echo "FAIL: mariadb-install-db"; tail -5 "$d.install.log"; exit 1; }
  env -u TMPDIR mariadbd --no-defaults --datadir="$d" --socket="$d.sock" --skip-networking \
    "${run_as[@]}" --innodb-buffer-pool-size=8M --log-error="$d.err.log" \
    --pid-file="$d.pid" "$@" >/dev/null 2>&1 &
  pids+=($!)
  for ((i = 0; i < 600; i++)); do
    mariadb-admin -S "$d.sock" ping >/dev/null 2>&1 && return
    sleep 0.1
  done
  echo "FAIL: mariadbd $d"; tail -5 "$d.err.log"; exit 1
}
stop_server() { for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null; wait "$p" 2>/dev/null; done; }
start_md one
sock=$srv/one.sock
sql() { mariadb -S "$sock" -N -e "$1"; }
expect 0 "mariadb autoinc, 2 shards" -- "$IDB" insert --store mariadb --strategy autoinc \
  -n 3000 --shards 2 --batch 250 -s "socket=$sock" -s keep=1
cp "$tmp/out" "$tmp/md.csv"
mapfile -t dbs < <(sql "SHOW DATABASES LIKE 'idbench\\_%'")
check "mariadb: two databases kept" test "${#dbs[@]}" -eq 2
total=0
for d in "${dbs[@]}"; do
  read -r n nd lo hi <<<"$(sql "SELECT count(*), count(DISTINCT id), min(id), max(id) FROM \`$d\`.orders")"
  check "mariadb $d: keys 1..$n, none twice" test "$nd" = "$n" -a "$lo" = 1 -a "$hi" = "$n"
  total=$((total + n))
done
check "mariadb: every order stored" test "$total" -eq 3000
both=$(sql "SELECT count(*) FROM \`${dbs[0]}\`.orders a JOIN \`${dbs[1]}\`.orders b USING (id)")
check "mariadb: duplicate_ids ($(col "$tmp/md.csv" duplicate_ids)) = keys both shards hold ($both)" \
  test "$(col "$tmp/md.csv" duplicate_ids)" = "$both" -a "$both" -gt 0
check "mariadb: autoinc=1 echoed" test "$(col "$tmp/md.csv" autoinc)" = 1

start_md odd --auto-increment-increment=2 --auto-increment-offset=1
start_md even --auto-increment-increment=2 --auto-increment-offset=2
expect 0 "mariadb autoinc, 2 shards on interleaved servers" -- "$IDB" insert --store mariadb \
  --strategy autoinc -n 3000 --shards 2 --batch 250 -s "socket=$srv/odd.sock,$srv/even.sock" \
  -s keep=1
check "interleaved servers: duplicate_ids 0 (the keys read back, not counted)" \
  test "$(col "$tmp/out" duplicate_ids)" = 0
for p in odd:1 even:0; do
  d=$(mariadb -S "$srv/${p%%:*}.sock" -N -e "SHOW DATABASES LIKE 'idbench\\_%'")
  check "interleaved servers: every key on ${p%%:*} is ${p#*:} mod 2" test "$(mariadb -S \
    "$srv/${p%%:*}.sock" -N -e "SELECT count(*) FROM \`$d\`.orders WHERE id % 2 <> ${p#*:}")" = 0
done

cli_done
