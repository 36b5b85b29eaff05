"""The timeline overview of a run's trace.json (docs/reports.md): kernel and host spans, the
resident CTAs of every SM and the counter tracks (DRAM channels busy, LLC MSHRs in use, ...)
over simulated time, binned so that a trace of any size gives a plot of the same small size.

trace.json is the Chrome trace-event document vgpu-sim streams (docs/outputs.md, "trace.json";
platforms/trace_files.cpp, models/common/trace_events.h): times in microseconds, one event per
line, events not in time order, the metadata naming processes and tracks last. It is read line
by line, so a trace of hundreds of megabytes costs time, not memory: span events go into
per-bin sums as they are read (warp and barrier spans are skipped: the CTA spans say which SMs
are busy), and only counter changes and the few kernel and host spans are kept."""

import json
import re
from array import array

from . import htmlpage

BINS = 200      # columns of the overview, whatever the trace's length
MAX_LANES = 32  # rows of one kind (SMs, one counter kind); more are averaged in runs

# Span names the overview does not need: warp lifetimes ("cta (x,y) warp w") and barrier
# waits ("BAR"); _SKIP_LINE finds them in a raw line so that it need not be parsed.
_SKIP_NAME = r"cta \(\d+,\d+\) warp \d+|BAR"
_SKIP = re.compile(_SKIP_NAME)
_SKIP_LINE = re.compile(rf'"name":\s*"({_SKIP_NAME})"')
_CTA = re.compile(r"cta \(\d+,\d+\) ")
_NATURAL = re.compile(r"(\d+)")


class TraceError(Exception):
    """A trace.json that cannot be read; the message names the file (and line)."""


def natural_key(name):
    """Sort key comparing runs of digits as numbers ('sm2' before 'sm10')."""
    return [int(p) if p.isdigit() else p for p in _NATURAL.split(name)]


class _Bins:
    """Time-weighted sums over BINS equal bins of [0, end_us): add(t0, t1, w) adds w times the
    overlap of [t0, t1) with each bin, in constant time (a difference array for the bins the
    interval covers whole, direct additions for the two partial ones)."""

    def __init__(self, end_us):
        self.width = end_us / BINS
        self.part = [0.0] * BINS
        self.diff = [0.0] * (BINS + 1)

    def add(self, t0, t1, weight=1.0):
        u0 = max(0.0, t0 / self.width)
        u1 = min(float(BINS), t1 / self.width)
        if u1 <= u0:
            return
        b0, b1 = int(u0), min(int(u1), BINS - 1)
        if b0 == b1:
            self.part[b0] += (u1 - u0) * weight
            return
        self.part[b0] += (b0 + 1 - u0) * weight
        if u1 > b1:
            self.part[b1] += (u1 - b1) * weight
        self.diff[b0 + 1] += weight
        self.diff[b1] -= weight

    def means(self):
        """The mean weight in each bin (the sums divided by the bin's width)."""
        out, run = [], 0.0
        for i in range(BINS):
            run += self.diff[i]
            out.append(run + self.part[i])
        return out


class Trace:
    """What the overview shows of one trace.json.
    - `spans[(pid, tid)]`: [(begin_us, end_us, name)] of the host and kernel tracks;
    - `ctas[pid]`: resident CTAs of a process (an SM), per bin;
    - `counters[(pid, name)]`: a counter track's mean value per bin, and `peaks` its largest;
    - `processes[pid]`, `threads[(pid, tid)]`: names from the metadata."""

    def __init__(self, end_us):
        self.end_us = end_us
        self.spans, self.ctas, self.counters, self.peaks = {}, {}, {}, {}
        self.processes, self.threads = {}, {}
        self.events = 0


def _events(path):
    """(line number, event) of every event of trace.json, read line by line; a document not
    written one event per line is read whole."""
    with open(path, encoding="utf-8") as f:
        first = f.readline()
        if not first.startswith("{") or not first.rstrip().endswith("["):
            f.seek(0)
            try:
                doc = json.load(f)
            except json.JSONDecodeError as e:
                raise TraceError(f"{path}:{e.lineno}:{e.colno}: invalid JSON: {e.msg}")
            for event in doc.get("traceEvents", []) if isinstance(doc, dict) else []:
                yield 0, event
            return
        for number, line in enumerate(f, 2):
            if _SKIP_LINE.search(line):
                yield number, None
                continue
            line = line.strip()
            if line.endswith(","):
                line = line[:-1]
            if not line or line == "]}":
                continue
            try:
                yield number, json.loads(line)
            except json.JSONDecodeError as e:
                raise TraceError(f"{path}:{number}:{e.colno}: invalid JSON: {e.msg}")


