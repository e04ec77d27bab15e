#!/usr/bin/env bash
# test_locality.sh IDBENCH — `idbench locality` end to end at 5,000 rows (a few seconds): the
# table's rows and the CSV hold what `idbench insert` measures for the same store, strategy,
# options and seed (pagesim and sqlite with counter are deterministic), the table's ratio is
# the CSV's counts divided, the plot is a whole PNG, --out gets those two files only, and bad
# input is refused in one line before anything is made.
set -u
idb=$1
. "$(dirname "$0")/cli_lib.sh"
export TMPDIR=$tmp/scratch
mkdir "$TMPDIR"
out=$tmp/loc

expect 0 "locality -n 5000" -- "$idb" locality -n 5000 --out "$out"
cp "$tmp/out" "$tmp/table"
check "15 rows in the table" [ "$(grep -cE '^(sqlite|lmdb|pagesim) ' "$tmp/table")" -eq 15 ]
check "two sentences" [ "$(grep -cE '^(Keys that|No strategy|Width)' "$tmp/table")" -eq 2 ]
check "--out holds locality.csv and locality.png only" \
  [ "$(ls "$out" | tr '\n' ' ')" = "locality.csv locality.png " ]
check "the plot is a whole PNG" \
  [ "$(head -c 8 "$out/locality.png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ]
check "the PNG ends with IEND" \
  [ "$(tail -c 8 "$out/locality.png" | head -c 4)" = IEND ]
check "no scratch directory left" [ -z "$(ls -A "$TMPDIR")" ]

# field NAME of the CSV row store,strategy,padded
csv_field() {
  awk -F, -v st="$1" -v sg="$2" -v p="$3" -v f="$4" '
    NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
    $1 == st && $2 == sg && $4 == p { print $col[f] }' "$out/locality.csv"
}
# field NAME of an insert run's JSON
json_field() { sed -n "s/.*\"$2\": \\([^,}]*\\).*/\\1/p" "$1"; }

for st in pagesim sqlite; do
  "$idb" insert --store "$st" --strategy counter -n 5000 -s cache_pages=500 --format json \
    >"$tmp/ins.json" 2>/dev/null
  check "$st counter: pages_written as insert measures it" \
    [ "$(csv_field "$st" counter 0 pages_written)" = "$(json_field "$tmp/ins.json" pages_written)" ]
  check "$st counter: tail_insert_frac as insert measures it" \
    awk -v a="$(csv_field "$st" counter 0 tail_insert_frac)" \
        -v b="$(json_field "$tmp/ins.json" tail_insert_frac)" 'BEGIN { exit !(a - b < 1e-4 && b - a < 1e-4) }'
done
"$idb" insert --store pagesim --strategy counter -n 5000 -s cache_pages=500 -s key_bytes=16 \
  --format json >"$tmp/ins.json" 2>/dev/null
check "pagesim padded counter: pages_written as insert measures it (key_bytes=16)" \
  [ "$(csv_field pagesim counter 1 pages_written)" = "$(json_field "$tmp/ins.json" pages_written)" ]
check "pagesim padded counter: key_bytes 16" [ "$(csv_field pagesim counter 1 key_bytes)" = 16 ]
check "uuidv4 lands at the end almost never, counter always" \
  awk -v u="$(csv_field lmdb uuidv4 0 tail_insert_frac)" -v c="$(csv_field lmdb counter 0 tail_insert_frac)" \
    'BEGIN { exit !(u < 0.05 && c == 1) }'

# The table's pages ratio for pagesim uuidv4 is the CSV's counts divided (3 significant digits).
want=$(awk -v u="$(csv_field pagesim uuidv4 0 pages_written)" -v c="$(csv_field pagesim counter 0 pages_written)" \
  'BEGIN { printf "%.3g", u / c }')
check "pagesim uuidv4's pages ratio is the CSV's counts divided ($want)" \
  grep -qE "^pagesim +uuidv4 .*\(${want}x\)" "$tmp/table"

# Bad input: one line, exit 2, nothing made.
echo keep >"$tmp/file"
expect 2 "-n 0" -- "$idb" locality -n 0 --out "$tmp/new1"
check "-n 0 made nothing" [ ! -e "$tmp/new1" ]
expect 2 "-n x" -- "$idb" locality -n x
expect 2 "unknown flag" -- "$idb" locality --bogus
expect 2 "an argument" -- "$idb" locality extra
expect 2 "--out a file" -- "$idb" locality -n 1000 --out "$tmp/file"
check "--out a file: kept" [ "$(cat "$tmp/file")" = keep ]
mkdir "$tmp/target"
ln -s "$tmp/target" "$tmp/link"
expect 2 "--out a symlink" -- "$idb" locality -n 1000 --out "$tmp/link"
check "--out a symlink: nothing written through it" [ -z "$(ls -A "$tmp/target")" ]
cli_done
