#!/usr/bin/env bash
# test_cli.sh — the command line as a contract: outputs, exit statuses (0 ok, 2 bad input,
# 1 runtime failure), one "idbench: " line on stderr per failure. Usage: test_cli.sh IDBENCH
set -u
IDB=${1:?usage: test_cli.sh path/to/idbench}
. "$(dirname "$0")/cli_lib.sh"

# --- list / help
expect 0 "list" -- "$IDB" list
for s in counter range interleaved uuidv4 uuidv7 snowflake objectid; do
  check "list has $s" grep -qP "^$s\t" "$tmp/out"
done
check "list is NAME<TAB>BITS<TAB>summary" awk -F'\t' 'NF != 3 || $2 !~ /^(64|96|128)$/ { exit 1 }' "$tmp/out"
check "uuidv7 is 128 bits, objectid 96" grep -qP '^uuidv7\t128\t' "$tmp/out"
check "objectid is 96 bits" grep -qP '^objectid\t96\t' "$tmp/out"
expect 2 "list with an argument" -- "$IDB" list extra
expect 0 "help snowflake" -- "$IDB" help snowflake
check "help lists options with defaults" grep -q '^  on_backwards=refuse' "$tmp/out"
expect 0 "help for a store" -- "$IDB" help sqlite
expect 0 "help without a name" -- "$IDB" help
expect 2 "help unknown" -- "$IDB" help nosuch
expect 2 "no command" -- "$IDB"
expect 2 "unknown command" -- "$IDB" frobnicate

# --- gen
expect 0 "gen default count" -- "$IDB" gen counter
check "gen prints 10 IDs by default" test "$(wc -l <"$tmp/out")" -eq 10
check "counter counts 1..10" test "$(tr '\n' ' ' <"$tmp/out")" = "1 2 3 4 5 6 7 8 9 10 "
expect 0 "gen -n 5000 -t 2" -- "$IDB" gen uuidv7 -n 5000 -t 2
check "threads split the count, no duplicates" test "$(sort -u "$tmp/out" | wc -l)" -eq 5000
check "uuidv7 text form" grep -qE '^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$' "$tmp/out"
expect 0 "gen uuidv4" -- "$IDB" gen uuidv4 -n 100
check "uuidv4 text form" test "$(grep -cE '^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$' "$tmp/out")" -eq 100
expect 0 "gen objectid" -- "$IDB" gen objectid -n 100
check "objectid text form" test "$(grep -cE '^[0-9a-f]{24}$' "$tmp/out")" -eq 100
expect 0 "gen snowflake with a worker" -- "$IDB" gen snowflake -n 100 -o worker=7
check "snowflake decimal" test "$(grep -cE '^[1-9][0-9]*$' "$tmp/out")" -eq 100
expect 0 "gen interleaved shard 1 of 3" -- "$IDB" gen interleaved -n 4 -o shards=3 -o shard=1
check "interleaved 2,5,8,11" test "$(tr '\n' ' ' <"$tmp/out")" = "2 5 8 11 "
expect 0 "gen range in a directory" -- "$IDB" gen range -n 3 -o dir="$tmp" -o range_size=1000
check "range directory file created" test -f "$tmp/idbench-ranges.sqlite"
expect 0 "gen -n 0" -- "$IDB" gen counter -n 0
expect 2 "gen unknown strategy" -- "$IDB" gen nosuch
expect 2 "gen unknown option" -- "$IDB" gen snowflake -o color=red
expect 2 "gen option out of range" -- "$IDB" gen snowflake -o worker=1024
expect 2 "gen option not an integer" -- "$IDB" gen snowflake -o worker=x
expect 2 "gen bad enum" -- "$IDB" gen snowflake -o on_backwards=sometimes
expect 2 "gen option not KEY=VALUE" -- "$IDB" gen snowflake -o worker
expect 2 "gen interleaved shard >= shards" -- "$IDB" gen interleaved -o shards=3 -o shard=3
expect 2 "gen bad count" -- "$IDB" gen counter -n ten
expect 2 "gen negative count" -- "$IDB" gen counter -n -1
expect 2 "gen zero threads" -- "$IDB" gen counter -t 0
expect 2 "gen unknown flag" -- "$IDB" gen counter -x
expect 2 "gen missing name" -- "$IDB" gen
expect 2 "gen two names" -- "$IDB" gen counter uuidv4
expect 2 "gen range in an unwritable place" -- "$IDB" gen range -o dir=/proc/nonexistent
expect 1 "gen to a full stdout" -- bash -c "'$IDB' gen counter -n 100000 >/dev/full"

