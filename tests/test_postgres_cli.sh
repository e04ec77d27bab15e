#!/usr/bin/env bash
# test_postgres_cli.sh — `idbench insert --store postgres` on throw-away clusters (two, with
# a small shared_buffers; pg_cluster.sh stops them however the test ends): the figures'
# relations on a small run (with checkpoints, random keys write >= 50x the full-page images
# and >= 2x the WAL bytes per ID of a counter; uuidv4 lands at random and fragments the
# index, uuidv7 lands at the end and leaves it in order); dsn_file sends shard k to the k-th
# server; bad input exits 2, a server that is not there or dies mid-run exits 1, each with
# one line, and the other shard's schema is dropped; other stores leave the new columns empty.
# Usage: test_postgres_cli.sh IDBENCH
set -u
IDB=${1:?usage: test_postgres_cli.sh path/to/idbench}
. "$(dirname "$0")/cli_lib.sh"
. "$(dirname "$0")/pg_cluster.sh"
trap 'pg_stop_all; rm -rf "$tmp"' EXIT
pg_start A "shared_buffers = 1MB" && pg_start B "shared_buffers = 1MB" ||
  { echo "could not start the PostgreSQL clusters" >&2; exit 1; }

# field NAME: NAME's value in the CSV result in $tmp/out (header line, then one row).
field() {
  awk -F, -v name="$1" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == name) c = i }
                        NR == 2 && c { print $c }' "$tmp/out"
}
# sql DSN QUERY: one value.
sql() { PGOPTIONS="-c client_min_messages=warning" psql -X -At "$1" -c "$2"; }
schemas() { sql "$1" "SELECT count(*) FROM pg_namespace WHERE nspname LIKE 'idbench\\_%'"; }

run=(insert --store postgres -n 100000 -s "dsn=$A" -s checkpoint_every=2500 -s method=copy)
expect 0 "counter with checkpoints" -- "$IDB" "${run[@]}" --strategy counter
c_fpi=$(field fpi_per_id) c_wal=$(field wal_bytes_per_id) c_frag=$(field leaf_fragmentation)
c_fill=$(field fill_factor)
expect 0 "uuidv4 with checkpoints" -- "$IDB" "${run[@]}" --strategy uuidv4
u_fpi=$(field fpi_per_id) u_wal=$(field wal_bytes_per_id) u_frag=$(field leaf_fragmentation)
u_tail=$(field tail_insert_frac) u_pos=$(field insert_pos_p50)
expect 0 "uuidv7 with checkpoints" -- "$IDB" "${run[@]}" --strategy uuidv7
v_tail=$(field tail_insert_frac) v_frag=$(field leaf_fragmentation)
check "uuidv4: >= 50x the full-page images per ID ($u_fpi vs $c_fpi)" \
  awk -v u="$u_fpi" -v c="$c_fpi" 'BEGIN { exit !(u > 0 && c > 0 && u >= 50 * c) }'
check "uuidv4: >= 2x the WAL bytes per ID ($u_wal vs $c_wal)" \
  awk -v u="$u_wal" -v c="$c_wal" 'BEGIN { exit !(c > 0 && u >= 2 * c) }'
check "counter: leaves full and in order; uuidv4 out of order ($c_fill $c_frag $u_frag)" \
  awk -v f="$c_fill" -v c="$c_frag" -v u="$u_frag" 'BEGIN { exit !(f >= 0.88 && c == 0 && u >= 0.4) }'
# Issue 11 §3's locality claims on postgres, in the keys and in the engine's index.
check "uuidv4 lands at random: median position near 0.5, few at the end ($u_pos $u_tail)" \
  awk -v p="$u_pos" -v t="$u_tail" 'BEGIN { exit !(p != "" && t != "" && p >= 0.4 && p <= 0.6 &&
                                                  t <= 0.05) }'
check "uuidv7 lands near the end ($v_tail); its index in order, uuidv4's not ($v_frag $u_frag)" \
  awk -v t="$v_tail" -v v="$v_frag" -v u="$u_frag" 'BEGIN { exit !(t != "" && t >= 0.95 &&
                                                  v != "" && v <= 0.05 && u >= 0.3) }'
check "no schema left behind" test "$(schemas "$A")" = 0

