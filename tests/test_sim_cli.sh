#!/usr/bin/env bash
# test_sim_cli.sh — simulate, claims and collide on the command line: every error path
# (exit 2 bad input, 1 runtime failure, one "idbench: " line on stderr, nothing on stdout),
# byte-identical output for the same seed, the output formats, --set and --timeline, and
# the figures the issue expects from the shipped workloads. PART full (the slow suite) also
# runs `claims --quick` a second time and checks the two tables agree (half a minute).
# Usage: test_sim_cli.sh IDBENCH SOURCE_ROOT [fast|full]
set -u
IDB=${1:?usage: test_sim_cli.sh path/to/idbench source-root [fast|full]}
ROOT=${2:?usage: test_sim_cli.sh path/to/idbench source-root [fast|full]}
PART=${3:-fast}
W=$ROOT/workloads
. "$(dirname "$0")/cli_lib.sh"

# differ A B: the files are not the same bytes.
differ() { ! cmp -s "$1" "$2"; }

# err_has TEXT: the last stderr contains TEXT (fixed string).
err_has() { grep -qF -- "$1" "$tmp/err"; }

# A small workload for the error paths and formats.
small=$tmp/small.ini
printf '[workload]\nduration_s = 2\norders_per_s = 2000\nstrategies = counter,snowflake\n' >"$small"

# --- simulate: bad input (2)
expect 2 "simulate without a workload" -- "$IDB" simulate
expect 2 "simulate missing file" -- "$IDB" simulate "$tmp/nosuch.ini"
check "missing file named" err_has "$tmp/nosuch.ini: cannot read: No such file or directory"
printf '[workload]\nshards = 2\n[bogus]\nx = 1\n' >"$tmp/bad.ini"
expect 2 "unknown section" -- "$IDB" simulate "$tmp/bad.ini"
check "unknown section names file:line" err_has "$tmp/bad.ini:4: unknown section [bogus]"
printf '[clock]\n\nskew = 1\n' >"$tmp/bad.ini"
expect 2 "unknown key" -- "$IDB" simulate "$tmp/bad.ini"
check "unknown key names file:line" err_has "$tmp/bad.ini:3: unknown key 'skew' in [clock]"
printf '[workload]\nshards = lots\n' >"$tmp/bad.ini"
expect 2 "bad value" -- "$IDB" simulate "$tmp/bad.ini"
check "bad value names file:line" err_has "$tmp/bad.ini:2: shards = 'lots': expected an integer"
printf '[workload]\nshards 4\n' >"$tmp/bad.ini"
expect 2 "missing =" -- "$IDB" simulate "$tmp/bad.ini"
check "missing = names file:line" err_has "$tmp/bad.ini:2: expected 'key = value'"
printf '[workload]\nshards = 4\n# again\nshards = 5\n' >"$tmp/bad.ini"
expect 2 "duplicate key" -- "$IDB" simulate "$tmp/bad.ini"
check "duplicate key names file:line" err_has "$tmp/bad.ini:4: duplicate key 'shards' in [workload] (first given on line 2)"
printf '[workload]\ninstances = 2\n[clock]\nstep_instance = 3\n' >"$tmp/bad.ini"
expect 2 "keys that disagree" -- "$IDB" simulate "$tmp/bad.ini"
check "cross-key error names file:line" err_has "$tmp/bad.ini:4: step_instance = 3 must be below instances = 2"
expect 2 "bad file among good ones: nothing runs" -- "$IDB" simulate "$small" "$tmp/bad.ini"
expect 2 "directory as workload" -- "$IDB" simulate "$tmp"
expect 2 "unknown flag" -- "$IDB" simulate --bogus "$small"
expect 2 "--seed not a number" -- "$IDB" simulate --seed x "$small"
expect 2 "--seed negative" -- "$IDB" simulate --seed -1 "$small"
expect 2 "--seed missing value" -- "$IDB" simulate "$small" --seed
expect 2 "--format unknown" -- "$IDB" simulate --format xml "$small"
expect 2 "--strategies unknown" -- "$IDB" simulate --strategies counter,nosuch "$small"
check "--strategies error names the flag" err_has "--strategies: unknown strategy 'nosuch'"
expect 2 "--strategies twice the same" -- "$IDB" simulate --strategies counter,counter "$small"
expect 2 "--strategies empty name" -- "$IDB" simulate --strategies counter, "$small"
expect 2 "--set without a section" -- "$IDB" simulate --set skew_ms=5 "$small"
expect 2 "--set without =" -- "$IDB" simulate --set clock.skew_ms "$small"
expect 2 "--set unknown key" -- "$IDB" simulate --set clock.nosuch=1 "$small"
expect 2 "--set bad value" -- "$IDB" simulate --set clock.skew_ms=-1 "$small"
check "--set error names the flag" err_has "--set clock.skew_ms=-1: skew_ms = -1 is out of range 0..1e+06"
expect 2 "--set that breaks a cross-key rule" -- "$IDB" simulate --set workload.instances=1 --set events.duplicate_worker_ids=1 "$small"

