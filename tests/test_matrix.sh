#!/usr/bin/env bash
# test_matrix.sh — `idbench matrix` and `idbench plot` as a contract: the quick matrix
# writes every results file (each CSV with its header and rows, every plot as PNG and
# SVG, the report), `plot` re-renders from the directory alone, a failing cell costs only
# itself, and every bad matrix file is refused (exit 2) naming FILE:LINE with nothing
# written. Two parts: `fast` (the default suite) checks all of it on a tiny matrix
# (tests/fast-matrix.ini); `quick` (the slow suite) checks the files of `matrix --quick`.
# Usage: test_matrix.sh IDBENCH SOURCE_DIR [fast|quick]
set -u
IDB=${1:?usage: test_matrix.sh path/to/idbench SOURCE_DIR [fast|quick]}
SRC=${2:?usage: test_matrix.sh path/to/idbench SOURCE_DIR [fast|quick]}
PART=${3:-fast}
IDB=$(cd "$(dirname "$IDB")" && pwd)/$(basename "$IDB")
. "$(dirname "$0")/cli_lib.sh"

# run STATUS DESCRIPTION -- COMMAND...: run in $tmp/cwd, check the exit status; leaves
# stdout in $tmp/out and stderr in $tmp/err.
run() {
  local want=$1 what=$2; shift 3
  (cd "$tmp/cwd" && "$@") >"$tmp/out" 2>"$tmp/err"
  local got=$?
  if [ "$got" -eq "$want" ]; then pass=$((pass + 1)); else
    fail=$((fail + 1)); echo "FAIL: $what (status $got, want $want)"; sed 's/^/  stderr: /' "$tmp/err" | tail -5
  fi
}

# bad DESCRIPTION WHERE FILE-CONTENT: a matrix file that must be refused with exit 2 and one
# "idbench: " line containing WHERE (e.g. "bad.ini:3:"), creating no results directory.
bad() {
  local what=$1 where=$2 content=$3
  printf '%s\n' "$content" >"$tmp/m/bad.ini"
  run 2 "bad matrix: $what" -- "$IDB" matrix "$tmp/m/bad.ini"
  check "bad matrix: $what: one idbench: line" test "$(wc -l <"$tmp/err")" -eq 1
  check "bad matrix: $what: names $where" grep -qF -- "$where" "$tmp/err"
  check "bad matrix: $what: starts idbench:" grep -q '^idbench: ' "$tmp/err"
  check "bad matrix: $what: nothing written" test -z "$(ls -A "$tmp/cwd")" -a ! -s "$tmp/out"
}

mkdir -p "$tmp/cwd" "$tmp/m"

