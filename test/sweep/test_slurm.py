"""scripts/sweep --launcher slurm on a real single-node cluster (scripts/slurm-local): the same
results.csv as the local launcher, frozen inputs, several points per task, a task cancelled with
scancel and a task that vanished. Environment: VGPU_SIM, VGPU_ROOT. ctest starts the cluster
(fixture slurm); run alone, the test starts it and stops it when it started it."""
import json
import os
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_sweep import ROOT, SIM, SPEC_3x2, manifest, read_csv, sweep  # noqa: E402

SLURM_LOCAL = os.path.join(ROOT, "scripts", "slurm-local")
SLURM_CONF = os.path.join(os.environ.get("VGPU_SLURM_LOCAL_DIR") or os.path.join(ROOT, ".slurm-local"),
                          "slurm.conf")
started_here = False


def setUpModule():
    global started_here
    if subprocess.run([SLURM_LOCAL, "status"], stdout=subprocess.DEVNULL).returncode != 0:
        subprocess.run([SLURM_LOCAL, "start"], check=True)
        started_here = True


def tearDownModule():
    if started_here:
        subprocess.run([SLURM_LOCAL, "stop"], check=True)


def slurm(*args):
    env = dict(os.environ, SLURM_CONF=SLURM_CONF)
    return subprocess.run(list(args), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                          env=env, check=True).stdout


def table(path):
    """results.csv without the columns that differ between launchers."""
    rows = read_csv(path)
    for r in rows:
        del r["host_seconds"], r["run_dir"]
    return rows


def wait_for(what, cond, timeout=120):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        v = cond()
        if v:
            return v
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")


class SlurmTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="vgpu-slurm-test-")
        self.dir = self.tmp.name

    def tearDown(self):
        self.tmp.cleanup()

    def spec(self, text):
        p = os.path.join(self.dir, "spec.yaml")
        with open(p, "w") as f:
            f.write(text)
        return p

    def start(self, spec, out, *extra, sim=SIM, env=None):
        """scripts/sweep run --launcher slurm in the background."""
        cmd = [os.path.join(ROOT, "scripts", "sweep"), "run", spec, "-o", out, "--launcher", "slurm",
               "--jobs", "2", "--sim", sim, *extra]
        return subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                env=dict(os.environ, **(env or {})))

    def finish(self, proc, code):
        out, err = proc.communicate(timeout=600)
        self.assertEqual(proc.returncode, code, out + err)
        return out

    def test_same_results_as_local_and_frozen_inputs(self):
        spec = self.spec(SPEC_3x2)
        local = os.path.join(self.dir, "local")
        r = sweep("run", spec, "-o", local, "--jobs", "2", "--sim", SIM)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        # The slurm sweep runs a copy of the simulator that is broken once the array is
        # submitted: the tasks must run the frozen copy.
        sim = os.path.join(self.dir, "vgpu-sim")
        shutil.copy2(SIM, sim)
        out = os.path.join(self.dir, "slurm")
        p = self.start(spec, out, sim=sim)
        wait_for("the array's submission", lambda: os.path.exists(os.path.join(out, "slurm", "job")))
        os.remove(sim)
        with open(sim, "w") as f:
            f.write("#!/bin/sh\necho rebuilt and broken >&2\nexit 3\n")
        os.chmod(sim, stat.S_IRWXU)
        text = self.finish(p, 0)
        self.assertIn("12 points in 12 tasks, 2 at once", text)
        self.assertEqual(table(os.path.join(out, "results.csv")), table(os.path.join(local, "results.csv")))
        for point in manifest(out):
            with open(os.path.join(out, "runs", point["id"], "status.json")) as f:
                self.assertEqual(json.load(f)["launcher"], "slurm")
        # the inputs, and the CUDA sources they name, at their path under frozen/inputs/
        for f in ("testbenches/cuda/gemv.yaml", "testbenches/cuda/gemv.cu", "test/ptx/kernels/vector_add.cu"):
            self.assertTrue(os.path.exists(os.path.join(out, "frozen", "inputs", ROOT.lstrip("/"), f)), f)

    def test_several_points_per_task_limits_and_slurm_args(self):
        # As when the points outnumber the cluster's MaxArraySize.
        spec = self.spec(SPEC_3x2 + "limits: {time_s: 30, memory_mb: 4096}\n")
        local = os.path.join(self.dir, "local")
        r = sweep("run", spec, "-o", local, "--jobs", "2", "--sim", SIM)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        out = os.path.join(self.dir, "slurm")
        text = self.finish(self.start(spec, out, "--slurm-args", "--comment=vgpu-test",
                                      env={"VGPU_SWEEP_SLURM_MAX_TASKS": "5"}), 0)
        self.assertIn("12 points in 4 tasks of 3 points", text)
        self.assertEqual(table(os.path.join(out, "results.csv")), table(os.path.join(local, "results.csv")))
        # the limits with their margins (3 x (30 + 60) s per task: 5 min; 4096 + 512 MB), and
        # the extra argument
        with open(os.path.join(out, "slurm", "job")) as f:
            job = f.read().strip()
        shown = slurm("scontrol", "-o", "show", "job", f"{job}_0")
        for field in ("TimeLimit=00:05:00", "MinMemoryNode=4.50G", "Comment=vgpu-test"):
            self.assertIn(field, shown.split())

    def slow_sim(self):
        """A simulator whose runs with n=8192 wait a minute first (the real one otherwise)."""
        real = os.path.join(self.dir, "real-vgpu-sim")
        shutil.copy2(SIM, real)
        sim = os.path.join(self.dir, "slow-vgpu-sim")
        with open(sim, "w") as f:
            f.write(f'#!/bin/sh\ncase " $* " in *" n=8192"*" -o"*) sleep 60 ;; esac\nexec {real} "$@"\n')
        os.chmod(sim, stat.S_IRWXU)
        return sim

    def test_stop_and_resume(self):
        # Stopping the sweep cancels its array and leaves the running point without a status;
        # --resume runs only the points that had not completed.
        spec = self.spec("""name: resume
configs: [platforms/default.yaml]
workloads: [testbenches/workloads/vector_add.yaml]
grid: {vars.n: [1024, 2048, 8192, 3072, 4096, 5120]}
""")
        out = os.path.join(self.dir, "slurm")
        p = self.start(spec, out, sim=self.slow_sim())
        wait_for("the array's submission", lambda: os.path.exists(os.path.join(out, "slurm", "job")))
        with open(os.path.join(out, "slurm", "job")) as f:
            job = f.read().strip()
        ids = [q["id"] for q in manifest(out)]
        runs = os.path.join(out, "runs")
        wait_for("two points done and the slow one running",
                 lambda: os.path.exists(os.path.join(runs, ids[2], "running.json")) and
                 os.path.exists(os.path.join(runs, ids[0], "status.json")) and
                 os.path.exists(os.path.join(runs, ids[1], "status.json")))
        p.send_signal(signal.SIGTERM)
        self.finish(p, 130)
        self.assertEqual(slurm("squeue", "-h", "-j", job), "", "the array was cancelled")
        done = {i: os.path.getmtime(os.path.join(runs, i, "status.json")) for i in ids
                if os.path.exists(os.path.join(runs, i, "status.json"))}
        self.assertNotIn(ids[2], done, "the point that was running has no status")
        self.assertGreaterEqual(len(done), 2)
        r = self.finish(self.start(spec, out, "--resume"), 0)
        self.assertIn(f"{len(done)} of 6 points completed before; running {6 - len(done)}", r)
        for i, mtime in done.items():
            self.assertEqual(os.path.getmtime(os.path.join(runs, i, "status.json")), mtime, f"{i} ran again")
        self.assertEqual([row["exit_status"] for row in read_csv(os.path.join(out, "results.csv"))], ["0"] * 6)

    def test_sbatch_refusal(self):
        out = os.path.join(self.dir, "slurm")
        p = self.start(self.spec(SPEC_3x2), out, "--slurm-args", "--partition=no-such-partition")
        _, err = p.communicate(timeout=300)
        self.assertEqual(p.returncode, 1, err)
        self.assertIn("invalid partition", err.lower())

    def test_cancelled_and_lost_tasks_are_recorded(self):
        # With slow_sim (runs with n=8192 wait a minute first); 6 points in 3 tasks of 2.
        # Task 0 is cancelled with scancel while its first point waits: that point ends with
        # 143 and the task starts none of its others (lost). Task 1's runner is killed
        # (SIGKILL: it writes nothing, as on a node that dies): both its points are lost.
        # Task 2 completes.
        sim = self.slow_sim()
        spec = self.spec("""name: cancel
configs: [platforms/default.yaml]
workloads: [testbenches/workloads/vector_add.yaml]
points:
  - {vars.n: 8192}
  - {vars.n: 4096}
  - {vars.n: 8192, sm.scheduler: lrr}
  - {vars.n: 4096, sm.scheduler: lrr}
  - {vars.n: 2048}
  - {vars.n: 1024}
""")
        out = os.path.join(self.dir, "slurm")
        p = self.start(spec, out, sim=sim, env={"VGPU_SWEEP_SLURM_GRACE": "2", "VGPU_SWEEP_SLURM_MAX_TASKS": "3"})
        wait_for("the array's submission", lambda: os.path.exists(os.path.join(out, "slurm", "job")))
        with open(os.path.join(out, "slurm", "job")) as f:
            job = f.read().strip()
        points = manifest(out)
        ids = [q["id"] for q in points]
        running = [os.path.join(out, "runs", ids[i], "running.json") for i in (0, 2)]
        wait_for("the slow points to start", lambda: all(os.path.exists(r) for r in running))
        slurm("scancel", f"{job}_0")
        with open(running[1]) as f:
            os.kill(json.load(f)["pid"], signal.SIGKILL)
        text = self.finish(p, 1)
        self.assertIn("6 points in 3 tasks of 2 points", text)
        self.assertIn("4 of 6 points failed", text)
        rows = read_csv(os.path.join(out, "results.csv"))
        self.assertEqual([r["point"] for r in rows], ids)
        self.assertEqual([r["exit_status"] for r in rows], [str(128 + signal.SIGTERM), "lost", "lost", "lost", "0", "0"])
        for i, t in ((1, 0), (2, 1), (3, 1)):
            self.assertIn(f"Slurm task {job}_{t} ended", rows[i]["message"])
            self.assertIn("without a status for this point", rows[i]["message"])
        self.assertEqual([r["kernel"] for r in rows], [""] * 4 + ["vector_add"] * 2)


if __name__ == "__main__":
    unittest.main()