# --series: a row per window from the progress hook: the index grows to the run's own
# index_bytes, the cache is the server's shared_buffers, the windows' misses add up to the
# run's.
expect 0 "uuidv4 with --series" -- "$IDB" insert --store postgres -n 20000 -s "dsn=$A" \
  --strategy uuidv4 --window 5000 --series "$tmp/series.csv"
s_idx=$(field index_bytes) s_miss=$(field cache_misses)
check "series: 4 windows, index growing to $s_idx, cache 1 MiB, misses adding up to $s_miss" \
  awk -F, -v idx="$s_idx" -v miss="$s_miss" 'NR > 1 { n++; if ($4 <= last) bad = 1; last = $4
      sum += $6; if ($10 != 1048576) bad = 1 }
    END { exit !(n == 4 && !bad && last == idx && miss > 0 && sum == miss) }' "$tmp/series.csv"

printf '# two servers\n%s\n\n%s\n' "$A" "$B" >"$tmp/dsns"
expect 0 "two shards on two servers (dsn_file)" -- "$IDB" insert --store postgres \
  --strategy uuidv7 -n 4000 --shards 2 -s "dsn_file=$tmp/dsns" -s keep=1
rows() {
  local s; s=$(sql "$1" "SELECT nspname FROM pg_namespace WHERE nspname LIKE 'idbench\\_%'")
  sql "$1" "SELECT count(*) FROM $s.orders"
}
ra=$(rows "$A") rb=$(rows "$B")
check "shard 0 on server A, shard 1 on B, one schema each ($ra + $rb rows)" \
  awk -v a="$ra" -v b="$rb" 'BEGIN { exit !(a > 0 && b > 0 && a + b == 4000) }'
for d in "$A" "$B"; do
  sql "$d" "DO \$\$ DECLARE s text; BEGIN FOR s IN SELECT nspname FROM pg_namespace WHERE
    nspname LIKE 'idbench\\_%' LOOP EXECUTE 'DROP SCHEMA ' || s || ' CASCADE'; END LOOP; END
    \$\$" >/dev/null
done

base=(insert --store postgres --strategy counter -n 100)
expect 2 "a malformed dsn" -- "$IDB" "${base[@]}" -s "dsn=host='unterminated"
expect 2 "a dsn with a comma (a host list)" -- "$IDB" "${base[@]}" -s "dsn=host=a,b"
expect 2 "a dsn without key=value" -- "$IDB" "${base[@]}" -s "dsn=nonsense"
expect 2 "dsn and dsn_file together" -- "$IDB" "${base[@]}" -s "dsn=$A" -s "dsn_file=$tmp/dsns"
expect 2 "a dsn_file that is not there" -- "$IDB" "${base[@]}" -s "dsn_file=$tmp/none"
printf '%s\nhost=\x27oops\n' "$A" >"$tmp/bad"
expect 2 "a dsn_file with a malformed line" -- "$IDB" "${base[@]}" -s "dsn_file=$tmp/bad"
: >"$tmp/empty"
expect 2 "an empty dsn_file" -- "$IDB" "${base[@]}" -s "dsn_file=$tmp/empty"
expect 2 "a bad shared_buffers" -- "$IDB" "${base[@]}" -s "dsn=$A" -s shared_buffers=8XB
expect 1 "a dsn that does not connect" -- "$IDB" "${base[@]}" \
  -s "dsn=host=$tmp/nowhere user=postgres"
check "... says it cannot connect" grep -q "cannot connect" "$tmp/err"

# A server killed mid-run: exit 1, one line; the other shard's schema is dropped.
"$IDB" insert --store postgres --strategy uuidv4 -n 3000000 --shards 2 \
  -s "dsn_file=$tmp/dsns" >"$tmp/out" 2>"$tmp/err" &
pid=$!
for _ in $(seq 300); do
  [ "$(schemas "$B")" = 1 ] && break
  sleep 0.1
done
sleep 1
pg_as "$PGBIN/pg_ctl" -D "$(pg_datadir "$B")" -m immediate -s stop
wait $pid
st=$?
check "server killed mid-run: exit 1 (got $st)" test "$st" = 1
check "... one idbench: line, no result" \
  bash -c "[ \$(wc -l <'$tmp/err') = 1 ] && grep -q '^idbench: ' '$tmp/err' && ! [ -s '$tmp/out' ]"
sed 's/^/  /' "$tmp/err"
check "... the live server's schema is dropped" test "$(schemas "$A")" = 0

