#!/usr/bin/env python3
"""report_browser.py — open an idbench report.html in headless Chromium and check it.

Chromium is driven over the DevTools protocol on a pipe (--remote-debugging-pipe: JSON
messages ending in NUL on file descriptors 3 and 4), so the viewport is exactly the width
asked for, every console message, uncaught exception and network request is seen, and
screenshots are cut to an element. Python's standard library only (zlib decodes the PNG).

  report_browser.py dom REPORT.md REPORT.html...
      the DOM holds every section of report.md (same headings, in order), every table
      (same column titles), every plot (an inline <svg> per image of report.md, with its
      numbers in a <details> table), every sentence, sortable tables; the page logged no
      console message, raised no exception, fetched nothing but itself, and runs its own
      inline script only (one <script>, no event handler attribute).
  report_browser.py layout WIDTH,... REPORT.html...
      at each width (CSS px): nothing is wider than the page, and the first plot's area in
      a screenshot is drawn (not one flat colour).
  report_browser.py index ROWS INDEX.html...
      the results index: ROWS rows, no console message or fetch, its own script only.

Each page gets "ok: PAGE" or a "FAIL: PAGE: what" line per failed check. Exit 0 when every
page passes, 1 when one does not, 2 when the browser could not be run. Needs CHROMIUM (default chromium).
"""
import base64
import html.parser
import json
import os
import re
import struct
import subprocess
import sys
import tempfile
import time
import zlib

TIMEOUT_S = 120            # for the browser to answer a command or load the page
PHONE_MAX = 600            # widths up to this are emulated as a phone (mobile viewport)
HEIGHT = 900               # the viewport's height
SHOT_SCALE = 0.5           # screenshots at half size: enough to see a drawing, quick to decode
INSET = 4                  # CSS px left out at each edge of a plot (its border)
FLAT_SHARE = 0.98          # a drawn plot: at most this share of its pixels in one colour


class Browser:
    """Headless Chromium over the DevTools pipe, one page attached."""

    def __init__(self):
        self.tmp = tempfile.mkdtemp(prefix="idbench-chrome.")
        to_chrome_r, self.to_chrome = os.pipe()
        self.from_chrome, from_chrome_w = os.pipe()
        os.set_inheritable(to_chrome_r, True)
        os.set_inheritable(from_chrome_w, True)
        exe = os.environ.get("CHROMIUM", "chromium")
        args = [exe, "--headless", "--disable-gpu", "--remote-debugging-pipe",
                "--user-data-dir=" + self.tmp, "--no-first-run", "--hide-scrollbars",
                "about:blank"]
        if os.geteuid() == 0:
            args.insert(1, "--no-sandbox")

        def fds():
            os.dup2(to_chrome_r, 3)
            os.dup2(from_chrome_w, 4)

        self.proc = subprocess.Popen(args, preexec_fn=fds, pass_fds=(3, 4),
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(to_chrome_r)
        os.close(from_chrome_w)
        self.buf = b""
        self.next_id = 0
        self.events = []
        self.session = None
        targets = self.call("Target.getTargets")["targetInfos"]
        page = [t for t in targets if t["type"] == "page"][0]
        self.session = self.call("Target.attachToTarget", targetId=page["targetId"],
                                 flatten=True)["sessionId"]
        for domain in ("Page", "Runtime", "Log", "Network"):
            self.call(domain + ".enable")

    def _read(self):
        """The next message from the browser."""
        while b"\0" not in self.buf:
            chunk = os.read(self.from_chrome, 1 << 16)
            if not chunk:
                raise RuntimeError("the browser closed its pipe")
            self.buf += chunk
        msg, self.buf = self.buf.split(b"\0", 1)
        return json.loads(msg)

    def call(self, method, **params):
        """Send a command, keep the events that come before its answer, return its result."""
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params}
        if self.session and not method.startswith("Target."):
            msg["sessionId"] = self.session
        os.write(self.to_chrome, json.dumps(msg).encode() + b"\0")
        while True:
            m = self._read()
            if m.get("id") == self.next_id:
                if "error" in m:
                    raise RuntimeError("%s: %s" % (method, m["error"]))
                return m["result"]
            self.events.append(m)

    def wait_event(self, method):
        """Wait for an event (seen already or to come)."""
        deadline = time.time() + TIMEOUT_S
        while time.time() < deadline:
            for e in self.events:
                if e.get("method") == method:
                    self.events.remove(e)
                    return e
            self.events.append(self._read())
        raise RuntimeError("no %s within %d s" % (method, TIMEOUT_S))

    def load(self, path, width):
        """Open the file at the width (phone emulation up to PHONE_MAX)."""
        self.call("Emulation.setDeviceMetricsOverride", width=width, height=HEIGHT,
                  deviceScaleFactor=1, mobile=width <= PHONE_MAX)
        self.call("Page.navigate", url="file://" + os.path.abspath(path))
        self.wait_event("Page.loadEventFired")

    def eval(self, expr):
        """The value of a JavaScript expression in the page."""
        r = self.call("Runtime.evaluate", expression=expr, returnByValue=True)
        if "exceptionDetails" in r:
            raise RuntimeError("evaluate %s: %s" % (expr, r["exceptionDetails"]))
        return r["result"].get("value")

    def screenshot(self, x, y, w, h):
        """A PNG of the page's area (CSS px), at SHOT_SCALE."""
        r = self.call("Page.captureScreenshot", format="png", captureBeyondViewport=True,
                      clip={"x": x, "y": y, "width": w, "height": h, "scale": SHOT_SCALE})
        return base64.b64decode(r["data"])

    def complaints(self, own_url):
        """Console messages, exceptions and fetches of anything but own_url, as lines."""
        out = []
        for e in self.events:
            m, p = e.get("method"), e.get("params", {})
            if m == "Runtime.consoleAPICalled":
                out.append("console.%s: %s" % (p["type"], [a.get("value") for a in p["args"]]))
            elif m == "Runtime.exceptionThrown":
                out.append("exception: %s" % p["exceptionDetails"].get("text"))
            elif m == "Log.entryAdded":
                out.append("log %s: %s" % (p["entry"]["level"], p["entry"]["text"]))
            elif m == "Network.requestWillBeSent" and p["request"]["url"] != own_url:
                out.append("fetch: %s" % p["request"]["url"][:200])
        return out

    def close(self):
        try:
            self.call("Browser.close")
        except (RuntimeError, OSError):
            pass
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        os.close(self.to_chrome)
        os.close(self.from_chrome)
        subprocess.run(["rm", "-rf", self.tmp], check=False)


