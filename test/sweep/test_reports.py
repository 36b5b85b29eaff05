"""The HTML reports in a real browser (docs/reports.md): a run's report.html (scripts/report)
from a vgpu-sim run with --trace, and a sweep's report.html (scripts/sweep report) from a
synthetic sweep folder written here as docs/sweeps.md lays it out, with failed points. Each page is
loaded in Debian's headless chromium from a file:// URL; the test reads the rendered DOM
(--dump-dom) for the expected plots (inline <svg> with known ids and titles) and table rows,
the browser's log for script errors, and takes a screenshot that must not be blank.

Environment: VGPU_ROOT (the project), VGPU_SIM (vgpu-sim; default VGPU_ROOT/build/...).
Run: /usr/bin/python3 -m unittest test_reports (from test/sweep), or ctest -R sweep:reports."""

import contextlib
import csv
import hashlib
import html.parser
import io
import json
import os
import random
import re
import shutil
import statistics
import struct
import subprocess
import sys
import tempfile
import unittest
import zlib

ROOT = os.environ.get("VGPU_ROOT") or os.path.abspath(
    os.path.join(os.path.dirname(__file__), "..", ".."))
SIM = os.environ.get("VGPU_SIM") or os.path.join(ROOT, "build", "platforms", "vgpu-sim")
# What the reports and this test need (Debian's matplotlib and YAML, chromium): installed when
# missing, as scripts/report does.
subprocess.run(["bash", "-c", f'source "{ROOT}/scripts/lib.sh" && vgpu_install_report_deps'],
               check=True)
sys.path.insert(0, os.path.join(ROOT, "scripts"))
from sweep_lib import report, timeline  # noqa: E402  (after the path is set)

CHROMIUM = shutil.which("chromium")
BROWSER_TIMEOUT_S = 120


# --- the browser ------------------------------------------------------------------------------

def chromium(url, *args):
    """Runs headless chromium on `url` with its own profile folder; returns (stdout, stderr)."""
    with tempfile.TemporaryDirectory(prefix="vgpu-chromium-") as profile:
        done = subprocess.run(
            [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
             f"--user-data-dir={profile}", "--enable-logging=stderr", "--v=0",
             "--no-first-run", "--disable-extensions", *args, url],
            capture_output=True, text=True, timeout=BROWSER_TIMEOUT_S)
    if done.returncode != 0:
        raise AssertionError(f"chromium exited {done.returncode}: {done.stderr[-2000:]}")
    return done.stdout, done.stderr


def console_errors(log):
    """The lines of chromium's log that report a page's console message or script error: a
    report runs no script, so any is an error."""
    return [line for line in log.splitlines() if "CONSOLE" in line or "Uncaught" in line]


class Dom(html.parser.HTMLParser):
    """The rendered page as the test reads it: `svgs` id -> <title> text of every inline <svg>
    with an id; `tables` id -> rows (lists of cell texts, header row excluded); `text` of the
    whole page; `links` every src/href value; `ids` every id; `scripts` how many <script>
    elements."""

    VOID = {"meta", "br", "img", "link", "input", "hr", "col", "area", "base", "wbr"}

    def __init__(self, text):
        super().__init__(convert_charrefs=True)
        self.svgs, self.tables, self.links, self.scripts, self.ids = {}, {}, [], 0, []
        self.parts = []
        self._stack, self._table, self._row, self._cell, self._title = [], None, None, None, None
        self.feed(text)
        self.text = "".join(self.parts)

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.handle_startendtag(tag, attrs)
        if tag == "script":
            self.scripts += 1
        if tag == "svg" and a.get("id") and not any(t == "svg" for t, _ in self._stack):
            self.svgs[a["id"]] = None
        if tag == "title" and self._stack and self._stack[-1][0] == "svg":
            self._title = self._stack[-1][1]
        if tag == "table":
            self._table = a.get("id")
            self.tables.setdefault(self._table, [])
        if tag == "tr" and self._table is not None and any(t == "tbody" for t, _ in
                                                             self._stack):
            self._row = []
            self.tables[self._table].append(self._row)
        if tag == "td" and self._row is not None:
            self._cell = []
        if tag not in self.VOID:
            self._stack.append((tag, a.get("id")))

    def handle_startendtag(self, tag, attrs):
        self.links += [v for k, v in attrs if k in ("src", "href", "xlink:href") and v]
        self.ids += [v for k, v in attrs if k == "id"]

    def handle_endtag(self, tag):
        while self._stack:
            top, _ = self._stack.pop()
            if top == tag:
                break
        if tag == "td" and self._cell is not None:
            self._row.append("".join(self._cell).strip())
            self._cell = None
        elif tag == "tr":
            self._row = None
        elif tag == "table":
            self._table = None
        elif tag == "title":
            self._title = None

    def handle_data(self, data):
        self.parts.append(data)
        if self._cell is not None:
            self._cell.append(data)
        if self._title is not None:
            self.svgs[self._title] = (self.svgs[self._title] or "") + data


