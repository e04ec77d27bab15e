#!/usr/bin/env bash
# test_pagesim_golden.sh — pagesim's page figures on seeded runs stay exactly what they were
# before its memory was made compact (issue 13): leaf pages, depth, fill, bytes, page
# writes, misses and the miss-ratio curve, for split=right/middle, fillfactor 100/90/70,
# several cache sizes, page sizes, key widths, row sizes and shard counts. The expected
# lines below were written by the code as it was before that change (only deterministic
# strategies and uuidv4 under --seed, so the keys repeat exactly).
# Usage: test_pagesim_golden.sh IDBENCH
set -u
IDB=${1:?usage: test_pagesim_golden.sh path/to/idbench}
. "$(dirname "$0")/cli_lib.sh"

COLS='leaf_pages depth fill_factor file_bytes pages_written cache_misses read_pages'

# figures NAME ARGS... [--curve SIZES]: one line per page figure of the run, then one line
# per cache size of its curve (a second run with --curve, which prints only the curve).
figures() {
  local name=$1; shift
  local args=() curve='' d="$tmp/$name"
  while [ $# -gt 0 ]; do
    if [ "$1" = --curve ]; then curve=$2; shift 2; else args+=("$1"); shift; fi
  done
  mkdir -p "$d"
  "$IDB" insert --store pagesim --dir "$d/r" --seed 7 "${args[@]}" >"$d/o" 2>"$d/e" ||
    echo "$name FAILED: $(cat "$d/e")"
  if [ -n "$curve" ]; then
    "$IDB" insert --store pagesim --dir "$d/c" --seed 7 "${args[@]}" --curve "$curve" \
      >>"$d/o" 2>"$d/e" || echo "$name FAILED: $(cat "$d/e")"
  fi
  awk -F, -v name="$name" -v cols="$COLS" '
    NR == 1 { for (i = 1; i <= NF; i++) ix[$i] = i; next }
    /^strategy,store,cache_pages/ { c = 1; next }
    c { printf "%s curve %s %s %s\n", name, $3, $4, $5; next }
    { n = split(cols, cs, " ")
      for (i = 1; i <= n; i++) printf "%s %s=%s\n", name, cs[i], $ix[cs[i]] }' "$d/o"
}

{
  figures v4-default --strategy uuidv4 -n 200000 --curve 10,100,1000,5000,100000
  figures v4-middle --strategy uuidv4 -n 200000 -s split=middle -s cache_pages=500 \
    --curve 1,50,500
  figures counter-ff90 --strategy counter -n 200000 -s fillfactor=90 -s cache_pages=100 \
    --curve 2,100,3000
  figures counter-middle --strategy counter -n 150000 -s split=middle -s page_size=8192 \
    -s cache_pages=10
  figures interleaved-4 --strategy interleaved --shards 4 -n 200000 -s fillfactor=70 \
    -s cache_pages=300 --curve 30,300
  figures segment-row0 --strategy segment --shards 2 -n 100000 -s row_bytes=0 \
    -s cache_pages=50 --curve 5,50,500
  figures range-16 --strategy range -n 100000 -s key_bytes=16 -s cache_pages=1 --curve 1,7
  figures v4-wide --strategy uuidv4 --shards 3 -n 60000 -s page_size=1024 -s key_bytes=32 \
    -s cache_pages=20 --curve 3,20,200
} >"$tmp/got"

cat >"$tmp/want" <<'GOLDEN'
v4-default leaf_pages=7942
v4-default depth=3
v4-default fill_factor=0.6666
v4-default file_bytes=32804864
v4-default pages_written=86488
v4-default cache_misses=78483
v4-default read_pages=78483
v4-default curve 10 1.796515 1.070540
v4-default curve 100 1.136645 1.002995
v4-default curve 1000 0.610500 0.650525
v4-default curve 5000 0.072280 0.112325
v4-default curve 100000 0.000000 0.040045
v4-middle leaf_pages=7769
v4-middle depth=3
v4-middle fill_factor=0.6814
v4-middle file_bytes=32088064
v4-middle pages_written=160580
v4-middle cache_misses=152749
v4-middle read_pages=152749
v4-middle curve 1 3.018865 1.078125
v4-middle curve 50 1.370580 1.036465
v4-middle curve 500 0.763745 0.802900
counter-ff90 leaf_pages=5556
counter-ff90 depth=3
counter-ff90 fill_factor=0.8823
counter-ff90 file_bytes=22876160
counter-ff90 pages_written=5585
counter-ff90 cache_misses=0
counter-ff90 read_pages=0
counter-ff90 curve 2 2.890770 1.019080
counter-ff90 curve 100 0.000000 0.027925
counter-ff90 curve 3000 0.000000 0.027925
counter-middle leaf_pages=3658
counter-middle depth=3
counter-middle fill_factor=0.5015
counter-middle file_bytes=30113792
counter-middle pages_written=3676
counter-middle cache_misses=0
counter-middle read_pages=0
interleaved-4 leaf_pages=7143
interleaved-4 depth=3
interleaved-4 fill_factor=0.6863
interleaved-4 file_bytes=29425664
interleaved-4 pages_written=7184
interleaved-4 cache_misses=0
interleaved-4 read_pages=0
interleaved-4 curve 30 0.000000 0.035920
interleaved-4 curve 300 0.000000 0.035920
segment-row0 leaf_pages=886
segment-row0 depth=3
segment-row0 fill_factor=0.9959
segment-row0 file_bytes=3657728
segment-row0 pages_written=893
segment-row0 cache_misses=0
segment-row0 read_pages=0
segment-row0 curve 5 0.000000 0.008930
segment-row0 curve 50 0.000000 0.008930
segment-row0 curve 500 0.000000 0.008930
range-16 leaf_pages=2703
range-16 depth=3
range-16 fill_factor=0.9793
range-16 file_bytes=11153408
range-16 pages_written=105403
range-16 cache_misses=297114
range-16 read_pages=297114
range-16 curve 1 2.971140 1.054030
range-16 curve 7 0.000000 0.027230
v4-wide leaf_pages=11208
v4-wide depth=4
v4-wide fill_factor=0.6585
v4-wide file_bytes=12300288
v4-wide pages_written=81884
v4-wide cache_misses=133875
v4-wide read_pages=133875
v4-wide curve 3 3.826850 1.395167
v4-wide curve 20 2.231250 1.364733
v4-wide curve 200 1.191883 1.140517
GOLDEN

check "pagesim's figures equal the golden ones" diff "$tmp/want" "$tmp/got"
cli_done