# --- simulate: runtime failure (1)
expect 1 "--timeline into a missing directory" -- "$IDB" simulate --timeline "$tmp/no/dir/t.csv" "$small"
check "no timeline file left" test ! -e "$tmp/no"

# --- simulate: output
expect 0 "simulate csv" -- "$IDB" simulate "$small"
cp "$tmp/out" "$tmp/a.csv"
check "csv header is the contract" test "$(head -1 "$tmp/a.csv")" = \
  "workload,strategy,orders,duplicates,failed_orders,stalled_ms,coord_lat_p50_ms,coord_lat_p99_ms,inversion_frac,shard_monotonic,tail_insert_frac,id_bytes,routing,range_split,shards,hot_share,hot_share_p99,range_splits"
check "one row per strategy" test "$(wc -l <"$tmp/a.csv")" -eq 3
check "workload named after the file" test "$(cut -d, -f1 "$tmp/a.csv" | sed -n 2p)" = small
check "stderr quiet without -v" test ! -s "$tmp/err"
expect 0 "simulate again" -- "$IDB" simulate "$small"
check "same seed, same bytes" cmp -s "$tmp/out" "$tmp/a.csv"
expect 0 "simulate --seed 2" -- "$IDB" simulate --seed 2 "$small"
check "another seed, other figures" differ "$tmp/out" "$tmp/a.csv"
expect 0 "simulate --seed 2 again" -- "$IDB" simulate --seed 2 "$small"
cp "$tmp/out" "$tmp/b.csv"
expect 0 "simulate --seed 2 third time" -- "$IDB" simulate --seed 2 "$small"
check "--seed output is byte-identical" cmp -s "$tmp/out" "$tmp/b.csv"
expect 0 "simulate json" -- "$IDB" simulate --format json "$small"
if command -v python3 >/dev/null; then
  check "json parses, 2 rows, 18 fields, empty figures null" python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); assert len(r)==2 and all(len(x)==18 and x["range_splits"] is None and x["routing"] == "shop" for x in r)' "$tmp/out"
fi
expect 0 "simulate table" -- "$IDB" simulate --format table "$small"
check "table has a header and two rows" test "$(wc -l <"$tmp/out")" -eq 3
check "table header" grep -q '^workload  strategy ' "$tmp/out"
expect 0 "simulate -v" -- "$IDB" simulate -v "$small"
check "-v reports orders per CPU second" grep -q 'orders per CPU second' "$tmp/err"
expect 0 "--strategies narrows" -- "$IDB" simulate --strategies uuidv4 "$small"
check "only uuidv4" test "$(cut -d, -f2 "$tmp/out" | tail -n +2)" = uuidv4

# --set: a skew sweep point changes snowflake's inversions, and only them.
expect 0 "--set clock.skew_ms=20" -- "$IDB" simulate --set clock.skew_ms=20 --strategies snowflake "$small"
skewed=$(cut -d, -f9 "$tmp/out" | tail -1)
expect 0 "no skew" -- "$IDB" simulate --strategies snowflake "$small"
plain=$(cut -d, -f9 "$tmp/out" | tail -1)
check "skew raises snowflake's inversion_frac ($plain -> $skewed)" awk -v a="$plain" -v b="$skewed" 'BEGIN { exit !(b > a) }'

