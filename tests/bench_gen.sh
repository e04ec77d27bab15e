#!/usr/bin/env bash
# bench_gen.sh — issue 28's generation figures, recorded: `idbench bench` on gen/STRATEGY at
# 1 and 2 threads for uuidv4, uuidv7, objectid, ulid, ksuid and snowflake, RUNS times
# (default 3), then per strategy the medians: ns per ID (wall and CPU) at 1 thread, IDs per
# second at 1 and 2 threads, and the median of each run's 2-thread / 1-thread ratio (both
# from the same run), with the load average before and after (the machine's other work
# moves wall-clock figures: quote it with them). A benchmark, not a test: it asserts
# nothing, it records. Registered as a meson benchmark (`meson test -C build --benchmark
# gen_figures`, or `ninja -C build benchmark`).
#
# Usage: bench_gen.sh IDBENCH [OUT_DIR [RUNS [MIN_TIME]]]
#   writes OUT_DIR/bench-gen.csv (run,strategy,threads,real_ns,cpu_ns,ids_per_s, one row a
#   benchmark run) and OUT_DIR/bench-gen.txt (the summary, also on stdout).
set -eu
IDB=${1:?usage: bench_gen.sh IDBENCH [OUT_DIR [RUNS [MIN_TIME]]]}
OUT=${2:-.}
RUNS=${3:-3}
MIN_TIME=${4:-0.5}
STRATS="uuidv4 uuidv7 objectid ulid ksuid snowflake"
FILTER="gen/($(echo $STRATS | tr ' ' '|'))/"
mkdir -p "$OUT"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
echo "run,strategy,threads,real_ns,cpu_ns,ids_per_s" >"$OUT/bench-gen.csv"
for r in $(seq 1 "$RUNS"); do
  "$IDB" bench --benchmark_filter="$FILTER" --benchmark_min_time="$MIN_TIME" \
    --benchmark_out="$tmp/run.csv" --benchmark_out_format=csv >/dev/null 2>"$tmp/err" || {
    cat "$tmp/err" >&2; exit 1; }
  # Google Benchmark's CSV: name,iterations,real_time,cpu_time,time_unit,bytes_per_second,
  # items_per_second,... after a preamble; names are gen/NAME/real_time/threads:T.
  awk -F, -v run="$r" '$1 ~ /^"gen\// {
      n = $1; gsub(/"/, "", n); split(n, p, "/"); t = p[4]; sub(/threads:/, "", t)
      printf "%s,%s,%s,%s,%s,%s\n", run, p[2], t, $3, $4, $7 }' "$tmp/run.csv" \
    >>"$OUT/bench-gen.csv"
done
load_after=$(cut -d' ' -f1-3 /proc/loadavg)
{
  echo "idbench bench, gen/STRATEGY at 1 and 2 threads, $RUNS runs of --benchmark_min_time=$MIN_TIME"
  echo "load average before: $load_before; after: $load_after; $(nproc) cores"
  printf '%-10s %12s %12s %14s %14s %10s\n' strategy "ns/ID 1T" "CPU ns 1T" "IDs/s 1T" \
    "IDs/s 2T" "2T/1T"
  for s in $STRATS; do
    awk -F, -v s="$s" '
      function median(a, n,    i, j, t) {
        for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j - 1] > a[j]; j--) {
          t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
        return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
      $2 == s && $3 == 1 { n1++; w[n1] = $4; c[n1] = $5; i1[n1] = $6; one[$1] = $6 }
      $2 == s && $3 == 2 { n2++; i2[n2] = $6; two[$1] = $6 }
      END {
        for (r in one) if (r in two) { nr++; q[nr] = two[r] / one[r] }
        printf "%-10s %12.1f %12.1f %14.0f %14.0f %10.2f\n", s, median(w, n1), median(c, n1),
          median(i1, n1), median(i2, n2), nr ? median(q, nr) : -1 }' "$OUT/bench-gen.csv"
  done
} | tee "$OUT/bench-gen.txt"
