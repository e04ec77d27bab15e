#!/usr/bin/env bash
# mutate.sh — a mutation round: do the tests catch a wrong figure? Each line of a list
# (tests/mutations.txt by default) is a one-line mutation of the code behind a figure and the
# tests expected to catch it. The tree is copied once (tracked and untracked files, no build
# directories) to a scratch directory and built there; then, per mutation, the file is
# changed with sed, rebuilt (ninja: only what the file touches), the named tests run, and the
# file put back. A mutation is
#   caught      some named test failed;
#   SURVIVED    every named test passed (a wrong figure the tests do not see);
#   no-op       the sed expression changed nothing (the code moved: fix the list);
#   no-build    the mutated tree does not compile (not a test of the tests: fix the list).
# The named tests must pass on the unmutated copy first (else the round stops).
# A tool, not a test: it rebuilds per mutation (minutes), so it is in no meson suite.
#
# Usage: tests/mutate.sh [--list FILE] [--only REGEX] [--tree DIR] [--keep] [--src DIR]
#   --list FILE   the mutations (default tests/mutations.txt; its header says the format)
#   --src DIR     the tree to copy (default: the one holding this script), e.g. main's
#                 checkout with this list, for a count of survivors before a change
#   --only REGEX  only the mutations whose id matches (grep -E)
#   --tree DIR    reuse (or make) the copy and its build in DIR, and keep it (a second round
#                 then builds only what changed)
#   --keep        keep the scratch copy (its path is printed)
# Exit status: 0 when nothing survived, 1 when some mutation survived (or was no-op /
# no-build), 2 on bad usage or when the unmutated copy fails to build or pass.
set -u
SRC=$(cd "$(dirname "$0")/.." && pwd)
LIST=$SRC/tests/mutations.txt ONLY= TREE= KEEP=0 FROM=$SRC
while [ $# -gt 0 ]; do
  case $1 in
    --list) LIST=${2:?--list FILE}; shift 2 ;;
    --only) ONLY=${2:?--only REGEX}; shift 2 ;;
    --tree) TREE=${2:?--tree DIR}; KEEP=1; shift 2 ;;
    --keep) KEEP=1; shift ;;
    --src) FROM=$(cd "${2:?--src DIR}" && pwd) || exit 2; shift 2 ;;
    *) echo "usage: tests/mutate.sh [--list FILE] [--only REGEX] [--tree DIR] [--keep]" \
            "[--src DIR]" >&2
       exit 2 ;;
  esac
done
[ -r "$LIST" ] || { echo "mutate.sh: cannot read $LIST" >&2; exit 2; }
if [ -z "$TREE" ]; then TREE=$(mktemp -d "${TMPDIR:-/tmp}/idb-mutate-XXXXXX") || exit 2; fi
[ "$KEEP" = 1 ] || trap 'rm -rf "$TREE"' EXIT
LOG=$TREE/log
mkdir -p "$TREE/src" "$LOG"