# results_ok quick|tiny: the checks of a matrix's results directory $tmp/r (stdout and
# stderr of the run in $tmp/out, $tmp/err): every file, plot, column and the report; the
# claims only in the quick matrix (the tiny one runs none: tests/test_claims.c checks them).
results_ok() {
check "stdout is the results directory" test "$(cat "$tmp/out")" = "$tmp/r"
check "progress went to stderr as log lines" grep -q '^matrix: \[1/[0-9]*\] ' "$tmp/err"
# the ETA comes from measured cells only: none before a cell of each pending kind has run
check "no ETA guessed before any cell ran" test "$(grep -c 'first guess' "$tmp/err")" -eq 0
check "no ETA after the first cell (nothing else of its kinds ran)" \
  grep -q '^matrix: \[1/[0-9]*\] generation benchmarks: .* (ETA —)$' "$tmp/err"
check "an ETA from measured cells later" grep -qE '^matrix: \[[0-9]+/[0-9]+\] .* \(ETA >?[0-9]' "$tmp/err"
check "ETA 0s after the last cell" grep -qE '^matrix: \[([0-9]+)/\1\] .* \(ETA 0s\)$' "$tmp/err"
for f in meta.json generation.json generation.csv insert.csv positions.csv curve.csv simulate.csv \
         skew.csv timeline.csv range.csv report.md $([ "$1" = quick ] && echo claims.md); do
  check "$f is there and not empty" test -s "$tmp/r/$f"
done
for f in generation insert positions curve simulate skew timeline range; do
  check "$f.csv has a header and at least one row" test "$(grep -c . "$tmp/r/$f.csv")" -ge 2
done
check "no temporary file left" test -z "$(find "$tmp/r" -name '*.tmp')"
# read.csv ([read] block): per cell a row per pattern, idbench read's columns after the
# block's name; every looked-up row found; time-ordered keys' recent lookups miss fewer
# pages than random keys' on each store
check "read.csv: idbench read's columns after block" test "$(head -1 "$tmp/r/read.csv")" = \
  'block,store,strategy,pattern,cache,lookups,found,not_found,misses_per_lookup,read_pages_per_lookup,lookups_per_s,lat_p50_ns,lat_p99_ns,miss_ids,miss_share,rows,seed,rows_returned,misses_per_row'
if [ "$1" = tiny ]; then
  check "read.csv: 2 stores x 2 strategies x 3 patterns" test "$(grep -c '^read,' "$tmp/r/read.csv")" -eq 12
  check "read.csv: every lookup found, cold" awk -F, 'NR > 1 && ($6 != 100 || $7 != 100 || $8 != 0 || $5 != "cold" || $16 != 500) { bad = 1 } END { exit bad }' "$tmp/r/read.csv"
  check "read.csv: counter's recent lookups miss fewer pages than uuidv4's" awk -F, '
    $4 == "recent:5" { m[$2 "/" $3] = $9 }
    END { exit !(m["sqlite/counter"] < m["sqlite/uuidv4"] && m["pagesim/counter"] < m["pagesim/uuidv4"]) }' "$tmp/r/read.csv"
  check "cells.csv: a read cell per store and strategy" test "$(awk -F, '$2 == "read"' "$tmp/r/cells.csv" | wc -l)" -eq 4
fi
# cells.csv: a row per cell that ran (meta's cells_done + cells_failed), each cell's seconds,
# summed below the run's wall time; the report's "where the time went" rows re-summed here
ncells=$(sed -n 's/^  "cells": \([0-9]*\),$/\1/p' "$tmp/r/meta.json")
check "cells.csv has a row per cell ($ncells)" test "$(($(grep -c . "$tmp/r/cells.csv") - 1))" -eq "$ncells"
check "cells.csv: kinds known, seconds numbers, cells numbered in order" awk -F, '
  NR == 1 { ok = $0 == "cell,kind,store,strategy,status,seconds,label"; next }
  $1 != NR - 1 || $2 !~ /^(generation|insert|openloop|curve|simulate|skew|claims|series|kill|read|failover)$/ ||
    $6 !~ /^[0-9]+\.[0-9]+$/ { ok = 0 }
  END { exit !ok }' "$tmp/r/cells.csv"
wall=$(sed -n 's/^  "wall_s": \([0-9.]*\),$/\1/p' "$tmp/r/meta.json")
check "cells' seconds sum to at most the run's wall time ($wall s)" awk -F, -v w="$wall" '
  NR > 1 { s += $6 } END { exit !(s > 0 && s <= w + 0.1) }' "$tmp/r/cells.csv"
isq=$(awk -F, '$2 == "insert" && $3 == "pagesim" { s += $6; n++ } END { printf "%d | %.1f", n, s }' \
  "$tmp/r/cells.csv")
check "report: where the time went, insert on pagesim = $isq" \
  grep -q "^| insert | pagesim | $isq | " "$tmp/r/report.md"
# every plot of the table: one script each in plots/ (test_plots checks the table and the
# folder agree, common.gp and locality.gp, `idbench locality`'s, aside), so the folder lists them
plots=$(cd "$SRC/plots" && ls *.gp | grep -vx -e common.gp -e locality.gp | sed 's/\.gp$//')
check "the plots folder lists the plots" test "$(wc -w <<<"$plots")" -ge 9
for p in $plots; do
  # wal_fpi draws server stores (postgres) only; a matrix without one says why instead
  if [ "$p" = wal_fpi ] && ! grep -q ',postgres,' "$tmp/r/insert.csv"; then
    check "report says why wal_fpi is not drawn" grep -q 'no server store' "$tmp/r/report.md"
    continue
  fi
  # then draws insert --then blocks, off by default (and in --quick: each is two runs' work)
  if [ "$p" = then ] && [ "$1" = quick ]; then
    check "report says why then is not drawn" grep -q 'no second phases in insert.csv' \
      "$tmp/r/report.md"
    continue
  fi
  # counter_kill draws [counterkill] runs, off in --quick (they kill real servers)
  if [ "$p" = counter_kill ] && [ ! -s "$tmp/r/counterkill.csv" ]; then
    check "report says why counter_kill is not drawn" grep -q 'no counterkill.csv rows' \
      "$tmp/r/report.md"
    continue
  fi
  # failover_dups draws [faults.replicated] runs, off in the tiny matrix (real servers)
  if [ "$p" = failover_dups ] && [ ! -s "$tmp/r/failover.csv" ]; then
    check "report says why failover_dups is not drawn" grep -q 'no failover.csv rows' \
      "$tmp/r/report.md"
    continue
  fi
  check "plots/$p.png is a PNG" test "$(head -c 4 "$tmp/r/plots/$p.png" 2>/dev/null | tail -c 3)" = "PNG"
  check "plots/$p.svg is an SVG" grep -q '<svg' "$tmp/r/plots/$p.svg"
  check "report shows $p" grep -q "](plots/$p.png)" "$tmp/r/report.md"
done
hdr=$(head -1 "$tmp/r/insert.csv")
for col in strategy store shards ids key_bytes batch seconds gen_ns_per_id inserts_per_s lat_p50_ns \
           lat_p99_ns lat_p999_ns lat_max_ns commit_p99_ns leaf_pages depth fill_factor file_bytes \
           pages_written write_bytes_per_id cache_misses tail_insert_frac insert_pos_p50 \
           checkpoint_pages wal_frames read_pages \
           inserts_per_s_min inserts_per_s_max lat_p99_ns_min lat_p99_ns_max repeats store_options; do
  check "insert.csv has column $col" grep -qE "(^|,)$col(,|$)" <<<"$hdr"
done
check "curve.csv header" test "$(head -1 "$tmp/r/curve.csv" | cut -d, -f1-5)" = \
  "strategy,store,cache_pages,misses_per_insert,writes_per_insert"
check "curve.csv has pagesim and sqlite rows" test "$(cut -d, -f2 "$tmp/r/curve.csv" | sort -u | tr '\n' ' ')" = "pagesim sqlite store "
# every strategy whose keys the harness makes; autoinc (keys the store assigns) only on the
# stores that can assign keys, and only where a block ran it there (the quick matrix's
# [insert.autoinc] on postgres and mariadb; none in the tiny one)
missing=0
for s in $("$IDB" list | cut -f1); do
  "$IDB" help "$s" | grep -q '^keys: assigned by the store' && continue
  grep -q "^$s," "$tmp/r/insert.csv" || missing=$((missing + 1))
done
check "insert.csv has every strategy whose keys the harness makes ($missing missing)" \
  test "$missing" -eq 0
check "... and no autoinc row on a store that cannot assign keys" \
  test "$(grep -c '^autoinc,' "$tmp/r/insert.csv")" -eq \
       "$(grep -cE '^autoinc,(postgres|mariadb|galera),' "$tmp/r/insert.csv")"
check "positions.csv: 20 bins per configuration" test $(( ($(wc -l <"$tmp/r/positions.csv") - 1) % 20 )) -eq 0
check "simulate.csv header" grep -q '^workload,strategy,orders,duplicates,failed_orders' "$tmp/r/simulate.csv"
check "skew.csv leads with skew_ms" grep -q '^skew_ms,workload,strategy' "$tmp/r/skew.csv"
if [ "$1" = quick ]; then
  check "claims.md is a table" grep -q '^| 1 |' "$tmp/r/claims.md"
for k in command seed git_revision compiler sqlite lmdb google_benchmark cpu_model cores kernel; do
  check "meta.json has $k" grep -q "\"$k\": " "$tmp/r/meta.json"
done
check "report has the environment, medians and claims" \
  grep -q '^## Environment' "$tmp/r/report.md"
check "report has the claims table" grep -q '^| 1 |' "$tmp/r/report.md"
fi
check "report says no cell failed" grep -A2 '^## Failed cells' "$tmp/r/report.md" | grep -q '^None\.'
}

