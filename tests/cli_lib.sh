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

# cli_done: print the totals; the exit status says whether everything passed.
cli_done() {
  echo "$pass passed, $fail failed"
  [ "$fail" -eq 0 ]
}
