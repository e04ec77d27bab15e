#!/usr/bin/env bash
# test_clients.sh — idbench insert --clients C on the embedded stores (a few seconds):
#   - C = 4 inserts exactly the rows C = 1 inserts (seeded uuidv4: the same IDs), read back
#     from the files with sqlite3 / mdb_dump, not from idbench; no row lost, none twice;
#   - wait_share in [0, 1] and wait_ns_per_order >= 0 at C = 4, both empty at C = 1;
#   - C = 1 figures (pages, fill, locality) equal main's before --clients existed;
#   - pagesim (a model): C writers interleaved, deterministic, C = 1 unchanged, and what the
#     interleaving must change (counter's misses in a small cache) and must not (uuidv4's);
#   - refusals: --clients 0, --commit-ms with it (--rate with it: test_rate_clients.sh).
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
  # one write lock, four writers: while one writes, the three others wait in begin() (about
  # 3/4 of their time on an idle machine); writers serialised before begin() would show
  # none. The bound is far below 3/4: on a loaded 2-core machine the writers wait for a
  # core too, not only for the lock (measured 0.295 once with a sanitizer build running)
  check "$st C=4: wait_share $w above 0.1" awk -v w="$w" 'BEGIN { exit !(w > 0.1) }'
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

# pagesim (store version 2, a model): C writers as interleaved streams, no time. One round
# of 16 transactions of 1,000 counter keys: 16 insertion points, each a leaf of its own, hit
# in turn; with an LRU pool of 8 pages (the root and branches stay hot) a leaf is evicted
# before its next insert, so (nearly) every insert misses and writes a page back, while one
# writer appends to one hot leaf: no miss. uuidv4's inserts miss all over the tree with one
# writer already: interleaving leaves its misses as they are.
pagesim() {   # pagesim NAME STRATEGY CLIENTS BATCH: a run's CSV in $tmp/NAME.csv
  expect 0 "pagesim $2 --clients $3 --batch $4" -- "$idb" insert --store pagesim --strategy $2 \
    -n 16000 --batch $4 --seed 7 --clients $3 -s cache_pages=8 --dir "$tmp/ps-$1"
  cp "$tmp/out" "$tmp/$1.csv"
}
field() { cp "$tmp/$1.csv" "$tmp/out"; out_field "$2"; }
pagesim c1 counter 1 1000
pagesim c16 counter 16 1000
pagesim c16b counter 16 1000
pagesim c4one counter 4 16000
pagesim u1 uuidv4 1 1000
pagesim u16 uuidv4 16 1000
cols="leaf_pages depth fill_factor pages_written cache_misses order_breaks insert_pos_p50 tail_insert_frac"
for col in $cols; do
  check "pagesim C=4 in one transaction (no interleaving) = C=1: $col" \
    [ "$(field c4one $col)" = "$(field c1 $col)" ]
  check "pagesim C=16 twice: the same $col (deterministic)" [ "$(field c16 $col)" = "$(field c16b $col)" ]
done
m1=$(field c1 cache_misses) m16=$(field c16 cache_misses)
w1=$(field c1 pages_written) w16=$(field c16 pages_written)
check "counter C=1: at most 160 misses of 16000 ($m1)" [ "$m1" -le 160 ]
check "counter C=16: at least 14400 misses of 16000 ($m16)" [ "$m16" -ge 14400 ]
check "counter C=16: 10x C=1's page writes ($w16 vs $w1)" [ "$w16" -ge $((10 * w1)) ]
# and fill: a writer's next key goes just before the next writer's first key, inside a
# leaf, not at its end: a full leaf splits in the middle and the half on the left is never
# written again (about 1/2 full), where one writer's appends leave every leaf full
f1=$(field c1 fill_factor) f16=$(field c16 fill_factor)
check "counter C=1: leaves full (fill $f1 >= 0.95)" awk -v f="$f1" 'BEGIN { exit !(f >= 0.95) }'
check "counter C=16: leaves about half full (fill $f16 in [0.45, 0.6])" \
  awk -v f="$f16" 'BEGIN { exit !(f >= 0.45 && f <= 0.6) }'
u1=$(field u1 cache_misses) u16=$(field u16 cache_misses)
check "uuidv4: C=16's misses within 5% of C=1's ($u16 vs $u1)" \
  awk -v a="$u1" -v b="$u16" 'BEGIN { d = b - a; if (d < 0) d = -d; exit !(a > 0 && d <= 0.05 * a) }'
check "pagesim C=16: no time, no wait measured" \
  [ -z "$(field c16 inserts_per_s)$(field c16 lat_p99_ns)$(field c16 wait_share)" ]
check "pagesim C=16: clients 16, no failed transactions" \
  [ "$(field c16 clients)/$(field c16 failed_txns)" = 16/0 ]
expect 2 "--clients 0 is bad input" -- "$idb" insert --store null --strategy uuidv7 -n 10 \
  --clients 0
expect 2 "--commit-ms takes one writer" -- "$idb" insert --store sqlite --strategy uuidv7 \
  -n 10 --clients 2 --rate 100 --commit-ms 5
cli_done
