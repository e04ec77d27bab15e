#!/usr/bin/env bash
# test_host_listeners.sh — no server idbench starts answers another local user (issue 21,
# point 3; docs/servers.md, "Listeners and secrets"). Two inserts run at once: one on a
# postgres store with a counter on redis over TCP (-o backend=redis -o transport=tcp), one
# on a mariadb store with a counter on postgres over TCP (-o backend=postgres
# -o transport=tcp). While they run, a throw-away unprivileged user made by the test tries
# every server: psql / mariadb / redis-cli on each Unix socket and each TCP port, without a
# password and with a wrong one; every attempt must fail (permission denied on the socket's
# 0700 directory, or authentication refused). All along, `ss -ltnpH` (polled) must show no
# listener of these servers on anything but 127.0.0.1 / ::1, and only the counter servers
# listen on TCP at all. The secret files (DIR/idbench-secret) are 0600 and idbench's, and no
# secret is on a command line (`ps -eo args`). Root only (else skipped); the user is removed
# by a trap, also on failure.
# Usage: test_host_listeners.sh IDBENCH
set -u
IDB=${1:?usage: test_host_listeners.sh IDBENCH}
. "$(dirname "$0")/cli_lib.sh"
SKIP=77                           # meson's "skipped"
for t in useradd userdel runuser ss psql mariadb redis-cli; do
  command -v "$t" >/dev/null || { echo "skipped: needs root and $t"; rm -rf "$tmp"; exit $SKIP; }
done
[ "$(id -u)" = 0 ] || { echo "skipped: needs root"; rm -rf "$tmp"; exit $SKIP; }
for b in /usr/lib/postgresql/15/bin/postgres /usr/sbin/mariadbd /usr/bin/redis-server; do
  [ -x "$b" ] || { echo "skipped: $b missing"; rm -rf "$tmp"; exit $SKIP; }
done
N=50000000                        # orders: more than the test lets the runs do
WAIT_TENTHS=1800                  # how long (0.1 s) the servers may take to come up

user=idbl-$$-$RANDOM
runs=()
# cleanup: stop the runs (SIGTERM: idbench stops its servers), kill what the user still
# runs, remove the user and $tmp.
cleanup() {
  local p
  [ -n "${poller:-}" ] && kill "$poller" 2>/dev/null
  for p in "${runs[@]}"; do kill -TERM "$p" 2>/dev/null; done
  for p in "${runs[@]}"; do wait "$p" 2>/dev/null; done
  for p in $(pgrep -u "$user" 2>/dev/null); do kill -KILL "$p" 2>/dev/null; done
  userdel "$user" 2>/dev/null
  rm -rf "$tmp"
}
trap cleanup EXIT
useradd --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin --user-group \
  "$user" || { echo "FAIL: useradd $user"; exit 1; }
export TMPDIR="$tmp/t"
mkdir -p "$TMPDIR"
chmod 711 "$tmp"

# servers: "PID COMM" of every server process whose parent is one of the runs.
servers() {
  local p
  for p in "${runs[@]}"; do
    ps -o pid=,comm= --ppid "$p" 2>/dev/null | awk '$2 ~ /^(postgres|mariadbd|redis-server)$/'
  done
}
# poll: every 0.2 s, each TCP listener of a server of the runs (ppid one of them) that is
# not on loopback goes into $tmp/wide, each one on loopback into $tmp/loop (the ports).
poll() {
  local pids
  while :; do
    pids=$(servers | awk '{ print $1 }' | paste -sd'|')
    if [ -n "$pids" ]; then
      ss -ltnpH | grep -E "pid=($pids)," | awk '{ print $4 }' |
        while read -r addr; do
          case "$addr" in
            127.0.0.1:*|'[::1]:'*) echo "$addr" >>"$tmp/loop" ;;
            *) echo "$addr" >>"$tmp/wide" ;;
          esac
        done
    fi
    sleep 0.2
  done
}
"$IDB" insert --store postgres --strategy counter -n $N --batch 100 --dir "$tmp/a" \
  -o backend=redis -o transport=tcp >"$tmp/a.out" 2>"$tmp/a.err" &
runs+=($!)
"$IDB" insert --store mariadb --strategy counter -n $N --batch 100 --dir "$tmp/b" \
  -o backend=postgres -o transport=tcp >"$tmp/b.out" 2>"$tmp/b.err" &
runs+=($!)
: >"$tmp/wide"
: >"$tmp/loop"
poll &                            # from the first instant of the runs' servers
poller=$!

# up: the four servers run and accept (each has its listeners).
up() {
  local want=4 n
  n=$(servers | wc -l)
  [ "$(servers | awk '$2 == "postgres"' | wc -l)" -eq 2 ] && [ "$n" -ge "$want" ] &&
    [ "$(ss -lxpH | grep -cE "pid=($(servers | awk '{ print $1 }' | paste -sd'|')),")" -ge $want ]
}
for _ in $(seq $WAIT_TENTHS); do up && break; sleep 0.1; done
check "the two runs' four servers are up ($(servers | awk '{ print $2 }' | tr '\n' ' '))" up
sleep 1                           # the inserts are under way: rows go in meanwhile

