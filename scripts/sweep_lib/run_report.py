"""OUTDIR/report.html for one vgpu-sim run (scripts/report OUTDIR; docs/reports.md).

usage: scripts/report OUTDIR

Reads OUTDIR/stats.json (and trace.json when the run had --trace) and writes OUTDIR/report.html:
the run's meta, per kernel its record, a stacked chart of the issue / memory / ALU / barrier
shares per kernel, the busiest memory-side resources, and a timeline overview. Exit status 0
written; 1 the report cannot be written; 2 bad arguments or a missing, unreadable or invalid
stats.json."""

import json
import os
import sys

from . import htmlpage, timeline
from .htmlpage import InputError

# meta keys shown first, in this order (docs/outputs.md, "meta"); the others follow.
META_ORDER = ("workload", "timing_mode", "verdict", "config_hash", "workload_hash", "seed",
              "sim_time_ns", "sim_cycles", "host_seconds", "kernel_host_seconds",
              "warp_instructions_per_host_second", "line_requests_per_host_second",
              "simulated_cycles_per_host_second", "version", "git_hash")
# Kernel record fields of the overview table (all fields are in the per-kernel tables).
OVERVIEW = ("name", "phase", "pass", "queue", "sms", "time_ns", "cycles", "ipc", "l1_hit_rate",
            "llc_hit_rate", "dram_bw_util", "bound", "busiest_resource.name",
            "busiest_resource.busy_share", "ok")
MAX_RECORD_TABLES = 32  # per-kernel record tables shown (the overview lists every record)
MAX_SHARE_BARS = 40     # kernel records drawn one bar each; more are merged per kernel name
TOP_RESOURCES = 12      # busiest resources listed
BUSY_SUFFIX = ".busy_ps"


def load_stats(outdir):
    """The run's stats.json as a dict; raises InputError naming the file."""
    path = os.path.join(outdir, "stats.json")
    try:
        with open(path, encoding="utf-8") as f:
            stats = json.load(f)
    except OSError as e:
        raise InputError(f"{path}: cannot read: {e.strerror or e}")
    except UnicodeDecodeError as e:
        raise InputError(f"{path}: not UTF-8 text: {e}")
    except json.JSONDecodeError as e:
        raise InputError(f"{path}:{e.lineno}:{e.colno}: invalid JSON: {e.msg}")
    if not isinstance(stats, dict) or not isinstance(stats.get("stats"), dict):
        raise InputError(f"{path}: no 'stats' object (is this a vgpu-sim stats.json?)")
    if not isinstance(stats.get("meta", {}), dict):
        raise InputError(f"{path}: 'meta' is not an object")
    kernels = stats.get("kernels", [])
    if not isinstance(kernels, list) or not all(isinstance(k, dict) for k in kernels):
        raise InputError(f"{path}: 'kernels' is not an array of objects")
    return stats


def kernel_time(record):
    """A record's window in ns (end_ns - start_ns), None when it did not complete."""
    start, end = record.get("start_ns"), record.get("end_ns")
    return end - start if htmlpage.is_number(start) and htmlpage.is_number(end) else None


def kernel_label(record, index):
    """'#i name (phase p[, pass n])': names a kernel record unambiguously."""
    where = f"phase {record.get('phase', '?')}"
    if record.get("pass"):
        where += f", pass {record['pass']}"
    return f"#{index} {record.get('name', '?')} ({where})"


def meta_section(meta):
    """The run's meta as a two-column table (nested objects as 'outer.inner' rows)."""
    meta = htmlpage.flatten(meta)
    keys = [k for k in META_ORDER if k in meta] + sorted(k for k in meta if k not in META_ORDER)
    rows = [(k, meta[k]) for k in keys]
    return "<h2>Run</h2>\n" + htmlpage.table(("meta", "value"), rows, "meta", scroll=False)


