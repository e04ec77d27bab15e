#!/usr/bin/env bash
# test_pg_misses.sh — the postgres store's cache_misses, extend_pages and autovacuum_runs
# against the test's own reading of the server (slow: 200,000 rows). On a throw-away cluster
# (pg_cluster.sh; shared_buffers 8MB, autovacuum off, pg_stat_statements loaded) counter
# inserts 200,000 rows with keep=1; then the test reads pg_statio_all_tables (blocks read by
# the table and its indexes: PostgreSQL 15 counts every page a relation is extended by as one)
# and the relations' sizes itself: extend_pages = the main forks' blocks less one metapage per
# B-tree; cache_misses = the blocks the run's INSERTs read from outside shared_buffers by
# pg_stat_statements (shared_blks_read, which never counts an extension), at least the
# table's pg_statio reads less its blocks, at most all pg_statio reads less extend_pages
# (the index's reads there include the store's own pgstatindex, after its figures). write_bytes_per_id is empty on the dsn= run (the server's writes
# are not idbench's to see), client_write_bytes_per_id known. Then a run on a private
# server: autovacuum=off echoed, no autovacuum pass, write_bytes_per_id (the server's writes
# in) above client_write_bytes_per_id; -s autovacuum=on echoed.
# Usage: test_pg_misses.sh IDBENCH
set -u
IDB=${1:?usage: test_pg_misses.sh path/to/idbench}
. "$(dirname "$0")/cli_lib.sh"
. "$(dirname "$0")/pg_cluster.sh"
trap 'pg_stop_all; rm -rf "$tmp"' EXIT
pg_start A "shared_buffers = 8MB" "autovacuum = off" \
  "shared_preload_libraries = 'pg_stat_statements'" ||
  { echo "could not start a PostgreSQL cluster" >&2; exit 1; }
export TMPDIR="$tmp/t"
mkdir -p "$TMPDIR"
chmod 711 "$tmp"

sql() { PGOPTIONS="-c client_min_messages=warning" psql -X -At "$1" -c "$2"; }
sql "$A" "CREATE EXTENSION pg_stat_statements" >/dev/null

N=200000
expect 0 "counter, $N rows, autovacuum off, keep=1" -- "$IDB" insert --store postgres \
  --strategy counter -n $N -s "dsn=$A" -s keep=1
schema=$(sed -n 's/.*kept schema \([a-z0-9_]*\).*/\1/p' "$tmp/err")
misses=$(out_field cache_misses) extend=$(out_field extend_pages) av=$(out_field autovacuum_runs)
reads=$(sql "$A" "SELECT heap_blks_read + idx_blks_read FROM pg_statio_all_tables
                  WHERE relid = '$schema.orders'::regclass")
heap=$(sql "$A" "SELECT heap_blks_read - pg_relation_size(relid) / 8192
                 FROM pg_statio_all_tables WHERE relid = '$schema.orders'::regclass")
blocks=$(sql "$A" "SELECT sum(pg_relation_size(oid) / 8192) FROM pg_class
                   WHERE oid = '$schema.orders'::regclass OR oid IN
                   (SELECT indexrelid FROM pg_index WHERE indrelid = '$schema.orders'::regclass)")
btrees=$(sql "$A" "SELECT count(*) FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
                   JOIN pg_am a ON a.oid = c.relam
                   WHERE indrelid = '$schema.orders'::regclass AND a.amname = 'btree'")
stmt=$(sql "$A" "SELECT coalesce(sum(shared_blks_read), 0) FROM pg_stat_statements
                 WHERE query ILIKE 'INSERT INTO orders%'")
echo "# cache_misses $misses extend_pages $extend autovacuum_runs $av; pg_statio reads" \
     "$reads, blocks $blocks, btrees $btrees; pg_stat_statements INSERT reads $stmt"
check "the schema was kept ($schema)" test -n "$schema"
check "extend_pages ($extend) = blocks $blocks - B-tree metapages $btrees" \
  test "$extend" -eq $((blocks - btrees))
check "most of pg_statio's reads are extensions ($extend of $reads)" \
  test "$extend" -gt $((reads / 2))
# pg_statio's index reads include the store's pgstatindex after the figures were taken (it
# reads the index's pages): the index part is bounded, the table's part exact.
check "cache_misses ($misses) >= the table's non-extension reads in pg_statio ($heap)" \
  test "$misses" -ge "$heap"
check "cache_misses ($misses) <= pg_statio reads $reads - extensions $((blocks - btrees))" \
  test "$misses" -le $((reads - blocks + btrees))
check "cache_misses ($misses) = the INSERTs' shared_blks_read ($stmt)" test "$misses" -eq "$stmt"
check "autovacuum off: no pass ($av)" test "$av" = 0
wb=$(out_field write_bytes_per_id) cw=$(out_field client_write_bytes_per_id)
check "dsn=: the server's writes unseen, write_bytes_per_id empty ('$wb')" test -z "$wb"
check "dsn=: idbench's own writes known ($cw)" test -n "$cw"
sql "$A" "DROP SCHEMA $schema CASCADE" >/dev/null

run=(insert --store postgres --strategy counter -n 5000 --format json)
expect 0 "a private server, default options" -- "$IDB" "${run[@]}"
check "autovacuum=off echoed, no autovacuum pass" \
  grep -q '"autovacuum_runs": 0,.*"autovacuum": "off"' "$tmp/out"
wb=$(grep -o '"write_bytes_per_id": [0-9.]*' "$tmp/out" | grep -o '[0-9.]*$')
cw=$(grep -o '"client_write_bytes_per_id": [0-9.]*' "$tmp/out" | grep -o '[0-9.]*$')
check "private server: its writes counted, above idbench's own ($wb > $cw)" \
  awk -v w="$wb" -v c="$cw" 'BEGIN { exit !(w != "" && c != "" && w > c + 100) }'
expect 0 "a private server, autovacuum=on" -- "$IDB" "${run[@]}" -s autovacuum=on
check "autovacuum=on echoed" grep -q '"autovacuum": "on"' "$tmp/out"
cli_done