# openloop_ok: the open-loop checks of $tmp/r ([openloop]: insert --rate): openloop.csv,
# its plot and sentence; insert.csv keeps the closed loop (empty order latency and rate)
# and pagesim measures no time.
openloop_ok() {
# col FILE NAME: the 1-based column of NAME in FILE's header (0 when absent).
col() { head -1 "$1" | tr ',' '\n' | grep -nx -- "$2" | cut -d: -f1 | grep . || echo 0; }
ol=$tmp/r/openloop.csv
check "openloop.csv exists" test -s "$ol"
for c in commit_ms rate_per_s achieved_per_s order_lat_p50_ns order_lat_p99_ns \
    order_lat_p999_ns order_lat_max_ns lat_p99_ns; do
  check "openloop.csv has $c" test "$(col "$ol" $c)" -gt 0
done
check "openloop.csv: 3 strategies x 2 stores x 2 rates" test "$(tail -n +2 "$ol" | wc -l)" -eq 12
check "openloop.csv: the quick rates" \
  test "$(tail -n +2 "$ol" | cut -d, -f"$(col "$ol" rate_per_s)" | sort -un | tr '\n' ' ')" = \
  "1000 4000 "
# every run: p50 <= p99 <= max, order latency above the statement's (it adds the wait for
# the commit), and an achieved rate that is there and not above the offered one by more than
# the seeded arrival schedule allows (a bound a loaded machine cannot break: it only slows
# the run; "near the offered rate" was a timing and failed under load)
check "openloop.csv: order latencies ordered, above per-statement, rate not above offered" \
  awk -F, -v r="$(col "$ol" rate_per_s)" -v a="$(col "$ol" achieved_per_s)" \
    -v p50="$(col "$ol" order_lat_p50_ns)" -v p99="$(col "$ol" order_lat_p99_ns)" \
    -v mx="$(col "$ol" order_lat_max_ns)" -v s99="$(col "$ol" lat_p99_ns)" '
    NR > 1 { n++; if (!($p50 > 0 && $p50 <= $p99 && $p99 <= $mx && $p99 > $s99 &&
                        $a > 0 && $a < 1.5 * $r)) bad++ }
    END { exit !(n > 0 && bad == 0) }' "$ol"
ins=$tmp/r/insert.csv
check "insert.csv has the open-loop columns, empty in the closed loop" \
  awk -F, -v r="$(col "$ins" rate_per_s)" -v p99="$(col "$ins" order_lat_p99_ns)" \
    -v a="$(col "$ins" achieved_per_s)" '
    NR > 1 { n++; if ($r != "" || $p99 != "" || !($a > 0 || $2 == "pagesim")) bad++ }
    END { exit !(r > 0 && p99 > 0 && n > 0 && bad == 0) }' "$ins"
check "insert.csv: pagesim rows have pages but no time" \
  awk -F, -v s="$(col "$ins" seconds)" -v i="$(col "$ins" inserts_per_s)" \
    -v l="$(col "$ins" lat_p99_ns)" -v c="$(col "$ins" commit_p99_ns)" \
    -v g="$(col "$ins" gen_ns_per_id)" -v lp="$(col "$ins" leaf_pages)" '
    $2 == "pagesim" { n++; if ($s $i $l $c $g != "" || !($lp > 0)) bad++ }
    END { exit !(n > 0 && bad == 0) }' "$ins"
check "plots/latency_rate.png is a PNG" \
  test "$(head -c 8 "$tmp/r/plots/latency_rate.png" | od -An -tx1 | tr -d ' \n')" = \
  "89504e470d0a1a0a"
check "plots/latency_rate.svg is an SVG" grep -q '<svg' "$tmp/r/plots/latency_rate.svg"
check "report shows latency_rate" grep -q 'plots/latency_rate.png' "$tmp/r/report.md"
check "report's open-loop sentence" grep -q 'at the highest offered rate, 4,000 orders per second' \
  "$tmp/r/report.md"
check "report's inserts sentence leaves pagesim out" \
  sh -c "! grep -i 'highest median rate' '$tmp/r/report.md' | grep -q pagesim"
}

