"""SWEEPDIR/report.html for a sweep (scripts/sweep report SWEEPDIR; docs/reports.md).

usage: python3 -m sweep_lib.report SWEEPDIR

Reads SWEEPDIR/results.csv (scripts/sweep collect), SWEEPDIR/manifest.jsonl and
SWEEPDIR/spec.yaml, and writes SWEEPDIR/report.html: the failed points with their messages, the
bottleneck verdict of every point, for each axis a plot of kernel time against it per workload
(and one per metric the spec names), and the sweep's table. Exit status 0 written; 1 the report
cannot be written; 2 bad arguments or a missing or invalid results.csv, manifest.jsonl or
spec.yaml."""

import csv
import fnmatch
import json
import math
import os
import statistics
import sys

import yaml

from . import htmlpage
from .htmlpage import InputError

MAX_TABLE_ROWS = 2000   # rows of the sweep's table in the page (results.csv has them all)
MAX_COMBINATIONS = 4    # other-axis combinations drawn as lines of their own; more: the median
MAX_METRIC_PLOTS = 12   # metric columns plotted per axis
BASE_COLUMNS = ("point", "workload", "kernel", "seed", "exit_status", "host_seconds", "run_dir",
              "message")
PALETTE = ["#4878d0", "#ee854a", "#6acc64", "#d65f5f", "#956cb4", "#8c613c", "#dc7ec0",
           "#797979", "#d5bb67", "#82c6e2"]
MARKERS = "osD^v<>ph*"


class Sweep:
    """A sweep folder as the report sees it.
    - `rows`: results.csv rows (dicts of text), `columns` its header;
    - `axes`: the axis KEYs (the columns between `kernel` and `seed`), in spec order;
    - `points`: point id -> manifest entry (may be empty when there is no manifest.jsonl);
    - `spec`: spec.yaml as loaded ({} when absent); `metrics`: the metric columns."""

    def __init__(self, folder, rows, columns, points, spec):
        self.folder, self.rows, self.columns = folder, rows, columns
        self.points, self.spec = points, spec
        self.axes = columns[columns.index("kernel") + 1:columns.index("seed")]
        self.metrics = metric_columns(columns, spec.get("metrics") or [])
        files = list(dict.fromkeys(r["workload"] for r in rows))
        stems = [os.path.splitext(os.path.basename(f))[0] for f in files]
        self.short = dict(zip(files, stems if len(set(stems)) == len(stems) else files))

    def workload_label(self, row):
        """A row's workload as plots name it: its file's name without folder and extension
        (the path as written when two names would clash), then the point's workload variables
        that are no axis (two workload entries of one file differ by them)."""
        entry = self.points.get(row["point"], {})
        wvars = entry.get("vars") or {}
        extra = "".join(f" {k}={wvars[k]}" for k in sorted(wvars)
                        if f"vars.{k}" not in self.axes)
        return self.short.get(row["workload"], row["workload"]) + extra

    def point_ids(self):
        """Point ids in manifest order, then any only results.csv names, in its order."""
        ids = list(self.points)
        seen = set(ids)
        for row in self.rows:
            if row["point"] not in seen:
                seen.add(row["point"])
                ids.append(row["point"])
        return ids

    def rows_of(self):
        """point id -> its rows, in results.csv order."""
        out = {}
        for row in self.rows:
            out.setdefault(row["point"], []).append(row)
        return out


def metric_columns(columns, patterns):
    """The results.csv columns of the spec's `metrics`: statistic names (with a '.') that a
    metric names or its glob matches, apart from the kernel record's nested fields."""
    out = []
    for column in columns:
        if column in BASE_COLUMNS or "." not in column:
            continue
        if column.startswith(("shares.", "busiest_resource.")):
            continue
        if any(fnmatch.fnmatchcase(column, str(p)) for p in patterns):
            out.append(column)
    return out