def png_pixels(path):
    """(width, height, rows of pixel bytes, bytes per pixel) of an 8-bit RGB or RGBA PNG, decoded
    with zlib and the PNG row filters."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise AssertionError(f"{path}: not a PNG")
    pos, idat, header = 8, [], None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat.append(body)
        pos += 12 + length
    width, height, depth, colour, _, _, interlace = header
    if depth != 8 or colour not in (2, 6) or interlace:
        raise AssertionError(f"{path}: PNG kind not decoded here ({depth}-bit type {colour})")
    bpp = 3 if colour == 2 else 4
    raw = zlib.decompress(b"".join(idat))
    stride = width * bpp
    prev, rows = bytearray(stride), []
    for y in range(height):
        start = y * (stride + 1)
        kind, line = raw[start], bytearray(raw[start + 1:start + 1 + stride])
        for i in range(stride) if kind else ():
            a = line[i - bpp] if i >= bpp else 0
            b, c = prev[i], (prev[i - bpp] if i >= bpp else 0)
            if kind == 1:
                line[i] = (line[i] + a) & 255
            elif kind == 2:
                line[i] = (line[i] + b) & 255
            elif kind == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            else:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        prev = line
    return width, height, rows, bpp


def screenshot_colours(path):
    """(distinct colours, pixels drawn in colour) of a screenshot: a page that is blank has one
    colour; one with plots has coloured (not grey) pixels."""
    _, _, rows, bpp = png_pixels(path)
    colours, coloured = set(), 0
    for row in rows:
        for i in range(0, len(row), bpp):
            r, g, b = row[i], row[i + 1], row[i + 2]
            colours.add((r, g, b))
            coloured += max(r, g, b) - min(r, g, b) > 60
    return len(colours), coloured


class BrowserChecks:
    """Loads `cls.report` in chromium once (DOM and screenshot) for the test cases of a page."""

    @classmethod
    def render(cls):
        if not CHROMIUM:
            raise AssertionError("chromium is not installed: the reports' test needs Debian's "
                                 "chromium (VGPU_REPORT_PACKAGES in scripts/lib.sh)")
        url = "file://" + os.path.abspath(cls.report)
        dom, log = chromium(url, "--dump-dom")
        cls.dom = Dom(dom)
        cls.shot = os.path.join(os.path.dirname(cls.report), "screenshot.png")
        _, log2 = chromium(url, f"--screenshot={cls.shot}", "--window-size=1280,2000")
        cls.errors = console_errors(log) + console_errors(log2)

    def test_no_script_errors(self):
        self.assertEqual(self.errors, [], "the browser logged console messages or errors")
        self.assertEqual(self.dom.scripts, 0, "a report needs no script")

    def test_self_contained(self):
        external = [link for link in self.dom.links if re.match(r"^(https?:|//)", link)]
        self.assertEqual(external, [], "a report must load nothing from the network")

    def test_ids_unique(self):
        seen = set()
        twice = {i for i in self.dom.ids if i in seen or seen.add(i)}
        self.assertEqual(twice, set(), "element ids used more than once")

    def test_screenshot_not_blank(self):
        self.assertTrue(os.path.getsize(self.shot) > 0)
        colours, coloured = screenshot_colours(self.shot)
        self.assertGreater(colours, 1, "the screenshot is one colour (blank)")
        self.assertGreater(coloured, 2000, "no plot colours in the screenshot")

    def assert_plot(self, plot_id, title):
        self.assertIn(plot_id, self.dom.svgs, f"no <svg id={plot_id}> in the rendered page")
        self.assertEqual(self.dom.svgs[plot_id], title)


# --- a run's report -----------------------------------------------------------------------------

def flat(record, prefix=""):
    """A kernel record's fields, nested objects as 'outer.inner' (written apart from the
    report's own flattening)."""
    out = {}
    for key, value in record.items():
        if isinstance(value, dict):
            for k, v in flat(value, key + ".").items():
                out[prefix + k] = v
        else:
            out[prefix + key] = value
    return out


