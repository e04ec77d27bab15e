#!/usr/bin/env bash
# test_index.sh IDBENCH SOURCE_DIR — where a matrix run writes (a few seconds): with --out
# outside a results/ directory only inside its own directory (no index.html beside it);
# under results/ it rewrites results/index.html; `idbench index PARENT` writes one anywhere
# and refuses what is not a directory; results files get 0666 less the umask; the report's
# insert tables carry key_bytes (a strategy appears at its own width and padded); meta.json
# names a matrix file of the tree relative to it.
set -u
idb=$1 src=$2
. "$(dirname "$0")/cli_lib.sh"
ini=$src/tests/tiny-matrix.ini

mkdir "$tmp/elsewhere" "$tmp/results"
umask 022
check "a matrix run outside results/" "$idb" matrix "$ini" --out "$tmp/elsewhere/run" \
  >/dev/null 2>&1
check "nothing written beside it" [ "$(ls "$tmp/elsewhere")" = run ]
check "insert.csv is 0644 under umask 022" [ "$(stat -c %a "$tmp/elsewhere/run/insert.csv")" = 644 ]
check "the report's insert table has a key_bytes column" \
  grep -q '^| strategy | store | key_bytes | inserts/s' "$tmp/elsewhere/run/report.md"
check "holding the key's width" grep -q '^| counter | null | 8 | ' "$tmp/elsewhere/run/report.md"
check "meta.json records the matrix file relative to the tree" \
  grep -q '"matrix_files": "tests/tiny-matrix.ini"' "$tmp/elsewhere/run/meta.json"
check "meta.json is 0644 under umask 022" [ "$(stat -c %a "$tmp/elsewhere/run/meta.json")" = 644 ]
check "a matrix run under results/" "$idb" matrix "$ini" --out "$tmp/results/run" >/dev/null 2>&1
check "results/index.html rewritten" grep -q 'href="run/report.html"' "$tmp/results/index.html"
(umask 077 && "$idb" matrix "$ini" --out "$tmp/elsewhere/private" >/dev/null 2>&1)
check "insert.csv is 0600 under umask 077" \
  [ "$(stat -c %a "$tmp/elsewhere/private/insert.csv")" = 600 ]

expect 0 "idbench index PARENT" -- "$idb" index "$tmp/elsewhere"
check "it prints the index's path" [ "$(cat "$tmp/out")" = "$tmp/elsewhere/index.html" ]
check "listing both runs" [ "$(grep -c 'report.html">' "$tmp/elsewhere/index.html")" -eq 2 ]
echo x >"$tmp/file"
expect 2 "index of a file" -- "$idb" index "$tmp/file"
ln -s "$tmp/elsewhere" "$tmp/link"
expect 2 "index of a symlink" -- "$idb" index "$tmp/link"
expect 2 "index of nothing" -- "$idb" index "$tmp/none"
expect 2 "two directories" -- "$idb" index "$tmp/elsewhere" "$tmp/results"
cli_done
