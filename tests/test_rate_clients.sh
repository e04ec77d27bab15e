#!/usr/bin/env bash
# test_rate_clients.sh — idbench insert --rate R --clients C (the open loop with C writers
# per shard sharing the offered rate) on sqlite and lmdb, a few seconds:
#   - C = 1 with --rate as main made it before (bdc94ff: the same seeded run, the same counts);
#   - C = 4 with --rate inserts exactly the rows C = 1 inserts (read back from the files),
#     and with 2 shards shard by shard;
#   - the open-loop columns at C = 4: the offered rate, order latency p50 <= p99 <= max,
#     never negative, each order's at least its transaction's commit (--batch 1: p99 >= the
#     commits' p99), achieved <= offered, wait_share in [0, 1];
#   - arithmetic that holds exactly, whatever the machine's speed: the last commit ends at
#     ids / achieved after the first arrival, and some order arrived no later than the last
#     arrival (n-1)/R and committed then, so order_lat_max >= ids / achieved - (n-1)/R; and
#     no order's latency exceeds ids / achieved (none committed before it arrived). At a rate
#     far above the store's the first bound is nearly the whole run: a latency counted from
#     the transaction's start (tests/mutations.txt) fails it;
#   - refusals: --commit-ms with --clients, pagesim with --rate and --clients.
# Usage: test_rate_clients.sh IDBENCH
set -u
. "$(dirname "$0")/cli_lib.sh"
idb=$1
n=3000
export TMPDIR=$tmp

keys_sqlite() { sqlite3 "$1/shard-0/orders.sqlite" 'SELECT hex(id) FROM orders ORDER BY id'; }
keys_lmdb() {   # keys_lmdb DIR [SHARD]
  mdb_dump "$1/shard-${2:-0}/orders.lmdb" | awk 'f { if (++i % 2) print $1 } /^HEADER=END/ { f = 1 }' |
    grep -v '^DATA=END'
}
field() { cp "$tmp/$1.csv" "$tmp/out"; out_field "$2"; }
# holds NAME AWK-EXPR VAR=VALUE...: check that the awk expression is true
holds() {
  local name=$1 expr=$2; shift 2
  local args=()
  for kv in "$@"; do args+=(-v "$kv"); done
  check "$name ($*)" awk "${args[@]}" "BEGIN { exit !($expr) }"
}

for st in sqlite lmdb; do
  for c in 1 4; do
    expect 0 "$st --rate --clients $c runs" -- "$idb" insert --store $st --strategy uuidv4 \
      -n $n --batch 10 --seed 7 --rate 20000 --arrivals fixed --clients $c --dir "$tmp/$st-$c"
    cp "$tmp/out" "$tmp/$st-$c.csv"
    check "$st --rate --clients $c: clients, rate" \
      [ "$(out_field clients)/$(out_field rate_per_s)" = "$c/20000" ]
    "keys_$st" "$tmp/$st-$c" >"$tmp/$st-$c.keys"
    check "$st --clients $c: $n rows in the file" [ "$(wc -l <"$tmp/$st-$c.keys")" -eq $n ]
    check "$st --clients $c: no key twice" [ "$(sort -u "$tmp/$st-$c.keys" | wc -l)" -eq $n ]
  done
  check "$st --rate: C=4 stored exactly C=1's keys" cmp -s "$tmp/$st-1.keys" "$tmp/$st-4.keys"
  holds "$st C=4: wait_share in [0, 1]" 'w != "" && w >= 0 && w <= 1' \
    "w=$(field $st-4 wait_share)"
  holds "$st C=4: order latency 0 < p50 <= p99 <= max" 'a > 0 && a <= b && b <= m' \
    "a=$(field $st-4 order_lat_p50_ns)" "b=$(field $st-4 order_lat_p99_ns)" \
    "m=$(field $st-4 order_lat_max_ns)"
  holds "$st C=4: achieved <= offered (fixed arrivals)" 'a > 0 && a <= 20000 * 1.01' \
    "a=$(field $st-4 achieved_per_s)"
done