class RunReportTest(BrowserChecks, unittest.TestCase):
    """scripts/report on a run of three kernels on two CP queues, with --trace."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="vgpu-run-report-")
        cls.out = os.path.join(cls.tmp, "run")
        subprocess.run([SIM, "-w", os.path.join(ROOT, "testbenches/workloads/multi_kernel.yaml"),
                        "-o", cls.out, "--trace"], check=True, capture_output=True,
                       timeout=300)
        with open(os.path.join(cls.out, "stats.json"), encoding="utf-8") as f:
            cls.stats = json.load(f)
        done = subprocess.run([os.path.join(ROOT, "scripts", "report"), cls.out],
                              capture_output=True, text=True, timeout=300)
        if done.returncode != 0:
            raise AssertionError(f"scripts/report exited {done.returncode}: {done.stderr}")
        cls.report = os.path.join(cls.out, "report.html")
        cls.render()

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def test_plots(self):
        self.assert_plot("plot-shares", "issue / memory / ALU / barrier shares")
        self.assert_plot("plot-resources", "busiest resources")
        self.assert_plot("plot-timeline", "timeline overview")

    def test_meta(self):
        meta = dict(self.dom.tables["meta"])
        for key in ("workload", "timing_mode", "verdict", "config_hash", "sim_time_ns",
                    "host_seconds"):
            self.assertIn(key, meta)
        self.assertEqual(meta["workload"], self.stats["meta"]["workload"])
        self.assertEqual(meta["verdict"], "pass")
        self.assertEqual(meta["config_hash"], self.stats["meta"]["config_hash"])

    def test_kernel_records(self):
        kernels = self.stats["kernels"]
        self.assertEqual(len(kernels), 3)
        overview = self.dom.tables["kernel-overview"]
        self.assertEqual([row[1] for row in overview], [k["name"] for k in kernels])
        for i, record in enumerate(kernels):
            fields = flat(record)
            rows = dict(self.dom.tables[f"kernel-{i}"])
            self.assertEqual(set(rows), set(fields), f"kernel {i}: every field, once")
            self.assertEqual(rows["bound"], record["bound"])
            self.assertEqual(rows["cycles"], str(record["cycles"]))

    def test_busiest_resources(self):
        # Independent ranking: every '<path>.busy_ps' statistic, most busy time first.
        busy = sorted(((v, k[:-len(".busy_ps")]) for k, v in self.stats["stats"].items()
                       if k.endswith(".busy_ps")), key=lambda p: (-p[0], p[1]))
        rows = self.dom.tables["resources"]
        self.assertEqual([r[0] for r in rows], [name for _, name in busy[:len(rows)]])
        self.assertGreater(len(rows), 3)
        per_kernel = self.dom.tables["kernel-resources"]
        self.assertEqual([r[1] for r in per_kernel],
                         [k["busiest_resource"]["name"] for k in self.stats["kernels"]])

    def test_timeline_lanes(self):
        # The kernels of both CP queues and every SM that ran a CTA get a lane (SVG text).
        svg_text = self.dom.text
        for lane in ("kernels: queue 0", "kernels: queue 1", "m0.c0.sm0", "ch0_busy"):
            self.assertTrue(lane in svg_text, f"no timeline lane '{lane}'")


# --- a sweep's report ----------------------------------------------------------------------------

# The synthetic sweep: a 3 x 2 grid over two workloads (one kernel, two kernels), two metrics
# (a name and a glob), and two failed points: exit status 1 with a log tail, and a lost task.
SPEC = """\
name: l1-study
configs: [platforms/default.yaml]
workloads:
  - file: testbenches/cuda/gemv.yaml
  - file: testbenches/workloads/multi_kernel.yaml
grid:
  l1.sets: [16, 32, 64]
  l1.sharing: [private, adaptive]
