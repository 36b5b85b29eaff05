"""--launcher slurm: the points run as one Slurm job array, `sbatch --array=0-(T-1)%K`.

Before submitting, the simulator, task.py and the input files (the folders of the -c and -w
files) are copied into SWEEPDIR/frozen/, and the tasks run those copies: a rebuild or an edit
while the array waits in the queue does not change what it runs. Task t of the array runs the
manifest indices on line t + 1 of SWEEPDIR/frozen/tasks.txt with frozen/task.py, which writes
each point's status.json exactly as the local launcher does; the sweep waits, polling squeue
and the status files, and reports progress. A point whose task is gone (the array has left the
queue) without its status.json is recorded as `lost`.

T is the number of points, or the cluster's MaxArraySize when there are more (or the environment's
VGPU_SWEEP_SLURM_MAX_TASKS when smaller): then each task runs several points, one after another,
ceil(points / T) each. limits.time_s and
memory_mb become sbatch --time and --mem with a margin; the task still enforces them itself.

SWEEPDIR must be on a filesystem the compute nodes share, at the same path. The cluster is the
one of scripts/slurm-local when it runs (its slurm.conf, which exists while it is up), otherwise
SLURM_CONF or the site's default configuration.
"""
import math
import os
import re
import shlex
import shutil
import signal
import subprocess
import time

from sweep_lib import task
from sweep_lib.sim import ROOT, SimError

POLL_S = 1.0
SQUEUE_MAX_S = 15.0
# After the array left the queue, how long a missing status.json may take to appear (a shared
# filesystem's attribute cache) before its point is lost.
LOST_GRACE_S = float(os.environ.get("VGPU_SWEEP_SLURM_GRACE", "10"))
TIME_MARGIN_S = 60          # per point, over limits.time_s (start-up, writing outputs)
MEMORY_MARGIN_MB = 512      # over limits.memory_mb (the task's Python, the page cache)
MAX_SCANNED_FILE = 4 << 20  # larger inputs are copied but not searched for file names


def slurm_conf():
    """(path, where it came from) of the Slurm configuration the sweep uses, or (None, ...)."""
    local_dir = os.environ.get("VGPU_SLURM_LOCAL_DIR") or os.path.join(ROOT, ".slurm-local")
    conf = os.path.join(local_dir, "slurm.conf")
    if os.path.isfile(conf):
        return conf, "scripts/slurm-local"
    if os.environ.get("SLURM_CONF"):
        return os.environ["SLURM_CONF"], "SLURM_CONF"
    return None, "the site's default"


class Slurm:
    """Runs Slurm's commands against one configuration."""

    def __init__(self):
        self.conf, self.origin = slurm_conf()
        self.env = dict(os.environ)
        if self.conf:
            self.env["SLURM_CONF"] = self.conf
        for tool in ("sbatch", "squeue", "scancel", "scontrol"):
            if not shutil.which(tool):
                raise SimError(f"--launcher slurm: {tool} not found (Debian: slurm-client; for a "
                               "cluster on this machine: scripts/slurm-local start)")

    def run(self, args, check=True):
        r = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           stdin=subprocess.DEVNULL, env=self.env)
        out, err = r.stdout.decode("utf-8", "replace"), r.stderr.decode("utf-8", "replace")
        if check and r.returncode != 0:
            raise SimError(f"{' '.join(shlex.quote(a) for a in args)} failed with exit "
                           f"{r.returncode}: {err.strip()}")
        return r.returncode, out, err

    def max_array_size(self):
        _, out, _ = self.run(["scontrol", "show", "config"], check=False)
        m = re.search(r"^MaxArraySize\s*=\s*(\d+)", out, re.M)
        return int(m.group(1)) if m else 1001  # Slurm's default

    def array_tasks(self, job):
        """{array task index: state} of job's tasks still known to the queue; None when squeue
        could not answer (the controller is busy or away)."""
        rc, out, err = self.run(["squeue", "-h", "-r", "-j", job, "-o", "%K %T"], check=False)
        if rc != 0:
            if "Invalid job id" in err:
                return {}  # the array left the controller's memory
            return None
        tasks = {}
        for line in out.split("\n"):
            parts = line.split()
            if len(parts) == 2 and parts[0].isdigit():
                tasks[int(parts[0])] = parts[1]
        return tasks

    def task_end(self, job, index):
        """'JobState=... ExitCode=...' of an array task that ended, when the controller still
        knows it (MinJobAge), else None."""
        rc, out, _ = self.run(["scontrol", "-o", "show", "job", f"{job}_{index}"], check=False)
        fields = dict(f.split("=", 1) for f in out.split() if "=" in f)
        if rc != 0 or "JobState" not in fields:
            return None
        return f"JobState={fields['JobState']} ExitCode={fields.get('ExitCode', '?')}"

    def cancel(self, job):
        self.run(["scancel", job], check=False)


