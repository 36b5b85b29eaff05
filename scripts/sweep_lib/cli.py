"""scripts/sweep: run a sweep spec locally or on Slurm, collect results.csv, write report.html.

  scripts/sweep run SPEC.yaml -o SWEEPDIR [--launcher local|slurm] [--jobs N] [--resume]
                   [--dry-run] [--yes] [--sim PATH] [--slurm-args "..."]
  scripts/sweep collect SWEEPDIR
  scripts/sweep report SWEEPDIR

Exit status: 0 every point passed; 1 a point failed (the last line counts them) or the sweep
could not finish; 2 bad usage or a bad spec (located errors), nothing run. docs/sweeps.md.
"""
import argparse
import fcntl
import json
import os
import shutil
import signal
import sys

from sweep_lib import collect as collect_mod
from sweep_lib import local, task
from sweep_lib.progress import Progress
from sweep_lib.sim import ROOT, SimError, SimTool, project_sim
from sweep_lib.spec import MAX_POINTS_WITHOUT_YES, Spec, SpecError, expand, validate

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2


class UsageError(Exception):
    pass


def parse(argv):
    ap = argparse.ArgumentParser(prog="scripts/sweep", description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="command", required=True)
    r = sub.add_parser("run", help="run a sweep spec into SWEEPDIR")
    r.add_argument("spec", metavar="SPEC.yaml")
    r.add_argument("-o", "--outdir", required=True, metavar="SWEEPDIR")
    r.add_argument("--launcher", choices=["local", "slurm"], default="local")
    r.add_argument("--jobs", type=int, default=os.cpu_count() or 1,
                   help="points at once (local: processes; slurm: the array's %%K)")
    r.add_argument("--resume", action="store_true", help="skip the points that completed")
    r.add_argument("--dry-run", action="store_true", help="list the points and their ids")
    r.add_argument("--yes", action="store_true", help=f"run more than {MAX_POINTS_WITHOUT_YES} points")
    r.add_argument("--sim", help="the vgpu-sim to run (default: the project's build)")
    r.add_argument("--slurm-args", default="", help="extra sbatch arguments (--partition, --account)")
    for name in ("collect", "report"):
        c = sub.add_parser(name, help=f"{name} SWEEPDIR")
        c.add_argument("sweepdir", metavar="SWEEPDIR")
    # --slurm-args "--partition=cpu": a value that starts with '-' (argparse would take it for
    # an option) is attached to its option.
    argv = list(sys.argv[1:] if argv is None else argv)
    for i in range(len(argv) - 1):
        if argv[i] == "--slurm-args":
            argv[i:i + 2] = [f"--slurm-args={argv[i + 1]}"]
            break
    a = ap.parse_args(argv)
    if a.command == "run" and a.jobs < 1:
        ap.error("--jobs must be at least 1")
    return a


def lock(sweepdir):
    """An exclusive lock on SWEEPDIR/.lock for this process's life; UsageError when held."""
    f = open(os.path.join(sweepdir, ".lock"), "a+")
    try:
        fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        f.seek(0)
        holder = f.read().strip()
        raise UsageError(f"{sweepdir}: another sweep is running in this folder ({holder or 'pid unknown'})")
    f.seek(0)
    f.truncate()
    f.write(f"pid {os.getpid()}\n")
    f.flush()
    return f


def write_lines(path, lines):
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.writelines(line + "\n" for line in lines)
    os.replace(tmp, path)


def read_sweep(sweepdir):
    """(sweep.json, manifest points) of an existing sweep folder."""
    try:
        with open(os.path.join(sweepdir, "sweep.json"), encoding="utf-8") as f:
            info = json.load(f)
        return info, task.read_manifest(sweepdir)
    except (OSError, ValueError) as e:
        raise UsageError(f"{sweepdir}: not a sweep folder (no readable sweep.json and "
                         f"manifest.jsonl: {e})")


def do_collect(sweepdir):
    info, points = read_sweep(sweepdir)
    rows, failed = collect_mod.collect(sweepdir, info["axes"], info["metrics"], points)
    print(f"sweep: {os.path.join(sweepdir, 'results.csv')}: {rows} rows, {len(points)} points, "
          f"{failed} failed")
    return failed