metrics: [gpu.instructions, "gpu.m0.dram.ch*.busy_ps"]
"""
AXES = ("l1.sets", "l1.sharing")
KERNELS = {"testbenches/cuda/gemv.yaml": ["gemv"],
           "testbenches/workloads/multi_kernel.yaml": ["scale", "combine"]}
RECORD = ["cycles", "start_ns", "end_ns", "ipc", "l1_hit_rate", "llc_hit_rate", "dram_bw_util",
          "link_bytes", "bound", "busiest_resource.busy_share", "busiest_resource.name",
          "completed", "dram_read_bytes", "dram_write_bytes", "instructions", "name", "ok",
          "shares.alu_latency", "shares.barriers", "shares.issue", "shares.memory", "sms"]
METRICS = ["gpu.instructions", "gpu.m0.dram.ch0.busy_ps", "gpu.m0.dram.ch1.busy_ps"]
FAILED = {3: ("1", "vgpu-sim: FAIL: the workload did not finish within platform.max_time | "
                   "kernel 'gemv' (phase 0) had finished 3 of 64 CTAs"),
          10: ("lost", "")}


def synthetic_points():
    """The sweep's points in manifest order: (index, id, workload, axes)."""
    points = []
    for workload in KERNELS:
        for sets in (16, 32, 64):
            for sharing in ("private", "adaptive"):
                axes = {"l1.sets": sets, "l1.sharing": sharing}
                key = json.dumps([workload, axes], sort_keys=True).encode()
                points.append((len(points), hashlib.sha256(key).hexdigest()[:16], workload,
                               axes))
    return points


def synthetic_bound(index, kernel):
    """A point's kernel's verdict (varies with both)."""
    verdicts = ("issue", "memory_bandwidth", "memory_latency", "alu_latency", "barriers")
    return verdicts[(index + len(kernel)) % len(verdicts)]


def real_rows(folder, run_dir, args, base):
    """Runs vgpu-sim with a point's arguments into its run folder; returns its results rows
    (one per kernel record: the record's fields and the metrics, from its stats.json)."""
    subprocess.run([SIM, *args, "-o", os.path.join(folder, run_dir)], check=True,
                   capture_output=True, timeout=300)
    with open(os.path.join(folder, run_dir, "stats.json"), encoding="utf-8") as f:
        stats = json.load(f)
    rows = []
    for record in stats["kernels"]:
        fields = flat(record)
        rows.append(dict(base, kernel=record["name"], host_seconds=stats["meta"]["host_seconds"],
                         **{c: fields.get(c) for c in RECORD},
                         **{m: stats["stats"].get(m) for m in METRICS}))
    return rows


def write_synthetic_sweep(folder, real_points=()):
    """Writes spec.yaml, manifest.jsonl, runs/<id>/status.json and results.csv as a finished
    sweep lays them out (docs/sweeps.md, "The sweep folder"). The points of `real_points` (indices)
    are run by vgpu-sim into their run folders and their rows come from their stats.json; the
    others get made-up figures. Returns the results rows."""
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "spec.yaml"), "w", encoding="utf-8") as f:
        f.write(SPEC)
    columns = ["point", "workload", "kernel", *AXES, "seed", *RECORD, *METRICS, "exit_status",
               "host_seconds", "run_dir", "message"]
    rows = []
    with open(os.path.join(folder, "manifest.jsonl"), "w", encoding="utf-8") as manifest:
        for index, pid, workload, axes in synthetic_points():
            args = ["-c", os.path.join(ROOT, "platforms/default.yaml"), "-w",
                    os.path.join(ROOT, workload), "-s", f"l1.sets={axes['l1.sets']}", "-s",
                    f"l1.sharing={axes['l1.sharing']}"]
            manifest.write(json.dumps({"index": index, "id": pid, "workload": workload,
                                       "axes": axes, "vars": {}, "seed": None, "args": args,
                                       "time_s": None, "memory_mb": None}) + "\n")
            run_dir = f"runs/{pid}"
            status, message = FAILED.get(index, ("0", ""))
            os.makedirs(os.path.join(folder, run_dir))
            with open(os.path.join(folder, run_dir, "status.json"), "w") as f:
                json.dump({"id": pid, "index": index, "exit_status": status if status == "lost"
                           else int(status), "host_seconds": 0.5,
                           "log_tail": message.split(" | "), "launcher": "local"}, f)
            base = {"point": pid, "workload": workload, "l1.sets": axes["l1.sets"],
                    "l1.sharing": axes["l1.sharing"], "seed": "", "exit_status": status,
                    "host_seconds": 0.5, "run_dir": run_dir, "message": message}
            if status != "0":
                rows.append(base)
                continue
            if index in real_points:
                rows += real_rows(folder, run_dir, args, base)
                continue
            start = 0.0
            for k, kernel in enumerate(KERNELS[workload]):
                time = 1000.0 * (k + 1) * (1 + 64 / axes["l1.sets"]) * (
                    0.8 if axes["l1.sharing"] == "adaptive" else 1.0)
                shares = {"issue": 0.4, "memory": 0.5, "alu_latency": 0.06, "barriers": 0.04}
                rows.append(dict(base, kernel=kernel, cycles=int(1.5 * time), start_ns=start,
                                 end_ns=start + time, ipc=1.5, l1_hit_rate=0.25 * k,
                                 llc_hit_rate=0.5, dram_bw_util=0.3, link_bytes=0,
                                 bound=synthetic_bound(index, kernel),
                                 **{"busiest_resource.busy_share": 0.7,
                                    "busiest_resource.name": "gpu.m0.noc.c0",
                                    "completed": "true", "dram_read_bytes": 4096,
                                    "dram_write_bytes": 0, "instructions": 9000, "name": kernel,
                                    "ok": "true", "sms": 8,
                                    "gpu.instructions": 9000 * len(KERNELS[workload]),
                                    "gpu.m0.dram.ch0.busy_ps": 1e6 * axes["l1.sets"],
                                    "gpu.m0.dram.ch1.busy_ps": 2e6},
                                 **{f"shares.{s}": v for s, v in shares.items()}))
                start += time
    with open(os.path.join(folder, "results.csv"), "w", encoding="utf-8", newline="") as f:
        writer = csv.DictWriter(f, columns)
        writer.writeheader()
        writer.writerows(rows)
    return rows


