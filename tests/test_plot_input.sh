#!/usr/bin/env bash
# test_plot_input.sh — `idbench plot DIR` on results directories nobody should trust: every
# spoiled copy of a good directory (results/sample) is refused with exit 2 and one line
# naming the file, before anything is drawn or written; names that try to run gnuplot
# commands are drawn as text and run nothing; a directory whose path holds a quote works.
# Run by meson in the release and the sanitizer builds. Usage: test_plot_input.sh IDBENCH
# SOURCE_DIR
set -u
IDB=${1:?usage: test_plot_input.sh path/to/idbench SOURCE_DIR}
SRC=${2:?usage: test_plot_input.sh path/to/idbench SOURCE_DIR}
IDB=$(cd "$(dirname "$IDB")" && pwd)/$(basename "$IDB")
. "$(dirname "$0")/cli_lib.sh"

base=$tmp/base
cp -r "$SRC/results/sample" "$base"
rm -rf "$base/plots" "$base/report.md" "$base/generation.json"

# setcol FILE COLUMN VALUE [LINE]: set the field COLUMN of line LINE (default 2; 0: every
# line after the header) of FILE.
setcol() {
  awk -F, -v OFS=, -v col="$2" -v val="$3" -v line="${4:-2}" '
    NR == 1 { for (i = 1; i <= NF; i++) if ($i == col) c = i; if (!c) exit 3 }
    NR == line || (NR > 1 && line == 0) { $c = val }
    { print }' "$1" >"$1.new" && mv "$1.new" "$1"
}

# spoiled WHAT FILE SHELL-CODE: a copy of the good directory with FILE ($f in the code)
# spoiled by the code must be refused: exit 2, one "idbench: " line naming FILE, no plot,
# no report, no temporary file left.
spoiled() {
  local what=$1 file=$2 code=$3
  rm -rf "$tmp/g" && cp -r "$base" "$tmp/g"
  f=$tmp/g/$file
  eval "$code" || { fail=$((fail + 1)); echo "FAIL: $what: could not spoil $file"; return; }
  expect 2 "$what" -- "$IDB" plot "$tmp/g"
  check "$what: the line names $file" grep -qF "$file" "$tmp/err"
  check "$what: no plot drawn" test -z "$(ls -A "$tmp/g/plots" 2>/dev/null)"
  check "$what: no report" test ! -e "$tmp/g/report.md"
  check "$what: no temporary file" test -z "$(find "$tmp/g" -name '*.tmp*')"
}

run_ok() { "$IDB" plot "$1" >"$tmp/out" 2>"$tmp/err"; }

# --- the good directory itself plots
check "the sample plots" run_ok "$base"
rm -rf "$base/plots" "$base/report.md"

# --- spoiled files
spoiled "a truncated line" insert.csv \
  'head -c $(($(head -2 "$f" | wc -c) + 40)) "$f" >"$f.x" && mv "$f.x" "$f"'
spoiled "binary junk" insert.csv 'printf "\x00\x01\x02\xff\xfe\x7f\n\x89PNG\r\n\x1a\n" >"$f"'
spoiled "a NUL in a row" timeline.csv 'printf "x,counter,1,2,0\x00,junk\n" >>"$f"'
spoiled "an empty file" curve.csv ': >"$f"'
spoiled "a 10,000-column header" positions.csv \
  'printf "c%d," $(seq 10000) >"$f" && echo >>"$f" && printf "1,%.0s" $(seq 10000) >>"$f"'
spoiled "a 10,000-field row" insert.csv 'printf "x,%.0s" $(seq 10000) >>"$f"'
spoiled "a row one field short" generation.csv 'echo "strategy,counter,1,6.5,6.4,6.8" >>"$f"'
spoiled "an unterminated quote" generation.csv 'echo "\"strategy,counter,1,6.5,6.4,6.8,3" >>"$f"'
spoiled "a missing column (ids)" insert.csv 'sed -i "1s/,ids,/,idz,/" "$f"'
spoiled "a missing column (failed_orders)" timeline.csv 'sed -i "1s/failed_orders/failed/" "$f"'
spoiled "a negative duplicate_ids" failover.csv 'printf "%s\n%s\n" \
  run,backend,mode,store,ids,failed_orders,duplicate_ids,lost_ids,failover_ms \
  postgres:async,postgres,async,sqlite,4000,1,-5,0,500 >"$f"'