# --- decode: published vectors and malformed IDs
expect 0 "decode RFC 9562 A.6 v7" -- "$IDB" decode uuidv7 017f22e2-79b0-7cc3-98c4-dc0c0c07398f
check "v7 fields" grep -qx 'timestamp_ms=1645557742000' "$tmp/out"
check "v7 version" grep -qx 'version=7' "$tmp/out"
expect 0 "decode RFC 9562 A.3 v4" -- "$IDB" decode uuidv4 919108f7-52d1-4320-9bac-f847db4148a8
check "v4 version" grep -qx 'version=4' "$tmp/out"
check "v4 variant" grep -qx 'variant=10' "$tmp/out"
expect 0 "decode a tweet id" -- "$IDB" decode snowflake 1050118621198921728
check "tweet timestamp" grep -qx 'timestamp_ms=1539202764211' "$tmp/out"
check "tweet worker" grep -qx 'worker=347' "$tmp/out"
check "tweet sequence" grep -qx 'sequence=0' "$tmp/out"
expect 0 "decode Discord with its epoch" -- "$IDB" decode snowflake 175928847299117063 -o epoch_ms=1420070400000
check "discord timestamp" grep -qx 'timestamp_ms=1462015105796' "$tmp/out"
expect 0 "decode objectid" -- "$IDB" decode objectid 507c7f79bcf86cd7994f6c0e
check "objectid timestamp" grep -qx 'timestamp_s=1350336377' "$tmp/out"
check "objectid process_random" grep -qx 'process_random=bcf86cd799' "$tmp/out"
check "objectid counter" grep -qx 'counter=5205006' "$tmp/out"
expect 0 "decode interleaved" -- "$IDB" decode interleaved 8 -o shards=3
check "interleaved shard" grep -qx 'shard=1' "$tmp/out"
expect 0 "decode counter" -- "$IDB" decode counter 92
check "counter value" grep -qx 'value=92' "$tmp/out"
expect 0 "decode range" -- "$IDB" decode range 1000000000005
check "range value" grep -qx 'value=1000000000005' "$tmp/out"
expect 2 "decode malformed uuid" -- "$IDB" decode uuidv7 017f22e2-79b0-7cc3-98c4-dc0c0c07398
expect 2 "decode v4 as v7" -- "$IDB" decode uuidv7 919108f7-52d1-4320-9bac-f847db4148a8
expect 2 "decode malformed objectid" -- "$IDB" decode objectid 507c7f79bcf86cd7994f6c0g
expect 2 "decode malformed decimal" -- "$IDB" decode counter 12a
expect 2 "decode snowflake top bit" -- "$IDB" decode snowflake 9223372036854775808
expect 2 "decode unknown strategy" -- "$IDB" decode nosuch 1
expect 2 "decode missing ID" -- "$IDB" decode counter
expect 2 "decode bad option" -- "$IDB" decode snowflake 1 -o epoch=1

# --- bench
expect 2 "bench non-benchmark flag" -- "$IDB" bench --fast
expect 2 "bench filter matching nothing" -- "$IDB" bench --benchmark_filter=nothing-matches-this
expect 0 "bench one strategy, JSON out" -- "$IDB" bench --benchmark_filter='gen/counter|baseline' \
  --benchmark_min_time=0.01 --benchmark_out="$tmp/gen.json" --benchmark_out_format=json
check "bench JSON names gen/counter at 1 and 2 threads" grep -q '"name": "gen/counter/real_time/threads:2"' "$tmp/gen.json"
check "bench JSON has the clock baseline" grep -q '"name": "baseline/clock_realtime' "$tmp/gen.json"