# --timeline: one row per second per strategy; the outage shows in seconds 3 and 4.
expect 0 "--timeline" -- "$IDB" simulate --strategies counter,uuidv4 --set workload.orders_per_s=1000 \
  --timeline "$tmp/tl.csv" "$W/counter-outage.ini"
check "timeline header" test "$(head -1 "$tmp/tl.csv")" = "workload,strategy,t_s,orders,failed_orders,inserts,hot_share,shard_shares,ranges"
check "timeline rows: 10 s x 2 strategies" test "$(tail -n +2 "$tmp/tl.csv" | wc -l)" -eq 20
check "counter fails only in seconds 3 and 4, every order then" awk -F, '
  NR > 1 && $2 == "counter" { if (($3 == 3 || $3 == 4) != ($5 == $4 && $4 > 0)) bad = 1; if ($3 != 3 && $3 != 4 && $5 != 0) bad = 1 }
  NR > 1 && $2 == "uuidv4" && $5 != 0 { bad = 1 }
  END { exit bad }' "$tmp/tl.csv"
check "no temporary timeline file left" test "$(ls "$tmp" | grep -c 'tl.csv.tmp')" -eq 0

# --- the shipped workloads: the issue's figures
shipped=()
for w in steady clock-skew clock-step-back counter-outage add-shard add-shard-safe migrate-shop \
         worker-id-clash flash-sale; do shipped+=("$W/$w.ini"); done
expect 0 "every shipped workload" -- "$IDB" simulate "${shipped[@]}"
cp "$tmp/out" "$tmp/all.csv"
# Strategies that take a worker ID or a shard count, from their declared options.
workers=$("$IDB" list | cut -f1 | while read -r s; do "$IDB" help "$s" | grep -q '^  worker=' && echo "$s"; done | tr '\n' ' ')
sharded=$("$IDB" list | cut -f1 | while read -r s; do "$IDB" help "$s" | grep -q '^  shards=' && echo "$s"; done | tr '\n' ' ')
perid=$("$IDB" list | cut -f1 | while read -r s; do "$IDB" help "$s" | grep -q '^coordination: per ID' && echo "$s"; done | tr '\n' ' ')
check "some strategy takes a worker ID ($workers)" test -n "$workers"
check "some strategy takes a shard count ($sharded)" test -n "$sharded"
check "0 duplicates everywhere but naive re-allocation and the worker clash" awk -F, -v W=" $workers" -v S=" $sharded" '
  NR > 1 {
    expected = ($1 == "add-shard" && index(S, " " $2 " ")) || ($1 == "worker-id-clash" && index(W, " " $2 " "))
    if (expected != ($4 > 0)) { print "  " $1 " " $2 " duplicates " $4; bad = 1 }
  }
  END { exit bad }' "$tmp/all.csv"
# strategies that use the counter service declare its `name` option
svcusers=$("$IDB" list | cut -f1 | while read -r s; do "$IDB" help "$s" | grep -q '^  name=' && echo "$s"; done | tr '\n' ' ')
check "in counter-outage only counter-service users fail, per-ID ones most ($perid| $svcusers)" awk -F, -v P=" $perid" -v U=" $svcusers" '
  NR > 1 && $1 == "counter-outage" {
    if (index(P, " " $2 " ")) { if ($5 == 0) bad = 1; if (minp == "" || $5 < minp) minp = $5 }
    else if (index(U, " " $2 " ")) { if ($5 > maxb) maxb = $5 }
    else if ($5 != 0) bad = 1
  }
  NR > 1 && $1 != "counter-outage" && $5 != 0 { bad = 1 }
  END { if (minp == "" || maxb >= minp) bad = 1; exit bad }' "$tmp/all.csv"
check "with skew: snowflake, uuidv7, objectid above 0 and far below range; counter 0" awk -F, '
  NR > 1 && $1 == "clock-skew" { inv[$2] = $9 }
  END { if (inv["counter"] != 0) exit 1
        for (s in inv) if (s == "snowflake" || s == "uuidv7" || s == "objectid")
          if (!(inv[s] > 0 && inv[s] < inv["range"] / 5)) exit 1 }' "$tmp/all.csv"
