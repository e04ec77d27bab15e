#!/usr/bin/env bash
# test_servers.sh — no private server outlives idbench: a process holding servers
# (tests/srv_helper) stopped by SIGINT leaves no process and no socket directory; SIGKILLed,
# its servers die with it (PR_SET_PDEATHSIG), and with that disabled (--no-deathsig, a stale
# server) `idbench clean DIR` or the next start in the same dir stops them; clean never
# signals a process whose start time differs from its pid file's; clean's bad input. Without
# DIR, clean sweeps /tmp's socket directories of ended runs: only those whose owner and
# server are gone, never a symlink, another user's directory or a name it did not make.
# Every process a run starts carries a tag in its environment, so none can hide.
# Usage: test_servers.sh IDBENCH SRV_HELPER KIND...
set -u
IDB=${1:?usage: test_servers.sh IDBENCH SRV_HELPER KIND...}
HELPER=${2:?usage: test_servers.sh IDBENCH SRV_HELPER KIND...}
shift 2
. "$(dirname "$0")/cli_lib.sh"
set -m            # job control: a background job gets SIGINT (without it, the shell ignores it)
chmod 711 "$tmp"  # as root, the servers' users must reach their dirs under it

tag=idbench-servers-$$-$RANDOM
GRACE_TENTHS=50   # how long (0.1 s) processes may take to go

# tagged: the pids of live processes started under the tag (zombies have no environment),
# and of the servers the helpers reported (redis-server overwrites its environment with its
# process title).
tagged() {
  local p
  grep -lsxz "IDB_TEST_TAG=$tag" /proc/[0-9]*/environ | cut -d/ -f3 | tr '\n' ' '
  for p in $(cat "$tmp/allpids" 2>/dev/null); do running $p && echo -n "$p "; done
}

# none_left: wait until no tagged process is left; status 0 when none is.
none_left() {
  local n=0
  while [ -n "$(tagged)" ] && [ $n -lt $GRACE_TENTHS ]; do sleep 0.1; n=$((n + 1)); done
  local left
  left=$(tagged)
  [ -z "$left" ] && return 0
  echo "  left: $left"; for p in $left; do head -c 80 /proc/$p/stat; echo; done
  return 1
}

# hold ARGS...: start srv_helper ARGS in the background, wait for its servers; sets $hpid.
hold() {
  local want=0 a n=0
  for a in "$@"; do case $a in *:*) want=$((want + 1)) ;; esac; done
  # the background child truncates $tmp/held when it runs, not at once: empty it first, or
  # the wait below can count the previous helper's lines
  : >"$tmp/held"
  IDB_TEST_TAG=$tag "$HELPER" "$@" >"$tmp/held" 2>"$tmp/herr" &
  hpid=$!
  while [ "$(grep -c '^pid ' "$tmp/held")" -lt $want ] && kill -0 $hpid 2>/dev/null &&
        [ $n -lt 1200 ]; do sleep 0.1; n=$((n + 1)); done
  check "helper started $want server(s)" test "$(grep -c '^pid ' "$tmp/held")" -eq $want
  server_pids >>"$tmp/allpids"
  [ -s "$tmp/herr" ] && sed 's/^/  helper: /' "$tmp/herr"
}

# sockdirs: the socket directories of the held servers.
sockdirs() { sed -n 's/^pid [0-9]* socket \(.*\)\/[^/]* port .*/\1/p' "$tmp/held"; }

# no_sockdir: none of the held servers' socket directories exists.
no_sockdir() { local d; for d in $(sockdirs); do [ ! -e "$d" ] || return 1; done; }

shm_mark                     # no_shm (cli_lib.sh): only segments made after this count

# srv_bin KIND: the server binary of KIND (the environment's override, as idbench reads it).
srv_bin() {
  case $1 in
    postgres) echo "${IDBENCH_POSTGRES:-/usr/lib/postgresql/15/bin/postgres}" ;;
    mariadb) echo "${IDBENCH_MARIADBD:-/usr/sbin/mariadbd}" ;;
    redis) echo "${IDBENCH_REDIS_SERVER:-/usr/bin/redis-server}" ;;
  esac
}

# server_pids: the held servers' main pids.
server_pids() { sed -n 's/^pid \([0-9]*\) .*/\1/p' "$tmp/held"; }