def read_trace(path, end_us):
    """Reads trace.json into a Trace binned over [0, end_us) (the run's simulated time).
    Raises TraceError or OSError."""
    trace = Trace(end_us)
    cta_bins = {}
    changes = {}  # (pid, counter name) -> (times, values)
    for number, e in _events(path):
        trace.events += 1
        if e is None:
            continue
        if not isinstance(e, dict):
            raise TraceError(f"{path}:{number}: an event is not an object")
        ph = e.get("ph")
        pid = e.get("pid")
        try:
            if ph == "X":
                begin, name = float(e["ts"]), str(e.get("name", ""))
                end = begin + float(e.get("dur", 0.0))
                if _SKIP.fullmatch(name):
                    continue
                if _CTA.match(name):
                    cta_bins.setdefault(pid, _Bins(end_us)).add(begin, end)
                else:
                    trace.spans.setdefault((pid, e.get("tid")), []).append((begin, end, name))
            elif ph == "C":
                times, values = changes.setdefault((pid, str(e["name"])),
                                                   (array("d"), array("d")))
                times.append(float(e["ts"]))
                values.append(float(e["args"]["value"]))
            elif ph == "M" and e.get("name") == "process_name":
                trace.processes[pid] = str(e["args"]["name"])
            elif ph == "M" and e.get("name") == "thread_name":
                trace.threads[(pid, e.get("tid"))] = str(e["args"]["name"])
        except (KeyError, TypeError, ValueError) as err:
            raise TraceError(f"{path}:{number}: event without a usable {err}")
    trace.ctas = {pid: bins.means() for pid, bins in cta_bins.items()}
    for key, (times, values) in changes.items():
        order = sorted(range(len(times)), key=times.__getitem__)
        bins = _Bins(end_us)
        for i, j in zip(order, order[1:] + [None]):
            bins.add(times[i], times[j] if j is not None else end_us, values[i])
        trace.counters[key] = bins.means()
        trace.peaks[key] = max(values) if values else 0.0
    return trace


def _short(process):
    """A process name without the leading 'gpu.' (lane labels stay narrow)."""
    return process[4:] if process.startswith("gpu.") else process


def _span_lanes(trace):
    """(label, spans) of the kernels' queue tracks, then the host's tracks."""
    lanes = []
    for group in ("kernels", "host"):
        keys = [k for k in trace.spans if trace.processes.get(k[0]) == group]
        keys.sort(key=lambda k: natural_key(trace.threads.get(k, str(k[1]))))
        for key in keys:
            lanes.append((f"{group}: {trace.threads.get(key, key[1])}", trace.spans[key]))
    return lanes