class SweepReportTest(BrowserChecks, unittest.TestCase):
    """report.write_sweep_report on the synthetic sweep."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="vgpu-sweep-report-")
        cls.folder = os.path.join(cls.tmp, "sweep")
        cls.rows = write_synthetic_sweep(cls.folder, real_points=(0,))
        cls.real_run = os.path.join(cls.folder, "runs", synthetic_points()[0][1])
        subprocess.run([os.path.join(ROOT, "scripts", "report"), cls.real_run], check=True,
                       capture_output=True, timeout=300)
        cls.report = report.write_sweep_report(cls.folder)
        cls.render()

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def test_plots_per_axis_and_metric(self):
        for i, axis in enumerate(AXES):
            self.assert_plot(f"plot-axis{i}-time", f"kernel time vs {axis}")
            for j, metric in enumerate(METRICS):
                self.assert_plot(f"plot-axis{i}-metric{j}", f"{metric} vs {axis}")
        # One line per workload / kernel / value of the other axis (it takes two values).
        for label in ("gemv / gemv / l1.sharing=private",
                      "multi_kernel / combine / l1.sets=64"):
            self.assertTrue(label in self.dom.text, f"no line labelled '{label}'")

    def test_results_table(self):
        table = self.dom.tables["results"]
        self.assertEqual(len(table), len(self.rows))
        self.assertEqual([r[0] for r in table], [r["point"] for r in self.rows])
        # time_ns comes after seed: the window of each kernel record.
        at = 3 + len(AXES) + 1
        self.assertEqual(table[0][2], "gemv")  # the real run's kernel record
        for cells, row in zip(table, self.rows):
            if row["exit_status"] == "0":
                self.assertAlmostEqual(float(cells[at]), row["end_ns"] - row["start_ns"],
                                       delta=1e-3 * (row["end_ns"] - row["start_ns"]))

    def test_verdict_per_point(self):
        table = self.dom.tables["verdicts"]
        points = synthetic_points()
        self.assertEqual([r[0] for r in table], [p[1] for p in points])
        kernels = ["gemv", "scale", "combine"]
        written = {(r["point"], r.get("kernel")): r.get("bound") for r in self.rows}
        for cells, (index, pid, _, _) in zip(table, points):
            bounds = cells[-len(kernels):]
            for kernel, bound in zip(kernels, bounds):
                self.assertEqual(bound, written.get((pid, kernel)) or "",
                                 f"point {index} kernel {kernel}")
        self.assertEqual(table[1][-3], synthetic_bound(1, "gemv"))

    def test_links_to_runs(self):
        # The real point's run has its report.html; the others link to their folder.
        pids = [p[1] for p in synthetic_points()]
        self.assertIn(f"runs/{pids[0]}/report.html", self.dom.links)
        self.assertIn(f"runs/{pids[1]}/", self.dom.links)
        self.assertTrue(os.path.isfile(os.path.join(self.real_run, "report.html")))

    def test_failed_points(self):
        table = self.dom.tables["failed"]
        points = synthetic_points()
        self.assertEqual([r[0] for r in table], [points[i][1] for i in sorted(FAILED)])
        for cells, index in zip(table, sorted(FAILED)):
            status, message = FAILED[index]
            self.assertEqual(cells[-2], status)
            self.assertEqual(cells[-1].split("\n"), message.split(" | "))


class PlotLinesTest(unittest.TestCase):
    """The lines of the sweep plots: per combination of the other axes when there are few,
    their median when there are many, seeds always by their median."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="vgpu-report-lines-")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    @staticmethod
    def time_of(a, b, c, seed):
        return 100.0 * a + {"x": 1, "y": 7, "z": 30}[b] + (5 if c == "p" else 0) + seed

    def write(self, cs, extra=()):
        """results.csv of a grid a x b x c(cs) x seeds 1, 2 (one kernel, no failures), then the
        `extra` rows."""
        with open(os.path.join(self.tmp, "results.csv"), "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["point", "workload", "kernel", "a", "b", "c", "seed", "start_ns",
                        "end_ns", "exit_status"])
            n = 0
            for a in (1, 2):
                for b in ("x", "y", "z"):
                    for c in cs:
                        for seed in (1, 2):
                            n += 1
                            w.writerow([f"p{n}", "w.yaml", "k", a, b, c, seed, 10,
                                        10 + self.time_of(a, b, c, seed), 0])
            w.writerows(extra)
        return report.load_sweep(self.tmp)

    def test_median_over_many_combinations(self):
        sweep = self.write(("p", "q"))
        axis = report.Axis("a", [r["a"] for r in sweep.rows])
        lines, notes = report.plot_lines(sweep, axis, ["b", "c"], "time")
        expected = [(str(a), statistics.median(self.time_of(a, b, c, s) for b in "xyz"
                                               for c in "pq" for s in (1, 2))) for a in (1, 2)]
        self.assertEqual(lines, {"w / k": expected})
        self.assertIn("median over the 6 combinations of b, c", notes)
        self.assertIn("median over seeds", notes)

    def test_a_line_per_combination(self):
        # An explicit point without the axis (a empty) is on no line of a's plot.
        sweep = self.write(("p",), extra=[["q1", "w.yaml", "k", "", "x", "p", 1, 0, 5, 0]])
        axis = report.Axis("a", [r["a"] for r in sweep.rows])
        lines, _ = report.plot_lines(sweep, axis, ["b"], "time")
        self.assertEqual(sorted(lines), ["w / k / b=x", "w / k / b=y", "w / k / b=z"])
        self.assertEqual(lines["w / k / b=y"], [(str(a), statistics.median(
            [self.time_of(a, "y", "p", 1), self.time_of(a, "y", "p", 2)])) for a in (1, 2)])


