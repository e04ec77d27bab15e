#!/usr/bin/env bash
# test_report_html.sh — report.html and the results index in a real browser (headless
# Chromium, driven by report_browser.py). Two parts, two meson tests:
#   dom:    report.html of a copy of results/sample has every section, table, plot and
#           sentence of report.md, sorts, logs nothing, fetches nothing; names from crafted
#           results files (<script>, event handlers) are text; the index of a parent lists
#           its results directories, escaped.
#   layout: at 1280 and 390 px nothing overflows the page and the first plot is drawn.
# Each part also spoils copies of the page and checks the checker fails on each (a
# missing section or plot, a script error, a fetch, an overflow, a blank plot).
# The results are a copy of results/sample (RESULTS sample, the slow suite: its page is
# large) or of a tiny matrix (RESULTS tiny, tests/fast-matrix.ini: the default suite).
# Usage: test_report_html.sh IDBENCH SOURCE_DIR dom|layout [sample|tiny]
set -u
IDB=${1:?usage: test_report_html.sh IDBENCH SOURCE_DIR dom|layout [sample|tiny]}
SRC=${2:?usage: test_report_html.sh IDBENCH SOURCE_DIR dom|layout [sample|tiny]}
PART=${3:?usage: test_report_html.sh IDBENCH SOURCE_DIR dom|layout [sample|tiny]}
RESULTS=${4:-sample}
IDB=$(cd "$(dirname "$IDB")" && pwd)/$(basename "$IDB")
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/cli_lib.sh"
browse() { python3 "$HERE/report_browser.py" "$@"; }

r=$tmp/r
if [ "$RESULTS" = tiny ]; then
  check "a tiny matrix" "$IDB" matrix "$SRC/workloads/matrix.ini" "$SRC/tests/fast-matrix.ini" \
    --out "$r" >/dev/null 2>&1
  headline='sqlite, 300 IDs, 1 shard\(s\): <code>[a-z0-9]+</code>'   # the index's headline
else
  cp -r "$SRC/results/sample" "$r"
  # the index's headline names the fastest strategy of the sample's sqlite rows at 200,000
  # IDs on one shard: found here from insert.csv's columns, not written down
  fastest=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
    $c["store"] == "sqlite" && $c["ids"] == 200000 && $c["shards"] == 1 &&
    $c["inserts_per_s"] + 0 > best { best = $c["inserts_per_s"] + 0; s = $c["strategy"] }
    END { print s }' "$SRC/results/sample/insert.csv")
  headline="sqlite, 200000 IDs, 1 shard\\(s\\): <code>$fastest</code>"
fi
rm -rf "$r/plots" "$r/report.md" "$r/report.html"
check "idbench plot writes report.html" "$IDB" plot "$r" >/dev/null 2>&1
check "report.html is written" test -s "$r/report.html"

# spoil NAME PYTHON-EXPRESSION: $tmp/NAME.html, report.html changed by the expression
# (of s, the page's text).
spoil() {
  python3 -c 'import re, sys
s = open(sys.argv[1], encoding="utf-8").read()
t = eval(sys.argv[3])
assert t != s, "nothing spoiled"
open(sys.argv[2], "w", encoding="utf-8").write(t)' "$r/report.html" "$tmp/$1.html" "$2"
}

# failed NAME WHAT: the checker's line for $tmp/NAME.html is a FAIL naming WHAT.
failed() {
  check "the checker fails on $1 ($2)" grep -q "^FAIL: $tmp/$1.html: .*$2" "$tmp/browse"
}

