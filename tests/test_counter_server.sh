#!/usr/bin/env bash
# test_counter_server.sh — the counter on a real server (backend=postgres|redis), end to end
# through the command line: exactly 1..N from 2 threads on every backend (segment's and
# range's block boundaries included); no duplicate after a postgres kill and restart; Redis
# with durability=none hands IDs out again after a kill (duplicate_ids > 0: the hazard is
# detected and reported), durability=always does not, and so says a matrix's [counterkill]
# block (counterkill.csv and the counter_kill plot); bad input exits 2, an unreachable,
# silent or garbage-speaking server exits 1 with one line, in time; no server is left.
# transport=tcp on both backends (the run's password); a secret_file= others could read, a
# symlink, or a file with another hard link, is bad input.
# A postgres kill at timeout_ms=20 (shorter than the first connection after a crash restart)
# recovers: only a bounded number of orders fail. A SIGKILLed idbench's socket directory in
# /tmp is removed by `idbench clean` (no DIR) and by the next server start, never while the
# run lives.
# Usage: test_counter_server.sh IDBENCH
set -u
IDB=${1:?usage: test_counter_server.sh path/to/idbench}
. "$(dirname "$0")/cli_lib.sh"

field() {
  awk -F, -v name="$1" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == name) c = i }
                        NR == 2 && c { print $c }' "$tmp/out"
}
# exactly N: the IDs in $tmp/out are exactly 1..N, each once.
exactly() { sort -n "$tmp/out" | cmp -s - <(seq 1 "$1"); }
# The servers' files go under idbench's temporary directories: under $TMPDIR, here.
export TMPDIR="$tmp/t"
mkdir -p "$TMPDIR"
chmod 711 "$tmp"
# none_left: no process works in $TMPDIR (a server's cwd is its data or its directory) and
# idbench removed its directories there.
none_left() {
  ! find /proc -maxdepth 2 -name cwd -exec readlink {} + 2>/dev/null | grep -q "^$TMPDIR" &&
    [ -z "$(ls -A "$TMPDIR")" ]
}

# --- exactly 1..N from 2 threads, per backend
N=2000
expect 0 "counter@postgres, 2 threads" -- "$IDB" gen counter -n $N -t 2 -o backend=postgres
check "counter@postgres: exactly 1..$N" exactly $N
expect 0 "counter@redis, 2 threads" -- "$IDB" gen counter -n $N -t 2 -o backend=redis
check "counter@redis: exactly 1..$N" exactly $N
expect 0 "segment@postgres, 2 threads, block 7" -- \
  "$IDB" gen segment -n $N -t 2 -o backend=postgres -o block=7
check "segment@postgres: exactly 1..$N across blocks of 7" exactly $N
expect 0 "range@postgres, 2 threads, ranges of 100" -- \
  "$IDB" gen range -n $N -t 2 -o backend=postgres -o range_size=100
check "range@postgres: IDs from range 0 on, each once" \
  test "$(sort -n "$tmp/out" | uniq | wc -l)" -eq $N -a "$(sort -n "$tmp/out" | head -1)" -eq 1
expect 0 "counter@redis over loopback TCP" -- \
  "$IDB" gen counter -n 50 -o backend=redis -o transport=tcp
check "counter@redis tcp: exactly 1..50" exactly 50
expect 0 "counter@postgres over loopback TCP (its password from the run's secret file)" -- \
  "$IDB" gen counter -n 50 -o backend=postgres -o transport=tcp
check "counter@postgres tcp: exactly 1..50" exactly 50
# a secret file that others could read, that is a symlink or has another hard link is refused
# before connecting
printf 'pw\n' >"$tmp/pw" && chmod 644 "$tmp/pw" && ln -s "$tmp/pw" "$tmp/pwlink"
expect 2 "secret_file readable by others is refused" -- "$IDB" gen counter -n 1 \
  -o backend=redis -o "url=unix:$tmp/nowhere" -o "secret_file=$tmp/pw"
check "secret_file readable by others: says so" grep -q 'group or others' "$tmp/err"
chmod 600 "$tmp/pw"
expect 2 "secret_file through a symlink is refused" -- "$IDB" gen counter -n 1 \
  -o backend=redis -o "url=unix:$tmp/nowhere" -o "secret_file=$tmp/pwlink"