# C = 1 with --rate: main's figures (bdc94ff) on the same seed, batch-only commits.
golden() {   # golden NAME COL=VALUE...
  local f=$1; shift
  for kv in "$@"; do
    check "$f ${kv%%=*} as main's (want ${kv#*=}, got $(field "$f" "${kv%%=*}"))" \
      [ "$(field "$f" "${kv%%=*}")" = "${kv#*=}" ]
  done
}
golden sqlite-1 leaf_pages=85 depth=3 fill_factor=0.8595 pages_written=3945 \
  order_breaks=1489 insert_pos_p50=0.5085 wal_frames=3691 checkpoint_pages=254
golden lmdb-1 leaf_pages=129 depth=2 fill_factor=0.6498 pages_written=3567 \
  order_breaks=1489 insert_pos_p50=0.5085 file_bytes=643072

# Two shards: the one writer's schedule, each order into its shard's queue; 3 clients a
# shard store exactly what one writer stores, shard by shard.
for c in 1 3; do
  expect 0 "lmdb --shards 2 --rate --clients $c" -- "$idb" insert --store lmdb \
    --strategy uuidv4 -n 2000 --batch 10 --seed 9 --rate 20000 --shards 2 --clients $c \
    --dir "$tmp/sh-$c"
done
for k in 0 1; do
  keys_lmdb "$tmp/sh-1" $k >"$tmp/sh-1-$k.keys"
  keys_lmdb "$tmp/sh-3" $k >"$tmp/sh-3-$k.keys"
  check "lmdb --shards 2: shard $k holds rows" [ -s "$tmp/sh-1-$k.keys" ]
  check "lmdb --shards 2: shard $k at C=3 = at C=1" cmp -s "$tmp/sh-1-$k.keys" "$tmp/sh-3-$k.keys"
done

# --batch 1: every order is its transaction, so each order's latency is at least its
# commit's and the orders' p99 at least the commits' p99.
expect 0 "sqlite --rate --clients 4 --batch 1" -- "$idb" insert --store sqlite \
  --strategy uuidv7 -n 1000 --batch 1 --seed 3 --rate 5000 --clients 4 --dir "$tmp/b1"
cp "$tmp/out" "$tmp/b1.csv"
holds "batch 1: order p99 >= commit p99" 'o >= c && c > 0' \
  "o=$(field b1 order_lat_p99_ns)" "c=$(field b1 commit_p99_ns)"

# The exact bounds, at a rate far above the store's (the schedule spans 20 ms, the run far
# longer: 20,000 orders in transactions of 10): span = ids / achieved (s); max >= span -
# (n-1)/R, max <= span. (A latency from the transaction's start instead: about one
# transaction's time, a few ms on lmdb; a SQLite writer starved in its busy handler can
# wait most of the run, so lmdb is the one that surely catches it.)
n=20000
for st in sqlite lmdb; do
  expect 0 "$st --rate 1e6 --clients 4" -- "$idb" insert --store $st --strategy uuidv4 \
    -n $n --batch 10 --seed 5 --rate 1000000 --arrivals fixed --clients 4 --dir "$tmp/$st-hi"
  cp "$tmp/out" "$tmp/$st-hi.csv"
  a=$(field $st-hi achieved_per_s) m=$(field $st-hi order_lat_max_ns)
  holds "$st R=1e6: an order waited from its arrival to the run's end" \
    'm / 1e9 >= 0.99 * n / a - (n - 1) / 1e6' "m=$m" "a=$a" "n=$n"
  holds "$st R=1e6: no latency above the run's span" 'm / 1e9 <= 1.01 * n / a' \
    "m=$m" "a=$a" "n=$n"
done

expect 2 "--commit-ms takes one writer" -- "$idb" insert --store sqlite --strategy uuidv7 \
  -n 10 --clients 2 --rate 100 --commit-ms 5
expect 2 "pagesim --rate --clients is refused (a model: no time)" -- "$idb" insert \
  --store pagesim --strategy uuidv7 -n 10 --clients 2 --rate 100
cli_done