# --- insert
hdr='strategy,store,shards,ids,key_bytes,batch,seconds,gen_ns_per_id,inserts_per_s,lat_p50_ns,lat_p99_ns,lat_p999_ns,lat_max_ns,commit_p99_ns,leaf_pages,depth,fill_factor,file_bytes,pages_written,write_bytes_per_id,cache_misses,tail_insert_frac,insert_pos_p50'
expect 0 "insert null" -- "$IDB" insert --store null --strategy counter -n 1000
check "insert CSV header is the contract" test "$(head -1 "$tmp/out")" = "$hdr"
check "insert counter lands at the tail" test "$(tail -1 "$tmp/out" | cut -d, -f22,23)" = "1.0000,1.0000"
expect 0 "insert pagesim json" -- "$IDB" insert --store pagesim --strategy uuidv4 -n 2000 --format json -s cache_pages=10
check "insert json has store options" grep -q '"cache_pages": 10' "$tmp/out"
expect 0 "insert pagesim curve" -- "$IDB" insert --store pagesim --strategy uuidv4 -n 2000 --curve 1,10,100
check "curve has a header and 3 rows" test "$(wc -l <"$tmp/out")" -eq 4
check "curve header" test "$(head -1 "$tmp/out")" = "strategy,store,cache_pages,misses_per_insert,writes_per_insert"
mkdir -p "$tmp/d1"
expect 0 "insert sqlite into --dir, 2 shards" -- "$IDB" insert --store sqlite --strategy range -n 3000 --shards 2 --dir "$tmp/d1"
check "sqlite shards have their files" test -f "$tmp/d1/shard-0/orders.sqlite" -a -f "$tmp/d1/shard-1/orders.sqlite"
cp "$tmp/d1/shard-0/orders.sqlite" "$tmp/before.sqlite"
expect 2 "insert into a used --dir" -- "$IDB" insert --store sqlite --strategy counter -n 10 --dir "$tmp/d1"
check "the existing store is untouched" cmp -s "$tmp/d1/shard-0/orders.sqlite" "$tmp/before.sqlite"
mkdir -p "$tmp/d2/shard-0" && echo "not a database" >"$tmp/d2/shard-0/orders.sqlite"
expect 2 "insert over a foreign file" -- "$IDB" insert --store sqlite --strategy counter -n 10 --dir "$tmp/d2"
check "the foreign file is untouched" test "$(cat "$tmp/d2/shard-0/orders.sqlite")" = "not a database"
expect 2 "insert lmdb append out of order" -- "$IDB" insert --store lmdb --strategy uuidv4 -n 1000 -s append=1
expect 2 "insert missing --store" -- "$IDB" insert --strategy counter -n 10
expect 2 "insert unknown store" -- "$IDB" insert --store nosuch --strategy counter -n 10
expect 2 "insert unknown strategy" -- "$IDB" insert --store null --strategy nosuch -n 10
expect 2 "insert -n 0" -- "$IDB" insert --store null --strategy counter -n 0
expect 2 "insert unknown store option" -- "$IDB" insert --store sqlite --strategy counter -n 10 -s nope=1
expect 2 "insert unknown strategy option" -- "$IDB" insert --store null --strategy counter -n 10 -o nope=1
expect 2 "insert bad format" -- "$IDB" insert --store null --strategy counter -n 10 --format xml
expect 2 "insert curve on sqlite" -- "$IDB" insert --store sqlite --strategy counter -n 10 --curve 10
expect 2 "insert bad curve" -- "$IDB" insert --store pagesim --strategy counter -n 10 --curve 10,x
expect 2 "insert unwritable dir" -- "$IDB" insert --store sqlite --strategy counter -n 10 --dir /proc/idbench-nope
expect 2 "insert dir is a file" -- "$IDB" insert --store sqlite --strategy counter -n 10 --dir "$tmp/before.sqlite"
expect 2 "insert rowid with 16-byte keys" -- "$IDB" insert --store sqlite --strategy uuidv4 -n 10 -s schema=rowid

# --- error lines: one line whatever the input echoes, and the reason kept when it is long
expect 2 "a newline in an option value" -- "$IDB" gen uuidv4 -o $'name=a\nidbench: fake'
check "one stderr line for a newline in an option value" test "$(wc -l <"$tmp/err")" -eq 1
expect 2 "a newline in an option value that is echoed" -- "$IDB" gen snowflake -o $'worker=a\nidbench: fake'
check "the newline is echoed as \\n" grep -qF "'a\nidbench: fake'" "$tmp/err"
expect 2 "a newline in a command name" -- "$IDB" $'frob\nidbench: fake'
expect 2 "control characters in a value" -- "$IDB" gen snowflake -o $'worker=\x01\x1b[2J\x7f'
check "control characters echoed as \\xNN" grep -qF '\x01\x1b[2J\x7f' "$tmp/err"
printf -v long '%*s' 100000 ''
long=$tmp/${long// /a}                            # a 100 KB path
short_why() {  # short_why REASON: the error line is short and ends with REASON
  awk -v why="$1" 'length($0) < 1000 && substr($0, length($0) - length(why) + 1) == why { ok = 1 }
                   END { exit !ok }' "$tmp/err"
}
expect 2 "a 100 KB --out" -- "$IDB" matrix --out "$long"
check "a 100 KB --out: a short line that says why" short_why ": path too long"
expect 2 "a 100 KB plot directory" -- "$IDB" plot "$long"
check "a 100 KB plot directory: a short line that says why" short_why " is not a directory"
expect 2 "a 100 KB --dir" -- "$IDB" insert --store sqlite --strategy counter -n 10 --dir "$long"
check "a 100 KB --dir: a short line that says why" short_why " is not a directory"
check "a 100 KB --dir: the cut is said" grep -qE '\.\.\. a+ is not a directory$' "$tmp/err"

cli_done
