#!/usr/bin/env bash
# test_read_server.sh — `idbench read` on a server store (postgres or mariadb): the run's
# private servers restarted on the data an insert left in D. Every existing ID looked up
# is found with the row insert wrote (read compares each row with the record: a row that
# differs fails the read) and the missing ones are not; a cold read really is cold (its
# first lookup misses at least one page; the same lookups warm miss fewer); the same seed
# gives the same lookups; two shards read from their own servers; the newest run in a D
# filled twice is the one read, and a record that does not match it fails with one line
# (exit 1) after the servers started, which are stopped all the same; a D without the
# server's data is refused (exit 2) with nothing made; range and shop queries return the
# record's rows (counted here from the record). After every command no server of the test is
# left.
# Usage: test_read_server.sh IDBENCH KIND      (KIND: postgres | mariadb)
set -u
IDB=${1:?usage: test_read_server.sh path/to/idbench postgres|mariadb}
KIND=${2:?usage: test_read_server.sh path/to/idbench postgres|mariadb}
. "$(dirname "$0")/cli_lib.sh"
chmod 711 "$tmp"                   # the server user (as root) must reach D

# Servers of this test still running (their command lines name $tmp).
servers_left() { pgrep -f -- "$tmp/" | grep -v "^$$\$" | wc -l; }
no_servers() { check "$1: no server left" test "$(servers_left)" -eq 0; }
trap 'for p in $(pgrep -f -- "$tmp/"); do [ "$p" != $$ ] && kill "$p"; done; rm -rf "$tmp"' EXIT

case $KIND in
  postgres) strat=uuidv4 strat2=snowflake ;;
  mariadb) strat=counter strat2=uuidv7 ;;
  *) echo "unknown kind $KIND" >&2; exit 2 ;;
esac
d=$tmp/d
expect 0 "insert $KIND $strat" -- "$IDB" insert --store "$KIND" --strategy "$strat" -n 3000 --dir "$d"
no_servers "insert"

expect 0 "read uniform, a fifth missing" -- "$IDB" read --store "$KIND" --dir "$d" -n 3000 \
  --pattern uniform --miss-share 0.2 --seed 5
check "strategy from the record" test "$(out_field strategy)" = "$strat"
check "every existing ID found ($(out_field found))" test "$(out_field found)" -eq 2400
check "the missing IDs not found" test "$(out_field not_found)" -eq 600 -a "$(out_field miss_ids)" -eq 600
check "misses and times measured" test -n "$(out_field misses_per_lookup)" -a -n "$(out_field lat_p99_ns)"
cp "$tmp/out" "$tmp/first"
no_servers "read"
expect 0 "the same seed again" -- "$IDB" read --store "$KIND" --dir "$d" -n 3000 \
  --pattern uniform --miss-share 0.2 --seed 5
check "same seed, same lookups and misses" \
  cmp -s <(cut -d, -f1-9,13- "$tmp/out") <(cut -d, -f1-9,13- "$tmp/first")

expect 0 "cold, one lookup" -- "$IDB" read --store "$KIND" --dir "$d" -n 1 --pattern recent:5
check "cold: the first lookup misses ($(out_field misses_per_lookup))" \
  awk -v m="$(out_field misses_per_lookup)" 'BEGIN { exit !(m >= 1) }'
expect 0 "cold recent" -- "$IDB" read --store "$KIND" --dir "$d" -n 500 --pattern recent:5 --seed 2
cold=$(out_field misses_per_lookup)
expect 0 "warm recent" -- "$IDB" read --store "$KIND" --dir "$d" -n 500 --pattern recent:5 --seed 2 --cache warm
warm=$(out_field misses_per_lookup)
check "warm misses less than cold on the same lookups ($warm < $cold)" \
  awk -v w="$warm" -v c="$cold" 'BEGIN { exit !(c > 0 && w < c) }'
check "cache column" test "$(out_field cache)" = warm
no_servers "cold and warm reads"

expect 0 "insert $KIND $strat2, 2 shards" -- "$IDB" insert --store "$KIND" --strategy "$strat2" \
  -n 2000 --shards 2 --dir "$tmp/s2"