check "a negative duplicate_ids: says the line and column" \
  grep -qF "failover.csv:2: duplicate_ids: '-5' is out of range" "$tmp/err"
spoiled "an empty ids field" insert.csv 'setcol "$f" ids ""'
spoiled "an empty shards field" insert.csv 'setcol "$f" shards "" 5'
spoiled "a huge number (1e24)" insert.csv 'setcol "$f" inserts_per_s 1e24'
spoiled "a huge number (1e300)" insert.csv 'setcol "$f" lat_p99_ns 1e300'
spoiled "a huge count of IDs" insert.csv 'setcol "$f" ids 100000000000000000000000'
spoiled "NaN" insert.csv 'setcol "$f" inserts_per_s nan'
spoiled "inf" insert.csv 'setcol "$f" fill_factor inf'
spoiled "-inf" curve.csv 'setcol "$f" misses_per_insert -inf'
spoiled "a negative count" timeline.csv 'setcol "$f" orders -5'
spoiled "zero shards" insert.csv 'setcol "$f" shards 0'
spoiled "a fraction of a shard" insert.csv 'setcol "$f" shards 1.5'
spoiled "a hex number" generation.csv 'setcol "$f" threads 0x1'
spoiled "a word for a number" skew.csv 'setcol "$f" skew_ms fast'
spoiled "a share above 1" positions.csv 'setcol "$f" share 2'
spoiled "a fill factor above 1" insert.csv 'setcol "$f" fill_factor 1.5'
spoiled "an empty name" timeline.csv 'setcol "$f" strategy ""'
spoiled "a 200-byte name" insert.csv "setcol \"\$f\" store $(printf 'x%.0s' $(seq 200))"
spoiled "an escape sequence in a name" insert.csv 'setcol "$f" strategy "$(printf "a\x1b[2Jb")"'
spoiled "a tab in a name" timeline.csv 'setcol "$f" workload "$(printf "a\tb")"'
spoiled "a lone CR in a name" simulate.csv 'setcol "$f" strategy "$(printf "a\rb")"'
spoiled "a file over 16 MiB" simulate.csv 'head -c 17000000 /dev/zero | tr "\0" "\n" >>"$f"'

# --- a results file that is not a regular file is refused as bad input, one line naming it
# (FIFOs, devices and huge files: test_input_files.sh)
rm -rf "$tmp/g" && cp -r "$base" "$tmp/g" && rm "$tmp/g/skew.csv" && mkdir "$tmp/g/skew.csv"
expect 2 "a results file that is a directory" -- "$IDB" plot "$tmp/g"
check "a results file that is a directory: named" grep -qF "skew.csv" "$tmp/err"

# --- names that try to run gnuplot commands are text; a path with a quote works
d="$tmp/it's a \"dir\" \$(touch PWNED) \`touch PWNED\`"
cp -r "$base" "$d"
p1="x'); system('touch PWNED'); print('"
p2="x'; system('touch PWNED'); a='"
p3="x\"; system(\"touch PWNED\"); a=\""
setcol "$d/timeline.csv" workload "$p2" 2
setcol "$d/timeline.csv" strategy "$p1" 0
setcol "$d/insert.csv" store "$p2" 0
awk -F, -v OFS=, -v p="$p3" 'NR > 1 && $2 == "counter" { $2 = p } { print }' \
  "$d/generation.csv" >"$tmp/gen" && mv "$tmp/gen" "$d/generation.csv"
sed -i "s/^counter,/@x \`touch PWNED\`,/" "$d/positions.csv"
(cd "$tmp" && "$IDB" plot "$d") >"$tmp/out" 2>"$tmp/err"
check "hostile names: plot succeeds" test $? -eq 0
check "hostile names: nothing ran" test -z "$(find "$tmp" -name PWNED)"
for p in outage inserts generation latency; do
  check "hostile names: $p drawn" test -s "$d/plots/$p.png" -a -s "$d/plots/$p.svg"
done
check "hostile names: the outage plot shows the name as text" \
  grep -qF "x'); system('touch PWNED'); print('" "$d/plots/outage.svg"
check "hostile names: the generation plot shows the name as text" \
  grep -qF "$p3" "$d/plots/generation.svg"
check "hostile names: the report names them" grep -qF "$p1" "$d/report.md"

cli_done