for kind in "$@"; do
  d=$tmp/$kind
  # SIGINT: the handler kills the servers and removes the socket directories (no deathsig:
  # the handler alone must do it).
  hold --no-deathsig "$kind:$d/shard-0" "$kind:$d/shard-1"
  check "$kind: servers run under the helper" test "$(tagged | wc -w)" -gt 2
  kill -INT $hpid; wait $hpid; st=$?
  check "$kind: helper died of SIGINT" test $st -eq 130
  check "$kind: no process left after SIGINT" none_left
  check "$kind: no socket dir left after SIGINT" no_sockdir

  # SIGKILL: the servers die with idbench; clean removes the socket dir they left.
  hold "$kind:$d/shard-0"
  kill -KILL $hpid; wait $hpid
  check "$kind: no process left after SIGKILL (deathsig)" none_left
  expect 0 "$kind: clean after SIGKILL" -- "$IDB" clean "$d"
  check "$kind: clean says 0 stopped (already dead)" grep -q '^stopped 0 stale servers' "$tmp/out"
  check "$kind: clean removed the socket dir" no_sockdir

  # A stale server (no deathsig): idbench clean finds and stops it.
  hold --no-deathsig "$kind:$d/shard-0" "$kind:$d/shard-1"
  kill -KILL $hpid; wait $hpid
  sleep 0.5
  check "$kind: stale servers survive a SIGKILLed helper" test -n "$(tagged)"
  expect 0 "$kind: clean stops stale servers" -- "$IDB" clean "$d"
  check "$kind: clean says 2 stopped" grep -q '^stopped 2 stale servers' "$tmp/out"
  check "$kind: no process left after clean" none_left
  check "$kind: no socket dir left after clean" no_sockdir
  check "$kind: clean keeps the dir" test -d "$d/shard-0"

  # Killed while its server starts (no deathsig): the record names the server from its
  # fork on, so clean stops a server that never served this run. Tried until the kill falls
  # after the exec and before the record's ready line (no fork in the polling loop).
  caught=0
  for _ in $(seq 20); do
    rm -rf "$d/early" "$d/early.idbench-pid"
    IDB_TEST_TAG=$tag "$HELPER" --no-deathsig "$kind:$d/early" >/dev/null 2>&1 &
    hpid=$!
    early_state=""
    while kill -0 $hpid 2>/dev/null && [ -z "$early_state" ]; do
      spid="" ready=""
      while read -r k v; do
        case $k in pid) spid=$v ;; ready) ready=1 ;; esac
      done 2>/dev/null <"$d/early.idbench-pid"
      [ -n "$ready" ] && early_state=late
      [ -n "$spid" ] && [ /proc/$spid/exe -ef "$(srv_bin "$kind")" ] && early_state=exec
    done
    kill -KILL $hpid 2>/dev/null; wait $hpid 2>/dev/null
    [ -n "$spid" ] && echo "$spid" >>"$tmp/allpids"
    if [ "$early_state" = exec ] && ! grep -q '^ready' "$d/early.idbench-pid"; then
      caught=1; break
    fi
    "$IDB" clean "$d" >/dev/null 2>&1
    none_left >/dev/null
  done
  check "$kind: a helper killed between its server's exec and ready" test $caught -eq 1
  expect 0 "$kind: clean after a kill while starting" -- "$IDB" clean "$d"
  check "$kind: clean stopped the starting server" grep -q '^stopped 1 stale server' "$tmp/out"
  check "$kind: no process left after clean (killed while starting)" none_left

  # A stale server: the next start in the same dir stops it first.
  hold --no-deathsig "$kind:$d/shard-0"
  old=$(server_pids)
  kill -KILL $hpid; wait $hpid
  hold "$kind:$d/shard-0"
  check "$kind: next start stopped the stale server" not_running "$old"
  check "$kind: next start runs a new server" test "$(server_pids)" != "$old"
  kill -TERM $hpid; wait $hpid
  check "$kind: no process left after SIGTERM" none_left
  check "$kind: no socket dir left after SIGTERM" no_sockdir
  check "$kind: no shared memory segment left" no_shm "$tmp/allpids"
done

# Clean and records, no server needed: a live process whose start time differs from the
# record's is never signalled, nor one with the right start time that is not the kind's
# binary running in the recorded directory (here: sleep); the record goes.
mkdir -p "$tmp/fake/shard-0"
sleep 60 &
spid=$!
start=$(sed 's/.*) //' /proc/$spid/stat | cut -d' ' -f20)
rec="$tmp/fake/shard-0/redis.idbench-pid"
(umask 077; printf 'owner 1 1\nkind redis\nuid 0\npid %d\nstart %d\nsockdir /tmp/idb-none\n' \
  $spid $((start + 1)) >"$rec")