check "flash sale and clock step make snowflake stall" awk -F, '
  NR > 1 && $2 == "snowflake" && ($1 == "flash-sale" || $1 == "clock-step-back") && !($6 > 0) { bad = 1 }
  END { exit bad }' "$tmp/all.csv"
check "id_bytes = bits / 8" awk -F, 'NR > 1 && $2 == "uuidv4" && $12 != 16 { bad = 1 } NR > 1 && $2 == "snowflake" && $12 != 8 { bad = 1 } END { exit bad }' "$tmp/all.csv"
expect 0 "every shipped workload, smaller, twice" -- "$IDB" simulate --set workload.orders_per_s=2000 "${shipped[@]}" "$W/template.ini"
cp "$tmp/out" "$tmp/d1.csv"
expect 0 "... second run" -- "$IDB" simulate --set workload.orders_per_s=2000 "${shipped[@]}" "$W/template.ini"
check "every workload: byte-identical output" cmp -s "$tmp/out" "$tmp/d1.csv"

# routing = shop (the default) is the simulator before the router: the shipped workloads'
# first 12 columns equal tests/sim-shop-golden.csv, made by the simulator of main before
# issue 25 (commit 86ec183) with the same command; the new columns say shop
expect 0 "shipped workloads at 2,000 orders/s" -- "$IDB" simulate "${shipped[@]}" --seed 1 \
  --set workload.orders_per_s=2000
# (the rows of strategies added since, e.g. autoinc, left out: the golden has none of them)
check "shop routing: the old simulator's figures, byte for byte" \
  cmp -s <(cut -d, -f1-12 "$tmp/out" | awk -F, 'NR == FNR { s[$2] = 1; next } $2 in s' \
           "$ROOT/tests/sim-shop-golden.csv" -) "$ROOT/tests/sim-shop-golden.csv"
check "... with routing shop and no range columns" awk -F, 'NR > 1 && !($13 == "shop" && $14 == "" && $18 == "") { bad = 1 } END { exit bad }' "$tmp/out"

# --- claims
expect 2 "claims with an argument" -- "$IDB" claims extra
expect 2 "claims unknown flag" -- "$IDB" claims --bogus
expect 2 "claims --waits-store of no store" -- "$IDB" claims --waits-store nosuch
# claim 8 (many writers on a real store) runs in the slow suite (test_claim_waits.sh)
# claims 10 and 11 (failover, leased workers) too: test_claim_failover.sh
expect 0 "claims --quick" -- "$IDB" claims --quick --waits-store none --no-failover
check "claims table: header, rule, 12 rows" test "$(wc -l <"$tmp/out")" -eq 14
check "no claim fails" test "$(grep -c '| does not hold' "$tmp/out")" -eq 0
check "claim 8 unknown when not run" grep -q '^| 8 | uuidv7: .*| unknown: waits store none |$' \
  "$tmp/out"
check "claim 10 unknown when not run" \
  grep -q '^| 10 | counter: .*| unknown: not run (no_failover) |$' "$tmp/out"
check "claim 11 unknown when not run" \
  grep -q '^| 11 | snowflake: .*| unknown: not run (no_failover) |$' "$tmp/out"
if [ "$PART" = full ]; then
  cp "$tmp/out" "$tmp/claims1.md"
  expect 0 "claims --quick again" -- "$IDB" claims --quick --waits-store none --no-failover
  # Everything but claim 1's figures from the real counter servers (timings: they vary).
  servers_cut() { sed -E 's/; (postgres|redis) \([^|]*//g' "$1"; }
  check "claims are reproducible (but the real servers' timings)" \
    cmp -s <(servers_cut "$tmp/out") <(servers_cut "$tmp/claims1.md")
fi

