#!/usr/bin/env bash
# test_insert_dir.sh — `idbench insert --dir DIR`: bad input is refused before anything is
# created, a run that fails after it created files removes them, so a failed run leaves DIR
# byte for byte as it found it (and never removes what it did not create); the corrected
# command then succeeds. A --dir that does not exist is made (its parent must exist); one
# that is a file or cannot be written is refused with exit 2 and one line.
# Usage: test_insert_dir.sh IDBENCH
set -u
IDB=${1:?usage: test_insert_dir.sh path/to/idbench}
. "$(dirname "$0")/cli_lib.sh"

# tree DIR: every path under DIR with its type, mode, size and link target, then every
# file's checksum: two equal trees print the same bytes.
tree() {
  (cd "$1" && find . -printf '%p %y %m %s %l\n' | LC_ALL=C sort &&
    find . -type f -exec sha256sum {} + | LC_ALL=C sort -k2)
}

# same DESCRIPTION DIR BEFORE-FILE: DIR's tree is still the one in BEFORE-FILE.
same() { check "$1: DIR as it was" cmp -s "$3" <(tree "$2"); }

ins=("$IDB" insert --store sqlite -n 2000 --shards 3)

# A directory with things of the user's: a file, a shard directory holding a file of its
# own, an empty directory. A failed run must leave all of it, and make nothing.
d=$tmp/d
mkdir -p "$d/shard-1" "$d/empty"
echo "mine" >"$d/notes.txt"
echo "also mine" >"$d/shard-1/keep.txt"
tree "$d" >"$tmp/before"

# --- bad input: refused before anything is created
expect 2 "an epoch in the future" -- "${ins[@]}" --strategy snowflake --dir "$d" \
  -o epoch_ms=253402300799999
same "an epoch in the future" "$d" "$tmp/before"
expect 2 "an unknown strategy option" -- "${ins[@]}" --strategy snowflake --dir "$d" -o bogus=1
same "an unknown strategy option" "$d" "$tmp/before"
expect 2 "a strategy option out of range" -- "${ins[@]}" --strategy snowflake --dir "$d" \
  -o worker=5000
same "a strategy option out of range" "$d" "$tmp/before"
expect 2 "a bad store option" -- "${ins[@]}" --strategy snowflake --dir "$d" -s page_size=1000
same "a bad store option" "$d" "$tmp/before"
check "a bad store option: says why" grep -q 'page_size=1000 is not a power of two' "$tmp/err"
expect 2 "a store option that does not fit the strategy" -- "${ins[@]}" --strategy uuidv7 \
  --dir "$d" -s schema=rowid
same "a store option that does not fit the strategy" "$d" "$tmp/before"
expect 2 "an unknown store option" -- "${ins[@]}" --strategy snowflake --dir "$d" -s nope=1
same "an unknown store option" "$d" "$tmp/before"
# range makes its range directory in DIR when it is created: it must go too
expect 2 "range with a bad store option" -- "${ins[@]}" --strategy range --dir "$d" \
  -s page_size=1000
same "range with a bad store option" "$d" "$tmp/before"

# --- failures after files were created: what the run made is removed
expect 2 "a runtime refusal (lmdb append=1, random keys)" -- "$IDB" insert --store lmdb \
  --strategy uuidv4 -n 2000 --shards 3 --dir "$d" -s append=1
same "a runtime refusal" "$d" "$tmp/before"
mkdir -p "$tmp/f/shard-2"
echo "not a database" >"$tmp/f/shard-2/orders.sqlite"
tree "$tmp/f" >"$tmp/before-f"
expect 2 "a store that cannot open (shard 2 of 3)" -- "${ins[@]}" --strategy range \
  --dir "$tmp/f"
same "a store that cannot open" "$tmp/f" "$tmp/before-f"
check "a store that cannot open: says which" grep -q 'shard-2/orders.sqlite exists' "$tmp/err"

# --- the corrected command succeeds, next to the user's files
expect 0 "the corrected command" -- "${ins[@]}" --strategy snowflake --dir "$d"
for k in 0 1 2; do
  check "the corrected command: shard $k has its store" test -f "$d/shard-$k/orders.sqlite"
done
check "the corrected command: the user's files stay" \
  test "$(cat "$d/notes.txt")$(cat "$d/shard-1/keep.txt")" = "minealso mine"
tree "$d" >"$tmp/after"
expect 2 "a second run into a used DIR" -- "${ins[@]}" --strategy snowflake --dir "$d"
same "a second run into a used DIR" "$d" "$tmp/after"

# --- a --dir that does not exist yet
expect 0 "a new --dir is made" -- "${ins[@]}" --strategy range --dir "$tmp/new"
check "a new --dir is made: with the stores" test -f "$tmp/new/shard-2/orders.sqlite"
expect 2 "a new --dir and a bad option" -- "${ins[@]}" --strategy snowflake --dir "$tmp/new2" \
  -o bogus=1
check "a new --dir and a bad option: not made" test ! -e "$tmp/new2"
expect 2 "a new --dir and a failed run" -- "$IDB" insert --store lmdb --strategy uuidv4 \
  -n 2000 --dir "$tmp/new3" -s append=1
check "a new --dir and a failed run: removed again" test ! -e "$tmp/new3"
expect 2 "a new --dir whose parent is missing" -- "${ins[@]}" --strategy snowflake \
  --dir "$tmp/nope/new"
check "a new --dir whose parent is missing: nothing made" test ! -e "$tmp/nope"

# --- a --dir that is a file, or cannot be written
echo "a file" >"$tmp/file"
expect 2 "--dir is a file" -- "${ins[@]}" --strategy snowflake --dir "$tmp/file"
check "--dir is a file: untouched" test "$(cat "$tmp/file")" = "a file"
expect 2 "--dir under a file" -- "${ins[@]}" --strategy snowflake --dir "$tmp/file/sub"
expect 2 "--dir in /proc" -- "${ins[@]}" --strategy snowflake --dir /proc/idbench-nope
mkdir -p "$tmp/ro"
chmod 555 "$tmp/ro"
if [ -w "$tmp/ro" ]; then
  echo "skipped: unwritable --dir (running as root: every directory is writable)"
else
  expect 2 "--dir unwritable" -- "${ins[@]}" --strategy snowflake --dir "$tmp/ro"
  expect 2 "--dir under an unwritable one" -- "${ins[@]}" --strategy snowflake --dir "$tmp/ro/x"
  check "--dir unwritable: nothing made" test -z "$(ls -A "$tmp/ro")"
fi
chmod 755 "$tmp/ro"

cli_done