def do_report(sweepdir):
    from sweep_lib import report  # matplotlib is loaded only for reports
    try:
        print(f"sweep: {report.write_sweep_report(sweepdir)}")
    except report.InputError as e:
        raise UsageError(str(e))


def do_run(a):
    sim = SimTool(a.sim) if a.sim else SimTool(project_sim())
    spec = Spec(a.spec, ROOT)
    spec.check_count(a.yes)
    validate(spec, sim, a.jobs)
    points = expand(spec, sim, a.jobs)
    if a.dry_run:
        for p in points:
            axes = " ".join(f"{k}={v}" for k, v in p["axes"].items())
            seed = f" seed={p['seed']}" if p["seed"] is not None else ""
            print(f"{p['id']}  {p['workload']}  {axes}{seed}".rstrip())
        print(f"sweep: {len(points)} points (dry run: nothing was run)")
        return EXIT_OK

    sweepdir = a.outdir
    os.makedirs(os.path.join(sweepdir, "runs"), exist_ok=True)
    held = lock(sweepdir)  # noqa: F841 (held until the process ends)
    existing = set(os.listdir(os.path.join(sweepdir, "runs")))
    if existing and not a.resume:
        raise UsageError(f"{sweepdir}: holds the runs of a sweep already; pass --resume to "
                         "complete it, or choose another folder")
    ids = {p["id"] for p in points}
    stale = sorted(existing - ids)
    for s in stale:
        shutil.rmtree(os.path.join(sweepdir, "runs", s))
    if stale:
        print(f"sweep: removed {len(stale)} run folder(s) of points the spec no longer has")
    if os.path.abspath(a.spec) != os.path.abspath(os.path.join(sweepdir, "spec.yaml")):
        shutil.copyfile(a.spec, os.path.join(sweepdir, "spec.yaml"))
    write_lines(os.path.join(sweepdir, "manifest.jsonl"), [json.dumps(p, sort_keys=True) for p in points])
    info = {"name": spec.name, "axes": spec.axis_keys(), "metrics": spec.metrics,
            "sim": sim.path, "version": sim.output(["--version"]).strip(), "points": len(points)}
    write_lines(os.path.join(sweepdir, "sweep.json"), [json.dumps(info, indent=1, sort_keys=True)])

    todo = points
    if a.resume:
        todo = [p for p in points if (task.read_status(sweepdir, p) or {}).get("exit_status") != 0]
        print(f"sweep: --resume: {len(points) - len(todo)} of {len(points)} points completed "
              f"before; running {len(todo)}")
    progress = Progress(len(todo), a.jobs)
    if a.launcher == "local":
        local.launch(sweepdir, todo, sim.path, a.jobs, progress)
    else:
        from sweep_lib import slurm
        slurm.launch(sweepdir, todo, sim.path, a.jobs, progress, slurm_args=a.slurm_args)
    progress.finish()
    failed = do_collect(sweepdir)
    try:
        do_report(sweepdir)
    except ImportError as e:
        print(f"sweep: no report ({e})", file=sys.stderr)
    if failed:
        print(f"sweep: {failed} of {len(points)} points failed (results.csv: exit_status, message)")
        return EXIT_FAILED
    print(f"sweep: all {len(points)} points passed")
    return EXIT_OK


def main(argv=None):
    a = parse(argv)

    def terminated(signum, _frame):
        raise KeyboardInterrupt()

    signal.signal(signal.SIGTERM, terminated)
    try:
        if a.command == "run":
            return do_run(a)
        if a.command == "collect":
            do_collect(a.sweepdir)
            return EXIT_OK
        do_report(a.sweepdir)
        return EXIT_OK
    except SpecError as e:
        print(str(e), file=sys.stderr)
        print(f"sweep: {len(e.messages)} error(s) in the spec; nothing was run", file=sys.stderr)
        return EXIT_USAGE
    except UsageError as e:
        print(f"sweep: error: {e}", file=sys.stderr)
        return EXIT_USAGE
    except SimError as e:
        print(f"sweep: error: {e}", file=sys.stderr)
        return EXIT_FAILED
    except KeyboardInterrupt:
        print("\nsweep: stopped; the points that were running have no result "
              "(--resume runs them)", file=sys.stderr)
        return 130
    except OSError as e:
        print(f"sweep: error: {e.filename or ''}: {e.strerror}", file=sys.stderr)
        return EXIT_FAILED
