#!/usr/bin/env bash
# test_mariadb.sh — the `mariadb` store against a throw-away server this script starts (and
# stops on every exit path: trap): the store's unit test (test_store_mariadb.c: rows read
# back, page figures against the .ibd file, the relations on small runs), then the command
# line: a run on a user's socket leaves nothing behind, private servers per shard (started
# and stopped by idbench), malformed socket options (exit 2),
# sockets that are no server (exit 1), --clients 4 storing one session's rows, and a server killed in the middle of a run (one
# `idbench: ` line, exit 1). Usage: test_mariadb.sh IDBENCH TEST_STORE_MARIADB
set -u
IDB=${1:?usage: test_mariadb.sh path/to/idbench path/to/test_store_mariadb}
UNIT=${2:?usage: test_mariadb.sh path/to/idbench path/to/test_store_mariadb}
. "$(dirname "$0")/cli_lib.sh"

POOL=6291456                   # smaller than the relation test's index (mariadbd's least)
READY_TENTHS=600               # how long (0.1 s) the server may take to accept connections
srv=$(mktemp -d /tmp/idb-md-XXXXXX)
sock=$srv/s.sock
pid=
stop_server() {
  if [ -n "$pid" ]; then kill -9 "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; pid=; fi
}
trap 'stop_server; rm -rf "$srv" "$tmp"' EXIT

run_as=()
if [ "$(id -u)" -eq 0 ]; then run_as=(--user=mysql); chown mysql "$srv"; fi
chmod 0700 "$srv"
mariadb-install-db --no-defaults --datadir="$srv/data" "${run_as[@]}" \
  --auth-root-authentication-method=socket --skip-test-db >"$srv/install.log" 2>&1 ||
  { echo "FAIL: mariadb-install-db"; tail -5 "$srv/install.log"; exit 1; }
mariadbd --no-defaults --datadir="$srv/data" --socket="$sock" --skip-networking \
  "${run_as[@]}" --innodb-buffer-pool-size=$POOL --innodb-flush-log-at-trx-commit=2 \
  --log-error="$srv/err.log" --pid-file="$srv/pid" >/dev/null 2>&1 &
pid=$!
for ((i = 0; i < READY_TENTHS; i++)); do
  mariadb-admin -S "$sock" ping >/dev/null 2>&1 && break
  kill -0 "$pid" 2>/dev/null || break
  sleep 0.1
done
mariadb-admin -S "$sock" ping >/dev/null 2>&1 || { echo "FAIL: server"; tail "$srv/err.log"; exit 1; }
sql() { mariadb -S "$sock" -N -e "$1"; }

# --- the store's unit test
IDB_MD_SOCKET=$sock IDB_MD_DATADIR=$srv/data "$UNIT"
check "test_store_mariadb passes" test $? -eq 0
check "the unit test left no database" test -z "$(sql "SHOW DATABASES LIKE 'idbench%'")"

# --- a run on the user's server: its own database, dropped; the user's data untouched
sql "CREATE DATABASE mine; CREATE TABLE mine.t (x INT); INSERT INTO mine.t VALUES (1)"
expect 0 "insert on a user's socket" -- "$IDB" insert --store mariadb --strategy uuidv7 \
  -n 3000 -s "socket=$sock"
check "a result line" test "$(wc -l <"$tmp/out")" -eq 2
check "leaf pages counted" test "$(tail -1 "$tmp/out" | cut -d, -f15)" -gt 0
check "its database dropped" test -z "$(sql "SHOW DATABASES LIKE 'idbench%'")"
check "the user's data untouched" test "$(sql "SELECT x FROM mine.t")" = 1
# --series from the progress hook: a row per window; the windows' misses add up to the
# run's; the cache is the server's buffer pool; the .ibd file does not shrink.
# The run's InnoDB figures against the server's own counters read around it by the test
# (SHOW GLOBAL STATUS): each within what the server did meanwhile (the run's set-up and
# ANALYZE add a little), never the server's total since its start (the runs above wrote
# pages before): read_pages from Innodb_pages_read, cache_misses from Innodb_pages_read less
# the read-ahead (Innodb_buffer_pool_read_ahead and _rnd; MariaDB 10.11 counts read-ahead in
# Innodb_buffer_pool_reads too, page for page with Innodb_pages_read).
# status: "PAGES_READ MISSES PAGES_WRITTEN READ_AHEAD" now (MISSES = pages read less read-ahead).
status() {
  sql "SHOW GLOBAL STATUS WHERE Variable_name IN ('Innodb_pages_read', 'Innodb_pages_written',
       'Innodb_buffer_pool_read_ahead', 'Innodb_buffer_pool_read_ahead_rnd')" |
    awk '{ v[$1] = $2 }
         END { ra = v["Innodb_buffer_pool_read_ahead"] + v["Innodb_buffer_pool_read_ahead_rnd"]
               print v["Innodb_pages_read"], v["Innodb_pages_read"] - ra,
                     v["Innodb_pages_written"], ra }'
}
before=$(status)
expect 0 "uuidv4 with --series" -- "$IDB" insert --store mariadb --strategy uuidv4 \
  -n 20000 -s "socket=$sock" --window 5000 --series "$tmp/series.csv"