NAMED_FILE = re.compile(r"[A-Za-z0-9_./-]+\.[A-Za-z0-9]+")


def input_files(points):
    """The files the points' arguments name (-c, -w), and the files those name in turn by a
    relative path (a workload's CUDA source, as spec.workload_digest finds them), absolute."""
    todo = sorted({a for p in points for a in p["args"] if os.path.isabs(a) and os.path.isfile(a)})
    seen = set()
    while todo:
        path = os.path.normpath(todo.pop())
        if path in seen:
            continue
        seen.add(path)
        if os.path.getsize(path) > MAX_SCANNED_FILE:
            continue
        with open(path, "rb") as f:
            text = f.read().decode("utf-8", "replace")
        for name in set(NAMED_FILE.findall(text)):
            if not os.path.isabs(name):
                named = os.path.normpath(os.path.join(os.path.dirname(path), name))
                if named not in seen and os.path.isfile(named):
                    todo.append(named)
    return sorted(seen)


def freeze(sweepdir, points, sim):
    """Copies sim, task.py and the points' input files into SWEEPDIR/frozen/; returns (frozen
    sim, frozen task.py, remap pairs OLD=NEW for the points' arguments). An input file /a/b is
    copied to frozen/inputs/a/b, so that the relative paths between inputs still hold."""
    frozen = os.path.join(sweepdir, "frozen")
    os.makedirs(frozen, exist_ok=True)

    def put(src, dst):
        # A new file under the name (rename): a task still running the old copy keeps it.
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        tmp = dst + ".tmp"
        shutil.copy2(src, tmp)
        os.replace(tmp, dst)

    put(sim, os.path.join(frozen, "vgpu-sim"))
    put(task.__file__, os.path.join(frozen, "task.py"))
    named = {os.path.normpath(a) for p in points for a in p["args"] if os.path.isabs(a)}
    remap = []
    for path in input_files(points):
        dst = os.path.join(frozen, "inputs", path.lstrip("/"))
        put(path, dst)
        if path in named:
            remap.append((path, dst))
    return os.path.join(frozen, "vgpu-sim"), os.path.join(frozen, "task.py"), remap


def sbatch_limits(points, per_task):
    """sbatch --time / --mem arguments from the points' limits (the largest)."""
    args = []
    times = [p["time_s"] for p in points if p.get("time_s")]
    if times:
        minutes = math.ceil(per_task * (max(times) + TIME_MARGIN_S) / 60)
        args.append(f"--time={minutes}")
    mems = [p["memory_mb"] for p in points if p.get("memory_mb")]
    if mems:
        args.append(f"--mem={int(max(mems)) + MEMORY_MARGIN_MB}M")
    return args


