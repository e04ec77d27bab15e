#!/usr/bin/env bash
# test_galera.sh — the `galera` store (as root: its nodes run in the run's private network
# namespace; skipped, 77, otherwise): its unit test (test_store_galera.c: a 3-node cluster,
# autoinc's keys and steps read from every node, a node joining), then the command line:
# strategy autoinc on 3 nodes (duplicate_ids 0; every node's keys one residue mod 3 in the
# pattern), a client strategy (counter: its own keys, spread round robin), the join-node
# fault (step 3 before, 4 after on every node), the refusals (exit 2, nothing made), and no
# node left running afterwards. Usage: test_galera.sh IDBENCH TEST_STORE_GALERA
set -u
IDB=${1:?usage: test_galera.sh path/to/idbench path/to/test_store_galera}
UNIT=${2:?usage: test_galera.sh path/to/idbench path/to/test_store_galera}
[ "$(id -u)" -eq 0 ] || { echo "skipped: the galera store needs root"; exit 77; }
. "$(dirname "$0")/cli_lib.sh"

# The runs' directories: under /tmp (the server user must reach them; $tmp may be under a
# TMPDIR it cannot enter). No mariadbd of a run there is left (stopped on every path).
runs=$(mktemp -d /tmp/idb-galera-XXXXXX)
chmod 755 "$runs"
trap 'rm -rf "$tmp" "$runs"' EXIT
none_left() { ! pgrep -f "mariadbd.*$runs/" >/dev/null; }
# run_nodes WHAT DIR ARGS...: expect 0 from `idbench insert ... --dir DIR`; when it fails,
# the last lines of each node's server.log in DIR (why a node went away: CI once saw a
# client's "Lost connection to server during query" while the cluster formed, logs gone)
run_nodes() {
  local what=$1 dir=$2 before=$fail; shift 2
  expect 0 "$what" -- "$@" --dir "$dir"
  [ "$fail" -eq "$before" ] && return
  for log in "$dir"/shard-*/node-*/server.log; do
    [ -f "$log" ] || continue
    echo "  $log (last 12 lines):"; tail -n 12 "$log" | sed 's/^/    /'
  done
}

"$UNIT" >"$tmp/unit.out" 2>&1
rc=$?
check "test_store_galera (exit $rc)" test "$rc" -eq 0
# on failure: the unit's own lines first (a sanitizer's leak report of the handle the failed
# assertion left open would otherwise hide them), then the report's summary
[ "$rc" -eq 0 ] || { grep -v -E '^ +#[0-9]|^$' "$tmp/unit.out" | head -40; }

# --- refusals: before anything is made
expect 2 "nodes=2" -- "$IDB" insert --store galera --strategy autoinc -n 10 -s nodes=2 --dir "$tmp/r1"
expect 2 "--shards 2" -- "$IDB" insert --store galera --strategy counter -n 10 --shards 2 --dir "$tmp/r2"
expect 2 "join-node on sqlite" -- "$IDB" insert --store sqlite --strategy counter -n 10 \
  --fault join-node@5 --dir "$tmp/r3"
expect 2 "join-node@N at the order count" -- "$IDB" insert --store galera --strategy autoinc \
  -n 10 --fault join-node@10 --dir "$tmp/r4"
expect 2 "galera with --clients 2" -- "$IDB" insert --store galera --strategy counter -n 10 \
  --clients 2 --dir "$tmp/r5"
check "refusals made nothing" test ! -e "$tmp/r1" -a ! -e "$tmp/r2" -a ! -e "$tmp/r3" \
  -a ! -e "$tmp/r4" -a ! -e "$tmp/r5"
if [ -n "$(command -v setpriv)" ]; then
  expect 2 "not root: refused (no namespace, no authentication for group traffic)" -- \
    setpriv --reuid=65534 --regid=65534 --clear-groups "$IDB" insert --store galera \
    --strategy autoinc -n 10 --dir /tmp/idb-galera-nobody-$$
  check "... says why" grep -q 'needs root' "$tmp/err"
fi

# --- autoinc on 3 nodes
run_nodes "autoinc on 3 nodes" "$runs/a" "$IDB" insert --store galera --strategy autoinc \
  -n 1500 --batch 250
check "autoinc: no key twice" test "$(out_field duplicate_ids)" = 0
check "autoinc: 3 nodes, a third each" test "$(out_field backend_shares)" = "0.3333;0.3333;0.3333"
# every node before the join: step 3, one residue, equal to its offset mod 3; which node gets
# which offset is Galera's choice (its index in the membership view, ordered by node UUID,
# not by start order: CI once saw node 1 with offset 2), the 3 offsets all different
for j in 1 2 3; do
  check "autoinc: node $j kept one residue mod 3, its offset mod 3" awk -v j="$j" '
    $0 ~ "^galera: node " j " before: 500 keys, " {
      n++; if (!match($0, /step 3, residues mod 3: [0-2] \(increment 3 offset [1-3] /)) bad = 1
      split(substr($0, RSTART, RLENGTH), f, /[ :]+/); if (f[6] != f[10] % 3) bad = 1 }
    END { exit bad || n != 1 }' "$runs/a/shard-0/galera-pattern.txt"
done
check "autoinc: three different offsets" test "$(sed -n \
  's/.*before:.*offset \([0-9]*\) now.*/\1/p' "$runs/a/shard-0/galera-pattern.txt" |
  sort -u | wc -l)" -eq 3
check "autoinc: nodes stopped" none_left

# --- a client strategy: the harness's keys, spread the same way
run_nodes "counter on 3 nodes" "$runs/c" "$IDB" insert --store galera --strategy counter \
  -n 900 --batch 300
check "counter: no key twice, no order break" \
  test "$(out_field duplicate_ids)" = 0 -a "$(out_field order_breaks)" = 0
check "counter: autoinc=0 echoed" test "$(out_field autoinc)" = 0

# --- the join-node fault
run_nodes "join-node@1000" "$runs/j" "$IDB" insert --store galera --strategy autoinc -n 2000 \
  --batch 250 --fault join-node@1000
check "join: no key twice" test "$(out_field duplicate_ids)" = 0
check "join: 4 nodes at the end (4 shares)" \
  test "$(out_field backend_shares | tr ';' '\n' | wc -l)" -eq 4
# every node after the join: step 4, one residue, equal to its offset mod 4 (which node gets
# which offset is Galera's choice, by its membership view), the 4 offsets all different
for j in 1 2 3 4; do
  check "join: node $j has step 4 after the join, its keys its offset mod 4" awk -v j="$j" '
    $0 ~ "^galera: node " j " after the join: " {
      n++; if (!match($0, /step 4, residues mod 4: [0-3] \(increment 4 offset [1-4] /)) bad = 1
      split(substr($0, RSTART, RLENGTH), f, /[ :]+/); if (f[6] != f[10] % 4) bad = 1 }
    END { exit bad || n != 1 }' "$runs/j/shard-0/galera-pattern.txt"
done
check "join: four different offsets after the join" test "$(sed -n \
  's/.*after the join:.*offset \([0-9]*\) now.*/\1/p' "$runs/j/shard-0/galera-pattern.txt" |
  sort -u | wc -l)" -eq 4
for j in 1 2 3; do
  check "join: node $j had step 3 before" grep -q "node $j before: .* step 3," \
    "$runs/j/shard-0/galera-pattern.txt"
done
check "join: the join's time reported" grep -q 'join_ms [1-9]' "$runs/j/shard-0/galera-pattern.txt"
check "no node left running" none_left
cli_done