def fold(lanes, limit=MAX_LANES):
    """At most `limit` rows of heat-map lanes (label, per-bin means): with more, runs of
    consecutive lanes are averaged into one row labelled 'first .. last'."""
    size = -(-len(lanes) // limit)
    if size <= 1:
        return lanes
    out = []
    for i in range(0, len(lanes), size):
        run = lanes[i:i + size]
        label = run[0][0] if len(run) == 1 else f"{run[0][0]} .. {run[-1][0]}"
        out.append((label, [sum(col) / len(run) for col in zip(*(m for _, m in run))]))
    return out


def _counter_groups(trace):
    """Counter lanes grouped by kind (the name with its digits as '#', e.g. 'ch#_busy'): for
    each group its scale (1 for 0/1 counters, else the largest value any of its tracks took)
    and its lanes (label, per-bin means) in natural order, folded to MAX_LANES rows."""
    groups = {}
    for (pid, name), means in trace.counters.items():
        process = trace.processes.get(pid, str(pid))
        kind = re.sub(r"\d+", "#", name)
        groups.setdefault(kind, []).append((f"{_short(process)} {name}", means,
                                            trace.peaks[(pid, name)]))
    out = []
    for kind in sorted(groups, key=natural_key):
        lanes = sorted(groups[kind], key=lambda lane: natural_key(lane[0]))
        peak = max(lane[2] for lane in lanes)
        out.append((kind, 1.0 if peak <= 1.0 else peak, fold([(l, m) for l, m, _ in lanes])))
    return out


def _heat(ax, lanes, scale, end_ns, cmap):
    """Lanes (label, per-bin means) as rows of a heat map over [0, end_ns], coloured by
    mean / scale."""
    rows = [[min(1.0, v / scale) if scale > 0 else 0.0 for v in means] for _, means in lanes]
    image = ax.imshow(rows, aspect="auto", interpolation="nearest", cmap=cmap, vmin=0.0,
                      vmax=1.0, extent=(0.0, end_ns, len(rows) - 0.5, -0.5))
    ax.set_yticks(range(len(lanes)), [label for label, _ in lanes], fontsize=7)
    return image


def overview_figure(trace, plot_id):
    """The timeline overview as an inline SVG (htmlpage.svg), with its caption."""
    end_ns = trace.end_us * 1000.0
    span_lanes = _span_lanes(trace)
    sm_lanes = fold(sorted(((_short(trace.processes.get(pid, str(pid))), means)
                            for pid, means in trace.ctas.items()),
                           key=lambda lane: natural_key(lane[0])))
    counter_groups = _counter_groups(trace)
    counter_lanes = [lane for _, _, lanes in counter_groups for lane in lanes]
    panels = [(n, what) for n, what in ((len(span_lanes), "spans"), (len(sm_lanes), "sms"),
                                        (len(counter_lanes), "counters")) if n]
    if not panels:
        return None
    heights = [max(1.2, 0.16 * n + 0.4) for n, _ in panels]
    fig = htmlpage.figure(12, sum(heights) + 0.8)
    axes = fig.subplots(len(panels), 1, sharex=True, height_ratios=heights, squeeze=False)[:, 0]
    caption = []
    cmap = "Blues"
    for ax, (_, what) in zip(axes, panels):
        if what == "spans":
            _draw_spans(ax, span_lanes, end_ns)
            ax.set_title("kernels (per CP queue) and host work", fontsize=9, loc="left")
        elif what == "sms":
            peak = max((max(m) for _, m in sm_lanes), default=0.0)
            _heat(ax, sm_lanes, peak, end_ns, cmap)
            ax.set_title("resident CTAs per SM", fontsize=9, loc="left")
            caption.append(f"SMs: mean resident CTAs per bin, darkest = {htmlpage.fmt(peak)}")
        else:
            rows = []
            for kind, scale, lanes in counter_groups:
                rows += [(label, [v / scale for v in means]) for label, means in lanes]
                caption.append(f"{kind}: mean per bin, darkest = {htmlpage.fmt(scale)}")
            image = _heat(ax, rows, 1.0, end_ns, cmap)
            ax.set_title("counters (mean per bin, as a fraction of the darkest)", fontsize=9,
                         loc="left")
            fig.colorbar(image, ax=ax, fraction=0.02, pad=0.01)
    axes[-1].set_xlim(0.0, end_ns)
    axes[-1].set_xlabel("simulated time (ns)")
    text = (f"{trace.events} events in {BINS} bins of {htmlpage.fmt(end_ns / BINS)} ns. "
            + "; ".join(caption) + f". More than {MAX_LANES} lanes of a kind: runs of "
            "consecutive lanes averaged into one row ('first .. last').")
    return htmlpage.svg(fig, plot_id, "timeline overview", htmlpage.esc(text))


def _draw_spans(ax, lanes, end_ns):
    """Span lanes as bars, one colour per kernel name (host spans grey), labelled where the
    bar is wide enough."""
    palette = ["#4878d0", "#ee854a", "#6acc64", "#d65f5f", "#956cb4", "#8c613c", "#dc7ec0",
               "#797979", "#d5bb67", "#82c6e2"]
    colours = {}
    labels = 0
    for row, (label, spans) in enumerate(lanes):
        host = label.startswith("host")
        for begin, end, name in spans:
            base = name.split(" (")[0]
            if host:
                colour = "#b0b0b0"
            else:
                colour = colours.setdefault(base, palette[len(colours) % len(palette)])
            b, e = begin * 1000.0, end * 1000.0
            ax.broken_barh([(b, max(e - b, end_ns / 2000.0))], (row - 0.4, 0.8),
                           facecolors=colour)
            if e - b > end_ns / 8 and labels < 40:
                ax.text((b + e) / 2, row, name, ha="center", va="center", fontsize=7,
                        clip_on=True)
                labels += 1
    ax.set_ylim(len(lanes) - 0.5, -0.5)
    ax.set_yticks(range(len(lanes)), [label for label, _ in lanes], fontsize=7)


def section(trace_path, end_ns, plot_id="plot-timeline"):
    """The report's timeline section for `trace_path` (None when the run has no trace): the
    overview plot, or a note saying why there is none."""
    head = "<h2>Timeline overview</h2>\n"
    if trace_path is None:
        return head + ('<p class="note">No trace.json in this folder: run vgpu-sim with '
                       "<code>--trace</code> for a timeline.</p>")
    if not end_ns or end_ns <= 0:
        return head + '<p class="note">The run simulated no time: no timeline.</p>'
    try:
        trace = read_trace(trace_path, end_ns / 1000.0)
    except (TraceError, OSError, UnicodeDecodeError) as e:
        return head + f'<p class="note">trace.json could not be read: {htmlpage.esc(e)}</p>'
    plot = overview_figure(trace, plot_id)
    if plot is None:
        return head + '<p class="note">trace.json holds no events to show.</p>'
    return head + plot + ('<p class="note">The whole trace opens in https://ui.perfetto.dev '
                          "or chrome://tracing (docs/outputs.md).</p>")