# The quick matrix (slow suite, PART quick: minutes on a loaded machine) or a tiny one of
# the same shape (tests/fast-matrix.ini, PART fast: every file, plot and column in seconds).
if [ "$PART" = quick ]; then
  start=$(date +%s)
  run 0 "matrix --quick" -- "$IDB" matrix "$SRC/workloads/matrix.ini" --quick --out "$tmp/r"
  echo "quick matrix: $(( $(date +%s) - start )) s"
  results_ok quick
  openloop_ok
  # the server data templates (issue 28): made once, before the cells, for the kinds used
  for k in postgres:initdb mariadb:mariadb-install-db; do
    if command -v "${k#*:}" >/dev/null || ls /usr/lib/postgresql/*/bin/"${k#*:}" >/dev/null 2>&1
    then
      check "matrix --quick: a ${k%%:*} template made once" \
        test "$(grep -c "^matrix: ${k%%:*} template made in" "$tmp/err")" -eq 1
    fi
  done
  # [faults.replicated] under --quick: the postgres:async run only, and it repeated IDs
  if command -v pg_ctl >/dev/null || ls /usr/lib/postgresql/*/bin/pg_ctl >/dev/null 2>&1; then
    fo_dup=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "duplicate_ids") c = i }
      NR > 1 && $1 == "postgres:async" { print $c }' "$tmp/r/failover.csv" 2>/dev/null)
    check "failover.csv has the postgres:async row" test -n "$fo_dup"
    check "failover.csv: postgres:async only under --quick" \
      test "$(tail -n +2 "$tmp/r/failover.csv" | wc -l)" -eq 1
    check "failover.csv: postgres:async repeated IDs ($fo_dup > 0)" test "${fo_dup:-0}" -gt 0
    check "report: the failover section's sentence" \
      grep -q 'postgres async ([0-9,]* IDs) handed out IDs twice' "$tmp/r/report.md"
  fi
  cli_done
  exit
fi
start=$(date +%s)
run 0 "tiny matrix" -- "$IDB" matrix "$SRC/workloads/matrix.ini" "$SRC/tests/fast-matrix.ini" \
  --out "$tmp/r"
echo "tiny matrix: $(( $(date +%s) - start )) s"
results_ok tiny
openloop_ok

# --- plot re-renders plots and report from the directory alone
rm -rf "$tmp/r/plots" "$tmp/r/report.md"
run 0 "plot re-renders" -- "$IDB" plot "$tmp/r"
for p in $plots; do
  [ "$p" = wal_fpi ] && ! grep -q ',postgres,' "$tmp/r/insert.csv" && continue   # see above
  [ "$p" = counter_kill ] && [ ! -s "$tmp/r/counterkill.csv" ] && continue       # see above
  [ "$p" = failover_dups ] && [ ! -s "$tmp/r/failover.csv" ] && continue         # see above
  check "plot re-made $p.png and .svg" test -s "$tmp/r/plots/$p.png" -a -s "$tmp/r/plots/$p.svg"