def png_pixels(data):
    """(width, height, rows of bytes per pixel) of an 8-bit RGB or RGBA PNG."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat = 8, b""
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, ctype = struct.unpack(">IIBB", body[:10])
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    assert depth == 8 and ctype in (2, 6), "PNG: 8-bit RGB or RGBA only"
    bpp = 3 if ctype == 2 else 4
    raw, stride, rows, prev = zlib.decompress(idat), w * bpp, [], bytearray(w * bpp)
    for y in range(h):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b, c = prev[i], prev[i - bpp] if i >= bpp else 0
            if f == 1: line[i] = (line[i] + a) & 255
            elif f == 2: line[i] = (line[i] + b) & 255
            elif f == 3: line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        prev = line
    return w, h, [[r[x * bpp:x * bpp + 3] for x in range(w)] for r in rows]


class Dom(html.parser.HTMLParser):
    """What the checks need from a DOM: headings, tables, plots, text, links."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack, self.h2, self.tables, self.svgs, self.details_tables = [], [], [], 0, 0
        self.text, self.refs, self.cur = [], [], None
        self.in_details = 0

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        for k in ("src", "href", "xlink:href", "action"):
            if k in a:
                self.refs.append((tag, a[k]))
        if tag == "script" and "src" in a:
            self.refs.append((tag, "script src " + a["src"]))
        if tag == "details":
            self.in_details += 1
        if tag == "h2":
            self.cur = []
        if tag == "table":
            if self.in_details:
                self.details_tables += 1
            else:
                self.tables.append([])
        if tag == "th" and not self.in_details and self.tables:
            self.cur = []
        if tag == "svg" and "plot" in a.get("class", ""):
            self.svgs += 1
        if tag not in ("br", "meta", "img", "input", "hr", "link", "use", "path", "rect",
                       "circle", "polygon", "feFlood", "feComposite"):
            self.stack.append(tag)

    def handle_endtag(self, tag):
        if tag == "details":
            self.in_details -= 1
        if tag == "h2" and self.cur is not None:
            self.h2.append("".join(self.cur).strip())
            self.cur = None
        if tag == "th" and self.cur is not None:
            self.tables[-1].append("".join(self.cur).strip())
            self.cur = None
        if self.stack and self.stack[-1] == tag:
            self.stack.pop()

    def handle_data(self, data):
        if self.cur is not None:
            self.cur.append(data)
        if "script" not in self.stack and "style" not in self.stack:
            self.text.append(data)


def norm(s):
    """Text with markdown's backquotes gone and blanks collapsed."""
    return re.sub(r"\s+", " ", s.replace("`", "")).strip()


def md_parts(md):
    """report.md's section titles, table column titles, image count and prose lines."""
    heads, tables, images, prose, lines = [], [], 0, [], md.split("\n")
    for i, line in enumerate(lines):
        if line.startswith("## "):
            heads.append(line[3:].strip())
        elif line.startswith("|") and i + 1 < len(lines) and lines[i + 1].startswith("|---"):
            tables.append([c.strip() for c in line.strip().strip("|").split("|")])
        elif line.startswith("!["):
            images += 1
        elif line.startswith("- "):
            prose.append(line[2:])
        elif line and not line.startswith(("|", "#", "**")):
            prose.append(line)
    return heads, tables, images, prose


def check(fails, ok, what):
    if not ok:
        fails.append(what)


def own_scripts_only(b):
    """The page runs its own inline script only: one <script>, no event handler attribute."""
    fails = []
    n = b.eval("document.scripts.length")
    check(fails, n == 1, "%d scripts in the page, its own is 1" % n)
    handlers = b.eval("[].concat.apply([],[].map.call(document.querySelectorAll('*'),"
                      "function(e){return [].filter.call(e.attributes,function(a){"
                      "return /^on/i.test(a.name);}).map(function(a){return a.name;});}))")
    check(fails, not handlers, "event handler attributes: %s" % handlers)
    return fails