def write_array(sweepdir, points, per_task, sim, task_py, remap):
    """SWEEPDIR/frozen/tasks.txt (the manifest indices of each task) and array.sh; returns
    (array.sh, number of tasks)."""
    frozen = os.path.join(sweepdir, "frozen")
    chunks = [points[i:i + per_task] for i in range(0, len(points), per_task)]
    tasks_txt = os.path.join(frozen, "tasks.txt")
    with open(tasks_txt + ".tmp", "w", encoding="utf-8") as f:
        for c in chunks:
            f.write(" ".join(str(p["index"]) for p in c) + "\n")
    os.replace(tasks_txt + ".tmp", tasks_txt)
    remap_args = " ".join(f"--remap {shlex.quote(f'{old}={new}')}" for old, new in remap)
    script = f"""#!/bin/bash
# One task of a vgpu sweep's job array (written by scripts/sweep run --launcher slurm): runs the
# points on line SLURM_ARRAY_TASK_ID + 1 of tasks.txt with the frozen simulator.
set -eu
indices=$(sed -n "$((SLURM_ARRAY_TASK_ID + 1))p" {shlex.quote(tasks_txt)})
py=/usr/bin/python3
[ -x "$py" ] || py=python3
exec "$py" {shlex.quote(task_py)} --sim {shlex.quote(sim)} --launcher slurm {remap_args} \\
    {shlex.quote(sweepdir)} $indices
"""
    path = os.path.join(frozen, "array.sh")
    with open(path + ".tmp", "w", encoding="utf-8") as f:
        f.write(script)
    os.chmod(path + ".tmp", 0o755)
    os.replace(path + ".tmp", path)
    return path, len(chunks)


def lost_status(sweepdir, point, job, task_index, state):
    """The status.json of a point whose task ended without writing one."""
    run_dir = os.path.join(sweepdir, "runs", point["id"])
    tail = task.log_tail(os.path.join(run_dir, "log.txt"))
    out = os.path.join(sweepdir, "slurm", f"{job}_{task_index}.out")
    tail += [f"slurm: {line}" for line in task.log_tail(out, 5)]
    tail.append(f"sweep: Slurm task {job}_{task_index} ended ({state or 'left the queue'}) "
                "without a status for this point")
    st = {"id": point["id"], "index": point["index"], "exit_status": "lost",
          "host_seconds": None, "log_tail": tail[-task.LOG_TAIL_LINES:], "launcher": "slurm"}
    os.makedirs(run_dir, exist_ok=True)
    task.write_json_atomic(os.path.join(run_dir, "status.json"), st)
    try:
        os.remove(os.path.join(run_dir, "running.json"))
    except FileNotFoundError:
        pass
    return st


