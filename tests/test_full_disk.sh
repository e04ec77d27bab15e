#!/usr/bin/env bash
# test_full_disk.sh — results that cannot be written are never passed off as written: a
# plot or report that fails leaves no file in its place (a file in plots/ is a whole PNG or
# SVG, never empty or cut short), the run says it failed (exit 1, meta.json's status),
# names no report that is not there, and results/latest keeps pointing at the last complete
# run. Without mount: a plots/ that is a file, a report.md that is a directory. With a 1 MB
# tmpfs (needs root; skipped, and said so, when mount is refused): a matrix and a plot on a
# nearly full disk. Usage: test_full_disk.sh IDBENCH
set -u
IDB=${1:?usage: test_full_disk.sh path/to/idbench}
IDB=$(cd "$(dirname "$IDB")" && pwd)/$(basename "$IDB")
. "$(dirname "$0")/cli_lib.sh"
trap 'umount "$tmp/fd" 2>/dev/null; rm -rf "$tmp"' EXIT

FREE_KIB=24       # left free on the tmpfs: room for meta.json and the CSVs, not the plots

# whole_outputs DIR: every file in DIR/plots is a complete PNG or SVG; nothing empty or
# temporary anywhere in DIR.
whole_outputs() {
  local f ok=0
  for f in "$1"/plots/*.png; do
    [ -e "$f" ] || continue
    [ "$(tail -c 8 "$f" | od -An -tx1 | tr -d ' \n')" = 49454e44ae426082 ] || { echo "  cut: $f"; ok=1; }
  done
  for f in "$1"/plots/*.svg; do
    [ -e "$f" ] || continue
    tail -c 64 "$f" | grep -q '</svg>' || { echo "  cut: $f"; ok=1; }
  done
  [ -z "$(find "$1" -empty -type f)" ] || { echo "  empty: $(find "$1" -empty -type f)"; ok=1; }
  [ -z "$(find "$1" -name '*.tmp*')" ] || { echo "  temporary: $(find "$1" -name '*.tmp*')"; ok=1; }
  return $ok
}

# report_honest DIR: report.md (when there is one) shows only plots that are there.
report_honest() {
  [ -e "$1/report.md" ] || return 0
  local p
  for p in $(grep -o '](plots/[a-z_]*\.png)' "$1/report.md" | sed 's/^](//; s/)$//'); do
    [ -s "$1/$p" ] || { echo "  report shows a missing $p"; return 1; }
  done
}

# a results directory to plot: a small matrix (no generation, curves, simulations, claims)
cat >"$tmp/small.ini" <<'EOF'
[matrix]
repeat = 1
[generation]
enabled = 0
[openloop]
enabled = 0
[insert]
strategies = counter, uuidv4
stores = null, pagesim
sizes = 2000
[curve]
enabled = 0
[simulate]
enabled = 0
[claims]
enabled = 0
EOF
"$IDB" matrix "$tmp/small.ini" --out "$tmp/r" >/dev/null 2>&1
check "a small matrix to plot" test -s "$tmp/r/insert.csv" -a -s "$tmp/r/plots/inserts.png"

# --- plots/ is a file: nothing can be drawn
cp -r "$tmp/r" "$tmp/a" && rm -rf "$tmp/a/plots" "$tmp/a/report.md" && echo keep >"$tmp/a/plots"
"$IDB" plot "$tmp/a" >"$tmp/out" 2>"$tmp/err"
check "plots/ a file: exit 1" test $? -eq 1
check "plots/ a file: one idbench: line saying why" \
  test "$(grep -c '^idbench: .*plots: it exists and is not a directory$' "$tmp/err")" -eq 1
check "plots/ a file: untouched" test "$(cat "$tmp/a/plots")" = keep
check "plots/ a file: every plot not drawn says why" \
  test "$(grep -c '^plot: [a-z_]* not drawn: .*not a directory' "$tmp/err")" -ge 1
check "plots/ a file: no temporary file" test -z "$(find "$tmp/a" -name '*.tmp*')"
check "plots/ a file: the report shows no plot" report_honest "$tmp/a"

# --- report.md cannot be renamed into place
cp -r "$tmp/r" "$tmp/b" && rm -f "$tmp/b/report.md" && mkdir "$tmp/b/report.md"
"$IDB" plot "$tmp/b" >"$tmp/out" 2>"$tmp/err"
check "report.md a directory: exit 1" test $? -eq 1
check "report.md a directory: one idbench: line naming it" \
  test "$(grep -c '^idbench: cannot write .*report.md' "$tmp/err")" -eq 1
check "report.md a directory: no temporary file" test -z "$(find "$tmp/b" -name '*.tmp*')"

# --- a nearly full disk (a 1 MB tmpfs)
mkdir -p "$tmp/fd" "$tmp/t"
if ! mount -t tmpfs -o size=1m tmpfs "$tmp/fd" 2>"$tmp/mount.err"; then
  echo "SKIP: full-disk cases not run: cannot mount a tmpfs ($(head -1 "$tmp/mount.err"))"
  cli_done
  exit
fi
mkdir -p "$tmp/fd/results/before" && ln -s before "$tmp/fd/results/latest"
dd if=/dev/zero of="$tmp/fd/filler" bs=4k 2>/dev/null
truncate -s -${FREE_KIB}K "$tmp/fd/filler"
(cd "$tmp/fd" && TMPDIR="$tmp/t" "$IDB" matrix "$tmp/small.ini") >"$tmp/out" 2>"$tmp/err"
check "full disk, matrix: exit 1" test $? -eq 1
dir=$(ls -d "$tmp"/fd/results/20* 2>/dev/null | head -1)
check "full disk, matrix: made its results directory" test -d "$dir"
check "full disk, matrix: results/latest not moved" test "$(readlink "$tmp/fd/results/latest")" = before
check "full disk, matrix: no plot cut short or empty, no temporary file" whole_outputs "$dir"
check "full disk, matrix: the report shows only plots that are there" report_honest "$dir"
if [ -e "$dir/report.md" ]; then
  check "full disk, matrix: names the report it wrote" grep -q 'report.md (with failures' "$tmp/err"
else
  check "full disk, matrix: says there is no report" grep -q '^matrix: failed after .*: no report' "$tmp/err"
  check "full disk, matrix: never points at a missing report" test -z "$(grep 'see the report' "$tmp/err")"
fi
check "full disk, matrix: meta.json does not say complete" \
  test -z "$(grep '"status": "complete"' "$dir/meta.json" 2>/dev/null)"
check "full disk, matrix: a plot failed for want of room" grep -qE 'incomplete|No space left' "$tmp/err"
check "full disk: no temporary directory left" test -z "$(ls -A "$tmp/t")"

rm -rf "$dir/plots" "$dir/report.md"
"$IDB" plot "$dir" >"$tmp/out" 2>"$tmp/err"
check "full disk, plot: exit 1" test $? -eq 1
check "full disk, plot: one idbench: line" test "$(grep -c '^idbench: ' "$tmp/err")" -eq 1
check "full disk, plot: no plot cut short or empty, no temporary file" whole_outputs "$dir"
check "full disk, plot: the report shows only plots that are there" report_honest "$dir"

cli_done