# --- collide
expect 0 "collide 122 bits at 1e9/s" -- "$IDB" collide --bits 122 --rate 1e9
check "about 86 years to 50%" grep -q '^122,1e+09,0.5,2.71492e+18,2.71492e+09,86 years$' "$tmp/out"
check "one-in-a-billion row" grep -q '^122,1e+09,1e-09,' "$tmp/out"
expect 0 "collide 64 bits" -- "$IDB" collide --bits 64 --rate 1000
expect 2 "collide without flags" -- "$IDB" collide
expect 2 "collide without --rate" -- "$IDB" collide --bits 64
expect 2 "collide bad bits" -- "$IDB" collide --bits 0 --rate 1
expect 2 "collide fractional bits" -- "$IDB" collide --bits 1.5 --rate 1
expect 2 "collide too many bits" -- "$IDB" collide --bits 2000 --rate 1
expect 2 "collide bad rate" -- "$IDB" collide --bits 64 --rate fast
expect 2 "collide zero rate" -- "$IDB" collide --bits 64 --rate 0
expect 2 "collide infinite rate" -- "$IDB" collide --bits 64 --rate inf
expect 2 "collide extra argument" -- "$IDB" collide --bits 64 --rate 1 extra
expect 2 "collide unknown flag" -- "$IDB" collide --bits 64 --rate 1 --p 0.1

# --- the exit-status contract (issue 9 §4): seeds, range_size, --set order, numbers
# seeds are integers, never doubles: 2^53 + 1 is not 2^53, a file and --seed agree
expect 0 "simulate --seed 2^53" -- "$IDB" simulate --seed 9007199254740992 "$small"
cp "$tmp/out" "$tmp/s53.csv"
expect 0 "simulate --seed 2^53 + 1" -- "$IDB" simulate --seed 9007199254740993 "$small"
cp "$tmp/out" "$tmp/s53p1.csv"
check "seed 2^53 + 1 is not rounded to 2^53" differ "$tmp/s53.csv" "$tmp/s53p1.csv"
printf '[workload]\nname = small\nseed = 9007199254740993\nduration_s = 2\norders_per_s = 2000\nstrategies = counter,snowflake\n' >"$tmp/seeded.ini"
expect 0 "simulate a file seeded 2^53 + 1" -- "$IDB" simulate "$tmp/seeded.ini"
check "the file's seed is the flag's" cmp -s "$tmp/out" "$tmp/s53p1.csv"
expect 0 "simulate --seed 2^64 - 1" -- "$IDB" simulate --seed 18446744073709551615 "$small"
for seed in 18446744073709551616 -1 0x10 1e3 ' 1'; do
  expect 2 "simulate --seed '$seed'" -- "$IDB" simulate --seed "$seed" "$small"
done
# range_size: the largest allowed works (each of the 4 shards leases a range), one more is
# refused; with 1 shard the key's own bound, 2^62
r=(--strategies range --set workload.duration_s=1 --set workload.orders_per_s=1000)
expect 0 "range_size at its largest for 4 shards" -- \
  "$IDB" simulate "${r[@]}" --set range.range_size=2305843009213693952 "$W/template.ini"
check "... and no order failed" test "$(tail -1 "$tmp/out" | cut -d, -f5)" = 0
expect 2 "range_size one more for 4 shards" -- \
  "$IDB" simulate "${r[@]}" --set range.range_size=2305843009213693953 "$W/template.ini"
check "... names the key and the bound" err_has "range_size = 2305843009213693953 is too large for 4 shards"
expect 2 "range_size 2^61 for 4 shards and one added" -- "$IDB" simulate "${r[@]}" \
  --set events.add_shard_at_s=0.5 --set range.range_size=2305843009213693952 "$W/template.ini"
expect 0 "range_size 2^62 for 1 shard" -- "$IDB" simulate "${r[@]}" --set workload.shards=1 \
  --set range.range_size=4611686018427387904 "$W/template.ini"
expect 2 "range_size 2^62 + 1" -- "$IDB" simulate "${r[@]}" --set workload.shards=1 \
  --set range.range_size=4611686018427387905 "$W/template.ini"
# --set order does not matter, the rules between keys included; a key is set once
printf '[workload]\nduration_s = 1\norders_per_s = 1000\nstrategies = snowflake\n[clock]\nstep_instance = 5\nstep_back_ms = 10\nstep_at_s = 0.5\n' >"$tmp/order.ini"
expect 0 "--set instances then step_instance" -- "$IDB" simulate \
  --set workload.instances=4 --set clock.step_instance=2 "$tmp/order.ini"
