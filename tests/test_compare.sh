#!/usr/bin/env bash
# test_compare.sh — `idbench compare` end to end on results directories made by a tiny
# matrix (tests/compare.ini, 5 repeats): two copies of one run are the same (exit 0); a
# copy with one metric made worse is flagged worse with p < 0.05 and exits 3 with
# --fail-on-regression, while the same change made better does not; with 3 repeats the
# change is "not tested" and judged by its size alone; every metric of compare's table is
# judged in the direction stated here (a metric x1000: better or worse); --within compares two strategies;
# bad input (not a results directory, another format_version, a spoiled file, bad flags)
# exits 2 with one idbench: line and nothing on stdout.
# Usage: test_compare.sh IDBENCH SOURCE_DIR
set -u
IDB=${1:?usage: test_compare.sh path/to/idbench SOURCE_DIR}
SRC=${2:?usage: test_compare.sh path/to/idbench SOURCE_DIR}
. "$(dirname "$0")/cli_lib.sh"

# status DESCRIPTION WANT -- COMMAND...: run, check only the exit status (exit 3 prints
# its table on stdout); stdout in $tmp/out, stderr in $tmp/err.
status() {
  local what=$1 want=$2; shift 3
  "$@" >"$tmp/out" 2>"$tmp/err"
  local got=$?
  check "$what (status $got, want $want)" test "$got" -eq "$want"
}

# scale DIR STRATEGY STORE COLUMN FACTOR: multiply COLUMN of DIR/insert_runs.csv by FACTOR
# in the rows of STRATEGY on STORE.
scale() {
  local f=$1/insert_runs.csv
  awk -F, -v OFS=, -v s="$2" -v st="$3" -v col="$4" -v k="$5" '
    NR == 1 { for (i = 1; i <= NF; i++) if ($i == col) c = i; print; next }
    $1 == s && $2 == st { $c = $c * k } { print }' "$f" >"$f.new" && mv "$f.new" "$f"
}

# verdict CSVFILE STRATEGY_STORE METRIC: the verdict column of that row of compare's CSV.
verdict() {
  awk -F, -v cell="$2" -v m="$3" 'index($2, cell) == 1 && $3 == m { print $12 }' "$1"
}
# field CSVFILE CELL METRIC N: column N of that row.
field() {
  awk -F, -v cell="$2" -v m="$3" -v n="$4" 'index($2, cell) == 1 && $3 == m { print $n }' "$1"
}

"$IDB" matrix "$SRC/workloads/matrix.ini" "$SRC/tests/compare.ini" --repeat 5 \
  --out "$tmp/a" >/dev/null 2>"$tmp/matrix.err" || { cat "$tmp/matrix.err"; exit 1; }
check "insert_runs.csv: 5 repeats of each of 6 cells" \
  test "$(tail -n +2 "$tmp/a/insert_runs.csv" | wc -l)" -eq 30
check "insert_runs.csv: a repeat column" grep -q ',repeat,' "$tmp/a/insert_runs.csv"
check "openloop_runs.csv: 5 repeats" test "$(tail -n +2 "$tmp/a/openloop_runs.csv" | wc -l)" -eq 5
check "meta.json: format_version 3" grep -q '"format_version": 3,' "$tmp/a/meta.json"
cp -r "$tmp/a" "$tmp/b"

# Two copies of one run: nothing changed.
status "copies: exit 0" 0 -- "$IDB" compare "$tmp/a" "$tmp/b" --fail-on-regression 1
check "copies: table lists same" grep -q ' same$' "$tmp/out"
check "copies: nothing worse" bash -c "! grep -qE '(worse|better)$|<< regression' '$tmp/out'"
status "copies: csv" 0 -- "$IDB" compare "$tmp/a" "$tmp/b" --format csv
cp "$tmp/out" "$tmp/same.csv"
check "copies: every csv row same" \
  test "$(tail -n +2 "$tmp/same.csv" | cut -d, -f12 | sort -u)" = same
check "copies: closed and open loop rows" \
  test "$(cut -d, -f1 "$tmp/same.csv" | sort -u | wc -l)" -eq 3
status "copies: json" 0 -- "$IDB" compare "$tmp/a" "$tmp/b" --format json
check "copies: json parses" python3 -c "import json,sys; d=json.load(open('$tmp/out')); \
assert d['rows'] and all(r['verdict'] == 'same' for r in d['rows'])"