def kernels_section(kernels):
    """The overview table: one row per kernel record, its main figures."""
    head = "<h2>Kernels</h2>\n"
    if not kernels:
        return head + '<p class="note">No kernel records in stats.json.</p>'
    rows = []
    for i, record in enumerate(kernels):
        flat = htmlpage.flatten(record)
        flat["time_ns"] = kernel_time(record)
        rows.append([i] + [flat.get(key) for key in OVERVIEW])
    return head + htmlpage.table(("#",) + OVERVIEW, rows, "kernel-overview",
                                 cell_class=htmlpage.bound_colour)


def records_section(kernels):
    """Each kernel record, every field, as a field/value table."""
    if not kernels:
        return ""
    out = ["<h2>Kernel records</h2>", '<div class="records">']
    for i, record in enumerate(kernels[:MAX_RECORD_TABLES]):
        flat = htmlpage.flatten(record)
        out.append(f"<div><h3>{htmlpage.esc(kernel_label(record, i))}</h3>")
        out.append(htmlpage.table(("field", "value"), list(flat.items()), f"kernel-{i}",
                                  cell_class=htmlpage.bound_colour, scroll=False))
        out.append("</div>")
    out.append("</div>")
    if len(kernels) > MAX_RECORD_TABLES:
        out.append(f'<p class="note">The first {MAX_RECORD_TABLES} of {len(kernels)} records '
                   "in detail; every record is in stats.json (<code>kernels</code>).</p>")
    return "\n".join(out)


def share_bars(kernels):
    """(label, {share: value}) per bar: one per completed kernel record, or, with more than
    MAX_SHARE_BARS records, one per kernel name with its records' shares weighted by their
    cycles. Also returns a note saying which."""
    done = [(i, k) for i, k in enumerate(kernels) if isinstance(k.get("shares"), dict)]
    if len(done) <= MAX_SHARE_BARS:
        return [(kernel_label(k, i), k["shares"]) for i, k in done], ""
    merged = {}
    for _, k in done:
        weight = k.get("cycles") or 0
        acc = merged.setdefault(k.get("name", "?"), {"_w": 0.0, **{s: 0.0 for s in
                                                                    htmlpage.SHARES}})
        acc["_w"] += weight
        for s in htmlpage.SHARES:
            acc[s] += weight * k["shares"].get(s, 0.0)
    bars = [(f"{name} (all launches)", {s: acc[s] / acc["_w"] if acc["_w"] else 0.0
                                        for s in htmlpage.SHARES})
            for name, acc in merged.items()]
    note = (f"{len(done)} kernel records: one bar per kernel name, its launches' shares "
            "weighted by their cycles.")
    return bars, note


def shares_section(kernels):
    """The stacked bar chart of the issue / memory / ALU latency / barrier shares."""
    head = "<h2>Where the SM cycles went</h2>\n"
    bars, note = share_bars(kernels)
    if not bars:
        return head + '<p class="note">No completed kernel record.</p>'
    fig = htmlpage.figure(10, 0.8 + 0.32 * len(bars))
    ax = fig.subplots()
    left = [0.0] * len(bars)
    rows = range(len(bars))
    for share in htmlpage.SHARES:
        widths = [float(b[1].get(share, 0.0)) for b in bars]
        ax.barh(rows, widths, left=left, color=htmlpage.SHARE_COLOURS[share], label=share)
        left = [l + w for l, w in zip(left, widths)]
    ax.set_yticks(rows, [b[0] for b in bars], fontsize=8)
    ax.invert_yaxis()
    ax.set_xlim(0, 1)
    ax.set_xlabel("share of the kernel's active SM cycles")
    ax.legend(ncols=4, loc="lower center", bbox_to_anchor=(0.5, 1.0), fontsize=8, frameon=False)
    caption = ("issue: cycles that issued (and cycles lost to a busy unit); memory, "
               "alu_latency, barriers: cycles in which no warp was ready, by the reason "
               "(docs/outputs.md, 'Kernel and phase records'). " + note)
    return head + htmlpage.svg(fig, "plot-shares", "issue / memory / ALU / barrier shares",
                               htmlpage.esc(caption))