def load_sweep(folder):
    """Reads the sweep folder; raises InputError naming the file that cannot be used."""
    path = os.path.join(folder, "results.csv")
    try:
        with open(path, encoding="utf-8", newline="") as f:
            reader = csv.DictReader(f)
            columns = list(reader.fieldnames or [])
            rows = list(reader)
    except OSError as e:
        raise InputError(f"{path}: cannot read: {e.strerror or e} "
                         "(scripts/sweep collect writes it)")
    except (UnicodeDecodeError, csv.Error) as e:
        raise InputError(f"{path}: not a CSV table: {e}")
    missing = [c for c in ("point", "workload", "kernel", "seed", "exit_status") if c not in
               columns]
    if missing or columns.index("kernel") > columns.index("seed"):
        raise InputError(f"{path}:1: not a sweep's results.csv (missing or misplaced columns: "
                         f"{', '.join(missing) or 'kernel after seed'})")
    return Sweep(folder, rows, columns, load_manifest(folder), load_spec(folder))


def load_manifest(folder):
    """point id -> manifest entry, in file order ({} when manifest.jsonl is absent)."""
    path = os.path.join(folder, "manifest.jsonl")
    points = {}
    if not os.path.exists(path):
        return points
    try:
        with open(path, encoding="utf-8") as f:
            for number, line in enumerate(f, 1):
                if not line.strip():
                    continue
                try:
                    entry = json.loads(line)
                except json.JSONDecodeError as e:
                    raise InputError(f"{path}:{number}:{e.colno}: invalid JSON: {e.msg}")
                if not isinstance(entry, dict) or "id" not in entry:
                    raise InputError(f"{path}:{number}: a point without an 'id'")
                points[str(entry["id"])] = entry
    except (OSError, UnicodeDecodeError) as e:
        raise InputError(f"{path}: cannot read: {getattr(e, 'strerror', None) or e}")
    return points


def load_spec(folder):
    """spec.yaml as a dict ({} when absent)."""
    path = os.path.join(folder, "spec.yaml")
    if not os.path.exists(path):
        return {}
    try:
        with open(path, encoding="utf-8") as f:
            spec = yaml.safe_load(f)
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        where = f":{mark.line + 1}:{mark.column + 1}" if mark else ""
        raise InputError(f"{path}{where}: invalid YAML: {getattr(e, 'problem', None) or e}")
    except (OSError, UnicodeDecodeError) as e:
        raise InputError(f"{path}: cannot read: {getattr(e, 'strerror', None) or e}")
    if spec is None:
        return {}
    if not isinstance(spec, dict):
        raise InputError(f"{path}:1:1: the spec is not a mapping")
    return spec


def number(text):
    """`text` as a float, None when it is empty or not a finite number."""
    try:
        value = float(text)
    except (TypeError, ValueError):
        return None
    return value if math.isfinite(value) else None


def failed(row):
    """True for a row of a point whose run did not end with exit status 0."""
    return row.get("exit_status", "") not in ("0", "")


def kernel_time(row):
    """end_ns - start_ns of a row, None without both."""
    start, end = number(row.get("start_ns")), number(row.get("end_ns"))
    return end - start if start is not None and end is not None else None


class Axis:
    """The values one axis takes in the sweep: numeric (all of them numbers) or categorical,
    in the order of first appearance (the spec's order)."""

    def __init__(self, key, texts):
        self.key = key
        self.values = list(dict.fromkeys(t for t in texts if t != ""))
        self.numeric = bool(self.values) and all(number(t) is not None for t in self.values)

    def position(self, text):
        """Where `text` goes on the x axis."""
        return number(text) if self.numeric else self.values.index(text)

    def setup(self, ax):
        """Scales and labels the x axis of `ax`: categories by name; numbers on a log scale
        when they are all positive and span a factor of 16 or more."""
        ax.set_xlabel(self.key)
        if not self.numeric:
            ax.set_xticks(range(len(self.values)), self.values, rotation=20, fontsize=8)
            ax.set_xlim(-0.5, len(self.values) - 0.5)
            return
        nums = sorted(number(t) for t in self.values)
        if nums[0] > 0 and nums[-1] / nums[0] >= 16:
            powers_of_two = all(math.log2(v).is_integer() for v in nums)
            ax.set_xscale("log", base=2 if powers_of_two else 10)
            ax.minorticks_off()
        if len(nums) <= 12:
            ax.set_xticks(nums, [htmlpage.fmt(v) for v in nums], fontsize=8)


