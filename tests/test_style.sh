#!/usr/bin/env bash
# test_style.sh — the style checker itself (.ci/style): a 101-column line and an 81-line
# function are reported, 100 columns and 80 lines pass, and the allowlist exempts exactly what
# it names (a function, or a file's lines outside functions), refuses an entry without a
# reason and reports an entry that exempts nothing.
# Usage: test_style.sh PATH/TO/.ci/style
set -u
style=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fails=0

# check NAME WANT_RC WANT_OUTPUT ARGS...: run the checker, compare exit status and output.
check() {
  local name=$1 want_rc=$2 want=$3
  shift 3
  local out rc
  out=$("$style" "$@" 2>&1)
  rc=$?
  if [ "$rc" -ne "$want_rc" ] || [ "$out" != "$want" ]; then
    printf 'FAIL %s: exit %d (want %d)\n--- got\n%s\n--- want\n%s\n' \
      "$name" "$rc" "$want_rc" "$out" "$want"
    fails=$((fails + 1))
  else
    echo "ok   $name"
  fi
}

# line N [CHAR]: a comment line of exactly N columns (the last character CHAR, default x).
line() { printf '/*%*s%s*/\n' $(($1 - 5)) '' "${2:-x}"; }
# func NAME N: a function "{ ... }" of exactly N lines, brace lines included.
func() {
  echo "static int $1(int a,"
  echo "    int b)"
  echo "{"
  for ((i = 0; i < $2 - 3; i++)); do echo "    a += b;"; done
  echo "    return a;"
  echo "}"
}

{ line 100 '—'; func fits 80; } >"$dir/good.c"          # '—' is 3 bytes but 1 column
{ echo "int x;"; line 101; func too_long 81; } >"$dir/bad.c"
: >"$dir/none"

check "100 columns, 80 lines pass" 0 "" --allow "$dir/none" "$dir/good.c"
check "101 columns, 81 lines fail" 1 "$dir/bad.c:2: line is 101 columns, over 100
$dir/bad.c:5: function too_long is 81 lines, over 80 (from { to })" \
  --allow "$dir/none" "$dir/bad.c" "$dir/good.c"

printf 'length %s:too_long  a reason\n' "$dir/bad.c" >"$dir/allow1"
check "allowlist exempts the named function only" 1 \
  "$dir/bad.c:2: line is 101 columns, over 100" --allow "$dir/allow1" "$dir/bad.c"

printf '# comment\ncolumns %s  tables\nlength %s:fits  stale\ncolumns %s\n' \
  "$dir/bad.c" "$dir/good.c" "$dir/good.c" >"$dir/allow2"
check "stale entry and entry without a reason" 1 "$dir/allow2:4: entry without a reason
$dir/bad.c:5: function too_long is 81 lines, over 80 (from { to })
$dir/allow2:3: entry \"length $dir/good.c:fits\" exempts nothing: remove it" \
  --allow "$dir/allow2" "$dir/bad.c" "$dir/good.c"

# A long line inside a function: a file entry does not cover it, a function entry does.
{ echo "void f(void)"; echo "{"; line 101; echo "}"; } >"$dir/in.c"
printf 'columns %s  file scope only\n' "$dir/in.c" >"$dir/allow3"
check "a file entry covers no function" 1 "$dir/in.c:3: line is 101 columns, over 100 (in f)
$dir/allow3:1: entry \"columns $dir/in.c\" exempts nothing: remove it" \
  --allow "$dir/allow3" "$dir/in.c"
printf 'columns %s:f  a reason\n' "$dir/in.c" >"$dir/allow4"
check "a function entry covers its lines" 0 "" --allow "$dir/allow4" "$dir/in.c"

[ "$fails" -eq 0 ] || { echo "$fails failed"; exit 1; }
echo "all passed"
