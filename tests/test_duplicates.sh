#!/usr/bin/env bash
# test_duplicates.sh — duplicate_ids and duplicate_rows against an independent count, on real
# shards: a Redis counter with durability=none killed mid-run hands IDs out again (after its
# restart it counts from its last snapshot, here none), to whichever shard asks. After each
# run (SQLite shards, 1 and 4) the test dumps every shard's keys with the sqlite3 CLI and
# checks: duplicate_ids = IDs handed out (ids - failed_orders) - distinct keys stored over
# all shards, and duplicate_ids - duplicate_rows (the repeats the shards' keys did not
# refuse: stored on another shard) = `sort | uniq -d` of all shards' keys (each ID comes at
# most twice: one kill). Needs redis-server and sqlite3 (slow suite: a few seconds a run).
# Usage: test_duplicates.sh IDBENCH
set -u
IDB=${1:?usage: test_duplicates.sh path/to/idbench}
. "$(dirname "$0")/cli_lib.sh"
command -v sqlite3 >/dev/null || { echo "SKIP: no sqlite3"; exit 77; }
export TMPDIR="$tmp/t"
mkdir -p "$TMPDIR"
chmod 711 "$tmp"

N=20000
for shards in 1 4; do
  d="$tmp/run$shards"
  expect 0 "redis none killed at $((N / 2)), $shards shard(s)" -- "$IDB" insert --store sqlite \
    --strategy counter --shards "$shards" -n $N --batch 100 -o backend=redis \
    -o durability=none -o timeout_ms=50 --dir "$d" --fault kill-counter@$((N / 2)):200
  for f in "$d"/shard-*/orders.sqlite; do sqlite3 "$f" 'SELECT hex(id) FROM orders'; done \
    >"$tmp/keys$shards"
  dup=$(out_field duplicate_ids) rows=$(out_field duplicate_rows) failed=$(out_field failed_orders)
  stored=$(wc -l <"$tmp/keys$shards")
  distinct=$(sort -u "$tmp/keys$shards" | wc -l)
  across=$(sort "$tmp/keys$shards" | uniq -d | wc -l)
  most=$(sort "$tmp/keys$shards" | uniq -c | sort -n | tail -1 | awk '{print $1}')
  check "$shards shard(s): IDs were handed out again ($dup)" test "${dup:-0}" -gt 0
  check "$shards shard(s): every handed-out ID stored or refused ($stored + $rows = $N - $failed)" \
    test $((stored + rows)) -eq $((N - failed))
  check "$shards shard(s): duplicate_ids $dup = handed out $((N - failed)) - distinct $distinct" \
    test "$dup" -eq $((N - failed - distinct))
  check "$shards shard(s): no key stored more than twice ($most)" test "$most" -le 2
  check "$shards shard(s): duplicate_ids - duplicate_rows ($dup - $rows) = uniq -d ($across)" \
    test $((dup - rows)) -eq "$across"
  [ "$shards" -eq 1 ] && check "1 shard: every repeat refused by its key ($rows = $dup)" \
    test "$rows" -eq "$dup"
  [ "$shards" -eq 4 ] && check "4 shards: some repeats stored on other shards ($across)" \
    test "$across" -gt 0
done
cli_done
