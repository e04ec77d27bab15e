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
check "list is NAME<TAB>BITS<TAB>summary<TAB>CROSS_PROCESS, bits a multiple of 8 up to 256" \
  awk -F'\t' 'NF != 4 || $2 !~ /^[0-9]+$/ || $2 % 8 || $2 < 8 || $2 > 256 ||
               $4 !~ /^(none|always|distinct-worker|shared-dir)$/ { exit 1 }' "$tmp/out"
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

# --- ksuid (segmentio): the README's example and the largest value
expect 0 "decode the ksuid README example" -- "$IDB" decode ksuid 0ujtsYcgvSTl8PAuAdqWYSMnLOv
check "ksuid timestamp" grep -qx 'timestamp=107608047' "$tmp/out"
check "ksuid time" grep -qx 'time=2017-10-10T04:00:47Z' "$tmp/out"
check "ksuid payload" grep -qx 'payload=b5a1cd34b5f99d1154fb6853345c9735' "$tmp/out"
expect 0 "decode the largest ksuid" -- "$IDB" decode ksuid aWgEPTl1tmebfsQzFP4bxwgy80V
check "largest ksuid payload" grep -qx 'payload=ffffffffffffffffffffffffffffffff' "$tmp/out"
expect 2 "decode ksuid above the largest" -- "$IDB" decode ksuid aWgEPTl1tmebfsQzFP4bxwgy80W
expect 2 "decode ksuid too short" -- "$IDB" decode ksuid 0ujtsYcgvSTl8PAuAdqWYSMnLO
expect 0 "gen ksuid -n 2000 -t 2" -- "$IDB" gen ksuid -n 2000 -t 2
check "ksuid text form, no duplicates" test "$(grep -E '^[0-9A-Za-z]{27}$' "$tmp/out" | sort -u | wc -l)" -eq 2000

# --- every strategy of `idbench list` through gen, decode and insert into every store, so a
# new strategy is covered here without naming it (the key width is the listed bits / 8)
"$IDB" list >"$tmp/strategies"
while IFS=$'\t' read -r s bits _; do
  opt=()
  "$IDB" help "$s" | grep -q '^  dir=' && mkdir -p "$tmp/dir-$s" && opt=(-o "dir=$tmp/dir-$s")
  expect 0 "gen $s" -- "$IDB" gen "$s" -n 100 -t 2 "${opt[@]}"
  check "gen $s: 100 distinct IDs" test "$(sort -u "$tmp/out" | wc -l)" -eq 100
  first=$(head -1 "$tmp/out")
  expect 0 "decode a generated $s ID" -- "$IDB" decode "$s" "$first"
  for store in null pagesim sqlite lmdb; do
    if "$IDB" help "$s" | grep -q '^keys: assigned by the store'; then   # autoinc: refused
      expect 2 "insert $s into $store: refused, the store cannot assign keys" -- \
        "$IDB" insert --store "$store" --strategy "$s" -n 300 --dir "$tmp/refused-$s"
      check "insert $s into $store: nothing made" test ! -e "$tmp/refused-$s"
      continue
    fi
    expect 0 "insert $s into $store" -- "$IDB" insert --store "$store" --strategy "$s" -n 300
    check "insert $s into $store: key_bytes is bits / 8" \
      test "$(tail -1 "$tmp/out" | cut -d, -f5)" = "$((bits / 8))"
  done
done <"$tmp/strategies"

# --- bench
expect 2 "bench non-benchmark flag" -- "$IDB" bench --fast
expect 2 "bench filter matching nothing" -- "$IDB" bench --benchmark_filter=nothing-matches-this
expect 0 "bench one strategy, JSON out" -- "$IDB" bench --benchmark_filter='gen/counter/|baseline' \
  --benchmark_min_time=0.01 --benchmark_out="$tmp/gen.json" --benchmark_out_format=json
check "bench JSON names gen/counter at 1 and 2 threads" grep -q '"name": "gen/counter/real_time/threads:2"' "$tmp/gen.json"
check "bench JSON has the clock baseline" grep -q '"name": "baseline/clock_realtime' "$tmp/gen.json"
# (not the counter servers' cells gen/NAME@BACKEND: test_counter_server.sh runs those)
expect 0 "bench every strategy" -- "$IDB" bench --benchmark_filter='^gen/[a-z0-9]+/' \
  --benchmark_min_time=0.001
check "bench ran gen/NAME at 2 threads for every strategy" \
  test "$(grep -c '^gen/.*/threads:2 ' "$tmp/out")" -eq "$(wc -l <"$tmp/strategies")"

