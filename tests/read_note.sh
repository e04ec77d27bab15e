#!/usr/bin/env bash
# read_note.sh — issue 27's closing-note figures, re-made with idbench's own commands: per
# store and first strategy (counter, uuidv7, uuidv4, snowflake),
#   1. `idbench insert -n ROWS --dir D` then `idbench read --dir D -n LOOKUPS --cache cold`
#      with `--pattern recent:5` and `uniform` (seed 1): pages missed per lookup, and the
#      insert row's bytes per row (the ID's width, table, ID index, total);
#   2. `idbench insert -n ROWS -s key_bytes=16 --then uuidv7:ROWS` into a fresh D (every
#      key 16 bytes, so uuidv7 fits a counter's or snowflake's table): the second phase's pages
#      written per row (postgres counts none), pages missed per row (the store's
#      cache_misses), WAL bytes per row, index growth (pages), leaf_fill_touched (pagesim
#      only) and the ID index's fill after it, beside the main run's pages per row; and the
#      control,
#      uuidv4 then uuidv4:ROWS (what the second phase would cost had the scheme not changed).
# It prints two markdown tables (with the date, the load average before and after, and the
# commands) on stdout and keeps every command's CSV under OUT_DIR. Counts are exact; the
# machine's other work moves only times, which it does not print. A record, not a test: it
# asserts nothing (a command that fails stops it, exit 1).
#
# Usage: read_note.sh IDBENCH OUT_DIR [STORES [ROWS [LOOKUPS]]]
#   STORES  comma-separated (default sqlite,lmdb,pagesim,postgres,mariadb); server stores
#           start private servers (as root, OUT_DIR must be enterable by their user).
#   ROWS    rows of each insert and of the second phase (default 200000)
#   LOOKUPS -n of each read (default 20000)
# With READ_NOTE_REPORT_ONLY=1 it runs nothing and prints the tables from the CSVs already in
# OUT_DIR (e.g. several runs' OUT_DIRs copied into one), with no header.
set -eu
IDB=${1:?usage: read_note.sh IDBENCH OUT_DIR [STORES [ROWS [LOOKUPS]]]}
OUT=${2:?usage: read_note.sh IDBENCH OUT_DIR [STORES [ROWS [LOOKUPS]]]}
STORES=${3:-sqlite,lmdb,pagesim,postgres,mariadb}
ROWS=${4:-200000}
LOOKUPS=${5:-20000}
STRATS="counter uuidv7 uuidv4 snowflake"
THEN=uuidv7
mkdir -p "$OUT"
chmod 1777 "$OUT" 2>/dev/null || true
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
started=$(date -u '+%Y-%m-%d %H:%M UTC')

# run NAME COMMAND...: the command's CSV into OUT/NAME.csv (stderr beside it); stops on failure.
run() {
  local name=$1; shift
  if ! "$@" --format csv >"$OUT/$name.csv" 2>"$OUT/$name.err"; then
    echo "read_note: failed: $*" >&2; cat "$OUT/$name.err" >&2; exit 1
  fi
}

REPORT_ONLY=${READ_NOTE_REPORT_ONLY:-0}
for st in ${STORES//,/ }; do
  [ "$REPORT_ONLY" = 1 ] && break
  for g in $STRATS; do
    d=$OUT/d-$st-$g
    rm -rf "$d" && mkdir -p "$d" && chmod 1777 "$d"
    run "insert-$st-$g" "$IDB" insert --store "$st" --strategy "$g" -n "$ROWS" --dir "$d"
    for p in recent:5 uniform; do
      run "read-$st-$g-${p%%:*}" "$IDB" read --store "$st" --dir "$d" -n "$LOOKUPS" \
        --pattern "$p" --cache cold --seed 1
    done
    rm -rf "$d" && mkdir -p "$d" && chmod 1777 "$d"
    run "then-$st-$g" "$IDB" insert --store "$st" --strategy "$g" -n "$ROWS" --dir "$d" \
      -s key_bytes=16 --then "$THEN:$ROWS"
    rm -rf "$d"
  done
  d=$OUT/d-$st-control
  rm -rf "$d" && mkdir -p "$d" && chmod 1777 "$d"
  run "control-$st" "$IDB" insert --store "$st" --strategy uuidv4 -n "$ROWS" --dir "$d" \
    -s key_bytes=16 --then "uuidv4:$ROWS"
  rm -rf "$d"
done

load_after=$(cut -d' ' -f1-3 /proc/loadavg)
[ "$REPORT_ONLY" = 1 ] || cat <<HEAD
Measured $started ($(nproc) cores, shared; load average $load_before before, $load_after
after), \`tests/read_note.sh IDBENCH OUT $STORES $ROWS $LOOKUPS\`: per store S and strategy G,
\`idbench insert --store S --strategy G -n $ROWS --dir D\` (default options), then
\`idbench read --store S --dir D -n $LOOKUPS --pattern recent:5|uniform --cache cold --seed 1\`;
and in a fresh D \`idbench insert --store S --strategy G -n $ROWS --dir D -s key_bytes=16
--then $THEN:$ROWS\` (every key padded to 16 bytes, so $THEN fits each table), and the
control \`... --strategy uuidv4 ... --then uuidv4:$ROWS\`.

HEAD
python3 - "$OUT" "$STORES" "$STRATS" "$THEN" <<'PY'
import csv, sys
out, stores, strats, then = sys.argv[1], sys.argv[2].split(','), sys.argv[3].split(), sys.argv[4]

def rows(name):
    with open(f"{out}/{name}.csv", newline="") as f:
        return list(csv.DictReader(f))

def num(x, fmt):
    return "—" if x in ("", None) else format(float(x), fmt)

print("| store | strategy | ID bytes | bytes/row (table + ID index) | recent:5 misses/lookup "
      "| uniform misses/lookup |")
print("|---|---|---|---|---|---|")
for st in stores:
    for g in strats:
        ins = rows(f"insert-{st}-{g}")[0]
        rd = {p: rows(f"read-{st}-{g}-{p}")[0] for p in ("recent", "uniform")}
        print(f"| {st} | {g} | {ins['id_bytes']} | {num(ins['bytes_per_row'], '.1f')} "
              f"({num(ins['bytes_per_row_table'], '.1f')} + "
              f"{num(ins['bytes_per_row_id_index'], '.1f')}) "
              f"| {num(rd['recent']['misses_per_lookup'], '.4f')} "
              f"| {num(rd['uniform']['misses_per_lookup'], '.4f')} |")
print()
print("| store | first → second | first phase: pages/row | second phase: pages/row "
      "| second phase: misses/row | second phase: WAL bytes/row | index growth (pages) "
      "| leaf_fill_touched | fill after |")
print("|---|---|---|---|---|---|---|---|---|")
def per(x, col="pages_written", fmt=".3f"):
    return num(float(x[col]) / float(x["ids"]), fmt) \
        if x[col] and float(x["ids"]) > 0 else "—"

for st in stores:
    for g, name, second in [(g, f"then-{st}-{g}", then) for g in strats] + \
            [("uuidv4", f"control-{st}", "uuidv4")]:
        r = {x["phase"]: x for x in rows(name)}
        m, t = r["main"], r["then"]
        print(f"| {st} | {g} → {second} | {per(m)} | {per(t)} "
              f"| {per(t, 'cache_misses', '.4f')} | {num(t['wal_bytes_per_id'], '.1f')} "
              f"| {t['index_growth_pages'] or '—'} "
              f"| {num(t['leaf_fill_touched'], '.3f')} | {num(t['fill_factor'], '.3f')} |")
PY