expect 0 "clean: a recycled pid" -- "$IDB" clean "$tmp/fake"
check "clean: a recycled pid is not signalled" kill -0 $spid
check "clean: says 0" grep -q '^stopped 0 stale servers' "$tmp/out"
check "clean: removes the stale record" test ! -e "$rec"
(umask 077; printf 'owner 1 1\nkind redis\nuid 0\npid %d\nstart %d\nsockdir /tmp/idb-none\n' \
  $spid $start >"$rec")
expect 0 "clean: a matching start time, not a redis server" -- "$IDB" clean "$tmp/fake"
check "clean: says 0 (not proved to be the server)" grep -q '^stopped 0 stale servers' "$tmp/out"
check "clean: the process was not signalled" kill -0 $spid
kill $spid 2>/dev/null

# The sweep of /tmp's socket directories (`idbench clean` without DIR; every start does it
# too): a directory /tmp/idb-PID-START-XXXXXX goes only when process PID with start time
# START is gone, it is a real directory of ours with no subdirectory, and no socket in it
# accepts. Our own shell ($$) with a wrong start time plays an owner that is gone.
me_start=$(sed 's/.*) //' /proc/$$/stat | cut -d' ' -f20)
sfx=$RANDOM$RANDOM
gone=/tmp/idb-$$-1-g${sfx: -5}
live=/tmp/idb-$$-$me_start-l${sfx: -5}
link=/tmp/idb-$$-1-s${sfx: -5}
sub=/tmp/idb-$$-1-d${sfx: -5}
sock=/tmp/idb-$$-1-k${sfx: -5}
other=/tmp/idb-x$$-1-${sfx: -6}
mkdir "$gone" "$live" "$sub" "$sub/inner" "$other" "$tmp/victim"
touch "$gone/.s.PGSQL.5432.lock" "$live/f" "$tmp/victim/f"
ln -s "$tmp/victim" "$link"
# the listener makes its dir itself, then binds at once: a dir named after a gone owner
# is any concurrent run's sweep's to remove while it holds no accepting socket
python3 -c 'import os, socket, sys, time
os.mkdir(sys.argv[1]); s = socket.socket(socket.AF_UNIX); s.bind(sys.argv[1] + "/redis.sock")
s.listen(1); time.sleep(30)' "$sock" &
lsn=$!
for _ in $(seq 50); do [ -S "$sock/redis.sock" ] && break; sleep 0.1; done
if [ "$(id -u)" -eq 0 ]; then
  foreign=/tmp/idb-$$-1-f${sfx: -5}
  mkdir "$foreign" && chown nobody "$foreign"
fi
expect 0 "clean: no argument sweeps /tmp" -- "$IDB" clean
check "sweep: removes a dir whose owner is gone" test ! -e "$gone"
# (the count may be 0: a concurrent run's sweep may have removed it first)
check "sweep: says how many it removed" grep -Eq '^removed [0-9]+ socket director' "$tmp/out"
check "sweep: keeps a dir whose owner lives" test -e "$live/f"
check "sweep: never follows a symlink" test -e "$tmp/victim/f" -a -L "$link"
check "sweep: keeps a dir with a subdirectory" test -d "$sub/inner"
check "sweep: keeps a dir whose socket accepts" test -S "$sock/redis.sock"
check "sweep: keeps a name idbench did not make" test -d "$other"
[ -n "${foreign:-}" ] && check "sweep: keeps another user's dir" test -d "$foreign"
kill $lsn 2>/dev/null; wait $lsn 2>/dev/null
expect 0 "clean: the socket's listener gone" -- "$IDB" clean
check "sweep: removes a dir whose socket no longer accepts" test ! -e "$sock"
rm -rf "$live" "$link" "$sub" "$sock" "$other" ${foreign:+"$foreign"}
expect 2 "clean: two arguments" -- "$IDB" clean "$tmp" "$tmp"
expect 2 "clean: not a directory" -- "$IDB" clean "$tmp/nonexistent"
expect 0 "clean: an empty directory" -- "$IDB" clean "$tmp/fake"
check "clean: says 0 in an empty directory" grep -q '^stopped 0 stale servers' "$tmp/out"

cli_done
