"""Runs one point of a sweep: vgpu-sim into SWEEPDIR/runs/<id>/, then its status.json.

Standard library only, so that the Slurm launcher can freeze a copy of this file into the sweep
folder beside a copy of vgpu-sim: a task then runs the same code whatever happens to the project
afterwards. Both launchers run points through run_point(), so a point's folder looks the same
whichever ran it.

status.json, written atomically when the point ends (its presence means the point ran):
  id, index, exit_status   vgpu-sim's exit code; 124 when it ran over limits.time_s; 128 + N when
                           signal N ended it (a crash, or the task was cancelled)
  host_seconds             wall time of the vgpu-sim process
  log_tail                 the last lines of log.txt (vgpu-sim's stdout and stderr)
  launcher                 local or slurm
While it runs, running.json holds the host and the process id.

As a program (what a Slurm task runs):
  python3 task.py --sim VGPU_SIM [--remap OLD=NEW]... --launcher slurm SWEEPDIR INDEX [INDEX...]
"""
import argparse
import json
import os
import resource
import signal
import socket
import subprocess
import sys
import threading
import time

LOG_TAIL_LINES = 20
TIME_LIMIT_STATUS = 124  # as timeout(1) reports a run over its limit


def read_manifest(sweepdir):
    """The points of SWEEPDIR/manifest.jsonl, in order."""
    with open(os.path.join(sweepdir, "manifest.jsonl"), encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def write_json_atomic(path, obj):
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(obj, f, indent=1, sort_keys=True)
        f.write("\n")
    os.replace(tmp, path)


def read_status(sweepdir, point):
    """The point's status.json as a dict, or None when it has not ended."""
    try:
        with open(os.path.join(sweepdir, "runs", point["id"], "status.json"), encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def log_tail(path, lines=LOG_TAIL_LINES):
    try:
        with open(path, "rb") as f:
            f.seek(0, os.SEEK_END)
            f.seek(max(0, f.tell() - 64 * 1024))
            text = f.read().decode("utf-8", "replace")
    except OSError:
        return []
    return text.splitlines()[-lines:]


def remapped(args, remap):
    """args with every path that begins with a remapped prefix moved to its new place."""
    out = []
    for a in args:
        for old, new in remap:
            if a == old or a.startswith(old.rstrip("/") + "/"):
                a = new + a[len(old):]
                break
        out.append(a)
    return out


def clear_folder(run_dir):
    """Empties run_dir (a rerun starts from nothing), creating it when absent."""
    os.makedirs(run_dir, exist_ok=True)
    for name in os.listdir(run_dir):
        p = os.path.join(run_dir, name)
        if os.path.isdir(p) and not os.path.islink(p):
            clear_folder(p)
            os.rmdir(p)
        else:
            os.remove(p)


_lock = threading.Lock()
_procs = set()       # the vgpu-sim processes running now (a local pool runs several)
_stopping = False
_waiting = False     # main() of a task: inside the wait for vgpu-sim (where SIGTERM may raise)


class Stopped(Exception):
    """The sweep was stopped (stop_all) while this point ran: it has no status."""


def stop_all():
    """Kills every running point; their run_point calls raise Stopped without a status, so
    that a --resume runs them again."""
    global _stopping
    with _lock:
        _stopping = True
        procs = list(_procs)
    for p in procs:
        _kill(p)


class _Terminated(Exception):
    """SIGTERM reached the task (scancel, or the sweep being stopped)."""

    def __init__(self, signum):
        super().__init__(signum)
        self.signum = signum


def run_point(sweepdir, point, sim, launcher, remap=()):
    """Runs point (a manifest entry) with the simulator sim; returns its status dict."""
    global _waiting
    run_dir = os.path.join(sweepdir, "runs", point["id"])
    clear_folder(run_dir)
    write_json_atomic(os.path.join(run_dir, "running.json"),
                      {"host": socket.gethostname(), "pid": os.getpid(), "launcher": launcher})
    log_path = os.path.join(run_dir, "log.txt")
    cmd = [sim] + remapped(point["args"], remap) + ["-o", run_dir]
    memory_mb = point.get("memory_mb")

    def limit_memory():
        os.setpgid(0, 0)
        if memory_mb:
            b = int(memory_mb) * 1024 * 1024
            resource.setrlimit(resource.RLIMIT_AS, (b, b))

    start = time.monotonic()
    exit_status = None
    with open(log_path, "wb") as log:
        log.write(("$ " + " ".join(cmd) + "\n").encode())
        log.flush()
        with _lock:
            if _stopping:
                raise Stopped()
            proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT,
                                    stdin=subprocess.DEVNULL, preexec_fn=limit_memory)
            _procs.add(proc)
        try:
            _waiting = True
            try:
                proc.wait(timeout=point.get("time_s") or None)
            finally:
                _waiting = False
            rc = proc.returncode
            exit_status = rc if rc >= 0 else 128 - rc
        except subprocess.TimeoutExpired:
            _kill(proc)
            log.write(f"\nsweep: stopped after its time limit of {point['time_s']} s\n".encode())
            exit_status = TIME_LIMIT_STATUS
        except _Terminated as t:
            _kill(proc)
            log.write(f"\nsweep: the task was terminated (signal {t.signum})\n".encode())
            exit_status = 128 + t.signum
        except BaseException:
            _kill(proc)
            raise
        finally:
            with _lock:
                _procs.discard(proc)
    if _stopping:
        os.remove(os.path.join(run_dir, "running.json"))
        raise Stopped()
    status = {"id": point["id"], "index": point["index"], "exit_status": exit_status,
              "host_seconds": round(time.monotonic() - start, 6),
              "log_tail": log_tail(log_path), "launcher": launcher}
    write_json_atomic(os.path.join(run_dir, "status.json"), status)
    os.remove(os.path.join(run_dir, "running.json"))
    return status


def _kill(proc):
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    proc.wait()


def main(argv=None):
    ap = argparse.ArgumentParser(description="run points of a sweep (one Slurm task)")
    ap.add_argument("--sim", required=True)
    ap.add_argument("--launcher", default="slurm")
    ap.add_argument("--remap", action="append", default=[], metavar="OLD=NEW")
    ap.add_argument("sweepdir")
    ap.add_argument("indices", nargs="+", type=int)
    a = ap.parse_args(argv)
    remap = [tuple(r.split("=", 1)) for r in a.remap]

    signalled = []

    def terminated(signum, _frame):
        # scancel signals every process of the task at once: vgpu-sim may end first. Raise only
        # inside the wait; elsewhere (writing a status) the point ends as it is.
        signalled.append(signum)
        if _waiting:
            raise _Terminated(signum)

    signal.signal(signal.SIGTERM, terminated)
    points = read_manifest(a.sweepdir)
    worst = 0
    for i in a.indices:
        st = run_point(a.sweepdir, points[i], a.sim, a.launcher, remap)
        worst = worst or (st["exit_status"] != 0)
        # Cancelled (SIGTERM to the task, or to vgpu-sim first: it reaches every process of
        # the task, one after another): the task's other points are not started (lost).
        if signalled or st["exit_status"] == 128 + signal.SIGTERM:
            return 128 + signal.SIGTERM
    return 1 if worst else 0


if __name__ == "__main__":
    sys.exit(main())