cp "$tmp/out" "$tmp/order1.csv"
expect 0 "--set step_instance then instances" -- "$IDB" simulate \
  --set clock.step_instance=2 --set workload.instances=4 "$tmp/order.ini"
check "--set order: the same output" cmp -s "$tmp/out" "$tmp/order1.csv"
expect 2 "--set breaking a rule between keys" -- "$IDB" simulate --set workload.instances=4 "$tmp/order.ini"
check "... names the key" err_has "step_instance = 5 must be below instances = 4"
expect 2 "--set the same key twice" -- "$IDB" simulate --set clock.skew_ms=1 --set clock.skew_ms=2 "$small"
check "... says so" err_has "clock.skew_ms is set by another --set too"
# hex floats and empty entries are refused from the command line and from files
expect 2 "--set a hex float" -- "$IDB" simulate --set clock.skew_ms=0x1p3 "$small"
printf '[clock]\nskew_ms = 0x1p3\n' >"$tmp/hex.ini"
expect 2 "a hex float in a workload file" -- "$IDB" simulate "$tmp/hex.ini"
check "... names file:line" err_has "$tmp/hex.ini:2: skew_ms = '0x1p3': expected a number"
expect 2 "--strategies with an empty entry" -- "$IDB" simulate --strategies counter,,snowflake "$small"

# --- routing by ID (sim_router.h): the keys are checked before anything runs
expect 2 "routing unknown" -- "$IDB" simulate --set workload.routing=ring "$small"
check "... names the choices" err_has "shop|range|hash"
expect 2 "range_split without routing = range" -- "$IDB" simulate --set workload.range_split=sample "$small"
check "... says so" err_has "range_split = sample needs routing = range"
expect 2 "range_max_rows with routing = hash" -- "$IDB" simulate --set workload.routing=hash \
  --set workload.range_max_rows=1000 "$small"
check "... says so" err_has "range_max_rows needs routing = range"
expect 2 "range routing and a moved shop" -- "$IDB" simulate --set workload.routing=range "$W/migrate-shop.ini"
check "... names file:line" err_has "migrate-shop.ini:"
expect 2 "hash routing and an added shard" -- "$IDB" simulate --set workload.routing=hash "$W/add-shard.ini"
expect 2 "range_max_rows too small for the orders" -- "$IDB" simulate --set workload.routing=range \
  --set workload.range_max_rows=1 "$small"
check "... says the least it may be" err_has "more than the 4096 a run may make (at least"
# range routing: a time-ordered counter on one shard, bitrev spread; the columns filled
expect 0 "routing = range" -- "$IDB" simulate --set workload.routing=range --strategies counter,bitrev \
  --set workload.range_max_rows=2000 --timeline "$tmp/rtl.csv" "$small"
check "range row: counter hot, bitrev near 1/4" awk -F, '
  NR == 2 && !($2 == "counter" && $13 == "range" && $14 == "space" && $15 == 4 && $17 > 0.99 && $18 > 0) { bad = 1 }
  NR == 3 && !($2 == "bitrev" && $16 < 0.3 && $18 == 0) { bad = 1 }
  END { exit bad }' "$tmp/out"
check "timeline: inserts are the orders that got an ID, shares sum to 1, ranges grow" awk -F, '
  NR > 1 { if ($6 != $4 - $5) bad = 1; n = split($8, a, ";"); s = 0; for (i = 1; i <= n; i++) s += a[i];
           if ($6 > 0 && (s < 0.9999 || s > 1.0001 || n != 4)) bad = 1
           if ($2 == "counter") last = $9 }
  END { exit bad || last <= 4 }' "$tmp/rtl.csv"
expect 0 "routing = shop: columns" -- "$IDB" simulate "$small"
check "shop rows: routing shop, range_split and range_splits empty" awk -F, '
  NR > 1 && !($13 == "shop" && $14 == "" && $18 == "" && $16 > 0) { bad = 1 } END { exit bad }' "$tmp/out"
expect 0 "json: empty figures are null" -- "$IDB" simulate --format json "$small"
check "... range_splits null" grep -q '"range_splits": null' "$tmp/out"

cli_done