after=$(status)
read -r b_read b_miss b_written b_ra <<<"$before"
read -r a_read a_miss a_written a_ra <<<"$after"
echo "InnoDB around the run: pages_read +$((a_read - b_read)), of which read ahead" \
  "+$((a_ra - b_ra)), pages_written +$((a_written - b_written)); the run: cache_misses" \
  "$(out_field cache_misses), read_pages $(out_field read_pages), pages_written" \
  "$(out_field pages_written)"
# within(RUN, DELTA): RUN no more than DELTA and at least 95% of it less 50 pages; below(RUN,
# DELTA): above 0 and no more than DELTA (the reads of the run's set-up, ANALYZE and DROP,
# about 190 pages here, fall outside the run's figures but inside DELTA). No read-ahead
# happens in this run: the read-ahead case is below.
within() { awk -v r="$1" -v d="$2" 'BEGIN { exit !(r != "" && r <= d && r >= 0.95 * d - 50) }'; }
below() { awk -v r="$1" -v d="$2" 'BEGIN { exit !(r != "" && r > 0 && r <= d) }'; }
check "cache_misses within the pages read less read-ahead over the run" \
  below "$(out_field cache_misses)" $((a_miss - b_miss))
check "read_pages within Innodb_pages_read over the run" \
  below "$(out_field read_pages)" $((a_read - b_read))
check "pages_written is Innodb_pages_written over the run" \
  within "$(out_field pages_written)" $((a_written - b_written))
miss=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "cache_misses") c = i }
                NR == 2 { print $c }' "$tmp/out")
check "series: 4 windows, misses adding up to the run's $miss, cache $POOL, file growing" \
  awk -F, -v miss="$miss" -v pool="$POOL" 'NR > 1 { n++; if ($4 < last || $4 <= 0) bad = 1
      last = $4; sum += $6; if ($10 != pool) bad = 1 }
    END { exit !(n == 4 && !bad && miss != "" && sum == miss) }' "$tmp/series.csv"
# read_pages and cache_misses where they differ: pages read ahead of need. Inserts alone
# read none ahead here (random read-ahead is off by default; linear read-ahead needs a
# sequential pass over pages already on disk), and the counters are server-wide, so the test
# makes that pass inside the run: a counter run is stopped (SIGSTOP) once its first rows
# are in, the test scans its own cold 100,000-row table (about 1,450 pages, four times the
# buffer pool, laid out in key order: linear read-ahead reads extent after extent), and the
# run goes on. Its read_pages must hold the read-ahead (Innodb_pages_read over the run) and
# its cache_misses must not (the pages read less the read-ahead): the two differ by the
# read-ahead the test counted, and the pages read outside the run's window (set-up,
# ANALYZE, DROP) are the same on both sides.
sql "CREATE DATABASE cold; CREATE TABLE cold.t (id INT PRIMARY KEY, pad CHAR(200) NOT NULL);
     INSERT INTO cold.t SELECT seq, REPEAT('x', 200) FROM cold.seq_1_to_100000"
N=50000
before=$(status)
"$IDB" insert --store mariadb --strategy counter -n $N -s "socket=$sock" \
  >"$tmp/out" 2>"$tmp/err" &
run=$!
db= rows=0
for ((i = 0; i < READY_TENTHS * 2; i++)); do
  [ -n "$db" ] || db=$(sql "SHOW DATABASES LIKE 'idbench%'" 2>/dev/null)
  [ -n "$db" ] && rows=$(sql "SELECT COUNT(*) FROM \`$db\`.orders" 2>/dev/null)
  [ "${rows:-0}" -gt 0 ] && break
  kill -0 "$run" 2>/dev/null || break
  sleep 0.05
done
kill -STOP "$run"
sql "SELECT SUM(LENGTH(pad)) FROM cold.t" >/dev/null
rows=$(sql "SELECT COUNT(*) FROM \`$db\`.orders" 2>/dev/null)
kill -CONT "$run"
wait "$run"
check "the read-ahead run: exit 0" test $? -eq 0
check "the scan fell inside the run (stopped at ${rows:-?} of $N rows)" \
  test "${rows:-0}" -gt 0 -a "${rows:-$N}" -lt $N