# One metric worse in B: fill factor (higher is better) down 20 % for uuidv7 on pagesim.
scale "$tmp/b" uuidv7 pagesim fill_factor 0.8
status "worse fill: exit 3" 3 -- "$IDB" compare "$tmp/a" "$tmp/b" --fail-on-regression 5
check "worse fill: one idbench: line" \
  grep -q '^idbench: compare: 1 change worse than 5%$' "$tmp/err"
check "worse fill: flagged in the table" grep -q 'fill_factor .* worse  << regression' "$tmp/out"
status "worse fill, csv" 3 -- "$IDB" compare "$tmp/a" "$tmp/b" --format csv --fail-on-regression 5
cp "$tmp/out" "$tmp/worse.csv"
W=$tmp/worse.csv
check "worse fill: verdict worse" test "$(verdict "$W" "uuidv7 pagesim" fill_factor)" = worse
check "worse fill: p < 0.05" awk -v p="$(field "$W" "uuidv7 pagesim" fill_factor 8)" \
  'BEGIN { exit !(p > 0 && p < 0.05) }'
check "worse fill: pagesim's tied repeats, exact p 2/252" \
  test "$(field "$W" "uuidv7 pagesim" fill_factor 8),$(field "$W" "uuidv7 pagesim" fill_factor 9)" \
  = "0.00793651,exact"
check "worse fill: change -20%" test "$(field "$W" "uuidv7 pagesim" fill_factor 7)" = -20.0000
check "worse fill: other cells same" test "$(verdict "$W" "uuidv4 pagesim" fill_factor)" = same
status "worse fill beyond 30%: exit 0" 0 -- "$IDB" compare "$tmp/a" "$tmp/b" --fail-on-regression 30
status "worse fill, no flag: exit 0" 0 -- "$IDB" compare "$tmp/a" "$tmp/b"
status "other metric only: exit 0" 0 -- "$IDB" compare "$tmp/a" "$tmp/b" \
  --metric pages_written_per_id --fail-on-regression 5

# Direction: inserts/s up and latency down are better, never a regression. By a factor of
# 10^9, so that every run of one side is beyond every run of the other: the null store's
# timings of 2,000 IDs vary a hundredfold on a loaded machine (seen under the sanitizers).
cp -r "$tmp/a" "$tmp/c"
scale "$tmp/c" counter null inserts_per_s 1e9
scale "$tmp/c" counter null lat_p99_ns 1e-9
status "better: exit 0" 0 -- "$IDB" compare "$tmp/a" "$tmp/c" --format csv --fail-on-regression 5
check "better inserts/s" test "$(verdict "$tmp/out" "counter null" inserts_per_s)" = better
check "better latency" test "$(verdict "$tmp/out" "counter null" lat_p99_ns)" = better
status "reversed: exit 3" 3 -- "$IDB" compare "$tmp/c" "$tmp/a" --format csv --fail-on-regression 5
check "reversed: inserts/s worse" test "$(verdict "$tmp/out" "counter null" inserts_per_s)" = worse
check "reversed: latency worse" test "$(verdict "$tmp/out" "counter null" lat_p99_ns)" = worse

# Direction of every metric in compare's table, stated here apart from compare's code:
# metric, its column (the divisor is untouched), the source file, the cell, which way is
# better. Each column is multiplied by 1000 in B (every run of B beyond every run of A:
# p = 2/252 exact), so the verdict must be "worse" where lower is better and "better" where
# higher is; and every metric compare prints must be listed here.
directions="inserts_per_s inserts_per_s insert_runs counter,null higher
lat_p50_ns lat_p50_ns insert_runs counter,null lower
lat_p99_ns lat_p99_ns insert_runs counter,null lower
commit_p99_ns commit_p99_ns insert_runs counter,null lower
order_lat_p99_ns order_lat_p99_ns openloop_runs counter,lmdb lower
pages_written_per_id pages_written insert_runs uuidv4,pagesim lower
write_bytes_per_id write_bytes_per_id openloop_runs counter,lmdb lower
client_write_bytes_per_id client_write_bytes_per_id openloop_runs counter,lmdb lower
fill_factor fill_factor insert_runs uuidv4,pagesim higher
gen_ns_per_id gen_ns_per_id insert_runs counter,null lower"
for m in $(tail -n +2 "$tmp/same.csv" | cut -d, -f3 | sort -u); do
  check "direction: compare's metric $m has a direction test" \
    grep -q "^$m " <<<"$directions"