class TimelineBinsTest(unittest.TestCase):
    """The timeline's bins against a direct computation."""

    def test_random_spans(self):
        seed = int(os.environ.get("VGPU_TEST_SEED", random.randrange(1 << 30)))
        rng = random.Random(seed)
        end = 1000.0
        bins = timeline._Bins(end)
        spans = []
        for _ in range(300):
            a, b = sorted(rng.uniform(-50, end + 50) for _ in range(2))
            w = rng.choice((1.0, 2.5))
            spans.append((a, b, w))
            bins.add(a, b, w)
        width = end / timeline.BINS
        for i, got in enumerate(bins.means()):
            lo, hi = i * width, (i + 1) * width
            want = sum(w * max(0.0, min(b, hi) - max(a, lo)) for a, b, w in spans) / width
            self.assertAlmostEqual(got, want, places=6, msg=f"bin {i}, seed {seed}")

    def test_fold(self):
        lanes = [(f"sm{i}", [float(i), 1.0]) for i in range(80)]
        rows = timeline.fold(lanes, 32)
        self.assertEqual(len(rows), 27)  # runs of 3 (80 / 32 rounded up)
        self.assertEqual(rows[0], ("sm0 .. sm2", [1.0, 1.0]))
        self.assertEqual(rows[-1], ("sm78 .. sm79", [78.5, 1.0]))
        self.assertEqual(timeline.fold(lanes[:32], 32), lanes[:32])

    def test_trace_lanes(self):
        # Two CTAs on one SM over the first half, a counter at 1 over the second quarter.
        events = [
            {"ph": "X", "pid": 1, "tid": 1, "ts": 0.0, "dur": 0.5, "name": "cta (0,0) k"},
            {"ph": "X", "pid": 1, "tid": 2, "ts": 0.0, "dur": 0.5, "name": "cta (1,0) k"},
            {"ph": "X", "pid": 1, "tid": 3, "ts": 0.0, "dur": 0.5, "name": "cta (1,0) warp 0"},
            {"ph": "C", "pid": 2, "ts": 0.5, "name": "ch0_busy", "args": {"value": 0.0}},
            {"ph": "C", "pid": 2, "ts": 0.25, "name": "ch0_busy", "args": {"value": 1.0}},
            {"ph": "C", "pid": 2, "ts": 0.0, "name": "ch0_busy", "args": {"value": 0.0}},
            {"ph": "M", "pid": 1, "name": "process_name", "args": {"name": "gpu.m0.c0.sm0"}},
        ]
        path = os.path.join(tempfile.mkdtemp(prefix="vgpu-report-trace-"), "trace.json")
        try:
            with open(path, "w") as f:
                f.write('{"displayTimeUnit":"ns","traceEvents":[\n' +
                        ",\n".join(json.dumps(e) for e in events) + "\n]}\n")
            trace = timeline.read_trace(path, 1.0)
        finally:
            shutil.rmtree(os.path.dirname(path))
        half, quarter = timeline.BINS // 2, timeline.BINS // 4
        self.assertEqual(trace.ctas[1], [2.0] * half + [0.0] * half)
        self.assertEqual(trace.counters[(2, "ch0_busy")],
                         [0.0] * quarter + [1.0] * quarter + [0.0] * half)
        self.assertEqual(trace.processes[1], "gpu.m0.c0.sm0")