done
check "plot re-made report.md" test -s "$tmp/r/report.md"
run 2 "plot without a directory" -- "$IDB" plot
run 2 "plot of a missing directory" -- "$IDB" plot "$tmp/nope"
run 2 "plot of a directory that holds no results" -- "$IDB" plot "$tmp/m"

# --- a failing cell costs only itself; the default location and results/latest
printf '[workload]\nno_such_key = 1\n' >"$tmp/m/broken-workload.ini"
cat >"$tmp/m/small.ini" <<'EOF'
[matrix]
repeat = 2
[generation]
enabled = 0
[insert]
strategies = counter, uuidv7
stores = null, pagesim
sizes = 500
[curve]
enabled = 0
[simulate]
workloads = broken-workload.ini
[claims]
enabled = 0
[openloop]
enabled = 0
EOF
run 1 "a matrix with a failing cell exits 1" -- "$IDB" matrix "$tmp/m/small.ini"
dir=$(cat "$tmp/out")
check "default location results/<UTC time>" grep -qE '^results/[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}-[0-9]{2}-[0-9]{2}Z$' "$tmp/out"
check "results/latest points at it" test "$(readlink "$tmp/cwd/results/latest")" = "${dir#results/}"
check "the other cells were kept" test "$(tail -n +2 "$tmp/cwd/$dir/insert.csv" | wc -l)" -eq 4
check "medians over 2 repeats" test "$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "repeats") c = i; next } { print $c }' "$tmp/cwd/$dir/insert.csv" | sort -u)" = 2
check "the report lists the failed cell" grep -q '^- simulate broken-workload.ini: ' "$tmp/cwd/$dir/report.md"
check "meta.json counts it" grep -q '"cells_failed": 1' "$tmp/cwd/$dir/meta.json"
check "the failure is on stderr" grep -q 'FAILED' "$tmp/err"
rm -rf "$tmp/cwd/results"

# --- --out that cannot be written: exit 2, nothing destroyed
mkdir -p "$tmp/full" && echo keep >"$tmp/full/precious"
run 2 "--out a non-empty directory" -- "$IDB" matrix "$tmp/m/small.ini" --out "$tmp/full"
check "the non-empty directory is untouched" test "$(ls "$tmp/full")" = precious -a "$(cat "$tmp/full/precious")" = keep
run 2 "--out that cannot be created" -- "$IDB" matrix "$tmp/m/small.ini" --out /proc/idbench-nope/r
run 2 "--out a file" -- "$IDB" matrix "$tmp/m/small.ini" --out "$tmp/full/precious"
check "the file is untouched" test "$(cat "$tmp/full/precious")" = keep
printf '[generation]\nenabled = 0\n[insert]\nstrategies = counter\nstores = null\nsizes = 100\n[curve]\nenabled = 0\n[simulate]\nenabled = 0\n[claims]\nenabled = 0\n[openloop]\nenabled = 0\n' \
  >"$tmp/m/tiny.ini"
run 0 "--out with a newline in it" -- "$IDB" matrix "$tmp/m/tiny.ini" --out "$tmp/nl"$'\nidbench: fake'
check "--out with a newline: no stderr line poses as idbench:" test -z "$(grep '^idbench: fake' "$tmp/err")"
check "--out with a newline: shown escaped" grep -qF 'nl\nidbench: fake' "$tmp/err"
# A block at key_bytes = 16 names uuidv4's own run again (16 bytes is its width): run once;
# counter's 8- and 16-byte runs differ and both run.
{ sed -e 's/^strategies = counter$/strategies = counter, uuidv4/' \
      -e 's/^stores = null$/stores = pagesim/' "$tmp/m/tiny.ini"
  printf '[series]\nenabled = 0\n'
  printf '[insert.w16]\nstores = pagesim\nkey_bytes = 16\n'; } >"$tmp/m/w16.ini"
run 0 "a block repeating a run" -- "$IDB" matrix "$tmp/m/w16.ini" --repeat 1 --out "$tmp/w16"
check "a block repeating a run: 3 cells" grep -q '^matrix: 3 cells' "$tmp/err"
check "a block repeating a run: uuidv4 once" \
  test "$(grep -c '^uuidv4,pagesim,1,100,16,' "$tmp/w16/insert.csv")" -eq 1
check "a block repeating a run: counter at 8 and 16 bytes" \
  test "$(grep -c '^counter,pagesim,1,100,' "$tmp/w16/insert.csv")" -eq 2
# A block's store_set (issue 25): two blocks that differ from [insert] only by a store option
# of sqlite make runs of their own (not "the same run"), each row with its options; [store.NAME]
# options come first, the block's override them; positions.csv keeps one set of bins per key.
{ sed -e 's/^stores = null$/stores = sqlite/' "$tmp/m/tiny.ini"
  printf '[series]\nenabled = 0\n[store.sqlite]\ncache_pages = 30\npage_size = 8192\n'
  printf '[insert.c20]\nstore_set = sqlite.cache_pages=20\n'
  printf '[insert.c40]\nstores = sqlite, null\nstore_set = sqlite.cache_pages=40\n'; } >"$tmp/m/set.ini"