shm_mark                          # the segments there before these runs (cli_lib.sh)
# Private servers (no dsn): one per shard in DIR/shard-K/postgres, all stopped at the end;
# one killed mid-run fails the run (exit 1, one line) and the other shard's is stopped.
chmod 711 "$tmp"                  # the server user (postgres, as root) must reach DIR
expect 0 "two shards on two private servers" -- "$IDB" insert --store postgres \
  --strategy uuidv7 -n 3000 --shards 2 --dir "$tmp/run"
check "... both servers stopped" test -z "$(pgrep -f "$tmp/run/")"
check "... pages counted" awk -v p="$(field leaf_pages)" 'BEGIN { exit !(p > 0) }'
"$IDB" insert --store postgres --strategy uuidv4 -n 3000000 --shards 2 --dir "$tmp/run2" \
  >"$tmp/out" 2>"$tmp/err" &
pid=$!
pidfile=$tmp/run2/shard-1/postgres.idbench-pid       # its record: a ready line once it serves
for _ in $(seq 600); do grep -qs '^ready' "$pidfile" && break; sleep 0.1; done
sleep 2
awk '$1 == "pid" { print $2 }' "$tmp"/run2/shard-*/postgres.idbench-pid >"$tmp/pg_pids"
kill -9 "$(awk '$1 == "pid" { print $2 }' "$pidfile")"
wait $pid
st=$?
check "private server killed mid-run: exit 1 (got $st)" test "$st" = 1
check "... one idbench: line, no result" \
  bash -c "[ \$(wc -l <'$tmp/err') = 1 ] && grep -q '^idbench: ' '$tmp/err' && ! [ -s '$tmp/out' ]"
sed 's/^/  /' "$tmp/err"
check "... no server left running" test -z "$(pgrep -f "$tmp/run2/")"
# their System V segments (postgres's, 56 bytes): released by a clean stop, and by idbench
# for the killed one (its backends gone); only segments made since the test began count
check "... no shared memory segment of theirs left" no_shm "$tmp/pg_pids"

# The matrix: postgres cells on a given server (meta.json names it; wal_fpi is drawn), and
# listed as skipped, not failed, when there is no server and no binaries.
mx() {
  printf '[matrix]\nrepeat = 1\n[generation]\nenabled = 0\n[insert]\nstrategies = counter, uuidv4
stores = postgres\nsizes = 2000\n[store.postgres]\n%s\ncheckpoint_every = 500\n[curve]\nenabled = 0
[curve.sqlite]\nenabled = 0\n[openloop]\nenabled = 0\n[simulate]\nenabled = 0\n[claims]
enabled = 0\n' "$1" >"$tmp/mx.ini"
}
mx "dsn = $A"
expect 0 "a matrix of postgres cells" -- "$IDB" matrix "$tmp/mx.ini" --out "$tmp/mx"
check "... meta.json names the server" grep -q '"servers": \["postgres: PostgreSQL 15' "$tmp/mx/meta.json"
check "... wal_fpi is drawn" test -s "$tmp/mx/plots/wal_fpi.png"
check "... insert.csv has the WAL column" grep -q ',postgres,.*[0-9]' "$tmp/mx/insert.csv"
mx ""
IDBENCH_POSTGRES=$tmp/none expect 0 "a matrix without PostgreSQL" -- \
  "$IDB" matrix "$tmp/mx.ini" --out "$tmp/mx2"
check "... says postgres is skipped, and why" grep -q 'store postgres skipped: .*missing' "$tmp/err"
check "... meta.json lists it as skipped" grep -q '"skipped": \["postgres: ' "$tmp/mx2/meta.json"
check "... and no failed cell" grep -q '"cells_failed": 0' "$tmp/mx2/meta.json"

expect 0 "sqlite: the server columns are empty" -- "$IDB" insert --store sqlite --strategy counter -n 100
check "... wal_bytes_per_id fpi_per_id splits_per_id leaf_fragmentation" \
  test -z "$(field wal_bytes_per_id)$(field fpi_per_id)$(field splits_per_id)$(field \
  leaf_fragmentation)"
# since the storage columns (issue 27 item 2) sqlite reports its B-tree's bytes from dbstat:
# the table is the ID's B-tree, so index_bytes = table_bytes > 0
check "... but index_bytes = table_bytes > 0 (its one B-tree)" \
  test "$(field table_bytes)" -gt 0 -a "$(field index_bytes)" = "$(field table_bytes)"
cli_done