# a second hard link (one another user made to a file of ours, e.g. in a server user's dir)
ln "$tmp/pw" "$tmp/pwhard"
expect 2 "secret_file with another hard link is refused" -- "$IDB" gen counter -n 1 \
  -o backend=redis -o "url=unix:$tmp/nowhere" -o "secret_file=$tmp/pwhard"
check "secret_file with another hard link: says so" grep -q 'hard link' "$tmp/err"
rm -f "$tmp/pwhard"

# --- bench: the server cells at 1, 2 and 4 threads, segment's block reported
expect 0 "bench the counter servers' cells" -- "$IDB" bench --benchmark_filter='@' \
  --benchmark_min_time=0.001
for cell in counter@postgres counter@redis segment@postgres; do
  check "bench $cell at 1, 2 and 4 threads" \
    test "$(grep -cE "^gen/$cell/real_time/threads:(1|2|4) " "$tmp/out")" -eq 3
done
check "bench segment@postgres says its block size" grep -q 'blocks of 100000 IDs' "$tmp/err"
check "bench: no server left" none_left

# --- bad input: exit 2, nothing started
for bad in "backend=mysql" "backend=postgres -o dsn=hos=x" "backend=redis -o url=nohostport" \
    "backend=postgres -o timeout_ms=0" "backend=postgres -o rtt_us=-1" \
    "backend=redis -o durability=sometimes" "backend=postgres -o name=a-b"; do
  # shellcheck disable=SC2086
  expect 2 "gen counter -o $bad is refused" -- "$IDB" gen counter -n 1 -o $bad
done
expect 2 "segment has no redis backend" -- "$IDB" gen segment -n 1 -o backend=redis
expect 2 "kill-counter without a server idbench starts" -- \
  "$IDB" insert --store null --strategy counter -n 10 --fault kill-counter@5
expect 2 "kill-counter with a misspelled fault" -- \
  "$IDB" insert --store null --strategy counter -n 10 -o backend=redis --fault kill-ctr@5
check "a misspelled fault's line names the faults there are" \
  grep -q "is not one of kill-counter@N\[:RESTART_MS\]" "$tmp/err"
expect 2 "kill-counter@N beyond the orders" -- \
  "$IDB" insert --store null --strategy counter -n 10 -o backend=redis --fault kill-counter@10
expect 2 "two faults in one run" -- "$IDB" insert --store null --strategy counter -n 10 \
  -o backend=redis --fault kill-counter@3 --fault kill-counter@4
expect 2 "kill-counter@N:MS with a bad MS" -- \
  "$IDB" insert --store null --strategy counter -n 10 -o backend=redis --fault kill-counter@3:5x

# --- servers that do not serve: exit 1 with one line, within the timeout
expect 1 "an unreachable postgres" -- \
  "$IDB" gen counter -n 1 -o backend=postgres -o "dsn=host=$tmp/nowhere" -o timeout_ms=200
expect 1 "an unreachable redis" -- \
  "$IDB" gen counter -n 1 -o backend=redis -o "url=unix:$tmp/nowhere" -o timeout_ms=200
# a socket that accepts and stays silent, and one that answers garbage
python3 - "$tmp/silent.sock" "$tmp/garbage.sock" <<'PY' &
import os, socket, sys, threading, time
def serve(path, reply):
    s = socket.socket(socket.AF_UNIX); s.bind(path); s.listen(8)
    while True:
        c, _ = s.accept()
        if reply:
            c.recv(1024); c.sendall(reply)
        threading.Thread(target=lambda c=c: time.sleep(30), daemon=True).start()
threading.Thread(target=serve, args=(sys.argv[1], b""), daemon=True).start()
threading.Thread(target=serve, args=(sys.argv[2], b"%not redis\r\n"), daemon=True).start()
time.sleep(30)
PY
fake=$!
for _ in $(seq 50); do [ -S "$tmp/garbage.sock" ] && break; sleep 0.1; done
t0=$(date +%s%N)
expect 1 "a silent server: the timeout ends the wait" -- \
  "$IDB" gen counter -n 1 -o backend=redis -o "url=unix:$tmp/silent.sock" -o timeout_ms=300
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
check "no server left after the first runs" none_left
# not before the timeout, and long before the server's 30 s (the timeout ended the wait;
# an upper bound of 3 s was a timing a loaded host broke)
check "a silent server: gave up after 300 ms, before the server's 30 s (took $ms)" \
  test "$ms" -ge 300 -a "$ms" -lt 25000