# --- insert
hdr='strategy,store,shards,ids,key_bytes,batch,seconds,gen_ns_per_id,inserts_per_s,lat_p50_ns,lat_p99_ns,lat_p999_ns,lat_max_ns,commit_p99_ns,leaf_pages,depth,fill_factor,file_bytes,pages_written,write_bytes_per_id,cache_misses,tail_insert_frac,insert_pos_p50,checkpoint_pages,wal_frames,read_pages,order_breaks,rate_per_s,achieved_per_s,order_lat_p50_ns,order_lat_p99_ns,order_lat_p999_ns,order_lat_max_ns,wal_bytes_per_id,fpi_per_id,splits_per_id,leaf_fragmentation,index_bytes,table_bytes,modelled_device_s,modelled_inserts_per_s,failed_orders,duplicate_ids,duplicate_rows,extend_pages,autovacuum_runs,wal_bytes,fpi,client_write_bytes_per_id,clients,wait_share,wait_ns_per_order,failed_txns,retries,counter_down_ms,wait_share_none,server_cpu_ns_per_order,backend_shares,hot_share,hot_share_window_max,backend_pages_written_sum,backend_pages_written_max,backend_cache_misses_sum,backend_cache_misses_max,backend_cpu_s,head_cpu_s,worker_pause_ms,lost_ids,failover_ms,phase,first_strategy,index_growth_pages,index_growth_bytes,leaf_fill_touched,id_bytes,rows_held,bytes_per_row_table,bytes_per_row_id_index,bytes_per_row_secondary,bytes_per_row,wait_share_lwlock_buffer_content,wait_share_lwlock_buffer_mapping,wait_share_lock,wait_share_index_tree,wait_share_page_latch,wait_share_row_lock,wait_share_latch_other,wait_share_io,wait_share_other'
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
check "sqlite, 2 shards: pages_written = checkpoint_pages + wal_frames, summed" awk -F, '
  NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i }
  NR == 2 { w = $c["wal_frames"]; k = $c["checkpoint_pages"]
            exit !(k > 0 && w > 0 && $c["pages_written"] == k + w && $c["read_pages"] >= k - 2) }
' "$tmp/out"
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

# --- the exit-status contract (issue 9 §4)
# gen_partial DESCRIPTION -- COMMAND...: gen fails after printing some IDs: exit 1, one
# idbench: line saying "gen stopped: N of M IDs printed", N the whole lines on stdout.
gen_partial() {
  local what=$1; shift 2
  "$@" >"$tmp/out" 2>"$tmp/err"
  local got=$? n
  n=$(sed -n 's/.*(gen stopped: \([0-9][0-9]*\) of [0-9][0-9]* IDs printed)$/\1/p' "$tmp/err")
  check "$what: exit 1" test "$got" -eq 1
  check "$what: one idbench: line" test "$(wc -l <"$tmp/err")" -eq 1 -a \
    "$(grep -c '^idbench: ' "$tmp/err")" -eq 1
  check "$what: the line counts the IDs on stdout" test -n "$n" -a "$n" = "$(wc -l <"$tmp/out")"
  check "$what: stdout ends with a whole line" test -z "$(tail -c1 "$tmp/out")"
}
# range runs out: every range of range_size=1000 up to the last but one is leased (by hand),
# so gen gets the last range, 9223372036854775000..2^63-1 (808 IDs), then fails
mkdir -p "$tmp/rx"
expect 0 "gen range: make a range directory" -- "$IDB" gen range -n 1 -o dir="$tmp/rx" -o range_size=1000
sqlite3 "$tmp/rx/idbench-ranges.sqlite" "INSERT INTO lease VALUES(9223372036854774, 0, 0)"
gen_partial "gen range running out" -- "$IDB" gen range -n 1000 -o dir="$tmp/rx" -o range_size=1000
check "gen range running out: the 808 IDs of the last range" test "$(wc -l <"$tmp/out")" -eq 808
check "gen range running out: up to 2^63 - 1" test "$(tail -1 "$tmp/out")" = 9223372036854775807
check "gen range running out: says why" grep -q 'every range of range_size=1000' "$tmp/err"
# ulid's test hook: one ULID per ms, so the second in a ms fails (two threads)
gen_partial "gen ulid overflowing" -- "$IDB" gen ulid -n 1000000 -t 2 -o overflow_after=1
check "gen ulid overflowing: printed IDs are distinct" \
  test "$(sort -u "$tmp/out" | wc -l)" -eq "$(wc -l <"$tmp/out")"