done
while read -r m col file cell better; do
  rm -rf "$tmp/d" && cp -r "$tmp/a" "$tmp/d"
  f=$tmp/d/$file.csv
  awk -F, -v OFS=, -v cell="$cell" -v col="$col" '
    NR == 1 { for (i = 1; i <= NF; i++) if ($i == col) c = i; print; next }
    $1 "," $2 == cell { $c = $c * 1000 } { print }' "$f" >"$f.new" && mv "$f.new" "$f"
  want=$([ "$better" = higher ] && echo better || echo worse)
  "$IDB" compare "$tmp/a" "$tmp/d" --format csv --metric "$m" >"$tmp/out" 2>"$tmp/err"
  got=$(awk -F, -v cell="${cell/,/ }" 'index($2, cell) == 1 { print $12 }' "$tmp/out")
  check "direction: $m x1000 in $cell is $want (got '$got')" test "$got" = "$want"
  check "direction: $m: exact p 2/252" \
    test "$(awk -F, -v cell="${cell/,/ }" 'index($2, cell) == 1 { print $8 "," $9 }' \
      "$tmp/out")" = "0.00793651,exact"
done <<<"$directions"

# Three repeats a side cannot reach p < 0.05: not tested, judged by the change alone.
for d in a b; do
  cp -r "$tmp/$d" "$tmp/${d}3"
  awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "repeat") c = i; print; next }
           $c <= 3' "$tmp/$d/insert_runs.csv" >"$tmp/${d}3/insert_runs.csv"
done
status "3 repeats: exit 3" 3 -- "$IDB" compare "$tmp/a3" "$tmp/b3" --format csv \
  --fail-on-regression 5
check "3 repeats: not tested" \
  test "$(verdict "$tmp/out" "uuidv7 pagesim" fill_factor)" = "not tested"
check "3 repeats: no p" test -z "$(field "$tmp/out" "uuidv7 pagesim" fill_factor 8)"
status "3 repeats, within PCT: exit 0" 0 -- "$IDB" compare "$tmp/a3" "$tmp/b3" \
  --fail-on-regression 25
check "3 repeats: the table says why" \
  grep -q 'not tested: .*3 vs 3: p cannot go below 0.1' "$tmp/out"

# A cell on one side only is listed.
grep -v '^counter,null,' "$tmp/a/insert_runs.csv" >"$tmp/a3/insert_runs.csv"
status "one side only: exit 0" 0 -- "$IDB" compare "$tmp/a3" "$tmp/a"
check "one side only: listed" grep -q '^only in B: counter null n=2000' "$tmp/out"

# Two strategies of one run.
status "within: exit 0" 0 -- "$IDB" compare --within "$tmp/a" --a uuidv7 --b uuidv4 --format csv
check "within: uuidv4's fill is worse than uuidv7's" \
  test "$(verdict "$tmp/out" "pagesim" fill_factor)" = worse
expect 2 "within: unknown strategy" -- "$IDB" compare --within "$tmp/a" --a uuidv7 --b nosuch
expect 2 "within: no --b" -- "$IDB" compare --within "$tmp/a" --a uuidv7

# The committed sample (the default matrix: 5 repeats, 1 in the clients block): two copies
# are the same (a 1-repeat cell is not tested, its change 0); a copy with sqlite/uuidv4's
# pages written 20% higher is flagged worse (that metric, those cells only: a 1-repeat one
# not tested, +20%) and exits 3.
cp -r "$SRC/results/sample" "$tmp/s1"
cp -r "$SRC/results/sample" "$tmp/s2"
status "sample copies: exit 0" 0 -- "$IDB" compare "$tmp/s1" "$tmp/s2" --format csv \
  --fail-on-regression 1
check "sample copies: rows compared" test "$(tail -n +2 "$tmp/out" | wc -l)" -gt 100
check "sample copies: every row of 5 repeats same, of 1 not tested and unchanged" \
  awk -F, 'NR > 1 { if ($10 >= 2) { s++; if ($12 != "same") bad++ }
    else if ($12 != "not tested" || $7 != "0.0000") bad++ } END { exit !(s > 100 && !bad) }' \
  "$tmp/out"
scale "$tmp/s2" uuidv4 sqlite pages_written 1.2
status "sample, worse pages: exit 3" 3 -- "$IDB" compare "$tmp/s1" "$tmp/s2" --format csv \
  --fail-on-regression 10
