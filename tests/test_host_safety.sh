#!/usr/bin/env bash
# test_host_safety.sh — the private servers cannot be turned against their host (issue 21,
# docs/servers.md "Trust model"). A throw-away unprivileged user is made; the servers run as
# it (IDBENCH_SERVER_USER), so it is the "server's user" of the issue, and every attack is
# run as it against real `idbench insert --store postgres` runs by root:
# 1. a forged pid file in the server's directory (an unrelated process of the test's, sockdir
#    /tmp/idb-decoy), and a record beside it that the user owns: clean and the next insert
#    kill nothing and keep the decoy;
# 2. shard-0/postgres a symlink to a root-only directory (in a shard dir the user owns), and
#    a DIR whose parent the user can write: refused in one line, exit 2, target untouched;
#    a data.partial the user plants is refused until `idbench clean DIR` removes it (and the
#    password copy a killed initdb left, initdb-pw); server.log a symlink to a root-only
#    file: the failed start's message shows none of it;
# 3. kill -9 and SIGINT at 10 moments over a start: every rerun succeeds or refuses in one
#    line naming `idbench clean`, after which it succeeds; nothing listens on TCP;
# 4. `idbench clean DIR` of a live run: refused ("in use by pid N"), the run goes on;
# 5. the /tmp sweep through a bind mount named like a socket directory: nothing removed
#    (said, not passed, when mount is not permitted);
# 6. two inserts side by side and a clean of a third DIR: all pass, nothing left.
# Root only (else skipped). Usage: test_host_safety.sh IDBENCH
set -u
IDB=${1:?usage: test_host_safety.sh IDBENCH}
. "$(dirname "$0")/cli_lib.sh"
SKIP=77
if [ "$(id -u)" != 0 ] || ! command -v useradd >/dev/null || ! command -v setpriv >/dev/null ||
   [ ! -x /usr/lib/postgresql/15/bin/postgres ]; then
  echo "skipped: needs root, useradd, setpriv and postgresql-15"; exit $SKIP
fi
N=2000
ev=idbench-evil-$RANDOM
useradd --system --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin \
  --user-group "$ev" || { echo "cannot make user $ev"; exit 1; }