after=$(status)
read -r b_read b_miss b_written b_ra <<<"$before"
read -r a_read a_miss a_written a_ra <<<"$after"
rp=$(out_field read_pages) cm=$(out_field cache_misses)
echo "InnoDB around the read-ahead run: pages_read +$((a_read - b_read)), read ahead" \
  "+$((a_ra - b_ra)); the run: read_pages $rp, cache_misses $cm"
check "linear read-ahead happened in the run (+$((a_ra - b_ra)) pages)" \
  test $((a_ra - b_ra)) -ge 500
check "read_pages ($rp) within Innodb_pages_read over the run ($((a_read - b_read)))" \
  below "$rp" $((a_read - b_read))
check "cache_misses ($cm) within the pages read less read-ahead ($((a_miss - b_miss)))" \
  below "$cm" $((a_miss - b_miss))
check "read_pages - cache_misses = the read-ahead over the run ($((a_ra - b_ra)))" \
  test "$((rp - cm))" -eq $((a_ra - b_ra))
sql "DROP DATABASE cold"

expect 0 "keep=1, two shards on one server" -- "$IDB" insert --store mariadb \
  --strategy counter -n 3000 --shards 2 -s "socket=$sock" -s keep=1
check "keep=1 keeps one database per shard" \
  test "$(sql "SHOW DATABASES LIKE 'idbench%'" | wc -l)" -eq 2
for d in $(sql "SHOW DATABASES LIKE 'idbench%'"); do sql "DROP DATABASE \`$d\`"; done
# --clients 4: four sessions store exactly one session's rows (seeded uuidv4: the same IDs)
for c in 1 4; do
  expect 0 "--clients $c on a user's server" -- "$IDB" insert --store mariadb --strategy uuidv4 \
    -n 3000 --batch 100 --seed 7 --clients $c -s "socket=$sock" -s keep=1
  check "--clients $c: no failed transactions" [ "$(out_field failed_txns)" = 0 ]
  fill[$c]=$(out_field fill_factor)
  d=$(sql "SHOW DATABASES LIKE 'idbench%'")
  sql "SELECT HEX(id) FROM \`$d\`.orders ORDER BY id" >"$tmp/keys-$c"
  check "--clients $c: 3000 rows, 3000 distinct" \
    [ "$(sort -u "$tmp/keys-$c" | wc -l)" -eq 3000 -a "$(wc -l <"$tmp/keys-$c")" -eq 3000 ]
  sql "DROP DATABASE \`$d\`"
done
check "--clients 4 stored exactly --clients 1's keys" cmp -s "$tmp/keys-1" "$tmp/keys-4"
# the same random keys fill the leaves alike however many sessions wrote them: fill counts
# every session's rows (it counted open()'s session's alone: about a quarter at 4)
check "--clients 4: fill ${fill[4]} within 0.1 of one session's ${fill[1]}" \
  awk -v a="${fill[1]}" -v b="${fill[4]}" \
    'BEGIN { d = a - b; if (d < 0) d = -d; exit !(a > 0.3 && d <= 0.1) }'
printf '# shards\n%s\n\n%s\n' "$sock" "$sock" >"$tmp/socks"
expect 0 "socket_file, one line per shard" -- "$IDB" insert --store mariadb \
  --strategy counter -n 2000 --shards 2 -s "socket_file=$tmp/socks"
expect 0 "socket=A,B" -- "$IDB" insert --store mariadb --strategy counter -n 2000 \
  --shards 2 -s "socket=$sock,$sock"

# --- the default: a private server per shard in DIR/shard-K/mariadb with the store's
# settings, stopped at the end. DIR is not under $srv: that is mysql's, and a DIR below a
# directory of another user is refused (docs/servers.md, Trust model).
chmod 711 "$tmp"                  # the server user (mysql, as root) must reach DIR
expect 0 "two private servers" -- "$IDB" insert --store mariadb --strategy uuidv7 -n 2000 \
  --shards 2 --dir "$tmp/priv" -s buffer_pool_bytes=16777216
for k in 0 1; do
  check "shard $k: its own server's settings" \
    grep -qx 'innodb_buffer_pool_size=16777216' "$tmp/priv/shard-$k/mariadb/my.cnf"
  check "shard $k: its server stopped" \
    test -z "$(pgrep -f -- "--defaults-file=$tmp/priv/shard-$k/")"
done
check "rows in both shards" test "$(tail -1 "$tmp/out" | cut -d, -f15)" -gt 2