check "sample, worse pages: flagged worse" test "$(awk -F, '$2 == "uuidv4 sqlite n=20000 \
shards=1 key=16" && $3 == "pages_written_per_id" { print $12 }' "$tmp/out")" = worse
check "sample, worse pages: every uuidv4 sqlite cell worse, nothing else changed" \
  awk -F, 'NR > 1 && $7 != "0.0000" { n++; if ($3 != "pages_written_per_id" || \
    index($2, "uuidv4 sqlite ") != 1 || $7 < 19.99 || $7 > 20.01 || \
    ($12 != "worse" && !($12 == "not tested" && $10 == 1))) bad++ }
    NR > 1 && $7 == "0.0000" && $12 != "same" && $12 != "not tested" { bad++ }
    END { exit !(n > 1 && !bad) }' "$tmp/out"

# Bad input: one idbench: line, exit 2, nothing on stdout.
mkdir -p "$tmp/empty"
expect 2 "missing directory" -- "$IDB" compare "$tmp/nosuch" "$tmp/a"
expect 2 "not a results directory" -- "$IDB" compare "$tmp/a" "$tmp/empty"
expect 2 "a file, not a directory" -- "$IDB" compare "$tmp/a/meta.json" "$tmp/a"
# Format 2 (before issue 22 changed what cache_misses, duplicate_ids and write_bytes_per_id
# count): compare refuses it beside a format-3 run in one line (the committed results/sample
# is format 2, made before the change), compares two format-2 directories with each other
# (the sample's copies above), refuses a version it does not know; plot re-renders one.
cp -r "$tmp/a" "$tmp/v2"
sed -i 's/"format_version": 3,/"format_version": 2,/' "$tmp/v2/meta.json"
expect 2 "different format_version" -- "$IDB" compare "$tmp/a" "$tmp/v2"
check "different format_version: says so" grep -q 'format_version 3 but .* has 2' "$tmp/err"
expect 0 "two of format 2: compared" -- "$IDB" compare "$tmp/v2" "$tmp/v2"
cp -r "$tmp/a" "$tmp/v4"
sed -i 's/"format_version": 3,/"format_version": 4,/' "$tmp/v4/meta.json"
expect 2 "both of a newer format_version" -- "$IDB" compare "$tmp/v4" "$tmp/v4"
check "a newer format_version: says which versions it compares" \
  grep -q 'format_version 4; this idbench compares versions 2 to 3' "$tmp/err"
if grep -q '"format_version": 2,' "$SRC/results/sample/meta.json"; then
  expect 2 "results/sample (format 2) against this run" -- \
    "$IDB" compare "$SRC/results/sample" "$tmp/a"
  check "... says the formats differ" grep -q 'has format_version 2 but .* has 3' "$tmp/err"
fi
expect 0 "plot re-renders a format-2 directory" -- "$IDB" plot "$tmp/v2"
cp -r "$tmp/a" "$tmp/v1"
sed -i '/"format_version"/d' "$tmp/v1/meta.json"
expect 2 "no format_version (version 1)" -- "$IDB" compare "$tmp/v1" "$tmp/a"
cp -r "$tmp/a" "$tmp/noruns"
rm "$tmp/noruns/insert_runs.csv"
expect 2 "no insert_runs.csv" -- "$IDB" compare "$tmp/a" "$tmp/noruns"
cp -r "$tmp/a" "$tmp/spoiled"
scale "$tmp/spoiled" counter pagesim fill_factor -1
expect 2 "a negative figure" -- "$IDB" compare "$tmp/a" "$tmp/spoiled"
check "a negative figure: FILE:LINE" grep -q 'insert_runs.csv:2: fill_factor' "$tmp/err"
sed -i '3s/,[0-9.]*,/,x1,/' "$tmp/spoiled/insert_runs.csv"
expect 2 "not a number" -- "$IDB" compare "$tmp/spoiled" "$tmp/a"
expect 2 "unknown metric" -- "$IDB" compare "$tmp/a" "$tmp/b" --metric nosuch
expect 2 "alpha 0" -- "$IDB" compare "$tmp/a" "$tmp/b" --alpha 0
expect 2 "alpha not a number" -- "$IDB" compare "$tmp/a" "$tmp/b" --alpha x
expect 2 "negative PCT" -- "$IDB" compare "$tmp/a" "$tmp/b" --fail-on-regression -1
expect 2 "bad format" -- "$IDB" compare "$tmp/a" "$tmp/b" --format xml
expect 2 "one directory" -- "$IDB" compare "$tmp/a"
expect 2 "--a without --within" -- "$IDB" compare "$tmp/a" "$tmp/b" --a uuidv7

cli_done