run 0 "blocks differing by store_set" -- "$IDB" matrix "$tmp/m/set.ini" --repeat 1 --out "$tmp/set"
check "store_set: 4 cells (3 sqlite runs, null once)" grep -q '^matrix: 4 cells' "$tmp/err"
check "store_set: the cell's label names its options" \
  grep -q 'insert sqlite counter n=100 shards=1 cache_pages=40 #1' "$tmp/err"
check "store_set: a sqlite row per cache size, [store.sqlite]'s page_size in each" \
  test "$(grep '^counter,sqlite,' "$tmp/set/insert.csv" | grep -o 'page_size=8192 cache_pages=[0-9]*' |
    cut -d' ' -f2 | sort | tr '\n' ' ')" = "cache_pages=20 cache_pages=30 cache_pages=40 "
check "store_set: insert_runs.csv keeps the three runs apart" \
  test "$(grep -c '^counter,sqlite,' "$tmp/set/insert_runs.csv")" -eq 3
check "store_set: positions.csv, one set of 20 bins for counter on sqlite" \
  test "$(grep -c '^counter,sqlite,' "$tmp/set/positions.csv")" -eq 20
# A block's then = STRATEGY:N (insert --then): its cell's row is the second phase's (the
# second strategy's name, phase then, first_strategy), kept out of the runs' lookups; a bad
# then is refused naming FILE:LINE.
{ sed -e 's/^strategies = counter$/strategies = counter, uuidv7/' -e 's/^stores = null$/stores = pagesim/' "$tmp/m/tiny.ini"
  printf '[series]\nenabled = 0\n'
  printf '[insert.v7]\nstrategies = counter\nkey_bytes = 16\nthen = uuidv7:50\n'; } >"$tmp/m/then.ini"
run 0 "a then block" -- "$IDB" matrix "$tmp/m/then.ini" --repeat 1 --out "$tmp/then"
check "then: the phase's row, named by the second strategy" \
  grep -q '^uuidv7,pagesim,1,50,16,.*,then,counter$' "$tmp/then/insert.csv"
check "then: the runs' rows are phase main" \
  test "$(grep -c ',main,$' "$tmp/then/insert.csv")" -eq 2
check "then: insert_runs.csv has the phase too" grep -q ',then,counter$' "$tmp/then/insert_runs.csv"
check "then: no positions of a phase" test "$(grep -c '^uuidv7,pagesim,1,50,' "$tmp/then/positions.csv")" -eq 0
check "then: the report's section" grep -q 'counter → uuidv7' "$tmp/then/report.md"
check "then: the label names it" grep -q 'then=uuidv7:50' "$tmp/err"
printf '[insert.v7]\nstrategies = counter\nthen = uuidv7:50\n' >"$tmp/m/then2.ini"
run 2 "then: IDs wider than the table's keys" -- "$IDB" matrix "$tmp/m/tiny.ini" "$tmp/m/then2.ini"
check "then: the refusal names FILE:LINE" grep -q 'then2.ini:3: then uuidv7' "$tmp/err"
printf '[insert.v7]\nthen = nosuch:50\n' >"$tmp/m/then3.ini"
run 2 "then: an unknown strategy" -- "$IDB" matrix "$tmp/m/tiny.ini" "$tmp/m/then3.ini"
printf '[openloop]\nenabled = 1\nthen = uuidv7:5\n' >"$tmp/m/then4.ini"
run 2 "then: in an open-loop block" -- "$IDB" matrix "$tmp/m/tiny.ini" "$tmp/m/then4.ini"
# A clients sweep: [insert.clients] at clients 1, 2, 4 (one repeat of its own), counter at
# 16 bytes beside it; every row keyed on clients (insert.csv, positions.csv, insert_runs.csv),
# the headline rows untouched, the plots drawn and the report's sentence and tables.
{ sed -e 's/^strategies = counter$/strategies = counter, uuidv7, uuidv4/' \
      -e 's/^stores = null$/stores = sqlite, pagesim/' -e 's/^sizes = 100$/sizes = 400/' \
      "$tmp/m/tiny.ini"
  printf '[series]\nenabled = 0\n[insert.clients]\nclients = 1, 2, 4\nbatch = 20\nrepeat = 1\n'
  printf '[insert.clients16]\nstrategies = counter\nkey_bytes = 16\nclients = 1, 4\nbatch = 20\n'
  printf 'repeat = 1\n'; } >"$tmp/m/clients.ini"
