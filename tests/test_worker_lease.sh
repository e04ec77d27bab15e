#!/usr/bin/env bash
# test_worker_lease.sh — snowflake's workers leased from a coordinator (worker_source=etcd
# and =postgres), each with on_lease_lost=stop and =continue, under --fault
# pause-worker@N:MS, end to end on 2 SQLite shards. After each run the test dumps every
# shard's keys with the sqlite3 CLI and checks, against those keys:
#   - every order is stored, refused as a repeat, or failed:
#     stored + duplicate_rows = ids - failed_orders, and
#     duplicate_ids = (ids - failed_orders) - distinct keys stored (the harness's count);
#   - each shard's keys carry one worker and the two shards' differ (the leases gave
#     distinct workers, and the replacement took the paused generator's, not a new one);
#   - the keys' times span at least the measured pause + ~1 s (the run went on after the
#     resume);
#   - stop: no repeated ID and some failed orders; continue: repeated IDs, no failed order.
# sonyflake (etcd, continue) repeats IDs the same way.
# A missing etcd binary is refused before anything is made (the package named). A run
# that fails after the coordinator and the generators started (the store cannot
# connect) and a coordinator that cannot start both exit 1 with one line; no server and
# no generator is left after any run. Root, etcd, postgres and sqlite3 (else skipped).
# Usage: test_worker_lease.sh IDBENCH
set -u
IDB=${1:?usage: test_worker_lease.sh path/to/idbench}
. "$(dirname "$0")/cli_lib.sh"
command -v sqlite3 >/dev/null || { echo "SKIP: no sqlite3"; exit 77; }
[ "$(id -u)" -eq 0 ] && [ -x /usr/bin/etcd ] || { echo "SKIP: needs root and etcd"; exit 77; }
export TMPDIR="$tmp/t"
mkdir -p "$TMPDIR"
chmod 711 "$tmp"

# none_left: no process works in $TMPDIR (a server's cwd is under it), no generator of
# this idbench runs (their command line is the runner's), idbench removed its directories.
none_left() {
  ! find /proc -maxdepth 2 -name cwd -exec readlink {} + 2>/dev/null | grep -q "^$TMPDIR" &&
    ! ps -C idbench -o args= | grep -qF -- "$IDB insert" && [ -z "$(ls -A "$TMPDIR")" ]
}
# keys DIR: every shard's keys as "shard key" lines (decimal: the column is INTEGER).
keys() {
  for k in 0 1; do sqlite3 "$1/shard-$k/orders.sqlite" 'SELECT id FROM orders' |
    sed "s/^/$k /"; done
}

N=40000
for src in etcd postgres; do
  for mode in stop continue; do
    d="$tmp/$src-$mode"
    what="$src $mode"
    expect 0 "$what: pause-worker@8000:3000" -- "$IDB" insert --store sqlite \
      --strategy snowflake --shards 2 -n $N --batch 100 -o worker_source=$src \
      -o on_lease_lost=$mode --fault pause-worker@8000:3000 --dir "$d"
    dup=$(out_field duplicate_ids) rows=$(out_field duplicate_rows)
    failed=$(out_field failed_orders) pause=$(out_field worker_pause_ms)
    keys "$d" >"$tmp/keys"
    stored=$(wc -l <"$tmp/keys")
    distinct=$(awk '{print $2}' "$tmp/keys" | sort -u | wc -l)
    check "$what: stored $stored + refused $rows = $N - failed $failed" \
      test $((stored + rows)) -eq $((N - ${failed:-0}))
    check "$what: duplicate_ids $dup = $N - $failed - distinct $distinct" \
      test "${dup:-x}" -eq $((N - ${failed:-0} - distinct))
    # worker = bits 12..21 of the key; time = bits 22.. (ms)
    python3 - "$tmp/keys" >"$tmp/workers" <<'PY'
import sys
w = {0: set(), 1: set()}; ms = []
for line in open(sys.argv[1]):
    k, h = line.split(); v = int(h)
    w[int(k)].add(v >> 12 & 0x3FF); ms.append(v >> 22)
print(len(w[0]), len(w[1]), len(w[0] | w[1]), max(ms) - min(ms))
PY
    read -r w0 w1 wall span <"$tmp/workers"
    check "$what: one worker per shard, two in all ($w0 $w1 $wall)" \
      test "$w0" -eq 1 -a "$w1" -eq 1 -a "$wall" -eq 2
    check "$what: paused at least 3000 ms ($pause)" awk -v p="$pause" 'BEGIN { exit !(p >= 3000) }'
    check "$what: keys span the pause and a second after it ($span ms)" \
      awk -v s="$span" -v p="$pause" 'BEGIN { exit !(s >= p + 900) }'
    if [ $mode = stop ]; then
      check "$what: no ID twice ($dup)" test "$dup" -eq 0
      check "$what: the paused generator's orders failed ($failed)" test "$failed" -gt 0
    else
      check "$what: IDs handed out twice ($dup)" test "$dup" -gt 0
      check "$what: no failed order ($failed)" test "$failed" -eq 0
    fi
    check "$what: nothing left" none_left
  done
done

# sonyflake (worker = the low 16 bits) leases the same way: continue repeats IDs.
expect 0 "sonyflake etcd continue" -- "$IDB" insert --store sqlite --strategy sonyflake \
  --shards 2 -n $N --batch 100 -o worker_source=etcd -o on_lease_lost=continue \
  --fault pause-worker@8000:3000 --dir "$tmp/sony"
dup=$(out_field duplicate_ids) failed=$(out_field failed_orders)
keys "$tmp/sony" >"$tmp/keys"
distinct=$(awk '{print $2}' "$tmp/keys" | sort -u | wc -l)
workers=$(awk '{print $1, $2 % 65536}' "$tmp/keys" | sort -u | wc -l)
check "sonyflake continue: IDs handed out twice ($dup)" test "${dup:-0}" -gt 0
check "sonyflake continue: duplicate_ids $dup = $N - $failed - distinct $distinct" \
  test "${dup:-x}" -eq $((N - ${failed:-0} - distinct))
check "sonyflake continue: one worker per shard ($workers shard-worker pairs)" \
  test "$workers" -eq 2
check "sonyflake: nothing left" none_left

expect 1 "a store that cannot connect, after the generators started" -- "$IDB" insert \
  --store postgres --strategy snowflake -n 100 -s dsn=host=/nonexistent -o worker_source=etcd
check "store failure: nothing left" none_left
IDBENCH_ETCD=/nonexistent expect 1 "no etcd binary: refused before anything is made" -- \
  "$IDB" insert --store sqlite --strategy snowflake -n 100 -o worker_source=etcd --dir "$tmp/nd"
check "no etcd binary: names the package" grep -q "etcd-server" "$tmp/err"
check "no etcd binary: no --dir made" test ! -e "$tmp/nd"
IDBENCH_ETCD=/bin/false expect 1 "an etcd that does not start" -- "$IDB" insert \
  --store sqlite --strategy snowflake -n 100 -o worker_source=etcd
check "etcd start failure: says which" grep -q "worker_source=etcd" "$tmp/err"
check "etcd start failure: nothing left" none_left
cli_done
