#!/usr/bin/env bash
# test_sim_golden.sh — the simulator's seeded outputs are byte-identical to those of main's
# simulator before issue 28's simulator work (made at commit 63daf89, with that tree's
# generators: objectid's per-thread counter blocks of the same round moved its IDs, so the
# files of d98a314 no longer hold), made with the same commands and kept in
# tests/sim-golden/: every simulate workload of workloads/ at 2,000 orders/s,
# internet-hour.ini for 10 s, steady.ini as shipped (the CSV in full, the --timeline files
# as SHA-256); and strategies run in parallel (--jobs 2) give the serial (--jobs 1) bytes:
# both are checked against the golden files on the shipped workloads, --jobs 2 alone on the
# two larger runs (about 6 s of CPU in all).
# Usage: test_sim_golden.sh IDBENCH SOURCE_ROOT
set -u
IDB=${1:?usage: test_sim_golden.sh path/to/idbench source-root}
ROOT=${2:?usage: test_sim_golden.sh path/to/idbench source-root}
W=$ROOT/workloads
G=$ROOT/tests/sim-golden
. "$(dirname "$0")/cli_lib.sh"

# the strategies the golden files hold, in their order: a strategy added since is not in
# them (its rows are new, not a change), so every run asks for these alone
strategies=$(awk -F, 'FNR > 1 && !seen[$2]++ { printf "%s%s", n++ ? "," : "", $2 }' \
  "$G/shipped-2000.csv")
shipped=()
for f in "$W"/*.ini; do
  case $(basename "$f") in matrix*|internet-hour.ini) ;; *) shipped+=("$f") ;; esac
done

# shipped JOBS: the shipped workloads with --jobs JOBS into $tmp/JOBS/.
shipped() {
  local d=$tmp/$1
  mkdir -p "$d"
  expect 0 "shipped workloads, --jobs $1" -- "$IDB" simulate --jobs "$1" --seed 1 --strategies "$strategies" \
    --set workload.orders_per_s=2000 --timeline "$d/tl1.csv" "${shipped[@]}"
  cp "$tmp/out" "$d/out1.csv"
}

# larger JOBS: internet-hour and steady with --jobs JOBS into $tmp/JOBS/.
larger() {
  local d=$tmp/$1
  expect 0 "internet-hour 10 s, --jobs $1" -- "$IDB" simulate --jobs "$1" --seed 1 --strategies "$strategies" \
    --set workload.orders_per_s=2000 --set workload.duration_s=10 \
    --timeline "$d/tl2.csv" "$W/internet-hour.ini"
  cp "$tmp/out" "$d/out2.csv"
  expect 0 "steady, --jobs $1" -- "$IDB" simulate --jobs "$1" --seed 1 --strategies "$strategies" \
    --timeline "$d/tl3.csv" "$W/steady.ini"
  cp "$tmp/out" "$d/out3.csv"
}

shipped 1
shipped 2
larger 2
check "--jobs 1: shipped workloads = main's" cmp -s "$tmp/1/out1.csv" "$G/shipped-2000.csv"
check "--jobs 1: their timeline = main's" bash -c "cd '$tmp/1' && grep tl1 '$G/timelines.sha256' | sha256sum -c --quiet"
check "--jobs 2: shipped workloads = main's" cmp -s "$tmp/2/out1.csv" "$G/shipped-2000.csv"
check "--jobs 2: internet-hour = main's" cmp -s "$tmp/2/out2.csv" "$G/internet-hour-10s.csv"
check "--jobs 2: steady = main's" cmp -s "$tmp/2/out3.csv" "$G/steady.csv"
check "--jobs 2: timelines = main's" bash -c "cd '$tmp/2' && sha256sum -c --quiet '$G/timelines.sha256'"
check "parallel = serial: output" cmp -s "$tmp/1/out1.csv" "$tmp/2/out1.csv"
check "parallel = serial: timeline" cmp -s "$tmp/1/tl1.csv" "$tmp/2/tl1.csv"
expect 2 "--jobs 0 refused" -- "$IDB" simulate --jobs 0 "$W/steady.ini"
expect 2 "--jobs x refused" -- "$IDB" simulate --jobs x "$W/steady.ini"
cli_done
