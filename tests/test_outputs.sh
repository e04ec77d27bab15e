#!/usr/bin/env bash
# test_outputs.sh — idbench never writes through a symlink it did not make: `idbench plot`
# on a results directory whose plots/ is a symlink to a directory elsewhere refuses in one
# line and writes nothing there; report.md, report.html and a plot that are symlinks to
# files elsewhere are replaced by the new files, the files they pointed at left as they were.
# Usage: test_outputs.sh IDBENCH SOURCE_DIR
set -u
IDB=${1:?usage: test_outputs.sh path/to/idbench SOURCE_DIR}
SRC=${2:?usage: test_outputs.sh path/to/idbench SOURCE_DIR}
IDB=$(cd "$(dirname "$IDB")" && pwd)/$(basename "$IDB")
. "$(dirname "$0")/cli_lib.sh"

base=$tmp/base
cp -r "$SRC/results/sample" "$base"
rm -rf "$base/plots" "$base/report.md" "$base/report.html"

# --- plots/ a symlink to a directory outside: refused, nothing written there
mkdir "$tmp/outside"
cp -r "$base" "$tmp/a"
ln -s "$tmp/outside" "$tmp/a/plots"
expect 2 "plots/ a symlink" -- "$IDB" plot "$tmp/a"
check "plots/ a symlink: the line names plots" grep -q "plots" "$tmp/err"
check "plots/ a symlink: nothing written outside" test -z "$(ls -A "$tmp/outside")"
check "plots/ a symlink: no report" test ! -e "$tmp/a/report.md"
check "plots/ a symlink: still the symlink" test -L "$tmp/a/plots"

# --- report.md, report.html and plots/cliff.svg symlinks to files outside: replaced
cp -r "$base" "$tmp/b"
mkdir "$tmp/b/plots"
for f in report.md report.html plots/cliff.svg; do
  echo "precious $f" >"$tmp/outside/$(basename "$f")"
  ln -s "$tmp/outside/$(basename "$f")" "$tmp/b/$f"
done
"$IDB" plot "$tmp/b" >"$tmp/out" 2>"$tmp/err"
check "symlinked outputs: plot succeeds ($(head -c 200 "$tmp/err"))" test $? -eq 0
for f in report.md report.html plots/cliff.svg; do
  check "$f: not followed (the file outside unchanged)" \
    grep -qx "precious $f" "$tmp/outside/$(basename "$f")"
  check "$f: now a regular file" test -f "$tmp/b/$f" -a ! -L "$tmp/b/$f"
done
check "nothing else outside" test "$(ls "$tmp/outside" | wc -l)" -eq 3
cli_done
