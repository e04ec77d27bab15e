#!/usr/bin/env bash
# test_series_cli.sh — `idbench insert --window W --series FILE` and the device options on
# the command line: bad values exit 2 with one line, print nothing and create no file; a
# good run writes one row per window and the modelled columns.
# Usage: test_series_cli.sh IDBENCH
set -u
IDB=${1:?usage: test_series_cli.sh path/to/idbench}
. "$(dirname "$0")/cli_lib.sh"

base=(insert --store pagesim --strategy uuidv4 -n 3000 --batch 500)
mkdir "$tmp/d"
for bad in "--window 0 --series $tmp/d/s.csv" "--window -1 --series $tmp/d/s.csv" \
    "--window x --series $tmp/d/s.csv" "--window 700 --series $tmp/d/s.csv" \
    "--window 1000" "--series $tmp/d/s.csv" "--window 1000 --series $tmp/none/s.csv" \
    "--window 1000 --series $tmp/d" "--window 1000 --series $tmp/d/s.csv --curve 16" \
    "--window 1000 --series $tmp/d/s.csv -s device=tape" \
    "--window 1000 --series $tmp/d/s.csv -s device=ssd -s read_us=1" \
    "--window 1000 --series $tmp/d/s.csv -s write_us=-2"; do
  # shellcheck disable=SC2086
  expect 2 "insert $bad is refused" -- "$IDB" "${base[@]}" $bad
  check "insert $bad creates nothing" test -z "$(ls -A "$tmp/d")"
done
expect 2 "insert --series with --rate is refused" -- "$IDB" insert --store null \
  --strategy counter -n 100 --rate 100 --window 100 --series "$tmp/d/s.csv"
check "... and creates nothing" test -z "$(ls -A "$tmp/d")"

expect 0 "a series run" -- "$IDB" "${base[@]}" --window 1000 --series "$tmp/d/s.csv" \
  -s device=ssd
check "three windows and a header" test "$(wc -l <"$tmp/d/s.csv")" -eq 4
check "rows cumulative" test "$(cut -d, -f3 "$tmp/d/s.csv" | tr '\n' ' ')" = \
  "rows 1000 2000 3000 "
check "pagesim: modelled throughput with device=ssd, no measured one" \
  awk -F, 'NR > 1 && ($5 != "" || $11 <= 0) { bad = 1 } END { exit bad }' "$tmp/d/s.csv"
cli_done
