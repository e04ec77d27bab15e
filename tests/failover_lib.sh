# failover_lib.sh — sourced by test_failover.sh and test_failover_lag.sh (after cli_lib.sh):
# one NAME STRATEGY OPTION... runs an insert of N orders on SQLite with the fault $FAULT
# (default: failover-counter@N/2:DETECT), then dumps the shard's keys with the sqlite3 CLI
# (integers: the store keeps an 8-byte key as one) and checks the run's figures against them:
# duplicate_ids = IDs handed out (ids - failed_orders) - distinct keys stored (and refused),
# lost_ids = (highest - lowest + 1) - distinct keys, every handed-out ID stored or refused,
# failover_ms at least DETECT, and the orders after the kill served (by the promoted
# server: the old primary is dead), so few failed. Its duplicate_ids is left in $dup.
# none_left: no process works in $TMPDIR and nothing is left there.
command -v sqlite3 >/dev/null || { echo "SKIP: no sqlite3"; exit 77; }
export TMPDIR="$tmp/t"
mkdir -p "$TMPDIR"
chmod 711 "$tmp"
none_left() {
  ! find /proc -maxdepth 2 -name cwd -exec readlink {} + 2>/dev/null | grep -q "^$TMPDIR" &&
    [ -z "$(ls -A "$TMPDIR")" ]
}

N=4000
DETECT=150
run=0
# one NAME STRATEGY OPTION...: the run, then its checks against the stored keys.
one() {
  local name=$1 strategy=$2; shift 2
  local opts=() d="$tmp/run$((run += 1))"
  dup=""
  for o in "$@"; do opts+=(-o "$o"); done
  expect 0 "$name: ${FAULT:-failover at $((N / 2))}" -- "$IDB" insert --store sqlite --strategy \
    "$strategy" -n $N --batch 100 --dir "$d" -o timeout_ms=300 "${opts[@]}" \
    --fault "${FAULT:-failover-counter@$((N / 2)):$DETECT}"
  [ -s "$tmp/out" ] || return
  sqlite3 "$d"/shard-0/orders.sqlite 'SELECT id FROM orders' | sort -n >"$tmp/keys"
  local rows failed lost fms stored distinct lo hi
  dup=$(out_field duplicate_ids) rows=$(out_field duplicate_rows)
  failed=$(out_field failed_orders) lost=$(out_field lost_ids) fms=$(out_field failover_ms)
  stored=$(wc -l <"$tmp/keys")
  distinct=$(uniq "$tmp/keys" | wc -l)
  lo=$(head -1 "$tmp/keys") hi=$(tail -1 "$tmp/keys")
  check "$name: every handed-out ID stored or refused ($stored + $rows = $N - $failed)" \
    test $((stored + rows)) -eq $((N - failed))
  # one shard: a repeated ID is refused by the shard's key, so the stored keys are distinct
  check "$name: duplicate_ids $dup = handed out $((N - failed)) - distinct stored $distinct" \
    test "$dup" -eq $((N - failed - distinct))
  check "$name: lost_ids $lost = ($hi - $lo + 1) - distinct $distinct" \
    test "$lost" -eq $((hi - lo + 1 - distinct))
  check "$name: failover_ms $fms >= DETECT_MS $DETECT" \
    awk -v f="$fms" -v d=$DETECT 'BEGIN { exit !(f != "" && f >= d) }'
  check "$name: the orders after the kill were served ($failed failed)" \
    test "$failed" -lt $((N / 10))
  check "$name: IDs above the kill's were handed out ($hi > $((N / 2)))" test "$hi" -gt $((N / 2))
}