def check_dom(b, report, md_path):
    fails = []
    b.load(report, 1280)
    dom = Dom()
    dom.feed(b.eval("document.documentElement.outerHTML"))
    heads, tables, images, prose = md_parts(open(md_path, encoding="utf-8").read())
    check(fails, dom.h2 == heads, "sections: %s, report.md has %s" % (dom.h2, heads))
    titled = [t for t in dom.tables if any(t)]
    md_titled = [t for t in tables if any(t)]
    check(fails, len(dom.tables) == len(tables),
          "%d tables, report.md has %d" % (len(dom.tables), len(tables)))
    check(fails, titled == md_titled, "table column titles differ from report.md's")
    check(fails, dom.svgs == images, "%d inline plots, report.md has %d" % (dom.svgs, images))
    check(fails, dom.details_tables >= images,
          "%d tables of plot data for %d plots" % (dom.details_tables, images))
    text = norm("".join(dom.text))
    for p in prose:
        check(fails, norm(p) in text, "sentence missing: %.80s" % p)
    for tag, ref in dom.refs:
        check(fails, ref.startswith("#"), "a reference out of the page: <%s> %s" % (tag, ref))
    sortable = b.eval("document.querySelectorAll('table.sortable th[tabindex]').length")
    check(fails, sortable > 0, "no sortable column titles (the script did not run)")
    check(fails, sort_works(b), "clicking a column title does not sort its table")
    fails += own_scripts_only(b)
    for c in b.complaints("file://" + os.path.abspath(report)):
        fails.append("the page: " + c)
    return fails


def sort_works(b):
    """Click the inserts/s title of the first insert table twice; its values must be
    ascending, then descending."""
    js = """(function(){var th=[].slice.call(document.querySelectorAll('th'))
      .filter(function(h){return h.textContent.indexOf('inserts/s')===0;})[0];
      if(!th)return null;var t=th.closest('table'),i=th.cellIndex,out=[];
      for(var k=0;k<2;k++){th.click();out.push([].map.call(t.tBodies[0].rows,function(r){
      return parseFloat(r.cells[i].textContent.replace(/,/g,''));}).filter(isFinite));}
      return out;})()"""
    got = b.eval(js)
    if not got:
        return False
    up, down = got
    return len(up) > 1 and up == sorted(up) and down == sorted(down, reverse=True)


def check_layout(b, report, widths):
    fails = []
    for w in [int(x) for x in widths.split(",")]:
        b.load(report, w)
        sw, cw = b.eval("[document.documentElement.scrollWidth,"
                        "document.documentElement.clientWidth]")
        check(fails, sw <= cw, "at %d px the page is %d px wide (wider than %d)" % (w, sw, cw))
        rect = b.eval("(function(){var p=document.querySelector('svg.plot');if(!p)return null;"
                      "var r=p.getBoundingClientRect();return [r.left+scrollX,r.top+scrollY,"
                      "r.width,r.height];})()")
        if not rect:
            fails.append("at %d px: no plot" % w)
            continue
        x, y, pw, ph = rect
        check(fails, pw >= w / 2, "at %d px the first plot is %d px wide" % (w, pw))
        width, height, px = png_pixels(b.screenshot(x + INSET, y + INSET, pw - 2 * INSET,
                                                    ph - 2 * INSET))
        counts = {}
        for row in px:
            for p in row:
                counts[p] = counts.get(p, 0) + 1
        top = max(counts.values())
        check(fails, top <= FLAT_SHARE * width * height,
              "at %d px the first plot's area is %.1f%% one colour (%d colours)"
              % (w, 100.0 * top / (width * height), len(counts)))
    for c in b.complaints("file://" + os.path.abspath(report)):
        fails.append("the page: " + c)
    return fails


def check_index(b, index, rows):
    fails = []
    b.load(index, 1280)
    n = b.eval("document.querySelectorAll('tbody tr').length")
    check(fails, n == int(rows), "%d rows, expected %s" % (n, rows))
    fails += own_scripts_only(b)
    for c in b.complaints("file://" + os.path.abspath(index)):
        fails.append("the page: " + c)
    return fails


def main(argv):
    modes = {"dom": check_dom, "layout": check_layout, "index": check_index}
    if len(argv) < 4 or argv[1] not in modes:
        print(__doc__, file=sys.stderr)
        return 2
    try:
        b = Browser()
    except (OSError, RuntimeError, IndexError) as e:
        print("report_browser: cannot run the browser: %s" % e, file=sys.stderr)
        return 2
    failed = 0
    try:
        for page in argv[3:]:
            b.events = []
            try:
                fails = modes[argv[1]](b, page, argv[2])
            except RuntimeError as e:
                fails = ["the browser: %s" % e]
            for f in fails:
                print("FAIL: %s: %s" % (page, f))
            if not fails:
                print("ok: %s" % page)
            failed += len(fails) > 0
    finally:
        b.close()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