# bad input is 2 everywhere: an epoch in the future, a dir that cannot be used
future=253402300799999
expect 2 "gen snowflake with a future epoch" -- "$IDB" gen snowflake -o epoch_ms=$future
check "the future epoch is named" grep -q "epoch_ms = $future is in the future" "$tmp/err"
expect 2 "insert snowflake with a future epoch" -- \
  "$IDB" insert --store null --strategy snowflake -n 10 -o epoch_ms=$future
expect 0 "decode with a future epoch (no clock needed)" -- \
  "$IDB" decode snowflake 4194304 -o epoch_ms=$future
check "decode with a future epoch: its timestamp" grep -qx "timestamp_ms=$((future + 1))" "$tmp/out"
for d in /proc /etc/passwd/x; do
  expect 2 "gen range, dir=$d" -- "$IDB" gen range -o dir=$d
  expect 2 "insert range, dir=$d" -- "$IDB" insert --store null --strategy range -n 10 -o dir=$d
  expect 0 "decode range, dir=$d (decode does not use it)" -- "$IDB" decode range 5 -o dir=$d
done
# the private temporary directory ($TMPDIR) failing is a runtime failure, for every command
expect 1 "insert with an unusable TMPDIR" -- \
  env TMPDIR=/etc/passwd "$IDB" insert --store null --strategy counter -n 10
printf '[workload]\nduration_s = 1\norders_per_s = 100\nstrategies = range\n' >"$tmp/r1.ini"
expect 1 "simulate range with an unusable TMPDIR" -- env TMPDIR=/etc/passwd "$IDB" simulate "$tmp/r1.ini"

# a write to stdout that fails is exit 1 with one line, for every command
full() {
  local what=$1; shift
  "$@" >/dev/full 2>"$tmp/err"
  local got=$?
  check "$what >/dev/full: exit 1" test "$got" -eq 1
  # progress may go to stderr too (claims times each claim): the one idbench: line is the error
  check "$what >/dev/full: one idbench: line" test "$(grep '^idbench:' "$tmp/err")" = \
    "idbench: cannot write to stdout: No space left on device"
}
full "list" "$IDB" list
full "help" "$IDB" help
full "help snowflake" "$IDB" help snowflake
full "decode" "$IDB" decode counter 92
full "gen" "$IDB" gen counter -n 5
full "gen -n 10000000 -t 4" "$IDB" gen counter -n 10000000 -t 4
full "collide" "$IDB" collide --bits 64 --rate 1000
full "simulate" "$IDB" simulate "$tmp/r1.ini"
full "claims" "$IDB" claims --quick --waits-store none --no-failover   # 8, 10: slow suite
# bench: Google Benchmark's context goes to stderr too, and its C++ stream loses the reason
"$IDB" bench --benchmark_filter=baseline --benchmark_min_time=0.001 >/dev/full 2>"$tmp/err"
check "bench >/dev/full: exit 1" test $? -eq 1
check "bench >/dev/full: one idbench: line, the last" test "$(grep -c '^idbench: ' "$tmp/err")" \
  -eq 1 -a "$(tail -1 "$tmp/err" | cut -d: -f1-2)" = "idbench: cannot write to stdout"
"$IDB" insert --store null --strategy counter -n 10 >/dev/full 2>"$tmp/err"
check "insert >/dev/full: exit 1" test $? -eq 1
check "insert >/dev/full: one idbench: line" test "$(grep -c '^idbench: ' "$tmp/err")" -eq 1 -a \
  "$(wc -l <"$tmp/err")" -eq 1

# unsigned fields print unsigned, at their largest
expect 0 "decode counter 2^64 - 1" -- "$IDB" decode counter 18446744073709551615
check "counter value 2^64 - 1" grep -qx 'value=18446744073709551615' "$tmp/out"
expect 0 "decode interleaved 2^64 - 1" -- "$IDB" decode interleaved 18446744073709551615 -o shards=1
check "interleaved value 2^64 - 1" grep -qx 'value=18446744073709551615' "$tmp/out"
expect 0 "decode segment 2^64 - 1" -- "$IDB" decode segment 18446744073709551615
check "segment block of 2^64 - 1" grep -qx 'block=18446744073709551' "$tmp/out"
expect 0 "decode range 2^63 - 1" -- "$IDB" decode range 9223372036854775807 -o range_size=1
check "range number 2^63 - 1" grep -qx 'range=9223372036854775807' "$tmp/out"
expect 0 "decode the largest snowflake" -- "$IDB" decode snowflake 9223372036854775807
check "snowflake worker and sequence at their largest" \
  test "$(grep -E '^(worker|sequence)=' "$tmp/out" | tr '\n' ' ')" = "worker=1023 sequence=4095 "
