#!/usr/bin/env bash
# test_servers_user.sh — who the private servers run as (docs/servers.md, "Users"):
# 1. as root, with IDBENCH_SERVER_USER naming a user that does not exist, a start creates it
#    (a system user: system uid, no login shell, no home, its own group; said once on
#    stderr) and the postgres, mariadb and redis servers run as it (ps), leaving nothing of
#    it outside DIR once stopped; a later `idbench insert` uses it without a word;
# 2. run as an unprivileged user, `idbench insert` on postgres, on mariadb and with a counter
#    on redis runs each server as that user and leaves no process and nothing in /tmp;
# 3. a bad IDBENCH_SERVER_USER, or another user's name when not root, is bad input.
# The users the test makes are removed at the end, also on failure. Needs root (else skip).
# Usage: test_servers_user.sh IDBENCH SRV_HELPER
set -u
IDB=${1:?usage: test_servers_user.sh IDBENCH SRV_HELPER}
HELPER=${2:?usage: test_servers_user.sh IDBENCH SRV_HELPER}
. "$(dirname "$0")/cli_lib.sh"
SKIP=77                           # meson's "skipped"
if [ "$(id -u)" != 0 ] || ! command -v useradd >/dev/null || ! command -v setpriv >/dev/null
then
  echo "skipped: needs root, useradd and setpriv"; rm -rf "$tmp"; exit $SKIP
fi
N=3000                            # IDs a run inserts
GRACE_TENTHS=100                  # how long (0.1 s) processes may take to go
SYS_UID_MAX=$(awk '$1 == "SYS_UID_MAX" { print $2 }' /etc/login.defs 2>/dev/null)
SYS_UID_MAX=${SYS_UID_MAX:-999}   # login.defs' default

# A user name that does not exist yet.
fresh_user() {
  local u
  while :; do
    u=idbench-test-$1-$RANDOM
    getent passwd "$u" >/dev/null || getent group "$u" >/dev/null || { echo "$u"; return; }
  done
}
made=$(fresh_user m)              # idbench makes it (part 1)
plain=$(fresh_user u)             # the test makes it, an ordinary user (part 2)

# procs USER: the pids of USER's processes (the test's throw-away users only).
procs() { id -u "$1" >/dev/null 2>&1 && pgrep -u "$1" | tr '\n' ' '; }

# gone USER: wait until USER has no process; status 0 when none is left.
gone() {
  local n=0
  while [ -n "$(procs "$1")" ] && [ $n -lt $GRACE_TENTHS ]; do sleep 0.1; n=$((n + 1)); done
  [ -z "$(procs "$1")" ] || { echo "  left: $(procs "$1")"; return 1; }
}

# cleanup: kill what the throw-away users still run, remove them and their groups, $tmp.
cleanup() {
  local u p
  for u in "$made" "$plain"; do
    for p in $(procs "$u"); do kill -KILL "$p" 2>/dev/null; done
    gone "$u" >/dev/null
    # postgres killed (the helper's SIGTERM) leaves its shared memory; a failed check may
    # have left a directory in /tmp: the test's own, removed with its user
    id -u "$u" >/dev/null 2>&1 && {
      find /tmp -mindepth 1 -maxdepth 1 -user "$u" -exec rm -rf {} +
      find /dev/shm -maxdepth 1 -user "$u" -name 'PostgreSQL.*' -delete
      awk -v u="$(id -u "$u")" 'NR > 1 && $8 == u { print $2 }' /proc/sysvipc/shm |
        while read -r id; do ipcrm -m "$id"; done
    }
    getent passwd "$u" >/dev/null && userdel "$u"
    getent group "$u" >/dev/null && groupdel "$u"
  done
  rm -rf "$tmp"
}
trap cleanup EXIT
chmod 711 "$tmp"                  # the servers' users must reach their dirs under it

# owned_outside USER: what USER owns in the shared scratch places, except under $tmp, and
# its System V shared memory segments (postgres's).
owned_outside() {
  local uid
  uid=$(id -u "$1") || return
  find /tmp /var/tmp /dev/shm /run -xdev -user "$1" -not -path "$tmp/*" -print 2>/dev/null |
    head -5
  awk -v u="$uid" 'NR > 1 && $8 == u { print "shm segment " $2 }' /proc/sysvipc/shm
}

# watch OUT CMD...: run CMD in the background (stdout in $tmp/out, stderr in $tmp/err) and,
# every 50 ms while it runs, append the user and command of each of its children (the
# servers are idbench's children; not the `BIN --version` it runs as itself, nor a child
# that is exiting, without a command line, or has exited and waits to be reaped) to OUT.
# The status is CMD's.
watch() {
  local log=$1 pid
  shift
  : >"$log"
  "$@" >"$tmp/out" 2>"$tmp/err" &
  pid=$!
  while kill -0 $pid 2>/dev/null; do
    ps -o user:64=,comm=,stat=,args= --ppid $pid |
      awk '$3 !~ /^Z/ && $4 !~ /^\[/ && $NF != "--version"' >>"$log"
    sleep 0.05
  done
  wait $pid
}

# ran_as LOG COMM USER: LOG saw a COMM process, and every COMM it saw ran as USER.
ran_as() {
  awk -v c="$2" -v u="$3" '$2 == c { seen = 1; if ($1 != u) { bad = 1; print "  ran as: " $0 } }
                           END { exit !(seen && !bad) }' "$1"
}