bg_pids=""
cleanup() {
  for p in $bg_pids; do kill -KILL "$p" 2>/dev/null; done
  pkill -KILL -u "$ev" 2>/dev/null
  sleep 0.5
  mountpoint -q "$tmp/mnt" 2>/dev/null && umount "$tmp/mnt"
  mountpoint -q "$bind" 2>/dev/null && umount "$bind"
  rmdir "$bind" 2>/dev/null
  rm -rf /tmp/idb-decoy-"$$"
  awk -v u="$(id -u "$ev")" 'NR > 1 && $8 == u { print $2 }' /proc/sysvipc/shm |
    while read -r id; do ipcrm -m "$id"; done
  find /tmp -mindepth 1 -maxdepth 1 -user "$ev" -exec rm -rf {} + 2>/dev/null
  userdel "$ev" 2>/dev/null; groupdel "$ev" 2>/dev/null
  rm -rf "$tmp"
}
bind=""
trap cleanup EXIT
chmod 0755 "$tmp"
export IDBENCH_SERVER_USER=$ev
as_ev() { setpriv --reuid="$ev" --regid="$ev" --clear-groups -- "$@"; }
ins() { "$IDB" insert --store postgres --strategy counter -n "$N" --dir "$@"; }
# starttime PID: field 22 of /proc/PID/stat.
starttime() { sed 's/.*) //' /proc/$1/stat | cut -d' ' -f20; }
# ours_listening: TCP listeners of processes running in $tmp (cwd), or on 5432.
ours_listening() {
  ss -ltnpH 2>/dev/null | grep -q ':5432 ' && return 0
  for p in $(ss -ltnpH 2>/dev/null | grep -o 'pid=[0-9]*' | cut -d= -f2 | sort -u); do
    case "$(readlink /proc/$p/cwd 2>/dev/null)" in "$tmp"/*) return 0;; esac
  done
  return 1
}
not_listening() { ! ours_listening; }
# none_left: no process of the throw-away user.
none_left() {
  for _ in $(seq 100); do pgrep -u "$ev" >/dev/null || return 0; sleep 0.1; done
  return 1
}

# --- 1. forged pid files ------------------------------------------------------------------
D=$tmp/forge
expect 0 "a first run" -- ins "$D"
check "the server dir is the user's" test "$(stat -c %U "$D/shard-0/postgres")" = "$ev"
setsid sleep 300 & victim=$!
bg_pids="$bg_pids $victim"
mkdir -p /tmp/idb-decoy-$$ && echo keep >/tmp/idb-decoy-$$/precious
forged() {
  printf 'pid %d\nkind postgres\nstart %s\nsockdir /tmp/idb-decoy-%d\n' \
    "$victim" "$(starttime $victim)" $$
}
forged | as_ev tee "$D/shard-0/postgres/idbench-server.pid" >/dev/null
check "the user wrote a pid file in its directory" test -s "$D/shard-0/postgres/idbench-server.pid"
forged >"$D/shard-0/postgres.idbench-pid"
chown "$ev" "$D/shard-0/postgres.idbench-pid"          # a record the user owns
expect 0 "clean with forged pid files" -- "$IDB" clean "$D"
check "forged: the unrelated process lives" running $victim
check "forged: the decoy stays" test -s /tmp/idb-decoy-$$/precious
check "forged: the user's record is named, not used" grep -q 'postgres.idbench-pid: owned by another user' "$tmp/err"
forged | as_ev tee "$D/shard-0/postgres/idbench-server.pid" >/dev/null
rm -f "$D/shard-0/postgres.idbench-pid"
expect 0 "the next insert on that DIR" -- ins "$D"
check "forged: the process lives after the insert" running $victim
check "forged: the decoy stays after the insert" test -s /tmp/idb-decoy-$$/precious
kill $victim; wait $victim 2>/dev/null
as_ev mkdir "$D/shard-0/postgres/data.partial"          # half-made data, no record
echo pw | as_ev tee "$D/shard-0/postgres/initdb-pw" >/dev/null  # a killed initdb's password copy
expect 2 "half-made data beside a complete cluster" -- ins "$D"
check "half-made: the refusal names idbench clean" grep -q 'idbench clean' "$tmp/err"
expect 0 "half-made: clean" -- "$IDB" clean "$D"
check "half-made: clean removed it" test ! -e "$D/shard-0/postgres/data.partial"
check "half-made: clean removed initdb's password copy" test ! -e "$D/shard-0/postgres/initdb-pw"
expect 0 "half-made: the rerun" -- ins "$D"

# --- 2. symlinks and writable parents -------------------------------------------------------
target=$tmp/root-only
mkdir -m 0700 "$target" && echo secret >"$target/file"
D=$tmp/sym
mkdir -p "$D/shard-0" && chown "$ev" "$D/shard-0"
as_ev ln -s "$target" "$D/shard-0/postgres"
expect 2 "shard-0/postgres a symlink" -- ins "$D"
check "symlink: the target stays root's, 0700" \
  test "$(stat -c '%U %a' "$target")" = "root 700"
check "symlink: nothing put in the target" test "$(ls -A "$target")" = file
P=$tmp/evil-parent
mkdir "$P" && chown "$ev" "$P"
expect 2 "a DIR whose parent another user owns" -- ins "$P/run"
check "writable parent: nothing made" test ! -e "$P/run"
mkdir -m 0777 "$tmp/open"
expect 2 "a DIR whose parent is world-writable, not sticky" -- ins "$tmp/open/run"
check "world-writable parent: nothing made" test ! -e "$tmp/open/run"

# --- 2b. the server's files read by root: server.log a symlink to a root-only file ------------
D=$tmp/logleak
expect 0 "logleak: a first run" -- ins "$D"
(umask 077; echo "TOPSECRET-$$" >"$tmp/rootonly")
as_ev ln -sf "$tmp/rootonly" "$D/shard-0/postgres/server.log"
expect 1 "logleak: a start whose log is a symlink fails" -- ins "$D"
check "logleak: its message shows nothing of the root-only file" \
  bash -c "! grep -q TOPSECRET '$tmp/err' '$tmp/out'"
check "logleak: the root-only file is as it was" grep -qx "TOPSECRET-$$" "$tmp/rootonly"

# --- 3. partial clusters: kill -9 and SIGINT over a start, then rerun --------------------------
D=$tmp/partial
i=0
for t in 0.05 0.2 0.4 0.6 0.8 1.0 1.3 1.7 2.2 3.0; do
  i=$((i + 1))
  sig=KILL; [ $((i % 2)) -eq 0 ] && sig=INT
  rm -rf "$D" 2>/dev/null; "$IDB" clean "$D" >/dev/null 2>&1
  "$IDB" insert --store postgres --strategy counter -n "$N" --dir "$D" >/dev/null 2>&1 &
  run=$!                                      # idbench itself, not a subshell
  sleep "$t"
  kill -$sig $run 2>/dev/null; wait $run 2>/dev/null
  none_left
  "$IDB" insert --store postgres --strategy counter -n "$N" --dir "$D" >"$tmp/out" 2>"$tmp/err"
  st=$?
  if [ $st -ne 0 ]; then
    check "$sig at ${t}s: the refusal is one line naming idbench clean" \
      bash -c "[ \$(wc -l <'$tmp/err') -eq 1 ] && grep -q 'idbench clean' '$tmp/err'"
    expect 0 "$sig at ${t}s: clean" -- "$IDB" clean "$D"
    expect 0 "$sig at ${t}s: the rerun after clean" -- ins "$D"
  else
    check "$sig at ${t}s: the rerun succeeded" true
  fi
  check "$sig at ${t}s: nothing of ours listens on TCP" not_listening
  check "$sig at ${t}s: no server left" none_left
done

# --- 4. clean of a live DIR ---------------------------------------------------------------
D=$tmp/live
"$IDB" insert --store postgres --strategy uuidv4 -n 400000 --dir "$D" >"$tmp/live.out" 2>&1 &
run=$!
bg_pids="$bg_pids $run"
rec=$D/shard-0/postgres.idbench-pid
for _ in $(seq 600); do grep -qs '^ready' "$rec" && break; sleep 0.1; done
spid=$(awk '$1 == "pid" { print $2 }' "$rec")
expect 1 "clean of a live DIR" -- "$IDB" clean "$D"
check "live: says in use by the run's pid" grep -q "in use by pid $run" "$tmp/err"
check "live: its server still runs" running "$spid"
wait $run; st=$?
check "live: the run finished (status $st)" test $st -eq 0
check "live: no server left" none_left

# --- 5. the sweep through a bind mount ----------------------------------------------------
mkdir -p "$tmp/mnt" && echo keep >"$tmp/mnt/precious"
bind=/tmp/idb-999999999-1-AAAAAA
mkdir "$bind"
if mount --bind "$tmp/mnt" "$bind" 2>/dev/null; then
  expect 0 "clean (sweep) with a bind mount named like a socket dir" -- "$IDB" clean
  check "bind mount: nothing removed through it" test -s "$tmp/mnt/precious"
  umount "$bind"
else
  echo "NOT RUN: the sweep through a bind mount (mount --bind is not permitted here)"
fi
rmdir "$bind"

# --- 6. runs side by side ---------------------------------------------------------------
mkdir -p "$tmp/third/shard-0"
(umask 077; printf 'owner 1 1\nkind postgres\nuid 0\n' >"$tmp/third/shard-0/postgres.idbench-pid")
ins "$tmp/side1" >"$tmp/s1" 2>&1 & a=$!
ins "$tmp/side2" >"$tmp/s2" 2>&1 & b=$!
expect 0 "side by side: clean of a third DIR" -- "$IDB" clean "$tmp/third"
wait $a; sa=$?
wait $b; sb=$?
check "side by side: both inserts pass ($sa $sb)" test $sa -eq 0 -a $sb -eq 0
check "side by side: no server left" none_left
check "side by side: no record left" test -z "$(find "$tmp/side1" "$tmp/side2" "$tmp/third" -name '*.idbench-pid')"
check "side by side: no socket dir of theirs left" test -z "$(find /tmp -maxdepth 1 -user "$ev" -name 'idb-*')"
cli_done