run 0 "a clients sweep" -- "$IDB" matrix "$tmp/m/clients.ini" --repeat 2 --out "$tmp/cl"
check "clients sweep: 12 + 18 + 4 cells" grep -q '^matrix: 34 cells' "$tmp/err"
ins=$tmp/cl/insert.csv
col() { head -1 "$ins" | tr , '\n' | grep -nx "$1" | cut -d: -f1; }
cc=$(col clients) cb=$(col batch) cr=$(col repeats) cw=$(col wait_share) ck=$(col key_bytes)
check "insert.csv has a clients column after batch" [ "$cc" -eq $((cb + 1)) ]
for st in sqlite pagesim; do
  for s in counter uuidv7 uuidv4; do
    check "clients sweep: $s on $st at 1, 2 and 4 writers" test "$(awk -F, -v s=$s -v st=$st \
      -v b=$cb -v c=$cc -v k=$ck '$1 == s && $2 == st && $b == 20 && ($k == 16 || s == "counter") &&
      ($k == 8 || s != "counter") { print $c }' "$ins" | sort -n | tr '\n' ' ')" = "1 2 4 "
  done
  check "clients sweep: counter at 16 bytes on $st at 1 and 4 writers" test "$(awk -F, -v st=$st \
    -v k=$ck -v c=$cc '$1 == "counter" && $2 == st && $k == 16 { print $c }' "$ins" | sort -n | tr '\n' ' ')" = "1 4 "
done
check "clients sweep: its rows ran once ([insert.clients] repeat = 1), the others twice" \
  test "$(awk -F, -v b=$cb -v r=$cr 'NR > 1 { print ($b == 20) "" $r }' "$ins" | sort -u | tr '\n' ' ')" = "02 11 "
check "clients sweep: one-writer headline rows: 6 of batch 1000" \
  test "$(awk -F, -v b=$cb -v c=$cc '$b == 1000 && $c == 1' "$ins" | wc -l)" -eq 6
check "clients sweep: sqlite's wait_share in [0,1] above one writer, empty at one" \
  test "$(awk -F, -v c=$cc -v w=$cw 'NR > 1 && $2 == "sqlite" {
    if ($c > 1 && !($w != "" && $w >= 0 && $w <= 1)) bad++; if ($c == 1 && $w != "") bad++ }
    END { print bad + 0 }' "$ins")" -eq 0
check "clients sweep: pagesim measures no wait" \
  test -z "$(awk -F, -v w=$cw '$2 == "pagesim" { printf "%s", $w }' "$ins")"
check "positions.csv keyed on clients: 20 bins per (strategy, store, ids, clients) of batch 20" \
  test "$(awk -F, 'NR > 1 && $2 == "sqlite" && $1 == "uuidv7" { n[$5]++ } END { print n[1], n[2], n[4] }' \
    "$tmp/cl/positions.csv")" = "40 20 20"
check "insert_runs.csv has the clients column" grep -q '^strategy,store,shards,ids,key_bytes,batch,clients,' \
  "$tmp/cl/insert_runs.csv"
for p in clients clients_wait; do
  check "plot $p drawn" test -s "$tmp/cl/plots/$p.png" -a -s "$tmp/cl/plots/$p.svg"
done
check "report: the clients sentence" grep -q 'inserted .* `uuidv4`.s rate with 1 writer' "$tmp/cl/report.md"
check "report: the cores" grep -q 'cores\? (meta.json): throughput cannot scale past about' "$tmp/cl/report.md"
check "report: a table per clients value" grep -q '400 IDs, 1 shard(s), 4 writers per shard' "$tmp/cl/report.md"
run 0 "compare of a clients sweep with itself" -- "$IDB" compare "$tmp/cl" "$tmp/cl"
check "compare names the writers" grep -q 'clients=4' "$tmp/out"
run 2 "--repeat 0" -- "$IDB" matrix "$tmp/m/small.ini" --repeat 0
run 2 "--seed not a number" -- "$IDB" matrix "$tmp/m/small.ini" --seed x
run 2 "unknown flag" -- "$IDB" matrix --frobnicate
check "bad flags wrote nothing" test -z "$(ls -A "$tmp/cwd")"

# --- bad matrix files: every error path names FILE:LINE, exits 2, writes nothing
bad "unknown section" "bad.ini:3:" $'[matrix]\n[nosuch]\nkey = 1'
bad "unknown key" "bad.ini:2:" $'[matrix]\nrepeats = 3'
bad "not an integer" "bad.ini:3:" $'[matrix]\nseed = 1\nrepeat = three'
bad "out of range" "bad.ini:2:" $'[matrix]\nrepeat = 0'
bad "not a number" "bad.ini:2:" $'[generation]\nmin_time = fast'
bad "a [faults.replicated] run" "bad.ini:3:" \
  $'[faults.replicated]\nenabled = 1\nruns = postgres:async, redis:wait2'
check "a [faults.replicated] run: says which runs there are" grep -qF \
  "'redis:wait2' is not a replicated counter run (postgres:async, postgres:sync" "$tmp/err"
