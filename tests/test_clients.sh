#!/usr/bin/env bash
# test_clients.sh — idbench insert --clients C on the embedded stores (a few seconds):
#   - C = 4 inserts exactly the rows C = 1 inserts (seeded uuidv4: the same IDs), read back
#     from the files with sqlite3 / mdb_dump, not from idbench; no row lost, none twice;
#   - wait_share in [0, 1] and wait_ns_per_order >= 0 at C = 4, both empty at C = 1;
#   - C = 1 figures (pages, fill, locality) equal main's before --clients existed;
#   - refusals: a one-writer store (pagesim: no open_client) above one client, --clients 0, --rate with it.
# Usage: test_clients.sh IDBENCH
set -u
. "$(dirname "$0")/cli_lib.sh"
idb=$1
n=5000
export TMPDIR=$tmp

# keys_sqlite DIR: every key of DIR's store, hex, in key order (sqlite3 reads the file).
keys_sqlite() { sqlite3 "$1/shard-0/orders.sqlite" 'SELECT hex(id) FROM orders ORDER BY id'; }
# keys_lmdb DIR: the same from mdb_dump (one " key" line, then one " value" line).
keys_lmdb() {
  mdb_dump "$1/shard-0/orders.lmdb" | awk 'f { if (++i % 2) print $1 } /^HEADER=END/ { f = 1 }' |
    grep -v '^DATA=END'
}

for st in sqlite lmdb; do
  for c in 1 4; do
    expect 0 "$st --clients $c runs" -- "$idb" insert --store $st --strategy uuidv4 -n $n \
      --batch 100 --seed 7 --clients $c --dir "$tmp/$st-$c"
    cp "$tmp/out" "$tmp/$st-$c.csv"
    check "$st --clients $c: the clients column" [ "$(out_field clients)" = $c ]
    check "$st --clients $c: no failed transactions" [ "$(out_field failed_txns)" = 0 ]
    check "$st --clients $c: no repeated IDs" [ "$(out_field duplicate_ids)" = 0 ]
    "keys_$st" "$tmp/$st-$c" >"$tmp/$st-$c.keys"
    check "$st --clients $c: $n rows in the file" [ "$(wc -l <"$tmp/$st-$c.keys")" -eq $n ]
    check "$st --clients $c: no key twice" [ "$(sort -u "$tmp/$st-$c.keys" | wc -l)" -eq $n ]
  done
  check "$st: C=4 stored exactly C=1's keys" cmp -s "$tmp/$st-1.keys" "$tmp/$st-4.keys"
  cp "$tmp/$st-4.csv" "$tmp/out"
  w=$(out_field wait_share) wo=$(out_field wait_ns_per_order)
  check "$st C=4: wait_share $w in [0,1]" awk -v w="$w" 'BEGIN { exit !(w != "" && w >= 0 && w <= 1) }'
  check "$st C=4: wait_ns_per_order $wo >= 0" awk -v w="$wo" 'BEGIN { exit !(w != "" && w >= 0) }'
  cp "$tmp/$st-1.csv" "$tmp/out"
  check "$st C=1: wait columns unknown (empty)" [ -z "$(out_field wait_share)$(out_field wait_ns_per_order)" ]
done

# C = 1 as main made it before --clients (a918cc7: the same seeded run, the same counts).
golden() {   # golden FILE NAME=VALUE...
  cp "$1" "$tmp/out"; shift
  for kv in "$@"; do
    check "C=1 ${kv%%=*} as before (want ${kv#*=}, got $(out_field "${kv%%=*}"))" \
      [ "$(out_field "${kv%%=*}")" = "${kv#*=}" ]
  done
}
golden "$tmp/sqlite-1.csv" leaf_pages=138 depth=3 fill_factor=0.8829 pages_written=3319 \
  checkpoint_pages=340 wal_frames=2979 order_breaks=2499 insert_pos_p50=0.5084
golden "$tmp/lmdb-1.csv" leaf_pages=210 depth=3 fill_factor=0.6653 pages_written=3118 \
  file_bytes=1581056 order_breaks=2499 insert_pos_p50=0.5084

expect 2 "pagesim (one writer: no open_client) refuses --clients 4" -- \
  "$idb" insert --store pagesim --strategy uuidv7 -n 10 --clients 4 --dir "$tmp/pg"
check "the refusal says why" grep -q 'takes 1 writer at once (it has no open_client)' "$tmp/err"
check "a refused run makes no directory" [ ! -e "$tmp/pg" ]
expect 2 "--clients 0 is bad input" -- "$idb" insert --store null --strategy uuidv7 -n 10 \
  --clients 0
expect 2 "--rate takes one writer" -- "$idb" insert --store sqlite --strategy uuidv7 -n 10 \
  --clients 2 --rate 100
cli_done
