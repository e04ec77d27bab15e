# cli_lib.sh — what the command-line tests share (sourced, not run): a private $tmp removed
# on exit, pass/fail counters, the two assertions and a process probe. A test ends with `cli_done`.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0

# expect STATUS DESCRIPTION -- COMMAND...: run, check the exit status; on failure, stderr
# must be exactly one line starting "idbench: " and stdout empty (no partial result).
# Leaves stdout in $tmp/out and stderr in $tmp/err.
expect() {
  local want=$1 what=$2; shift 3
  "$@" >"$tmp/out" 2>"$tmp/err"
  local got=$?
  local ok=1
  [ "$got" -eq "$want" ] || ok=0
  if [ "$want" -ne 0 ]; then
    [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q '^idbench: ' "$tmp/err" || ok=0
    [ -s "$tmp/out" ] && ok=0
  fi
  if [ $ok -eq 1 ]; then pass=$((pass + 1)); else
    fail=$((fail + 1)); echo "FAIL: $what (status $got, want $want)"; sed 's/^/  stderr: /' "$tmp/err" | head -3
  fi
}

# check DESCRIPTION CONDITION...: a plain assertion.
check() {
  local what=$1; shift
  if "$@"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: $what"; fi
}

# running PID: PID exists and is not a zombie (this machine's init may reap late);
# not_running PID: the opposite.
running() {
  local st
  st=$(cat /proc/$1/stat 2>/dev/null) || return 1
  st=${st##*) }
  [ -n "$st" ] && [ "${st%% *}" != Z ]
}
not_running() { ! running "$1"; }

# out_field NAME: the value of column NAME in the CSV result line of $tmp/out (an insert's
# header and one row), empty when there is no such column.
out_field() {
  awk -F, -v name="$1" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == name) c = i }
                        NR == 2 && c { print $c }' "$tmp/out"
}

# System V shared memory: a postgres killed with SIGKILL leaves its segment. shm_mark
# remembers the segments there now; no_shm PIDFILE: no segment made since by a process
# whose pid is a line of PIDFILE is left. Segments from before are not the test's own,
# whatever their creator's pid (pids are reused: another run's leftover can carry the pid
# of one of this test's servers).
shm_ids() { ipcs -m -p | awk 'NR > 3 && $1 ~ /^[0-9]+$/ { print $1, $3 }'; }
shm_mark() { { echo header; shm_ids | cut -d" " -f1; } >"$tmp/shm_before"; }  # never empty
no_shm() {
  local left
  left=$(shm_ids | awk 'NR == FNR { old[$1]; next } !($1 in old) { print $2 }' \
         "$tmp/shm_before" - | grep -xFf "$1")
  [ -z "$left" ] || { echo "  segments of: $left"; return 1; }
}

# cli_done: print the totals; the exit status says whether everything passed.
cli_done() {
  echo "$pass passed, $fail failed"
  [ "$fail" -eq 0 ]
}
