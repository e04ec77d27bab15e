#!/usr/bin/env bash
# test_compare_phase.sh — `idbench compare` keys cells by `phase` and `first_strategy` (the
# second phase of `insert --then` is a cell of its own), on crafted results directories
# (no matrix run, so fast): a then row and a plain row of one strategy and store do not pair
# (each is listed on its side only); two then rows into tables of one first strategy pair
# and are judged; then rows into different first strategies do not pair; a file without the
# two columns (made before --then) pairs with a file's `main` rows.
# Usage: test_compare_phase.sh IDBENCH
set -u
IDB=${1:?usage: test_compare_phase.sh path/to/idbench}
. "$(dirname "$0")/cli_lib.sh"

COLS=strategy,store,ids,shards,key_bytes,clients,batch,shops,store_options,repeat
COLS=$COLS,inserts_per_s,lat_p50_ns,lat_p99_ns,commit_p99_ns,order_lat_p99_ns,pages_written
COLS=$COLS,write_bytes_per_id,client_write_bytes_per_id,fill_factor,gen_ns_per_id

# results DIR [phase]: a results directory with meta.json (format 3) and the header of
# insert_runs.csv, with the phase columns unless the second argument is "old".
results() {
  mkdir -p "$1"
  printf '{\n  "format_version": 3,\n  "idbench": "test"\n}\n' >"$1/meta.json"
  if [ "${2:-}" = old ]; then echo "$COLS" >"$1/insert_runs.csv"
  else echo "$COLS,phase,first_strategy" >"$1/insert_runs.csv"; fi
}

# rows DIR STRATEGY PAGES [PHASE FIRST]: five repeats of STRATEGY on sqlite, 1000 IDs, with
# PAGES pages written (+ the repeat's number, so repeats differ); PHASE and FIRST are the
# phase columns (none given: the file has none).
rows() {
  for r in 1 2 3 4 5; do
    line="$2,sqlite,1000,1,16,1,100,50,,$r,1000,10,20,30,,$(($3 + r)),4000,,0.7,50"
    [ $# -ge 4 ] && line="$line,$4,$5"
    echo "$line" >>"$1/insert_runs.csv"
  done
}

# A then row (uuidv7 into a uuidv4 table) against a plain uuidv7 row: not one cell.
results "$tmp/then"
rows "$tmp/then" uuidv7 300 then uuidv4
results "$tmp/plain"
rows "$tmp/plain" uuidv7 300 main ""
expect 0 "then vs plain: exit 0" -- "$IDB" compare "$tmp/then" "$tmp/plain" --format csv
check "then vs plain: no metric compared" \
  test "$(tail -n +2 "$tmp/out" | awk -F, '$3 != ""' | wc -l)" -eq 0
check "then vs plain: the then cell only in A" \
  grep -q '^closed,uuidv7 sqlite n=1000 shards=1 key=16 batch=100 phase=then into=uuidv4,.*only in A' "$tmp/out"
check "then vs plain: the plain cell only in B" \
  grep -q '^closed,uuidv7 sqlite n=1000 shards=1 key=16 batch=100,.*only in B' "$tmp/out"

# Two then rows into uuidv4 tables pair: the same figures are the same, a thousand times
# the pages is worse.
results "$tmp/then2"
rows "$tmp/then2" uuidv7 300000 then uuidv4
expect 0 "then vs then: exit 0" -- "$IDB" compare "$tmp/then" "$tmp/then" --format csv
check "then vs then: pages compared, same" \
  grep -q '^closed,uuidv7 sqlite n=1000 shards=1 key=16 batch=100 phase=then into=uuidv4,pages_written_per_id,.*,same,0$' \
  "$tmp/out"
expect 0 "then vs then x1000: exit 0" -- "$IDB" compare "$tmp/then" "$tmp/then2" --format csv
check "then vs then x1000: pages worse" \
  grep -q '^closed,uuidv7 sqlite n=1000 shards=1 key=16 batch=100 phase=then into=uuidv4,pages_written_per_id,.*,worse,0$' \
  "$tmp/out"
check "then vs then: nothing on one side only" bash -c "! grep -q 'only in' '$tmp/out'"

# A then row into a counter table does not pair with one into a uuidv4 table.
results "$tmp/thenc"
rows "$tmp/thenc" uuidv7 300 then counter
expect 0 "into uuidv4 vs into counter: exit 0" -- "$IDB" compare "$tmp/then" "$tmp/thenc" \
  --format csv
check "into uuidv4 vs into counter: each on its side only" \
  test "$(grep -c 'only in [AB]' "$tmp/out")" -eq 2

# A file made before --then (no phase columns) keys as phase main: it pairs with main rows,
# not with then rows.
results "$tmp/old" old
rows "$tmp/old" uuidv7 300
expect 0 "old vs plain: exit 0" -- "$IDB" compare "$tmp/old" "$tmp/plain" --format csv
check "old vs plain: paired, same" \
  grep -q '^closed,uuidv7 sqlite n=1000 shards=1 key=16 batch=100,pages_written_per_id,.*,same,0$' "$tmp/out"
check "old vs plain: nothing on one side only" bash -c "! grep -q 'only in' '$tmp/out'"
expect 0 "old vs then: exit 0" -- "$IDB" compare "$tmp/old" "$tmp/then" --format csv
check "old vs then: not paired" test "$(grep -c 'only in [AB]' "$tmp/out")" -eq 2

# --within: a run's rows and then rows of two strategies in one file pair by phase.
results "$tmp/within"
rows "$tmp/within" uuidv7 300 then uuidv4
rows "$tmp/within" uuidv4 300000 then uuidv4
rows "$tmp/within" uuidv4 300 main ""
expect 0 "within: exit 0" -- "$IDB" compare --within "$tmp/within" --a uuidv7 --b uuidv4 \
  --format csv
check "within: the then cells pair (uuidv4's pages worse)" \
  grep -q '^closed,sqlite n=1000 shards=1 key=16 batch=100 phase=then into=uuidv4,pages_written_per_id,.*,worse,0$' \
  "$tmp/out"
check "within: uuidv4's main row on its side only" \
  grep -q '^closed,sqlite n=1000 shards=1 key=16 batch=100,.*only in B' "$tmp/out"

cli_done