# The list's lines: "id | file | sed expression | tests | what it breaks". The sed expression
# may hold " | " itself: the id and file are the first two fields, tests and description the
# last two, the expression everything between.
parse() {
  local line=$1 rest
  M_ID=${line%% | *}; rest=${line#* | }
  M_FILE=${rest%% | *}; rest=${rest#* | }
  M_WHAT=${rest##* | }; rest=${rest% | *}
  M_TESTS=${rest##* | }; M_SED=${rest% | *}
}
mapfile -t lines < <(grep -vE '^[[:space:]]*(#|$)' "$LIST")
todo=()
for l in "${lines[@]}"; do
  parse "$l"
  if [ -z "$ONLY" ] || grep -qE -- "$ONLY" <<<"$M_ID"; then todo+=("$l"); fi
done
[ ${#todo[@]} -gt 0 ] || { echo "mutate.sh: no mutation selected" >&2; exit 2; }

# The copy: what git knows of (tracked and untracked, not ignored), refreshed when reused:
# unpacked beside it, then only the files that differ copied over with a new time (tar
# would restore the old times, older than a reused build's objects, and ninja would keep
# stale ones); files the source tree no longer has are removed.
rm -rf "$TREE/stage" && mkdir -p "$TREE/stage"
(cd "$FROM" && git ls-files -z -c -o --exclude-standard | tar --null -T - -cf -) |
  (cd "$TREE/stage" && tar xf -) || { echo "mutate.sh: copy failed" >&2; exit 2; }
(cd "$TREE/stage" && find . -type f -print0) | while IFS= read -r -d '' f; do
  cmp -s "$TREE/stage/$f" "$TREE/src/$f" && continue
  mkdir -p "$(dirname "$TREE/src/$f")" && cp "$TREE/stage/$f" "$TREE/src/$f"
done
(cd "$TREE/src" && find . -type f -print0) | while IFS= read -r -d '' f; do
  [ -e "$TREE/stage/$f" ] || rm -f "$TREE/src/$f"
done
rm -rf "$TREE/stage"
# Optimised, with assertions on (b_ndebug=false): test_claims_broken then skips its
# full-power birthday run (2^26 IDs, minutes), which no mutation here needs.
if [ ! -d "$TREE/build" ]; then
  meson setup "$TREE/build" "$TREE/src" --buildtype=release -Doptimization=2 \
    -Db_ndebug=false >"$LOG/setup" 2>&1 ||
    { echo "mutate.sh: meson setup failed ($LOG/setup)" >&2; exit 2; }
fi
ninja -C "$TREE/build" >"$LOG/build" 2>&1 || { echo "mutate.sh: build failed ($LOG/build)" >&2
  exit 2; }

# run_tests TESTS LOGFILE: 0 when every named test ran and passed. A test of the slow suite
# runs only with --suite slow (the default setup leaves that suite out, and meson then says
# "No suitable tests defined" and exits 0), so each name is looked up in both lists first; a
# name in neither fails the round instead of passing it.
run_tests() {
  local fast=() slow=() t
  for t in $1; do
    if grep -qx "idbench / $t" "$TREE/tests-fast"; then fast+=("$t")
    elif grep -qx "idbench:slow / $t" "$TREE/tests-slow"; then slow+=("$t")
    else echo "mutate.sh: no test named $t" >"$2"; return 1; fi
  done
  : >"$2"
  if [ ${#fast[@]} -gt 0 ]; then
    meson test -C "$TREE/build" --no-rebuild --print-errorlogs --timeout-multiplier 3 \
      "${fast[@]}" >>"$2" 2>&1 || return 1
  fi
  if [ ${#slow[@]} -gt 0 ]; then
    meson test -C "$TREE/build" --no-rebuild --print-errorlogs --timeout-multiplier 3 \
      --suite slow "${slow[@]}" >>"$2" 2>&1 || return 1
  fi
}
meson test -C "$TREE/build" --no-rebuild --list >"$TREE/tests-fast" 2>/dev/null
meson test -C "$TREE/build" --no-rebuild --suite slow --list >"$TREE/tests-slow" 2>/dev/null

declare -A baseline=()
for l in "${todo[@]}"; do parse "$l"; for t in $M_TESTS; do baseline[$t]=1; done; done
if ! run_tests "${!baseline[*]}" "$LOG/baseline"; then
  echo "mutate.sh: the named tests fail on the unmutated copy ($LOG/baseline)" >&2
  exit 2
fi

caught=0 survived=0 bad=0
printf '%-28s %-9s %s\n' mutation result tests
for l in "${todo[@]}"; do
  parse "$l"
  f=$TREE/src/$M_FILE
  if [ ! -f "$f" ]; then result=no-op
  else
    cp -p "$f" "$f.orig"
    sed -i -e "$M_SED" "$f"
    if cmp -s "$f" "$f.orig"; then result=no-op
    elif ! ninja -C "$TREE/build" >"$LOG/$M_ID.build" 2>&1; then result=no-build
    elif run_tests "$M_TESTS" "$LOG/$M_ID.test"; then result=SURVIVED
    else result=caught
    fi
    mv "$f.orig" "$f"
    touch "$f"                               # newer than what the mutant built
  fi
  case $result in
    caught) caught=$((caught + 1)) ;;
    SURVIVED) survived=$((survived + 1)) ;;
    *) bad=$((bad + 1)) ;;
  esac
  printf '%-28s %-9s %s  (%s)\n' "$M_ID" "$result" "$M_TESTS" "$M_WHAT"
done
ninja -C "$TREE/build" >"$LOG/build-after" 2>&1
echo "mutations: ${#todo[@]}, caught $caught, survived $survived, no-op or no-build $bad"
[ "$KEEP" = 1 ] && echo "tree and logs kept in $TREE"
[ $((survived + bad)) -eq 0 ]