# --- bad input ------------------------------------------------------------------------------------

class BadInputTest(unittest.TestCase):
    """Missing or invalid input: exit 2 naming the file; an output that cannot be written:
    exit 1."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="vgpu-report-bad-")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def run_report(self, folder):
        return subprocess.run([os.path.join(ROOT, "scripts", "report"), folder],
                              capture_output=True, text=True, timeout=300)

    def test_missing_stats(self):
        done = self.run_report(self.tmp)
        self.assertEqual(done.returncode, 2)
        self.assertIn(os.path.join(self.tmp, "stats.json") + ": cannot read", done.stderr)

    def test_invalid_stats(self):
        with open(os.path.join(self.tmp, "stats.json"), "w") as f:
            f.write('{"stats": {}\n,,')
        done = self.run_report(self.tmp)
        self.assertEqual(done.returncode, 2)
        self.assertIn(os.path.join(self.tmp, "stats.json") + ":2:2: invalid JSON", done.stderr)

    def test_unwritable_report(self):
        with open(os.path.join(self.tmp, "stats.json"), "w") as f:
            json.dump({"meta": {"sim_time_ns": 0}, "stats": {}, "kernels": []}, f)
        os.mkdir(os.path.join(self.tmp, "report.html"))  # a folder where the file goes
        done = self.run_report(self.tmp)
        self.assertEqual(done.returncode, 1, done.stderr)
        self.assertIn("cannot write", done.stderr)

    def test_sweep_without_results(self):
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            self.assertEqual(report.main([self.tmp]), 2)
        self.assertIn(os.path.join(self.tmp, "results.csv") + ": cannot read", err.getvalue())

    def test_sweep_bad_spec(self):
        write_synthetic_sweep(self.tmp)
        with open(os.path.join(self.tmp, "spec.yaml"), "w") as f:
            f.write("name: x\ngrid: {a: [1, 2]\n")
        with self.assertRaisesRegex(report.InputError, r"spec\.yaml:3:1: invalid YAML"):
            report.write_sweep_report(self.tmp)


if __name__ == "__main__":
    unittest.main()
