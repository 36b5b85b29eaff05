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

    def test_several_points_per_task(self):
        # As when the points outnumber the cluster's MaxArraySize.
        spec = self.spec(SPEC_3x2)
        local = os.path.join(self.dir, "local")
        r = sweep("run", spec, "-o", local, "--jobs", "2", "--sim", SIM)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        out = os.path.join(self.dir, "slurm")
        text = self.finish(self.start(spec, out, env={"VGPU_SWEEP_SLURM_MAX_TASKS": "5"}), 0)
        self.assertIn("12 points in 4 tasks of 3 points", text)
        self.assertEqual(table(os.path.join(out, "results.csv")), table(os.path.join(local, "results.csv")))

    def test_cancelled_and_lost_tasks_are_recorded(self):
        # A simulator whose runs with n=8192 wait a minute first: one of them is cancelled with
        # scancel, the other one's task is killed (SIGKILL: it writes nothing, as on a node that
        # dies); the other points complete.
        real = os.path.join(self.dir, "real-vgpu-sim")
        shutil.copy2(SIM, real)
        sim = os.path.join(self.dir, "slow-vgpu-sim")
        with open(sim, "w") as f:
            f.write(f'#!/bin/sh\ncase " $* " in *" n=8192"*" -o"*) sleep 60 ;; esac\nexec {real} "$@"\n')
        os.chmod(sim, stat.S_IRWXU)
        spec = self.spec("""name: cancel
configs: [platforms/default.yaml]
workloads: [testbenches/workloads/vector_add.yaml]
grid: {vars.n: [4096, 8192, 2048], sm.scheduler: [lrr, gto]}
""")
        out = os.path.join(self.dir, "slurm")
        p = self.start(spec, out, sim=sim, env={"VGPU_SWEEP_SLURM_GRACE": "2"})
        wait_for("the manifest", lambda: os.path.exists(os.path.join(out, "slurm", "job")))
        job = open(os.path.join(out, "slurm", "job")).read().strip()
        points = manifest(out)
        slow = [q for q in points if q["axes"]["vars.n"] == 8192]
        self.assertEqual(len(slow), 2)
        running = [os.path.join(out, "runs", q["id"], "running.json") for q in slow]
        wait_for("the slow points to start", lambda: all(os.path.exists(r) for r in running))
        # one point per task here: task t runs manifest index t
        slurm("scancel", f"{job}_{slow[0]['index']}")
        with open(running[1]) as f:
            os.kill(json.load(f)["pid"], signal.SIGKILL)
        text = self.finish(p, 1)
        self.assertIn("2 of 6 points failed", text)
        rows = {r["point"]: r for r in read_csv(os.path.join(out, "results.csv"))}
        self.assertEqual(len(rows), 6)
        self.assertEqual(rows[slow[0]["id"]]["exit_status"], str(128 + signal.SIGTERM))
        self.assertEqual(rows[slow[1]["id"]]["exit_status"], "lost")
        self.assertIn(f"Slurm task {job}_{slow[1]['index']} ended", rows[slow[1]["id"]]["message"])
        self.assertIn("without a status for this point", rows[slow[1]["id"]]["message"])
        for q in points:
            if q not in slow:
                self.assertEqual(rows[q["id"]]["exit_status"], "0")
                self.assertEqual(rows[q["id"]]["kernel"], "vector_add")


if __name__ == "__main__":
    unittest.main()
