#!/usr/bin/env bash
# test_pg_wal.sh — the postgres store's wal_bytes, fpi and splits_per_id against the test's
# own count of the run's WAL with pg_waldump (slow: a throw-away cluster, ~10 s). On a
# cluster (pg_cluster.sh; autovacuum off, wal_keep_size large enough that the run's segments
# stay) the test notes the WAL insert position, runs idbench with keep=1, notes it again and
# dumps every record between with pg_waldump. Per kept schema (one per shard) it counts, from
# the first heap record of that shard's table on: the records whose block references name
# one of the schema's relations, and every record of a transaction that wrote one (its
# COMMIT); wal_bytes is the sum of their total lengths (block images included), fpi their
# block references marked FPW, splits the Btree SPLIT_L/SPLIT_R records of orders_id.
# idbench's figures must match within 1% (or 1 event):
#   counter, 20,000 rows, --batch 1: a commit record per row, so commits are a large share
#     (checked: at least 5%), and wal_bytes without them is far off;
#   uuidv4, 2 shards on the same server, --batch 1, a CHECKPOINT every 2,000 rows: full-page
#     images and splits, and each shard's WAL apart from the other's (the sum of the two).
# Usage: test_pg_wal.sh IDBENCH
set -u
IDB=${1:?usage: test_pg_wal.sh path/to/idbench}
. "$(dirname "$0")/cli_lib.sh"
. "$(dirname "$0")/pg_cluster.sh"
trap 'pg_stop_all; rm -rf "$tmp"' EXIT
pg_start A "shared_buffers = 8MB" "autovacuum = off" "wal_keep_size = '1GB'" ||
  { echo "could not start a PostgreSQL cluster" >&2; exit 1; }
export TMPDIR="$tmp/t"
mkdir -p "$TMPDIR"

sql() { PGOPTIONS="-c client_min_messages=warning" psql -X -At "$1" -c "$2"; }
wal_dir="$(pg_datadir "$A")/pg_wal"

# The run's figures in one schema's relations, from pg_waldump's text on stdin: prints
# "BYTES FPI SPLITS COMMIT_BYTES" (COMMIT_BYTES: the records counted only through their
# transaction). rels: the schema's relfilenodes; heap, idx: the table's and orders_id's.
count_wal() {
  awk -v rels="$1" -v heap="$2" -v idx="$3" '
    BEGIN { n = split(rels, r, " "); for (i = 1; i <= n; i++) mine[r[i]] = 1 }
    {
      len = $0; sub(/.*len \(rec\/tot\): *[0-9]+\/ */, "", len); len += 0
      tx = $0; sub(/.*tx: */, "", tx); tx += 0
      s = $0; hit = 0; fpw = 0
      ref_re = "blkref #[0-9]+: rel [0-9]+/[0-9]+/[0-9]+( fork [a-z]+)? blk [0-9]+( FPW)?"
      while (match(s, ref_re)) {
        ref = substr(s, RSTART, RLENGTH); s = substr(s, RSTART + RLENGTH)
        split(ref, f, /[ \/]/)
        if (f[6] in mine) { hit = 1; if (ref ~ / FPW$/) fpw++ }
        if (f[6] == heap && $2 == "Heap") started = 1
      }
      if (!started) next
      k++; bytes[k] = len; xid[k] = tx; own[k] = hit
      fpi += fpw
      if (hit && tx) wrote[tx] = 1
      if ($0 ~ /desc: SPLIT_[LR]/ && $0 ~ ("blkref #[0-9]+: rel [0-9]+/[0-9]+/" idx " ")) splits++
    }
    END {
      for (i = 1; i <= k; i++)
        if (own[i]) total += bytes[i]
        else if (xid[i] in wrote) { total += bytes[i]; commit += bytes[i] }
      printf "%d %d %d %d\n", total, fpi, splits, commit
    }'
}

# near A B: A within 1% of B, or 1 apart.
near() { awk -v a="$1" -v b="$2" 'BEGIN { d = a - b; if (d < 0) d = -d
                                          exit !(a != "" && (d <= 1 || d <= b / 100)) }'; }

# run DESCRIPTION IDBENCH-ARGS...: a kept run between two WAL positions; sets W F S C (the
# test's wal bytes, fpi, splits and commit bytes summed over the kept schemas) and n_schemas.
run() {
  local what=$1 before after schema rels heap idx w f s c
  shift
  before=$(sql "$A" "SELECT pg_current_wal_insert_lsn()")
  expect 0 "$what" -- "$IDB" insert --store postgres -s "dsn=$A" -s keep=1 "$@"
  after=$(sql "$A" "SELECT pg_current_wal_insert_lsn()")
  "$PGBIN/pg_waldump" -p "$wal_dir" -s "$before" -e "$after" >"$tmp/dump" 2>"$tmp/dump.err"
  W=0 F=0 S=0 C=0 n_schemas=0
  for schema in $(sed -n 's/.*kept schema \([a-z0-9_]*\).*/\1/p' "$tmp/err"); do
    rels=$(sql "$A" "SELECT string_agg(relfilenode::text, ' ') FROM pg_class
                     WHERE relnamespace = '$schema'::regnamespace AND relfilenode <> 0")
    heap=$(sql "$A" "SELECT relfilenode FROM pg_class WHERE oid = '$schema.orders'::regclass")
    idx=$(sql "$A" "SELECT relfilenode FROM pg_class WHERE oid = '$schema.orders_id'::regclass")
    read -r w f s c < <(count_wal "$rels" "$heap" "$idx" <"$tmp/dump")
    W=$((W + w)) F=$((F + f)) S=$((S + s)) C=$((C + c)) n_schemas=$((n_schemas + 1))
    sql "$A" "DROP SCHEMA $schema CASCADE" >/dev/null
  done
  echo "# $what: idbench wal_bytes $(out_field wal_bytes) fpi $(out_field fpi)" \
       "splits_per_id $(out_field splits_per_id); pg_waldump: $W bytes ($C in commits)," \
       "$F FPIs, $S splits; $n_schemas schema(s)"
}

N=20000
run "counter, $N rows, one commit per row" --strategy counter -n $N --batch 1
check "pg_waldump read the range" test "$(grep -c COMMIT "$tmp/dump")" -ge $N
check "commit records are at least 5% of the run's WAL ($C of $W)" test $((C * 20)) -ge "$W"
check "wal_bytes ($(out_field wal_bytes)) = pg_waldump's count ($W) within 1%" \
  near "$(out_field wal_bytes)" "$W"
check "fpi ($(out_field fpi)) = pg_waldump's ($F)" near "$(out_field fpi)" "$F"

N=10000
run "uuidv4, $N rows on 2 shards of one server, CHECKPOINT every 2,000" --strategy uuidv4 \
  -n $N --shards 2 --batch 1 -s checkpoint_every=2000
check "two schemas kept" test "$n_schemas" = 2
check "full-page images and splits happened ($F, $S)" test "$F" -gt 20 -a "$S" -gt 10
check "wal_bytes ($(out_field wal_bytes)) = the shards' pg_waldump counts ($W) within 1%" \
  near "$(out_field wal_bytes)" "$W"
check "fpi ($(out_field fpi)) = pg_waldump's ($F) within 1%" near "$(out_field fpi)" "$F"
check "splits_per_id ($(out_field splits_per_id)) = $S / $N" \
  awk -v p="$(out_field splits_per_id)" -v s="$S" -v n=$N \
      'BEGIN { d = p - s / n; exit !(p != "" && d < 0.00006 && d > -0.00006) }'
cli_done