expect 1 "a garbage reply" -- \
  "$IDB" gen counter -n 1 -o backend=redis -o "url=unix:$tmp/garbage.sock" -o timeout_ms=300
kill "$fake" 2>/dev/null; wait "$fake" 2>/dev/null

# --- kill and restart during an insert
run=(insert --store sqlite --shards 1 -n 1200 --batch 100)
# timeout_ms=20 is shorter than the first connection to a postgres restarted after a crash
# (its first backend rebuilds the relation cache's init files): the client must carry a
# connection attempt over from order to order, or every order after the kill fails (800).
# The outage (300 ms at 20 ms an order) fails about 15, the reconnection a few more.
PG_KILL_FAILED_MAX=100
expect 0 "postgres killed after 400 orders, timeout_ms=20" -- "$IDB" "${run[@]}" \
  --strategy counter -o backend=postgres -o timeout_ms=20 --dir "$tmp/pg" \
  --fault kill-counter@400:300
check "postgres kill: some orders failed ($(field failed_orders))" test "$(field failed_orders)" -gt 0
check "postgres kill: down at least the 300 ms asked ($(field counter_down_ms))" \
  awk -v d="$(field counter_down_ms)" 'BEGIN { exit !(d >= 300) }'
check "postgres kill, timeout_ms=20: orders after the restart succeed ($(field failed_orders)\
 of 800 failed, at most $PG_KILL_FAILED_MAX)" test "$(field failed_orders)" -le $PG_KILL_FAILED_MAX
check "postgres kill: no duplicate ($(field duplicate_ids))" test "$(field duplicate_ids)" -eq 0
check "postgres kill: no server left, no server files" none_left
expect 0 "redis durability=none killed after 400 orders" -- "$IDB" "${run[@]}" \
  --strategy counter -o backend=redis -o durability=none -o timeout_ms=20 --dir "$tmp/rn" \
  --fault kill-counter@400:100
check "redis none: IDs handed out again are counted ($(field duplicate_ids))" \
  test "$(field duplicate_ids)" -gt 0
check "redis none: no server left" none_left
expect 0 "redis durability=always killed after 400 orders" -- "$IDB" "${run[@]}" \
  --strategy counter -o backend=redis -o durability=always -o timeout_ms=20 \
  --dir "$tmp/ra" --fault kill-counter@400:100
check "redis always: no duplicate ($(field duplicate_ids))" test "$(field duplicate_ids)" -eq 0
check "redis always: some orders failed ($(field failed_orders))" test "$(field failed_orders)" -gt 0
check "redis always: down at least the 100 ms asked ($(field counter_down_ms))" \
  awk -v d="$(field counter_down_ms)" 'BEGIN { exit !(d >= 100) }'
expect 0 "no fault: the columns are 0" -- "$IDB" "${run[@]}" --strategy counter \
  -o backend=postgres --dir "$tmp/p0"
check "no fault: failed_orders 0, duplicate_ids 0" \
  test "$(field failed_orders),$(field duplicate_ids)" = "0,0"
check "no fault: counter_down_ms empty ($(field counter_down_ms))" test -z "$(field counter_down_ms)"

# --- a server killed from outside while idbench waits on it: exit 1, one line, no hang
"$IDB" insert --store null --strategy counter -n 2000000 -o backend=redis -o rtt_us=20 \
  -o timeout_ms=200 --dir "$tmp/k" >"$tmp/out" 2>"$tmp/err" &
idb=$!
pidf=""
for _ in $(seq 100); do
  pidf=$(find "$TMPDIR" -name '*.idbench-pid' 2>/dev/null | head -1)
  [ -n "$pidf" ] && grep -qs '^ready' "$pidf" && break; sleep 0.1
done
sleep 0.3
kill -9 "$(awk '/^pid / { print $2 }' "$pidf")" 2>/dev/null
for _ in $(seq 100); do kill -0 "$idb" 2>/dev/null || break; sleep 0.1; done
check "killed from outside: idbench ended by itself" bash -c "! kill -0 $idb 2>/dev/null"
kill -9 "$idb" 2>/dev/null
wait "$idb"; st=$?
check "killed from outside: exit 1 (got $st)" test "$st" -eq 1
check "killed from outside: one idbench: line" \
  bash -c "[ \$(wc -l <'$tmp/err') -eq 1 ] && grep -q '^idbench: ' '$tmp/err'"
check "killed from outside: no server left" none_left