def busiest_resources(stats, sim_time_ns):
    """[(resource, busy ns, busy share of the run)] of the memory-side shared resources (each
    reports `<path>.busy_ps`, as the kernel records' busiest_resource ranks them), busiest
    first, TOP_RESOURCES of them."""
    window_ps = (sim_time_ns or 0) * 1000.0
    found = []
    for name, value in stats.items():
        if name.endswith(BUSY_SUFFIX) and htmlpage.is_number(value):
            share = value / window_ps if window_ps > 0 else 0.0
            found.append((name[:-len(BUSY_SUFFIX)], value / 1000.0, share))
    found.sort(key=lambda r: (-r[1], r[0]))
    return found[:TOP_RESOURCES]


def resources_section(stats, meta, kernels):
    """The busiest resources over the run (chart and table) and per kernel window."""
    head = "<h2>Busiest resources</h2>\n"
    top = busiest_resources(stats.get("stats", {}), meta.get("sim_time_ns"))
    out = [head]
    if top:
        fig = htmlpage.figure(10, 0.8 + 0.28 * len(top))
        ax = fig.subplots()
        ax.barh(range(len(top)), [r[2] for r in top], color="#ee854a")
        ax.set_yticks(range(len(top)), [r[0] for r in top], fontsize=8)
        ax.invert_yaxis()
        ax.set_xlim(0, max(1.0, max(r[2] for r in top)))
        ax.axvline(0.9, color="#d65f5f", linestyle="--", linewidth=1)
        ax.set_xlabel("busy time / simulated time of the run")
        out.append(htmlpage.svg(fig, "plot-resources", "busiest resources",
                                "Memory-side shared resources (crossbar and NoC ports, links, "
                                "LLC banks, DRAM channels) by <code>&lt;path&gt;.busy_ps</code> "
                                "over the whole run; the dashed line is the 90 % a "
                                "kernel record counts as saturated."))
        out.append(htmlpage.table(("resource", "busy ns", "busy share"), top, "resources"))
    else:
        out.append('<p class="note">No <code>.busy_ps</code> statistics in this run.</p>')
    rows = [(kernel_label(k, i), k["busiest_resource"].get("name"),
             k["busiest_resource"].get("busy_share"), k.get("bound"))
            for i, k in enumerate(kernels) if isinstance(k.get("busiest_resource"), dict)]
    if rows:
        out.append("<h3>Per kernel window</h3>")
        out.append(htmlpage.table(("kernel", "busiest resource", "busy share", "bound"), rows,
                                  "kernel-resources", cell_class=htmlpage.bound_colour))
    return "\n".join(out)


def run_report_html(outdir, stats):
    """The report page of the run in `outdir` whose stats.json is `stats`."""
    meta = stats.get("meta", {})
    kernels = stats.get("kernels", [])
    trace = os.path.join(outdir, "trace.json")
    title = f"vgpu run: {meta.get('workload') or os.path.basename(os.path.abspath(outdir))}"
    verdict = meta.get("verdict", "?")
    summary = (f'<p class="note">{htmlpage.esc(os.path.abspath(outdir))}: '
               f"{len(kernels)} kernel record(s), {htmlpage.esc(meta.get('timing_mode', '?'))} "
               f"mode, verdict <b>{htmlpage.esc(verdict)}</b>.</p>")
    return htmlpage.page(title, [
        summary,
        meta_section(meta),
        kernels_section(kernels),
        shares_section(kernels),
        resources_section(stats, meta, kernels),
        timeline.section(trace if os.path.isfile(trace) else None, meta.get("sim_time_ns")),
        records_section(kernels),
    ])


def write_run_report(outdir):
    """Writes OUTDIR/report.html; returns its path. Raises InputError (bad stats.json) or
    OSError (cannot write)."""
    stats = load_stats(outdir)
    return htmlpage.write_text(os.path.join(outdir, "report.html"),
                               run_report_html(outdir, stats))


def main(argv):
    """The command line (usage above); returns the exit status."""
    return htmlpage.command(argv, __doc__.split("\n\n")[1], "report", write_run_report)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