def point_values(sweep, quantity):
    """[(point row, value)] of the points whose run succeeded: `quantity` is 'time' (per
    workload and kernel: the sum of the kernel's windows in the point, one entry per kernel)
    or a metric column (per workload: the point's value)."""
    out = []
    for rows in sweep.rows_of().values():
        if any(failed(r) for r in rows):
            continue
        if quantity == "time":
            sums = {}
            for r in rows:
                t = kernel_time(r)
                if t is not None:
                    sums.setdefault(r["kernel"], [r, 0.0])[1] += t
            out += [(r, total) for r, total in sums.values()]
        else:
            value = next((number(r.get(quantity)) for r in rows
                          if number(r.get(quantity)) is not None), None)
            if value is not None:
                out.append((rows[0], value))
    return out


def plot_lines(sweep, axis, others, quantity):
    """The lines of a plot of `quantity` against `axis`: {line name: [(axis value, y)]} in
    axis order, and the notes saying how they were made. One line per workload (and kernel,
    for 'time'), and per combination of the `others` axes when there are at most
    MAX_COMBINATIONS of them; y is the median of the points a line has at one axis value
    (over the other axes' combinations when there are more, and over seeds). Points that do not
    set the axis (explicit `points` without its key) are not on its plots."""
    values = point_values(sweep, quantity)
    combos = {tuple(r[k] for k in others) for r, _ in values if r[axis.key] != ""}
    split = len(combos) <= MAX_COMBINATIONS
    groups = {}
    for row, value in values:
        if row[axis.key] == "":
            continue  # an explicit point that does not set this axis
        name = [sweep.workload_label(row)] + ([row["kernel"]] if quantity == "time" else [])
        if split and others:
            name.append(", ".join(f"{k}={row[k]}" for k in others))
        groups.setdefault(" / ".join(name), {}).setdefault(row[axis.key], []).append(value)
    lines = {name: [(x, statistics.median(by_x[x])) for x in sorted(by_x, key=axis.position)]
             for name, by_x in groups.items()}
    notes = []
    if others and not split:
        notes.append(f"median over the {len(combos)} combinations of {', '.join(others)}")
    if len({row["seed"] for row, _ in values}) > 1:
        notes.append("median over seeds")
    if quantity == "time":
        notes.append("kernel time = end_ns - start_ns, summed over a kernel's launches in a "
                     "point")
    notes.append("failed points left out")
    return lines, notes