def launch(sweepdir, points, sim, jobs, progress, slurm_args="", **_):
    """Runs points (manifest entries) as one job array of at most jobs tasks at once with the
    simulator sim; returns their statuses by id. Ctrl-C or SIGTERM cancels the array: the points
    that were running are left without a status (a --resume runs them)."""
    if not points:
        return {}
    sweepdir = os.path.abspath(sweepdir)
    slurm = Slurm()
    print(f"sweep: slurm: configuration {slurm.conf} ({slurm.origin})" if slurm.conf else
          "sweep: slurm: the site's default configuration", flush=True)
    state_dir = os.path.join(sweepdir, "slurm")
    os.makedirs(state_dir, exist_ok=True)
    job_file = os.path.join(state_dir, "job")
    # An array of an earlier run of this folder that still runs (its sweep was killed): cancel it,
    # so that two tasks never run one point.
    if os.path.exists(job_file):
        with open(job_file, encoding="utf-8") as f:
            old = f.read().strip()
        if old and slurm.array_tasks(old):
            print(f"sweep: slurm: cancelling job {old} of an earlier run of this folder", flush=True)
            slurm.cancel(old)
            while slurm.array_tasks(old):
                time.sleep(POLL_S)

    # A rerun starts from an empty folder (an earlier status.json would count as done).
    for p in points:
        task.clear_folder(os.path.join(sweepdir, "runs", p["id"]))
    frozen_sim, task_py, remap = freeze(sweepdir, points, sim)
    max_tasks = slurm.max_array_size()
    if os.environ.get("VGPU_SWEEP_SLURM_MAX_TASKS"):
        max_tasks = min(max_tasks, max(1, int(os.environ["VGPU_SWEEP_SLURM_MAX_TASKS"])))
    per_task = math.ceil(len(points) / max_tasks)
    script, ntasks = write_array(sweepdir, points, per_task, frozen_sim, task_py, remap)
    cmd = (["sbatch", "--parsable", f"--array=0-{ntasks - 1}%{max(1, jobs)}",
            "--job-name=vgpu-sweep", "--ntasks=1", "--cpus-per-task=1", "--no-requeue",
            f"--chdir={sweepdir}", f"--output={os.path.join(state_dir, '%A_%a.out')}"] +
           sbatch_limits(points, per_task) + shlex.split(slurm_args or "") + [script])
    try:
        _, out, _ = slurm.run(cmd)
    except SimError as e:
        if slurm.conf:
            raise
        raise SimError(f"{e}\n(no scripts/slurm-local running and no SLURM_CONF: "
                       "`scripts/slurm-local start` for a cluster on this machine)")
    job = out.strip().split(";")[0]
    with open(job_file, "w", encoding="utf-8") as f:
        f.write(job + "\n")
    print(f"sweep: slurm: job array {job}: {len(points)} points in {ntasks} tasks"
          f"{f' of {per_task} points' if per_task > 1 else ''}, {max(1, jobs)} at once", flush=True)

    task_of = {p["id"]: i // per_task for i, p in enumerate(points)}
    statuses = {}
    last_state = {}  # task index: its state when squeue last listed it
    ended = {}
    try:
        gone_since = None
        tasks = None
        start = next_squeue = time.monotonic()
        while True:
            # The status files every POLL_S; squeue (the controller's load) every second at
            # first, then less often: every tenth of the time waited so far, at most SQUEUE_MAX_S.
            now = time.monotonic()
            if tasks != {} and now >= next_squeue:
                tasks = slurm.array_tasks(job)
                next_squeue = now + min(SQUEUE_MAX_S, max(POLL_S, (now - start) / 10))
                if tasks:
                    last_state.update(tasks)
            running = 0
            for p in points:
                if p["id"] in statuses:
                    continue
                st = task.read_status(sweepdir, p)
                if st is not None:
                    statuses[p["id"]] = st
                elif os.path.exists(os.path.join(sweepdir, "runs", p["id"], "running.json")):
                    running += 1
            progress.update(done=len(statuses),
                            failed=sum(1 for s in statuses.values() if s["exit_status"] != 0),
                            running=running)
            if len(statuses) == len(points):
                break
            if tasks == {}:  # the array has left the queue
                gone_since = gone_since or time.monotonic()
                if time.monotonic() - gone_since >= LOST_GRACE_S:
                    for p in points:
                        if p["id"] not in statuses:
                            t = task_of[p["id"]]
                            if t not in ended:
                                ended[t] = slurm.task_end(job, t) or last_state.get(t)
                            statuses[p["id"]] = lost_status(sweepdir, p, job, t, ended[t])
                    progress.update(done=len(statuses),
                                    failed=sum(1 for s in statuses.values() if s["exit_status"] != 0),
                                    running=0)
                    if all(s["exit_status"] == "lost" for s in statuses.values()):
                        print(f"\nsweep: slurm: every point was lost: the tasks' output is in "
                              f"{state_dir}; is {sweepdir} on a filesystem the compute nodes "
                              "share, at the same path?", flush=True)
                    break
                time.sleep(min(POLL_S, 0.5))
                continue
            progress.show()
            time.sleep(POLL_S)
    except BaseException:
        # As the local launcher: the points that were running are left without a status (their
        # tasks record 143 when cancelled; that status is removed) and --resume runs them.
        print(f"\nsweep: slurm: cancelling job array {job}", flush=True)
        slurm.cancel(job)
        deadline = time.monotonic() + 60
        while slurm.array_tasks(job) != {} and time.monotonic() < deadline:
            time.sleep(0.5)
        for p in points:
            st = None if p["id"] in statuses else task.read_status(sweepdir, p)
            if st is not None and st["exit_status"] == 128 + signal.SIGTERM:
                os.remove(os.path.join(sweepdir, "runs", p["id"], "status.json"))
        raise
    return statuses