expect 0 "read 2 shards" -- "$IDB" read --store "$KIND" --dir "$tmp/s2" -n 2000 --pattern mixed:50:10 \
  --miss-share 0.5 --strategy "$strat2"
check "2 shards: every existing row found" test "$(out_field found)" -eq 1000 -a "$(out_field not_found)" -eq 1000
no_servers "2 shards"

# D filled twice: the newest run is read; the first run's record against it fails (its
# rows' created_ms are not the newer run's) after the servers started, which stop.
cp "$d/insert-$KIND.rec" "$tmp/first.rec"
sleep 0.01
expect 0 "insert $KIND $strat again into D" -- "$IDB" insert --store "$KIND" --strategy "$strat" -n 3000 --dir "$d"
expect 0 "the newest run read" -- "$IDB" read --store "$KIND" --dir "$d" -n 3000 --pattern uniform
check "the newest run's rows all found" test "$(out_field found)" -eq 3000
cp "$tmp/first.rec" "$d/insert-$KIND.rec"
expect 1 "a record that is not the data's" -- "$IDB" read --store "$KIND" --dir "$d" -n 100 --pattern uniform
check "the message names the row" grep -q "did not write" "$tmp/err"
no_servers "a failed read"

# Range and shop queries on the indexes the insert made: rows_returned against a count
# made here from the record (created_ms of each entry: 28 + key_bytes bytes, at byte 12).
# window REC: "W COUNT": about half the run's span in ms, and the rows created in it.
window() {
  python3 - "$1" <<'PY'
import struct, sys
data = open(sys.argv[1], 'rb').read()
head, body = data.split(b'\nend\n', 1)
w = int([l for l in head.split(b'\n') if l.startswith(b'key_bytes=')][0][10:])
c = [struct.unpack('>q', body[i + 12:i + 20])[0] for i in range(0, len(body), 28 + w)]
win = (max(c) - min(c)) // 2
print(win, sum(1 for x in c if x >= max(c) - win))
PY
}
expect 0 "insert with secondary_created and secondary_shop" -- "$IDB" insert --store "$KIND" \
  --strategy uuidv4 -n 4000 --shards 2 --dir "$tmp/q" -s secondary_created=1 -s secondary_shop=1
read -r win want < <(window "$tmp/q/insert-$KIND.rec")
expect 0 "range by the created_ms index" -- "$IDB" read --store "$KIND" --dir "$tmp/q" -n 1 --pattern "range:${win}ms"
check "range: the record's rows of the window ($(out_field rows_returned) vs $want)" \
  test "$(out_field rows_returned)" -eq "$want"
check "range: a cold query misses" awk -v m="$(out_field misses_per_row)" 'BEGIN { exit !(m > 0) }'
expect 0 "shop queries" -- "$IDB" read --store "$KIND" --dir "$tmp/q" -n 20 --pattern shop
check "shop: rows returned" test "$(out_field rows_returned)" -gt 20
expect 0 "range by ID ($strat2, time-ordered)" -- "$IDB" read --store "$KIND" --dir "$tmp/s2" -n 1 --pattern range:1h
check "range by ID: the whole run within the last hour" test "$(out_field rows_returned)" -eq 2000
expect 2 "shop without its index" -- "$IDB" read --store "$KIND" --dir "$tmp/s2" -n 1 --pattern shop
no_servers "queries"

# Bad input: one line, exit 2, nothing made.
expect 2 "--cache hot" -- "$IDB" read --store "$KIND" --dir "$d" -n 10 --pattern uniform --cache hot
mkdir -p "$tmp/nodata/shard-0"
cp "$tmp/first.rec" "$tmp/nodata/insert-$KIND.rec"
expect 2 "a D without the server's data" -- "$IDB" read --store "$KIND" --dir "$tmp/nodata" -n 10 --pattern uniform
check "the message says so" grep -q "holds no" "$tmp/err"
check "nothing made in it" test -z "$(ls -A "$tmp/nodata/shard-0")"
no_servers "refusals"
cli_done
