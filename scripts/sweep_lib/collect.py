"""scripts/sweep collect: SWEEPDIR/results.csv, one row per (point, kernel record).

Columns (docs/sweeps.md): point, workload, kernel, one per axis KEY, seed, the kernel record's
fields (the usual ones first, then the others by name, nested ones as a.b), one per statistic
the spec's metrics name or match, exit_status, host_seconds, run_dir, message. Rows follow the
manifest, then each run's kernel records in order; a point without a kernel record (it failed,
or never ran) has one row with its status. Everything but host_seconds comes from the run's
files, so the launchers give the same table.
"""
import csv
import fnmatch
import json
import os

from sweep_lib import task

RECORD_FIRST = ["cycles", "start_ns", "end_ns", "ipc", "l1_hit_rate", "llc_hit_rate", "dram_bw_util",
                "link_bytes", "bound"]
MESSAGE_LINES = 6


def flatten(record, prefix=""):
    out = {}
    for k, v in record.items():
        if isinstance(v, dict):
            out.update(flatten(v, f"{prefix}{k}."))
        elif not isinstance(v, list):
            out[prefix + k] = v
    return out


def cell(v):
    if v is None:
        return ""
    if isinstance(v, bool):
        return "true" if v else "false"
    return v


def point_rows(sweepdir, point, metrics):
    """(kernel records flattened, matched statistics, status) of one point."""
    st = task.read_status(sweepdir, point)
    if st is None:
        # Started and never ended (running.json left behind): lost; otherwise never started.
        started = os.path.exists(os.path.join(sweepdir, "runs", point["id"], "running.json"))
        st = {"exit_status": "lost" if started else "not run", "host_seconds": None,
              "log_tail": []}
    records, stats = [], {}
    try:
        with open(os.path.join(sweepdir, "runs", point["id"], "stats.json"), encoding="utf-8") as f:
            j = json.load(f)
        records = [flatten(k) for k in j.get("kernels", [])]
        for name, value in j.get("stats", {}).items():
            if any(fnmatch.fnmatchcase(name, m) for m in metrics):
                stats[name] = value
    except (OSError, ValueError):
        pass
    return records, stats, st


def collect(sweepdir, spec_keys, metrics, points):
    """Writes SWEEPDIR/results.csv; returns (rows written, points failed)."""
    per_point = [point_rows(sweepdir, p, metrics) for p in points]
    fields = []
    for records, _, _ in per_point:
        for r in records:
            fields += [k for k in r if k not in fields and k != "name"]
    fields = RECORD_FIRST + sorted(k for k in fields if k not in RECORD_FIRST)
    stat_names = sorted({n for _, stats, _ in per_point for n in stats})
    head = (["point", "workload", "kernel"] + spec_keys + ["seed"] + fields + stat_names +
            ["exit_status", "host_seconds", "run_dir", "message"])
    failed = 0
    path = os.path.join(sweepdir, "results.csv")
    tmp = path + ".tmp"
    n = 0
    with open(tmp, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(head)
        for p, (records, stats, st) in zip(points, per_point):
            status = st["exit_status"]
            failed += status != 0
            # The log's first line is the command, whose paths differ between launchers.
            tail = [line for line in st.get("log_tail", []) if not line.startswith("$ ")]
            message = " | ".join(tail[-MESSAGE_LINES:]) if status != 0 else ""
            common = [p["id"], p["workload"]]
            axes = [cell(p["axes"].get(k)) for k in spec_keys] + [cell(p["seed"])]
            last = ([cell(stats.get(s)) for s in stat_names] +
                    [status, cell(st.get("host_seconds")), f"runs/{p['id']}", message])
            for r in records or [None]:
                kernel = r.get("name", "") if r else ""
                w.writerow(common + [kernel] + axes + [cell(r.get(k)) if r else "" for k in fields] + last)
                n += 1
    os.replace(tmp, path)
    return n, failed