expect 0 "decode the largest objectid" -- "$IDB" decode objectid ffffffffffffffffffffffff
check "objectid counter and seconds at their largest" \
  test "$(grep -E '^(timestamp_s|counter)=' "$tmp/out" | tr '\n' ' ')" = "timestamp_s=4294967295 counter=16777215 "

# integers never pass through a double; out of range is refused
mkdir -p "$tmp/rmax"
expect 0 "gen range with the largest range_size" -- \
  "$IDB" gen range -n 3 -o dir="$tmp/rmax" -o range_size=9223372036854775807
check "the largest range_size: 1, 2, 3" test "$(tr '\n' ' ' <"$tmp/out")" = "1 2 3 "
expect 2 "gen range, range_size 2^63" -- "$IDB" gen range -o dir="$tmp/rmax" -o range_size=9223372036854775808
for a in "-n 0x10" "-n 1e3" "-n 18446744073709551616" "-n 1.0" "-t 2.0"; do
  expect 2 "gen $a" -- "$IDB" gen counter $a
done
for a in "--seed 9223372036854775808" "--seed -1" "--seed 1e3" "--batch 1.5" "--shards 0x2" \
         "--shops 1e3"; do
  expect 2 "insert $a" -- "$IDB" insert --store null --strategy counter -n 10 $a
done
for a in "--bits 64.0" "--bits 0x40" "--rate 0x1p3" "--rate ' 5'"; do
  eval "expect 2 \"collide \$a\" -- \"\$IDB\" collide --bits 64 --rate 1 $a"
done
for c in "1,,2" "1," ",1" "0x10" "1e3" "2.0"; do
  expect 2 "insert --curve $c" -- "$IDB" insert --store pagesim --strategy counter -n 10 --curve "$c"
done
expect 2 "bench: a hex float" -- "$IDB" bench --benchmark_min_time=0x1p-6
expect 2 "bench: repetitions 1,,2" -- "$IDB" bench --benchmark_repetitions=1,,2
# the matrix seed goes into meta.json exactly: the largest, and 2^53 + 1
mkdir -p "$tmp/mx"
for seed in 9223372036854775807 9007199254740993; do
  printf '[matrix]\nseed = %s\nrepeat = 1\n[generation]\nenabled = 0\n[insert]\nstrategies = counter\nstores = null\nsizes = 10\n[curve]\nenabled = 0\n[simulate]\nenabled = 0\n[claims]\nenabled = 0\n[openloop]\nenabled = 0\n' \
    "$seed" >"$tmp/mx/m.ini"
  rm -rf "$tmp/mx/r"
  expect 0 "matrix with seed $seed" -- "$IDB" matrix "$tmp/mx/m.ini" --out "$tmp/mx/r"
  check "meta.json records seed $seed exactly" grep -qx "  \"seed\": $seed," "$tmp/mx/r/meta.json"
done
sed -i 's/^seed = .*/seed = 9223372036854775808/' "$tmp/mx/m.ini"
rm -rf "$tmp/mx/r"
expect 2 "matrix seed 2^63" -- "$IDB" matrix "$tmp/mx/m.ini" --out "$tmp/mx/r"
expect 2 "matrix --seed 2^63" -- "$IDB" matrix "$tmp/mx/m.ini" --seed 9223372036854775808 --out "$tmp/mx/r"
expect 2 "matrix --repeat 0x2" -- "$IDB" matrix "$tmp/mx/m.ini" --repeat 0x2 --out "$tmp/mx/r"
for kv in "sizes = 1,,2" "min_time = 0x1p-3"; do
  sec=insert; [ "${kv%% *}" = min_time ] && sec=generation
  printf '[%s]\n%s\n' "$sec" "$kv" >"$tmp/mx/bad.ini"
  expect 2 "matrix file: $kv" -- "$IDB" matrix "$tmp/mx/bad.ini" --out "$tmp/mx/r"
done
check "no refused matrix wrote a results directory" test ! -e "$tmp/mx/r"

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
check "a 100 KB --dir: a short line that says why" grep -qE '^idbench: directory path is too long \([0-9]+ bytes\)$' "$tmp/err"
# a long input that is echoed is cut in its middle, the reason kept at the end
expect 2 "a 100 KB --strategy" -- "$IDB" insert --store sqlite --strategy "${long##*/}" -n 10
check "a 100 KB --strategy: a short line that says why" short_why "(see idbench list)"
check "a 100 KB --strategy: the cut is said" grep -qF "bytes cut ...]" "$tmp/err"
# repeatable runs are for insert runs only: `gen` draws fresh IDs every time (issue 10)
check "gen uuidv4 twice gives different IDs" \
  test "$("$IDB" gen uuidv4 -n 4)" != "$("$IDB" gen uuidv4 -n 4)"

cli_done
