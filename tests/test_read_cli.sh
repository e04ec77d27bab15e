#!/bin/bash
# test_read_cli.sh — idbench read from the command line: the contract's columns, CSV and
# JSON, the same seed giving the same lookups, recent:H reading fewer pages than uniform
# after counter, and bad input refused with one line, exit 2, D left exactly as it was.
# Usage: test_read_cli.sh path/to/idbench
bin=$1
. "$(dirname "$0")/cli_lib.sh"

d=$tmp/d
expect 0 "insert pagesim counter" -- "$bin" insert --store pagesim --strategy counter -n 20000 --dir "$d"
expect 0 "insert sqlite uuidv7" -- "$bin" insert --store sqlite --strategy uuidv7 -n 3000 --dir "$d"
check "the records are left" test -f "$d/insert-pagesim.rec" -a -f "$d/insert-sqlite.rec"

contract="store,strategy,pattern,cache,lookups,found,not_found,misses_per_lookup,read_pages_per_lookup,lookups_per_s,lat_p50_ns,lat_p99_ns"
expect 0 "read sqlite" -- "$bin" read --store sqlite --dir "$d" -n 500 --pattern mixed:50:5 --miss-share 0.1
check "the contract's columns first" test "$(head -1 "$tmp/out" | cut -d, -f1-12)" = "$contract"
check "strategy from the record" test "$(out_field strategy)" = uuidv7
check "found + not_found = lookups" test $(( $(out_field found) + $(out_field not_found) )) -eq 500
check "not_found = the missing IDs" test "$(out_field not_found)" -eq 50 -a "$(out_field miss_ids)" -eq 50
check "sqlite times measured" test -n "$(out_field lat_p99_ns)" -a -n "$(out_field lookups_per_s)"
expect 0 "read sqlite json" -- "$bin" read --store sqlite --dir "$d" -n 100 --pattern uniform --format json --strategy uuidv7 --cache warm
check "json parses, cache warm" python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); assert r["cache"]=="warm" and r["found"]==100 and r["misses_per_lookup"]==0' "$tmp/out"

expect 0 "pagesim recent" -- "$bin" read --store pagesim --dir "$d" -n 5000 --pattern recent:5 --seed 3
cp "$tmp/out" "$tmp/recent1"
recent=$(out_field misses_per_lookup)
expect 0 "pagesim recent again" -- "$bin" read --store pagesim --dir "$d" -n 5000 --pattern recent:5 --seed 3
check "same seed, same figures" cmp -s "$tmp/out" "$tmp/recent1"
check "pagesim: no time columns" test -z "$(out_field lat_p50_ns)" -a -z "$(out_field lookups_per_s)"
expect 0 "pagesim uniform" -- "$bin" read --store pagesim --dir "$d" -n 5000 --pattern uniform --seed 3
uniform=$(out_field misses_per_lookup)
check "recent:5 misses less than a fifth of uniform's ($recent vs $uniform)" \
  awk -v r="$recent" -v u="$uniform" 'BEGIN { exit !(r * 5 < u) }'

# The record of the other loops: --clients (rows in draw order) and --rate (the open loop).
expect 0 "insert lmdb --clients 2" -- "$bin" insert --store lmdb --strategy uuidv7 -n 3000 --clients 2 --dir "$tmp/c2"
expect 0 "read after --clients 2" -- "$bin" read --store lmdb --dir "$tmp/c2" -n 2000 --pattern recent:10 --miss-share 0.5
check "--clients: every existing row found" test "$(out_field found)" -eq 1000 -a "$(out_field not_found)" -eq 1000
expect 0 "insert sqlite --rate" -- "$bin" insert --store sqlite --strategy snowflake -n 1500 --rate 50000 --shards 2 --dir "$tmp/ol"
expect 0 "read after --rate, 2 shards" -- "$bin" read --store sqlite --dir "$tmp/ol" -n 1000 --pattern uniform
check "--rate: every row found" test "$(out_field found)" -eq 1000 -a "$(out_field rows)" -eq 1500