# as_user CMD...: run CMD as the throw-away user, from a directory it may enter, no stdin;
# prints what it wrote (stdout and stderr).
as_user() { (cd / && runuser -u "$user" -- timeout 10 "$@" </dev/null 2>&1); }
# denied WHAT CMD...: CMD run as the user must fail, or print nothing that looks like an
# answer (redis-cli exits 0 on an error reply: its output must be an error).
denied() {
  local what=$1 out st; shift
  out=$(as_user "$@"); st=$?
  if [ $st -ne 0 ] || grep -qE 'NOAUTH|WRONGPASS|denied|Permission|ERROR|error' <<<"$out"; then
    check "$what: refused ($(head -1 <<<"$out" | cut -c1-70))" true
  else
    check "$what: refused (it answered: $(head -1 <<<"$out" | cut -c1-70))" false
  fi
}

# Per server: its Unix sockets and its TCP ports, and every way in as the user.
while read -r pid comm; do
  socks=$(ss -lxpH | grep "pid=$pid," | awk '{ print $5 }')
  ports=$(ss -ltnpH | grep "pid=$pid," | awk '{ print $4 }' | sed 's/.*://' | sort -u)
  echo "server $comm $pid: sockets $socks, ports ${ports:-none}"
  for s in $socks; do
    d=$(dirname "$s")
    check "$comm $pid: socket dir $d is 0700 ($(stat -c '%a %U' "$d"))" \
      test "$(stat -c %a "$d")" = 700
    case $comm in
      postgres)
        denied "postgres socket $s" psql -X -w -h "$d" -p "${s##*.}" -U idbench -d postgres \
          -c 'select 1'
        denied "postgres socket $s as postgres" psql -X -w -h "$d" -p "${s##*.}" -U postgres \
          -d postgres -c 'select 1' ;;
      mariadbd)
        denied "mariadb socket $s" mariadb -S "$s" -u root -e 'select 1' ;;
      redis-server)
        denied "redis socket $s" redis-cli -s "$s" incr order_id ;;
    esac
  done
  for p in $ports; do
    case $comm in
      postgres)
        denied "postgres tcp $p" psql -X -w -h 127.0.0.1 -p "$p" -U idbench -d postgres \
          -c 'select 1'
        denied "postgres tcp $p, wrong password" env PGPASSWORD=wrong psql -X -w -h 127.0.0.1 \
          -p "$p" -U idbench -d postgres -c 'select 1'
        denied "postgres tcp $p as postgres" psql -X -w -h 127.0.0.1 -p "$p" -U postgres \
          -d postgres -c 'select 1' ;;
      mariadbd)
        denied "mariadb tcp $p" mariadb -h 127.0.0.1 -P "$p" -u root -e 'select 1'
        denied "mariadb tcp $p, wrong password" mariadb -h 127.0.0.1 -P "$p" -u root \
          -pwrong -e 'select 1' ;;
      redis-server)
        denied "redis tcp $p" redis-cli -h 127.0.0.1 -p "$p" incr order_id
        denied "redis tcp $p, wrong password" env REDISCLI_AUTH=wrong redis-cli -h 127.0.0.1 \
          -p "$p" incr order_id
        denied "redis tcp $p, set the counter back" redis-cli -h 127.0.0.1 -p "$p" \
          set order_id 1 ;;
    esac
  done
done < <(servers)
check "a counter server listens on loopback TCP (else nothing above tried TCP)" test -s "$tmp/loop"

# The secrets: one per TCP counter server, 0600, idbench's (root), in no command line.
secrets=$(find "$TMPDIR" "$tmp/a" "$tmp/b" -name idbench-secret 2>/dev/null)
check "two secret files, one per TCP server ($(wc -w <<<"$secrets"))" test "$(wc -w <<<"$secrets")" -eq 2
for f in $secrets; do
  check "$f: 0600 root ($(stat -c '%a %U' "$f"))" test "$(stat -c '%a %U' "$f")" = "600 root"
  check "$f: a 32-hex secret" grep -qxE '[0-9a-f]{32}' "$f"
  ps -eo args >"$tmp/ps"
  check "$f: the secret is on no command line" bash -c "! grep -qF -f '$f' '$tmp/ps'"
  denied "the user reads $f" cat "$f"
done

for p in "${runs[@]}"; do
  check "run $p still going (no server failed meanwhile)" running "$p"
done
spids=$(servers | awk '{ print $1 }')
for p in "${runs[@]}"; do kill -TERM "$p"; done
for p in "${runs[@]}"; do wait "$p" 2>/dev/null; done
runs=()
for p in $spids; do
  for _ in $(seq 100); do running "$p" || break; sleep 0.1; done
  check "server $p is gone with its run" not_running "$p"
done
kill "$poller" 2>/dev/null; wait "$poller" 2>/dev/null; poller=
check "no server of the runs listened on anything but loopback ($(sort -u "$tmp/wide" | tr '\n' ' '))" \
  test ! -s "$tmp/wide"
check "only loopback ports were seen: $(sort -u "$tmp/loop" | tr '\n' ' ')" test -s "$tmp/loop"
cli_done