def axis_plot(sweep, axis, others, quantity, plot_id, title, ylabel):
    """The plot of plot_lines() as a <figure>, or None when there is nothing to draw."""
    lines, notes = plot_lines(sweep, axis, others, quantity)
    if not lines:
        return None
    fig = htmlpage.figure(11, 4.2)
    ax = fig.subplots()
    for i, (name, points) in enumerate(lines.items()):
        ax.plot([axis.position(x) for x, _ in points], [y for _, y in points],
                marker=MARKERS[i // len(PALETTE) % len(MARKERS)],
                color=PALETTE[i % len(PALETTE)], label=name)
    axis.setup(ax)
    ys = [y for points in lines.values() for _, y in points]
    if min(ys) > 0 and max(ys) / min(ys) >= 10:
        ax.set_yscale("log")  # workloads of very different sizes stay readable
        notes = ["logarithmic y axis"] + notes
    ax.set_ylabel(ylabel)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
    return htmlpage.svg(fig, plot_id, title, htmlpage.esc("; ".join(notes) + "."))


def varying(sweep, keys):
    """The keys of `keys` that take more than one value in the results."""
    return [k for k in keys if len({r[k] for r in sweep.rows}) > 1]


def plots_section(sweep):
    """For each axis: kernel time against it, then each metric against it."""
    out = ["<h2>Plots per axis</h2>"]
    if not sweep.axes:
        out.append('<p class="note">The spec has no axes (grid, zip or points).</p>')
    metrics = sweep.metrics[:MAX_METRIC_PLOTS]
    for i, key in enumerate(sweep.axes):
        axis = Axis(key, [r[key] for r in sweep.rows])
        others = varying(sweep, [k for k in sweep.axes if k != key])
        out.append(f"<h3>{htmlpage.esc(key)}</h3>")
        plot = axis_plot(sweep, axis, others, "time", f"plot-axis{i}-time",
                         f"kernel time vs {key}", "kernel time (ns)")
        out.append(plot or '<p class="note">No successful point with a kernel time.</p>')
        for j, metric in enumerate(metrics):
            plot = axis_plot(sweep, axis, others, metric, f"plot-axis{i}-metric{j}",
                             f"{metric} vs {key}", metric)
            if plot:
                out.append(plot)
    if len(sweep.metrics) > MAX_METRIC_PLOTS:
        out.append(f'<p class="note">{len(sweep.metrics)} metric columns: the first '
                   f"{MAX_METRIC_PLOTS} are plotted; all are in the table and results.csv.</p>")
    return "\n".join(out)


def status_colour(header, value):
    """cell_class of the tables with exit_status and bound columns."""
    if header == "exit_status" and value not in ("0", ""):
        return "fail"
    return htmlpage.bound_colour(header, value)


def point_link(sweep, row):
    """The point id as a link to its run's report.html (when written) or run folder."""
    run_dir = row.get("run_dir") or f"runs/{row['point']}"
    target = f"{run_dir}/report.html"
    if not os.path.isfile(os.path.join(sweep.folder, target)):
        target = f"{run_dir}/"
    return f'<a href="{htmlpage.esc(target)}">{htmlpage.esc(row["point"])}</a>'


def points(sweep):
    """(point id, its results rows) in manifest order (points without rows left out)."""
    by_point = sweep.rows_of()
    return [(pid, by_point[pid]) for pid in sweep.point_ids() if pid in by_point]


def point_headers(sweep):
    """The columns that say which point a row of the verdict and failure tables is."""
    return ["point", "workload"] + sweep.axes + ["seed", "exit_status"]


def point_cells(sweep, row):
    """The cells of point_headers() for a row of the point."""
    return ([point_link(sweep, row), row["workload"]] + [row[k] for k in sweep.axes] +
            [row["seed"], row["exit_status"]])


def verdict_section(sweep):
    """One row per point: its axes, exit status and each kernel's `bound`."""
    kernels = list(dict.fromkeys(r["kernel"] for r in sweep.rows if r["kernel"]))
    rows = []
    for _, prows in points(sweep):
        bounds = {}
        for r in prows:
            if r["kernel"] and r.get("bound"):
                bounds.setdefault(r["kernel"], []).append(r["bound"])
        rows.append(point_cells(sweep, prows[0]) +
                    [" ".join(dict.fromkeys(bounds.get(k, []))) for k in kernels])
    return ("<h2>Bottleneck verdict per point</h2>\n" +
            '<p class="note">The <code>bound</code> of each kernel record (docs/outputs.md, '
            "'Rule for bound'); several words when a kernel's launches in a point differ.</p>\n"
            + htmlpage.table(point_headers(sweep) + [f"{k}: bound" for k in kernels], rows,
                             "verdicts", cell_class=status_colour, raw_columns=("point",)))


def failed_section(sweep):
    """The points whose run failed, with their exit status and the last lines of their log."""
    head = "<h2>Failed points</h2>\n"
    rows = []
    for _, prows in points(sweep):
        if failed(prows[0]):
            message = "\n".join((prows[0].get("message") or "").split(" | "))
            rows.append(point_cells(sweep, prows[0]) + [f"<pre>{htmlpage.esc(message)}</pre>"])
    if not rows:
        return head + '<p class="note" id="no-failures">Every point ran to exit status 0.</p>'
    return head + htmlpage.table(point_headers(sweep) + ["message"], rows, "failed",
                                 cell_class=status_colour, raw_columns=("point", "message"))


def table_section(sweep):
    """The sweep's table: results.csv with the kernel time, the message left to the failed
    points' section; at most MAX_TABLE_ROWS rows. Figures are shown as numbers (rounded),
    the point's identity (axes, seed, exit status) as written."""
    columns = [c for c in sweep.columns if c != "message"]
    at = columns.index("seed") + 1
    headers = columns[:at] + ["time_ns"] + columns[at:]
    as_written = set(point_headers(sweep))
    rows = []
    for row in sweep.rows[:MAX_TABLE_ROWS]:
        cells = []
        for c in headers:
            if c == "point":
                cells.append(point_link(sweep, row))
            elif c == "time_ns":
                cells.append(kernel_time(row))
            elif c in as_written or number(row.get(c)) is None:
                cells.append(row.get(c))
            else:
                cells.append(number(row.get(c)))
        rows.append(cells)
    note = ""
    if len(sweep.rows) > MAX_TABLE_ROWS:
        note = (f'<p class="note">The first {MAX_TABLE_ROWS} of {len(sweep.rows)} rows; '
                "results.csv has them all.</p>")
    return ("<h2>Results</h2>\n" + '<p class="note">results.csv, one row per point and kernel '
            "record (time_ns = end_ns - start_ns).</p>\n" + note +
            htmlpage.table(headers, rows, "results", cell_class=status_colour,
                           raw_columns=("point",)))


def summary_section(sweep):
    """What the sweep is: its spec's name, points, failures, workloads and axes."""
    ids = sweep.point_ids()
    collected = points(sweep)
    failures = sum(1 for _, prows in collected if failed(prows[0]))
    uncollected = len(ids) - len(collected)
    rows = [("spec", sweep.spec.get("name", "")),
            ("points", len(ids)), ("failed", failures),
            ("workloads", ", ".join(dict.fromkeys(r["workload"] for r in sweep.rows)))]
    if uncollected:
        rows.append(("not in results.csv", uncollected))
    for key in sweep.axes:
        rows.append((f"axis {key}", ", ".join(Axis(key, [r[key] for r in sweep.rows]).values)))
    if sweep.metrics:
        rows.append(("metrics", ", ".join(sweep.metrics)))
    return "<h2>Sweep</h2>\n" + htmlpage.table(("", "value"), rows, "summary", scroll=False)


def sweep_report_html(sweep):
    """The report page of a loaded sweep."""
    name = sweep.spec.get("name") or os.path.basename(os.path.abspath(sweep.folder))
    return htmlpage.page(f"vgpu sweep: {name}", [
        f'<p class="note">{htmlpage.esc(os.path.abspath(sweep.folder))}</p>',
        summary_section(sweep),
        failed_section(sweep),
        verdict_section(sweep),
        plots_section(sweep),
        table_section(sweep),
    ])


def write_sweep_report(sweepdir):
    """Writes SWEEPDIR/report.html; returns its path. Raises InputError (a file of the sweep
    cannot be used) or OSError (the report cannot be written)."""
    sweep = load_sweep(sweepdir)
    return htmlpage.write_text(os.path.join(sweepdir, "report.html"), sweep_report_html(sweep))


def main(argv):
    """The command line (usage above); returns the exit status."""
    return htmlpage.command(argv, __doc__.split("\n\n")[1], "sweep report", write_sweep_report)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