# --- 1. As root: a user that does not exist is created, and the servers run as it
d=$tmp/made
mkdir "$d"
IDBENCH_SERVER_USER=$made watch "$tmp/ps" "$IDB" insert --store postgres --strategy counter \
  -n $N --shards 2 --dir "$d/run"
st=$?
check "root: insert on 2 postgres shards as a new user: exit 0 (got $st)" test $st = 0
grep -v '^idbench: warning' "$tmp/err" | sed 's/^/  stderr: /' | head -3
IFS=: read -r _ _ uid gid _ home shell < <(getent passwd "$made")
check "... the user $made was created" test -n "${uid:-}"
check "... a system user (uid ${uid:-none} <= $SYS_UID_MAX)" \
  test "${uid:-99999}" -le "$SYS_UID_MAX"
check "... no login shell (${shell:-})" \
  bash -c "case '${shell:-}' in */nologin|*/false) ;; *) false ;; esac"
check "... no home (${home:-})" bash -c "[ '${home:-}' = /nonexistent ] && [ ! -e /nonexistent ]"
check "... its own group" test "$(getent group "$made" | cut -d: -f3)" = "${gid:-none}"
check "... said once on stderr" test "$(grep -c "created the system user $made" "$tmp/err")" = 1
check "... its servers ran as $made" ran_as "$tmp/ps" postgres "$made"
check "... the server dirs are the user's" \
  test "$(stat -c %U "$d/run/shard-0/postgres" "$d/run/shard-1/postgres" | sort -u)" = "$made"
check "... no process of $made left" gone "$made"
check "... $made owns nothing outside DIR" test -z "$(owned_outside "$made")"

# Every kind runs as it (ps -o user of the servers a helper holds); no second note.
IDBENCH_SERVER_USER=$made "$HELPER" "postgres:$d/pg" "mariadb:$d/my" "redis:$d/rd" \
  >"$tmp/held" 2>"$tmp/herr" &
hpid=$!
n=0
while [ "$(grep -c '^pid ' "$tmp/held")" -lt 3 ] && kill -0 $hpid 2>/dev/null &&
      [ $n -lt 1800 ]; do sleep 0.1; n=$((n + 1)); done
check "root: the helper started 3 servers" test "$(grep -c '^pid ' "$tmp/held")" = 3
sed 's/^/  helper: /' "$tmp/herr"
for pid in $(sed -n 's/^pid \([0-9]*\) .*/\1/p' "$tmp/held"); do
  who=$(ps -o user:64= -p "$pid" | tr -d ' ')
  check "root: server $pid ($(ps -o comm= -p "$pid")) runs as $made (got $who)" \
    test "$who" = "$made"
done
check "... no note: the user exists" test ! -s "$tmp/herr"
kill -TERM $hpid
wait $hpid
check "root: no process of $made after the helper's SIGTERM" gone "$made"

# --- 2. As an unprivileged user: the servers run as that user, nothing is left
useradd --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin --user-group "$plain"
home=$tmp/home
mkdir "$home" && chown "$plain:" "$home"
# The build must be reachable by the user; if it is not, run a copy it can read.
idb=$IDB
if ! setpriv --reuid="$plain" --regid="$plain" --clear-groups test -x "$IDB"; then
  mkdir -m 755 "$tmp/bin" && cp "$IDB" "$tmp/bin/" && idb=$tmp/bin/$(basename "$IDB")
fi
# as_user: the command prefix that runs a command as $plain, in $home, with a clean
# environment (the sanitizers' options kept); exec after exec, so $! is idbench's pid.
as_user=(setpriv --reuid="$plain" --regid="$plain" --clear-groups env -i -C "$home"
         PATH=/usr/bin:/bin HOME="$home" USER="$plain" LOGNAME="$plain")
for v in ASAN_OPTIONS LSAN_OPTIONS UBSAN_OPTIONS; do
  [ -n "${!v+set}" ] && as_user+=("$v=${!v}")
done
runs=("postgres|--store postgres --strategy counter"
      "mariadbd|--store mariadb --strategy uuidv7"
      "redis-server|--store null --strategy counter -o backend=redis")
for r in "${runs[@]}"; do
  comm=${r%%|*}
  read -r -a args <<<"${r#*|}"
  watch "$tmp/ps" "${as_user[@]}" "$idb" insert "${args[@]}" -n $N
  st=$?
  check "user: insert ${args[*]}: exit 0 (got $st)" test $st = 0
  [ $st = 0 ] || sed 's/^/  stderr: /' "$tmp/err" | head -3
  check "... a result line" test "$(wc -l <"$tmp/out")" -ge 2
  check "... $comm ran as $plain" ran_as "$tmp/ps" "$comm" "$plain"
  check "... no process of $plain left" gone "$plain"
  check "... nothing of $plain left in /tmp" test -z "$(owned_outside "$plain")"
done

# --- 3. Bad input: exit 2, nothing started
IDBENCH_SERVER_USER=-oroot expect 2 "root: IDBENCH_SERVER_USER not a name" -- \
  "$IDB" insert --store postgres --strategy counter -n 10 --dir "$tmp/bad"
expect 2 "user: IDBENCH_SERVER_USER names another user" -- \
  "${as_user[@]}" IDBENCH_SERVER_USER=root "$idb" insert --store postgres --strategy counter -n 10
check "... no process of $plain left" gone "$plain"
cli_done