# --- bad input: exit 2
long=/$(printf 'x%.0s' $(seq 120))
for bad in "socket=relative.sock" "socket=$sock," "socket=$long" "socket=,$sock" \
           "socket_file=$tmp/none" "socket_file=/dev/null"; do
  expect 2 "malformed: $bad" -- "$IDB" insert --store mariadb --strategy counter -n 10 -s "$bad"
done
expect 2 "3 shards, 2 sockets" -- "$IDB" insert --store mariadb --strategy counter -n 10 \
  --shards 3 -s "socket=$sock,$sock"
expect 2 "socket and socket_file" -- "$IDB" insert --store mariadb --strategy counter -n 10 \
  -s "socket=$sock" -s "socket_file=$tmp/socks"
expect 2 "page_size not a power of two" -- "$IDB" insert --store mariadb --strategy counter \
  -n 10 -s "socket=$sock" -s page_size=5000

expect 2 "a private server's setting the user's server does not have" -- "$IDB" insert \
  --store mariadb --strategy counter -n 10 -s "socket=$sock" -s buffer_pool_bytes=16777216
expect 0 "a private server's setting the user's server has" -- "$IDB" insert \
  --store mariadb --strategy counter -n 10 -s "socket=$sock" -s buffer_pool_bytes=$POOL

# --- runtime failures: exit 1
: >"$tmp/plain"
expect 1 "a socket that does not exist" -- "$IDB" insert --store mariadb --strategy counter \
  -n 10 -s "socket=$tmp/nothing.sock"
expect 1 "a regular file as the socket" -- "$IDB" insert --store mariadb --strategy counter \
  -n 10 -s "socket=$tmp/plain"
python3 -c 'import socket,sys,time; s=socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); s.listen(); c,_=s.accept(); c.sendall(b"HTTP/1.0 200 OK\r\n\r\n"); time.sleep(2)' \
  "$tmp/other.sock" &
other=$!
for ((i = 0; i < 50; i++)); do [ -S "$tmp/other.sock" ] && break; sleep 0.1; done
expect 1 "a socket that is not a MariaDB server" -- "$IDB" insert --store mariadb \
  --strategy counter -n 10 -s "socket=$tmp/other.sock"
kill "$other" 2>/dev/null; wait "$other" 2>/dev/null

# --- the server killed in the middle of a run (last: it ends the server)
"$IDB" insert --store mariadb --strategy uuidv4 -n 2000000 -s "socket=$sock" \
  >"$tmp/kout" 2>"$tmp/kerr" &
run=$!
for ((i = 0; i < 100; i++)); do
  [ -n "$(sql "SHOW DATABASES LIKE 'idbench%'" 2>/dev/null)" ] && break
  sleep 0.1
done
sleep 0.5
stop_server
wait "$run"
status=$?
check "killed server: exit 1" test "$status" -eq 1
check "killed server: one idbench: line" \
  test "$(wc -l <"$tmp/kerr")" -eq 1 -a "$(grep -c '^idbench: ' "$tmp/kerr")" -eq 1
check "killed server: no result" test ! -s "$tmp/kout"
sed 's/^/  /' "$tmp/kerr"

# The matrix runs its cells with TMPDIR set to its scratch directory (root's, 0711): a
# private server must still start there (mariadb-install-db needs a TMPDIR its user can
# write) and the matrix must list its rows.
cat >"$tmp/mx.ini" <<'INI'
[matrix]
repeat = 1
[generation]
enabled = 0
[insert]
stores = mariadb
strategies = counter, uuidv4
sizes = 2000
key_bytes = 16
[curve]
enabled = 0
[openloop]
enabled = 0
[series]
enabled = 0
[simulate]
enabled = 0
[claims]
enabled = 0
INI
expect 0 "matrix with mariadb cells" -- "$IDB" matrix "$tmp/mx.ini" --out "$tmp/mx"
check "the matrix has both mariadb rows" test "$(grep -c ',mariadb,' "$tmp/mx/insert.csv")" -eq 2
check "no mariadbd left by the matrix" test -z "$(pgrep -f "$tmp/mx" || true)"

IDBENCH_MARIADBD=$tmp/none expect 0 "a matrix without MariaDB" -- \
  "$IDB" matrix "$tmp/mx.ini" --out "$tmp/mx2"
check "... says mariadb is skipped, and why" grep -q 'store mariadb skipped: .*missing' "$tmp/err"
check "... meta.json lists it as skipped" grep -q '"skipped": \["mariadb: ' "$tmp/mx2/meta.json"
check "... and no failed cell" grep -q '"cells_failed": 0' "$tmp/mx2/meta.json"

cli_done