if [ "$PART" = dom ]; then
  spoil no-section 're.sub(r"<section id=\"s3\">.*?</section>", "", s, count=1, flags=re.S)'
  spoil no-plot 're.sub(r"<svg class=\"plot\".*?</svg>", "", s, count=1, flags=re.S)'
  spoil js-error 's.replace("(function(){", "(function(){no_such_function();", 1)'
  spoil fetch 's.replace("</main>", "<img src=\"http://127.0.0.1:9/x.png\" alt=\"\"></main>")'
  spoil unsorted 's.replace("sort(th);});", "});", 1)'
  browse dom "$r/report.md" "$r/report.html" "$tmp"/{no-section,no-plot,js-error,fetch}.html \
    "$tmp/unsorted.html" >"$tmp/browse" 2>&1
  cat "$tmp/browse"
  check "the sample's report.html passes" grep -qx "ok: $r/report.html" "$tmp/browse"
  failed no-section "sections"
  failed no-plot "inline plots"
  failed js-error "exception"
  failed fetch "fetch"
  failed unsorted "does not sort"

  # --- names from crafted results files are text, never markup or script
  e=$tmp/evil
  cp -r "$r" "$e"
  rm -f "$e/report.md" "$e/report.html"
  x='<script>alert(1)</script><img src=x onerror=alert(2)>'
  for f in insert.csv positions.csv curve.csv simulate.csv skew.csv timeline.csv claims.md; do
    [ -e "$e/$f" ] || continue      # a tiny matrix has no claims.md
    sed -i "s|\buuidv4\b|$x|g" "$e/$f"
  done
  sed -i "s|\bsqlite\b|<b onmouseover=alert(3)>sqlite|g" "$e/insert.csv" "$e/curve.csv"
  check "hostile names: plot succeeds" "$IDB" plot "$e" >/dev/null 2>&1
  check "hostile names: report.md names them" grep -qF "$x" "$e/report.md"
  check "hostile names: report.html holds them only escaped" \
    test -z "$(grep -F -e '<script>alert' -e '<img src=x' -e '<b onmouse' "$e/report.html")"
  check "hostile names: escaped in report.html" grep -qF '&lt;script&gt;alert(1)' "$e/report.html"
  browse dom "$e/report.md" "$e/report.html" >"$tmp/browse" 2>&1
  cat "$tmp/browse"
  check "hostile names: the page passes (their text shown, no script of theirs)" \
    grep -qx "ok: $e/report.html" "$tmp/browse"

  # --- the index beside the results directories of a matrix run's parent named results/
  p=$tmp/results
  mkdir -p "$p"
  cp -r "$r" "$p/sample"
  cp -r "$r" "$p/<i>x\" onload=\"alert(1)"
  mkdir "$p/not-results"
  ln -s sample "$p/latest"
  check "a matrix run" "$IDB" matrix "$SRC/tests/tiny-matrix.ini" --out "$p/new" >/dev/null 2>&1
  check "index.html beside it" test -s "$p/index.html"
  check "the index links each report" test "$(grep -c 'report.html">' "$p/index.html")" -eq 3
  check "the newest run first" test "$(grep -o 'href="[^"]*"' "$p/index.html" | head -1)" = \
    'href="new/report.html"'
  check "a crafted directory name is escaped" grep -qF '&lt;i&gt;x&quot; onload=' "$p/index.html"
  check "its link is percent-encoded" grep -qF 'href="%3Ci%3Ex%22%20onload' "$p/index.html"
  check "the headline figures" grep -qE "$headline" \
    "$p/index.html"
  # --out elsewhere writes only inside its directory; `idbench index` writes an index there
  mkdir "$tmp/elsewhere"
  check "a matrix run outside results/" "$IDB" matrix "$SRC/tests/tiny-matrix.ini" \
    --out "$tmp/elsewhere/new" >/dev/null 2>&1
  check "no index.html beside it" test ! -e "$tmp/elsewhere/index.html"
  check "idbench index writes one" "$IDB" index "$tmp/elsewhere" >/dev/null 2>&1
  check "listing the run" test "$(grep -c 'report.html">' "$tmp/elsewhere/index.html")" -eq 1
  browse index 3 "$p/index.html" >"$tmp/browse" 2>&1
  cat "$tmp/browse"
  check "the index passes in the browser" grep -qx "ok: $p/index.html" "$tmp/browse"
else
  spoil wide 's.replace("<main>", "<main><div style=\"width:1900px\">wide</div>", 1)'
  spoil blank 're.sub(r"<svg class=\"plot\".*?</svg>", \
    "<svg class=\"plot\" viewBox=\"0 0 1000 600\"></svg>", s, count=1, flags=re.S)'
  browse layout 1280,390 "$r/report.html" "$tmp/wide.html" "$tmp/blank.html" >"$tmp/browse" 2>&1
  cat "$tmp/browse"
  check "the sample's report.html lays out at 1280 and 390 px" \
    grep -qx "ok: $r/report.html" "$tmp/browse"
  failed wide "at 390 px the page is"
  failed wide "at 1280 px the page is"
  failed blank "at 1280 px the first plot's area is .* one colour"
  failed blank "at 390 px the first plot's area is .* one colour"
fi
cli_done