bad "a [faults.replicated] lag" "bad.ini:2:" $'[faults.replicated]\nlag_ms = soon'
bad "unknown strategy" "bad.ini:3:" $'[insert]\nstores = null\nstrategies = counter, nosuch'
bad "unknown store" "bad.ini:2:" $'[insert]\nstores = sqlite, oracle'
bad "empty list entry" "bad.ini:2:" $'[insert]\nsizes = 100,,200'
bad "unknown key in a named block" "bad.ini:2:" $'[insert.more]\ncache_pages = 10'
bad "unknown store section" "bad.ini:2:" $'[store.oracle]\ncache_pages = 10'
bad "unknown store option" "bad.ini:2:" $'[store.sqlite]\ncolor = red'
bad "bad store option value" "bad.ini:2:" $'[store.sqlite]\ncache_pages = lots'
bad "curve on a store without a cache" "bad.ini:2:" $'[curve]\nstores = null'
bad "missing workload file" "bad.ini:2:" $'[simulate]\nworkloads = steady.ini, no-such-workload.ini'
bad "bad simulate set" "bad.ini:2:" $'[simulate]\nset = clock.skew_ms'
bad "syntax error" "bad.ini:2:" $'[matrix]\nthis is not a key'
bad "duplicate key" "bad.ini:3:" $'[matrix]\nseed = 1\nseed = 2'
bad "key outside a section" "bad.ini:1:" 'seed = 1'
bad "quick key without a section" "bad.ini:2:" $'[quick]\nrepeat = 1'
bad "quick key naming an unknown key" "bad.ini:2:" $'[quick]\nmatrix.repeats = 1'
bad "quick key with a bad value" "bad.ini:2:" $'[quick]\ninsert.stores = oracle'
run 2 "missing matrix file" -- "$IDB" matrix "$tmp/m/none.ini"
check "missing matrix file: names the file" grep -q "none.ini: cannot read" "$tmp/err"
check "missing matrix file: nothing written" test -z "$(ls -A "$tmp/cwd")"
printf '[matrix]\nrepeat = 1\n' >"$tmp/m/ok.ini"
printf '[insert]\nsizes = 0\n' >"$tmp/m/second.ini"
run 2 "a bad second file" -- "$IDB" matrix "$tmp/m/ok.ini" "$tmp/m/second.ini"
check "a bad second file: names it and its line" grep -q "second.ini:2:" "$tmp/err"

# --- every run of the matrix is checked before anything runs: store options against the
# store (its table and its own checks, with each strategy's key width), named by FILE:LINE
bad "a store option the store refuses" "bad.ini:3:" $'[store.sqlite]\n# 2^k only\npage_size = 1000'
check "a store option the store refuses: says why" grep -q 'page_size=1000 is not a power of two' \
  "$tmp/err"
bad "a store option that does not fit a strategy" "bad.ini:5:" \
  $'[insert]\nstores = sqlite\nstrategies = snowflake, uuidv7\n[store.sqlite]\nschema = rowid'
check "a store option that does not fit a strategy: names it" grep -q 'strategy uuidv7' "$tmp/err"
bad "options that do not fit together (the second line)" "bad.ini:3:" \
  $'[store.pagesim]\npage_size = 8192\nrow_bytes = 5000'
bad "a curve's cache size the store refuses" "bad.ini:4:" \
  $'[insert]\nenabled = 0\n[curve.sqlite]\ncache_pages = 10, 1073741824\nstores = sqlite'
printf '[store.sqlite]\nschema = rowid\n' >"$tmp/m/rowid.ini"
run 2 "a store option checked with the strategies of another file" -- "$IDB" matrix \
  "$SRC/workloads/matrix.ini" "$tmp/m/rowid.ini" --quick
check "... names the store option's file and line" grep -q 'rowid.ini:2: sqlite: schema=rowid' \
  "$tmp/err"
check "bad matrices wrote nothing" test -z "$(ls -A "$tmp/cwd")"



bad "an open-loop run on a model store" "bad.ini:2:" $'[openloop]\nstores = lmdb, pagesim'
bad "clients in an open-loop block" "bad.ini:2:" $'[openloop]\nclients = 1, 4'
bad "clients above the most" "bad.ini:2:" $'[insert]\nclients = 1, 300'
bad "a block repeat above 100" "bad.ini:2:" $'[insert.x]\nrepeat = 101'
bad "an open-loop rate of 0" "bad.ini:2:" $'[openloop]\nrates = 1000, 0'
bad "an open-loop rate in hex" "bad.ini:2:" $'[openloop]\nrates = 0x10'
bad "store_set naming an unknown store" "bad.ini:2:" $'[insert]\nstore_set = oracle.cache_pages=2'
bad "store_set naming an unknown option" "bad.ini:3:" \
  $'[insert.x]\nstores = sqlite\nstore_set = sqlite.cache_pages=2, sqlite.color=red'
bad "store_set of a store not in the block" "bad.ini:2:" \
  $'[insert.x]\nstore_set = spider.partition=hash\nstores = sqlite'
bad "store_set with a value the store refuses" "bad.ini:4:" \
  $'[insert.x]\nstores = sqlite\nstrategies = counter\nstore_set = sqlite.page_size=1000'

cli_done