# --- idbench itself SIGKILLed during a run: its counter server dies with it (deathsig) and
# leaves its socket directory /tmp/idb-PID-START-XXXXXX (PID: idbench's); `idbench clean`
# without DIR removes it, and so does the next server start, but never while its run lives.
# sockdir_of PID: the socket directories named after idbench process PID.
sockdir_of() { ls -d /tmp/idb-"$1"-* 2>/dev/null; }
# start_run: an insert on a redis counter server in the background; sets $victim (idbench's
# pid) and $spid (the server's) once the server runs.
start_run() {
  "$IDB" insert --store null --strategy counter -n 2000000 -o backend=redis -o timeout_ms=200 \
    --dir "$tmp/kr" >/dev/null 2>&1 &
  victim=$!
  local pidf=""
  for _ in $(seq 100); do
    pidf=$(find "$TMPDIR" -name '*.idbench-pid' 2>/dev/null | head -1)
    [ -n "$pidf" ] && grep -qs '^ready' "$pidf" && break; sleep 0.1
  done
  spid=$(awk '/^pid / { print $2 }' "$pidf")
}
# kill_run: SIGKILL idbench, wait for its server to go, drop the run's private temporary
# directory (under $TMPDIR: not the sweep's business).
kill_run() {
  kill -9 "$victim"; wait "$victim" 2>/dev/null
  for _ in $(seq 50); do running "$spid" || break; sleep 0.1; done
  rm -rf "${TMPDIR:?}"/idbench.*
}
start_run
check "a live run has its socket dir ($(sockdir_of $victim))" test -d "$(sockdir_of $victim)"
expect 0 "clean during a live run" -- "$IDB" clean
check "clean keeps a live run's socket dir" test -d "$(sockdir_of $victim)"
check "clean keeps a live run's server" running "$spid"
kill_run
check "SIGKILL: the server died with idbench" not_running "$spid"
check "SIGKILL: the socket dir stays until a clean ($(sockdir_of $victim))" \
  test -d "$(sockdir_of $victim)"
expect 0 "clean without DIR" -- "$IDB" clean
check "clean removed the killed run's socket dir" test -z "$(sockdir_of $victim)"
check "clean says what it removed" grep -q '^removed [1-9][0-9]* socket director' "$tmp/out"
start_run
kill_run
check "SIGKILL again: the socket dir stays" test -d "$(sockdir_of $victim)"
expect 0 "the next run's server start" -- "$IDB" gen counter -n 5 -o backend=redis
check "the next start removed the killed run's socket dir" test -z "$(sockdir_of $victim)"
check "SIGKILLed runs: no server left" none_left
# --- the matrix's [counterkill] block: a row per run in counterkill.csv, and the plot
cat >"$tmp/kill.ini" <<'EOF'
[matrix]
repeat = 1
[generation]
enabled = 0
[insert]
enabled = 0
[curve]
enabled = 0
[openloop]
enabled = 0
[simulate]
enabled = 0
[claims]
enabled = 0
[counterkill]
enabled = 1
runs = redis:none, redis:always
EOF
expect 0 "matrix [counterkill]" -- "$IDB" matrix "$tmp/kill.ini" --out "$tmp/km"
# kill_col RUN COLUMN: COLUMN of RUN's row in counterkill.csv
kill_col() {
  awk -F, -v run="$1" -v name="$2" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == name) c = i }
    NR > 1 && $1 == run && c { print $c }' "$tmp/km/counterkill.csv"
}
check "matrix: redis:none handed IDs out twice ($(kill_col redis:none duplicate_ids))" \
  test "$(kill_col redis:none duplicate_ids)" -gt 0
check "matrix: redis:always did not ($(kill_col redis:always duplicate_ids))" \
  test "$(kill_col redis:always duplicate_ids)" = 0
check "matrix: the counter_kill plot" test -s "$tmp/km/plots/counter_kill.png"
check "matrix: report.md says the count" grep -q \
  "redis:none\` handed out $(kill_col redis:none duplicate_ids) IDs twice" "$tmp/km/report.md"
check "matrix: no server left" none_left
printf '[counterkill]\nruns = redis:fast\n' >"$tmp/bad.ini"
expect 2 "matrix: a bad [counterkill] run is refused" -- \
  "$IDB" matrix "$tmp/kill.ini" "$tmp/bad.ini" --out "$tmp/kb"
cli_done
