#!/bin/bash
# test_then_cli.sh — `idbench insert --then STRATEGY:N` and the storage columns from the
# command line: two rows (CSV) or objects (JSON), the second phase's named by its strategy
# with phase=then and first_strategy; `idbench read` finds both phases' rows and names the
# second strategy when it looks up only its rows; bytes per row against independent counts
# (SQLite's own page_count and freelist_count, LMDB's mdb_stat); bad input refused in one
# line, exit 2, nothing made.
# Usage: test_then_cli.sh path/to/idbench
bin=$1
. "$(dirname "$0")/cli_lib.sh"

# field2 NAME: column NAME of the second row (the phase) of $tmp/out.
field2() {
  awk -F, -v name="$1" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == name) c = i }
                        NR == 3 && c { print $c }' "$tmp/out"
}

d=$tmp/d
expect 0 "sqlite v4 then v7" -- "$bin" insert --store sqlite --strategy uuidv4 -n 4000 --then uuidv7:3000 --dir "$d"
check "a header and two rows" test "$(wc -l <"$tmp/out")" -eq 3
check "the run's row: phase main" test "$(out_field phase)" = main -a "$(out_field strategy)" = uuidv4 -a -z "$(out_field first_strategy)"
check "the phase's row: its strategy, phase then" test "$(field2 strategy)" = uuidv7 -a "$(field2 phase)" = then -a "$(field2 first_strategy)" = uuidv4
check "the phase's ids are its own" test "$(field2 ids)" -eq 3000 -a "$(field2 rows_held)" -eq 7000
check "its pages written are its own" test "$(field2 pages_written)" -gt 0 -a "$(field2 pages_written)" -lt "$(out_field pages_written)"
check "ID widths" test "$(out_field id_bytes)" -eq 16 -a "$(field2 id_bytes)" -eq 16

# bytes per row against SQLite's own count of the file's pages (after close): the file is
# the orders B-tree, the schema's page and free pages.
db=$d/shard-0/orders.sqlite
pages=$(sqlite3 "$db" 'PRAGMA page_count') free=$(sqlite3 "$db" 'PRAGMA freelist_count')
psize=$(sqlite3 "$db" 'PRAGMA page_size')
check "sqlite table_bytes = the file's pages less schema and free ($(field2 table_bytes))" \
  test "$(field2 table_bytes)" -eq $(( (pages - 1 - free) * psize ))
check "sqlite bytes_per_row_table = table_bytes / rows" \
  awk -v b="$(field2 bytes_per_row_table)" -v t="$(field2 table_bytes)" 'BEGIN { exit !(b - t / 7000 < 0.05 && t / 7000 - b < 0.05) }'
check "sqlite: the table is the ID's index, no other" test "$(field2 bytes_per_row_id_index)" = 0.0 -a "$(field2 bytes_per_row_secondary)" = 0.0

expect 0 "read: uniform, both phases" -- "$bin" read --store sqlite --dir "$d" -n 3000 --pattern uniform
check "every lookup found, the run's strategy" test "$(out_field found)" -eq 3000 -a "$(out_field strategy)" = uuidv4
expect 0 "read: the phase's rows only" -- "$bin" read --store sqlite --dir "$d" -n 1000 --pattern recent:40
check "found, named by the second strategy" test "$(out_field found)" -eq 1000 -a "$(out_field strategy)" = uuidv7
expect 0 "read --strategy names the second" -- "$bin" read --store sqlite --dir "$d" -n 10 --pattern uniform --strategy uuidv7

expect 0 "json: two objects" -- "$bin" insert --store lmdb --strategy counter -n 3000 --then snowflake:2000 --dir "$tmp/l" --format json
check "json objects parse, phases in order" python3 -c '
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
assert [r["phase"] for r in rows] == ["main", "then"], rows
assert rows[1]["strategy"] == "snowflake" and rows[1]["first_strategy"] == "counter"
assert rows[1]["ids"] == 2000 and rows[1]["tail_insert_frac"] == 1.0' "$tmp/out"
expect 0 "csv of the same" -- "$bin" insert --store lmdb --strategy counter -n 3000 --then snowflake:2000 --dir "$tmp/l2"
stat=$(mdb_stat "$tmp/l2/shard-0/orders.lmdb")
lmdb_pages=$(echo "$stat" | awk '/Branch pages|Leaf pages|Overflow pages/ { s += $NF } END { print s }')
check "lmdb table_bytes = mdb_stat's pages x 4096" test "$(field2 table_bytes)" -eq $(( lmdb_pages * 4096 ))

# Bad input: one line, exit 2, the directory not made.
for t in uuidv7 uuidv7: :5 uuidv7:0 uuidv7:x nosuch:5 uuidv7:-3; do
  expect 2 "--then $t" -- "$bin" insert --store sqlite --strategy uuidv4 -n 10 --then "$t" --dir "$tmp/never"
done
expect 2 "wider than the table" -- "$bin" insert --store sqlite --strategy counter -n 10 --then uuidv7:10 --dir "$tmp/never"
check "the message says how to fit it" grep -q 'key_bytes=16' "$tmp/err"
expect 2 "with --clients" -- "$bin" insert --store sqlite --strategy uuidv4 -n 10 --clients 2 --then uuidv7:10 --dir "$tmp/never"
expect 2 "with --rate" -- "$bin" insert --store sqlite --strategy uuidv4 -n 10 --rate 1000 --then uuidv7:10 --dir "$tmp/never"
expect 2 "with --curve" -- "$bin" insert --store pagesim --strategy uuidv4 -n 10 --curve 10 --then uuidv7:10 --dir "$tmp/never"
check "nothing made" test ! -e "$tmp/never"
expect 0 "fits with key_bytes=16" -- "$bin" insert --store sqlite --strategy counter -n 10 --then uuidv7:10 -s key_bytes=16
check "counter's 8-byte IDs in a 16-byte table" test "$(out_field id_bytes)" -eq 8 -a "$(out_field key_bytes)" -eq 16 -a "$(field2 id_bytes)" -eq 16
cli_done