# Bad input: one line, exit 2, nothing made or changed in D.
listing() { (cd "$1" && find . -printf '%p %s %T@\n' | sort); }
listing "$d" >"$tmp/before"
mkdir "$tmp/empty"
ln -s "$d/insert-sqlite.rec" "$tmp/empty/insert-sqlite.rec.target" 2>/dev/null
expect 2 "no --dir" -- "$bin" read --store sqlite -n 10 --pattern uniform
expect 2 "no --pattern" -- "$bin" read --store sqlite --dir "$d" -n 10
expect 2 "-n 0" -- "$bin" read --store sqlite --dir "$d" -n 0 --pattern uniform
expect 2 "unknown store" -- "$bin" read --store nosuch --dir "$d" -n 10 --pattern uniform
expect 2 "a store that cannot read" -- "$bin" read --store null --dir "$d" -n 10 --pattern uniform
# spider and galera have no read side (a spider read would go through its coordinator, a
# galera read to a node: not made): refused in one line naming the stores that read.
for st in spider galera; do
  expect 2 "store $st refused" -- "$bin" read --store "$st" --dir "$d" -n 10 --pattern uniform
  check "store $st: the line says why and which stores read" grep -qx "idbench: read: store \
$st has no read side (idbench read serves sqlite, lmdb, pagesim, postgres, mariadb)" "$tmp/err"
done
expect 2 "no record of that store" -- "$bin" read --store lmdb --dir "$d" -n 10 --pattern uniform
expect 2 "strategy not the record's" -- "$bin" read --store sqlite --dir "$d" -n 10 --pattern uniform --strategy uuidv4
expect 2 "unknown strategy" -- "$bin" read --store sqlite --dir "$d" -n 10 --pattern uniform --strategy nosuch
for p in recent recent:0 recent:101 mixed:50 mixed:150:5 bogus uniform:3 recent:abc range range:5 range:-1s shop:5x shop:1m:2; do
  expect 2 "pattern $p" -- "$bin" read --store sqlite --dir "$d" -n 10 --pattern "$p"
done
expect 2 "pagesim has no range queries" -- "$bin" read --store pagesim --dir "$d" -n 1 --pattern range:1s
expect 2 "shop without secondary_shop" -- "$bin" read --store sqlite --dir "$d" -n 1 --pattern shop
expect 2 "--miss-share with a range" -- "$bin" read --store sqlite --dir "$d" -n 1 --pattern range:1s --miss-share 0.1
expect 2 "miss share 2" -- "$bin" read --store sqlite --dir "$d" -n 10 --pattern uniform --miss-share 2
expect 2 "cache hot" -- "$bin" read --store sqlite --dir "$d" -n 10 --pattern uniform --cache hot
expect 2 "format xml" -- "$bin" read --store sqlite --dir "$d" -n 10 --pattern uniform --format xml
expect 2 "extra argument" -- "$bin" read --store sqlite --dir "$d" -n 10 --pattern uniform x
check "D unchanged by refusals" cmp -s <(listing "$d") "$tmp/before"
expect 2 "a missing D" -- "$bin" read --store sqlite --dir "$tmp/nodir" -n 10 --pattern uniform
check "a missing D is not made" test ! -e "$tmp/nodir"
expect 2 "an empty D (no insert made it)" -- "$bin" read --store sqlite --dir "$tmp/empty" -n 10 --pattern uniform
check "the message says so" grep -q 'no insert record of sqlite' "$tmp/err"
rm -f "$tmp/empty/insert-sqlite.rec.target"
ln -s "$d/insert-sqlite.rec" "$tmp/empty/insert-sqlite.rec"
expect 2 "a symlinked record" -- "$bin" read --store sqlite --dir "$tmp/empty" -n 10 --pattern uniform
rm "$tmp/empty/insert-sqlite.rec"
head -c 200 "$d/insert-sqlite.rec" >"$tmp/empty/insert-sqlite.rec"
expect 2 "a truncated record" -- "$bin" read --store sqlite --dir "$tmp/empty" -n 10 --pattern uniform
printf 'not a record\n' >"$tmp/empty/insert-sqlite.rec"
expect 2 "not a record" -- "$bin" read --store sqlite --dir "$tmp/empty" -n 10 --pattern uniform
check "the empty D holds only what the test put there" test "$(ls -A "$tmp/empty")" = insert-sqlite.rec
expect 0 "reads leave D as it was" -- "$bin" read --store sqlite --dir "$d" -n 10 --pattern uniform
check "D's names and sizes unchanged by a read" \
  cmp -s <(listing "$d" | cut -d' ' -f1-2) <(cut -d' ' -f1-2 "$tmp/before")
expect 0 "a range by ID on uuidv7 (time-ordered)" -- "$bin" read --store sqlite --dir "$d" -n 1 --pattern range:1h
check "the whole run is within the last hour" test "$(out_field rows_returned)" -eq 3000
cli_done
[ "$fail" -eq 0 ]
