#!/bin/bash
# test_then_server.sh — `insert --then` and the storage columns on the server stores (slow
# suite: private servers). postgres: uuidv4 then uuidv7 into one table, the phase's row its
# own, bytes per row against the files of the server's data directory (a relation file of
# exactly table_bytes and one of index_bytes: the heap and the ID's index, read from disk,
# not from the server); mariadb: the same rows, the clustered table's bytes within the .ibd
# file, its ID index 0. Both: the record holds both phases; no server left running.
# Usage: test_then_server.sh path/to/idbench
bin=$1
. "$(dirname "$0")/cli_lib.sh"

field2() {
  awk -F, -v name="$1" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == name) c = i }
                        NR == 3 && c { print $c }' "$tmp/out"
}
chmod 755 "$tmp"                             # the servers' user enters DIR

if command -v /usr/lib/postgresql/*/bin/postgres >/dev/null 2>&1; then
  d=$tmp/pg
  expect 0 "postgres: v4 then v7" -- "$bin" insert --store postgres --strategy uuidv4 -n 5000 --then uuidv7:5000 --dir "$d"
  check "postgres: two rows, the phase's" test "$(field2 phase)" = then -a "$(field2 strategy)" = uuidv7 -a "$(field2 rows_held)" -eq 10000
  check "postgres: the phase's WAL its own" test "$(field2 wal_bytes)" -gt 0 -a "$(field2 wal_bytes)" -lt $(( $(out_field wal_bytes) * 3 ))
  tb=$(field2 table_bytes) ib=$(field2 index_bytes)
  sizes=$(find "$d/shard-0/postgres/data/base" -type f -printf '%s\n')
  check "postgres: a heap file of table_bytes ($tb) on disk" grep -qx "$tb" <<<"$sizes"
  check "postgres: an index file of index_bytes ($ib) on disk" grep -qx "$ib" <<<"$sizes"
  check "postgres: bytes_per_row_id_index = index_bytes / rows" \
    awk -v b="$(field2 bytes_per_row_id_index)" -v t="$ib" 'BEGIN { d = b - t / 10000; exit !(d < 0.05 && d > -0.05) }'
  check "postgres: the record's then lines" grep -aq '^then_rows=5000$' "$d/insert-postgres.rec"
fi
if command -v mariadbd >/dev/null 2>&1; then
  d=$tmp/md
  expect 0 "mariadb: v4 then v7" -- "$bin" insert --store mariadb --strategy uuidv4 -n 5000 --then uuidv7:5000 --dir "$d"
  check "mariadb: two rows, the phase's" test "$(field2 phase)" = then -a "$(field2 first_strategy)" = uuidv4 -a "$(field2 rows_held)" -eq 10000
  ibd=$(find "$d" -name orders.ibd -printf '%s\n' | head -1)
  check "mariadb: the clustered table within the .ibd file ($(field2 table_bytes) <= $ibd)" \
    test -n "$ibd" -a "$(field2 table_bytes)" -gt 0 -a "$(field2 table_bytes)" -le "${ibd:-0}"
  check "mariadb: its ID index is the table" test "$(field2 bytes_per_row_id_index)" = 0.0
  check "mariadb: the phase's index growth" test "$(field2 index_growth_bytes)" -gt 0
fi
check "no server of this test left" test -z "$(pgrep -f "$tmp/" || true)"
cli_done
