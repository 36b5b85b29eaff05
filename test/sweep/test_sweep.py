"""scripts/sweep with the local launcher: points, results.csv, failures, --resume, the lock and
bad specs. Environment: VGPU_SIM (the vgpu-sim under test), VGPU_ROOT (the project)."""
import csv
import fcntl
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
import unittest

ROOT = os.environ.get("VGPU_ROOT") or os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SIM = os.environ.get("VGPU_SIM") or os.path.join(ROOT, "build", "platforms", "vgpu-sim")
SWEEP = os.path.join(ROOT, "scripts", "sweep")

# 3 x 2 settings over 2 workloads: 12 points of a few tenths of a second each.
SPEC_3x2 = """name: l1-ways-by-ctas
configs: [platforms/default.yaml]
workloads:
  - {file: testbenches/cuda/gemv.yaml, vars: {n: 256}}
  - testbenches/cuda/vector_add.yaml
grid: {l1.ways: [2, 4, 8], vars.ctas: [8, 16]}
metrics: [gpu.active_cycles, gpu.*_stall_share]
"""


def sweep(*args, timeout=600):
    return subprocess.run([SWEEP, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True, timeout=timeout)


def read_csv(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def read_text(path):
    with open(path) as f:
        return f.read()


def manifest(d):
    with open(os.path.join(d, "manifest.jsonl")) as f:
        return [json.loads(line) for line in f]


class SweepTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="vgpu-sweep-test-")
        self.dir = self.tmp.name

    def tearDown(self):
        self.tmp.cleanup()

    def spec(self, text, name="spec.yaml"):
        p = os.path.join(self.dir, name)
        with open(p, "w") as f:
            f.write(text)
        return p

    def run_ok(self, *args):
        r = sweep(*args, *(["--sim", SIM] if args[0] == "run" else []))
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        return r

    def test_grid_over_two_workloads(self):
        out = os.path.join(self.dir, "out")
        dry = self.run_ok("run", self.spec(SPEC_3x2), "-o", out, "--dry-run", "--jobs", "2")
        self.assertFalse(os.path.exists(out), "a dry run writes nothing")
        listed = re.findall(r"^([0-9a-f]{16})  ", dry.stdout, flags=re.M)
        self.assertEqual(len(listed), 12, dry.stdout)
        self.run_ok("run", self.spec(SPEC_3x2), "-o", out, "--jobs", "2")
        points = manifest(out)
        self.assertEqual([p["id"] for p in points], listed, "the dry run lists the points run")
        self.assertEqual(len(set(listed)), 12)
        self.assertEqual(sorted(os.listdir(os.path.join(out, "runs"))), sorted(listed),
                         "runs/ holds exactly one folder per point")
        # grid x workloads, the last varying fastest
        self.assertEqual([(p["axes"]["l1.ways"], p["axes"]["vars.ctas"], p["workload"]) for p in points][:3],
                         [(2, 8, "testbenches/cuda/gemv.yaml"), (2, 8, "testbenches/cuda/vector_add.yaml"),
                          (2, 16, "testbenches/cuda/gemv.yaml")])
        rows = read_csv(os.path.join(out, "results.csv"))
        self.assertEqual(len(rows), 12)
        head = list(rows[0].keys())
        self.assertEqual(head[:6], ["point", "workload", "kernel", "l1.ways", "vars.ctas", "seed"])
        self.assertEqual(head[-4:], ["exit_status", "host_seconds", "run_dir", "message"])
        for col in ("cycles", "start_ns", "end_ns", "ipc", "l1_hit_rate", "llc_hit_rate", "dram_bw_util",
                    "link_bytes", "bound", "gpu.active_cycles", "gpu.barrier_stall_share"):
            self.assertIn(col, head)
        for row, p in zip(rows, points):
            self.assertEqual(row["point"], p["id"])
            self.assertEqual(row["exit_status"], "0")
            self.assertEqual(row["run_dir"], f"runs/{p['id']}")
            # each row is its own run's kernel record, as vgpu-sim wrote it
            with open(os.path.join(out, row["run_dir"], "stats.json")) as f:
                k = json.load(f)["kernels"][0]
            self.assertEqual(row["kernel"], k["name"])
            self.assertEqual(int(row["cycles"]), k["cycles"])
            self.assertEqual(float(row["ipc"]), k["ipc"])
        # the axes change the runs: vector_add's CTAs and gemv's L1 ways show in the records
        va = {(r["l1.ways"], r["vars.ctas"]): r for r in rows if r["kernel"] == "vector_add"}
        self.assertNotEqual(va[("2", "8")]["instructions"], va[("2", "16")]["instructions"])
        # a run is reproducible from its folder: the same args give the same record
        again = subprocess.run([SIM, *points[0]["args"], "-o", os.path.join(self.dir, "again")],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.assertEqual(again.returncode, 0)
        with open(os.path.join(self.dir, "again", "stats.json")) as f:
            self.assertEqual(json.load(f)["kernels"][0]["cycles"], int(rows[0]["cycles"]))
        # collect rewrites the same table
        before = read_text(os.path.join(out, "results.csv"))
        self.run_ok("collect", out)
        self.assertEqual(read_text(os.path.join(out, "results.csv")), before)

    def test_failing_points_are_recorded_and_the_rest_complete(self):
        # gemv takes about 22 us of simulated time at its defaults: 2 us fails (exit 1); one
        # line size for L1 and another for the LLC is refused (exit 2) though each value is
        # valid in another point; 20000 CTAs run past the time limit (124).
        text = """name: failures
workloads: [testbenches/cuda/gemv.yaml]
limits: {time_s: 3}
points:
  - {platform.max_time: 1 ms}
  - {platform.max_time: 2 us}
  - {l1.line_bytes: 256, llc.line_bytes: 128}
  - {l1.line_bytes: 256, llc.line_bytes: 256}
  - {vars.ctas: 20000}
"""
        out = os.path.join(self.dir, "out")
        r = sweep("run", self.spec(text), "-o", out, "--jobs", "2", "--sim", SIM)
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        self.assertIn("3 of 5 points failed", r.stdout)
        rows = read_csv(os.path.join(out, "results.csv"))
        self.assertEqual([row["exit_status"] for row in rows], ["0", "1", "2", "0", "124"])
        self.assertEqual(rows[0]["message"], "")
        self.assertIn("max_time", rows[1]["message"])
        self.assertIn("one line size", rows[2]["message"])
        self.assertIn("time limit of 3 s", rows[4]["message"])
        self.assertEqual(rows[2]["kernel"], "", "a point without a kernel record has one row")
        self.assertLess(float(rows[4]["host_seconds"]), 30)

    def test_resume_runs_only_the_missing_points(self):
        out = os.path.join(self.dir, "out")
        spec = self.spec(SPEC_3x2)
        p = subprocess.Popen([SWEEP, "run", spec, "-o", out, "--jobs", "1", "--sim", SIM],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        runs = os.path.join(out, "runs")
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            done = [d for d in (os.listdir(runs) if os.path.isdir(runs) else [])
                    if os.path.exists(os.path.join(runs, d, "status.json"))]
            if len(done) >= 3:
                break
            time.sleep(0.05)
        p.send_signal(signal.SIGTERM)
        _, err = p.communicate(timeout=60)
        self.assertEqual(p.returncode, 130, err)
        done = {d: os.path.getmtime(os.path.join(runs, d, "status.json")) for d in os.listdir(runs)
                if os.path.exists(os.path.join(runs, d, "status.json"))}
        self.assertGreaterEqual(len(done), 3)
        self.assertLess(len(done), 12, "the sweep was stopped part-way")
        r = sweep("run", spec, "-o", out, "--sim", SIM)
        self.assertEqual(r.returncode, 2, "without --resume a used folder is refused")
        self.assertIn("--resume", r.stderr)
        r = self.run_ok("run", spec, "-o", out, "--resume", "--jobs", "2")
        self.assertIn(f"{len(done)} of 12 points completed before; running {12 - len(done)}", r.stdout)
        for d, mtime in done.items():
            self.assertEqual(os.path.getmtime(os.path.join(runs, d, "status.json")), mtime,
                             f"completed point {d} ran again")
        rows = read_csv(os.path.join(out, "results.csv"))
        self.assertEqual([row["exit_status"] for row in rows], ["0"] * 12)
        self.assertEqual(len(os.listdir(runs)), 12)

    def test_a_second_sweep_into_the_same_folder_is_refused(self):
        out = os.path.join(self.dir, "out")
        os.makedirs(out)
        with open(os.path.join(out, ".lock"), "a+") as held:
            fcntl.flock(held, fcntl.LOCK_EX | fcntl.LOCK_NB)
            r = sweep("run", self.spec(SPEC_3x2), "-o", out, "--sim", SIM)
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("another sweep is running in this folder", r.stderr)

    def test_bad_specs(self):
        cases = [
            ("unknown key", "grid: {l1.wayz: [2, 4]}", r"spec.yaml:4:8: error: l1.wayz: unknown "
             r"configuration key \(did you mean 'l1.ways'\?\)"),
            ("unknown variable", "grid: {vars.ctaz: [2, 4]}", r"spec.yaml:4:8: error: vars.ctaz: "
             r"'testbenches/cuda/gemv.yaml' declares no variable 'ctaz' \(did you mean 'ctas'\?\)"),
            ("empty axis", "grid: {l1.ways: []}", r"spec.yaml:4:17: error: grid.l1.ways: an empty list"),
            ("a million points", "grid: {l1.ways: [1,2,3,4,5,6,7,8,9,10], l1.sets: [1,2,4,8,16,32,64,128,256,512], "
             "sm.warps: [1,2,3,4,5,6,7,8,9,10], vars.ctas: [1,2,3,4,5,6,7,8,9,10], vars.n: [1,2,3,4,5,6,7,8,9,10], "
             "vars.m: [1,2,3,4,5,6,7,8,9,10]}",
             r"spec.yaml:4:1: error: grid: the spec makes 1000000 points .*pass --yes"),
            ("no such workload", "workloads: [testbenches/cuda/nope.yaml]",
             r"spec.yaml:\d+:\d+: error: workloads\[0\].file: no workload file 'testbenches/cuda/nope.yaml'"),
            ("a value no point can use", "grid: {l1.ways: [2, 100]}", r"spec.yaml:4:21: error: l1.ways: "
             r"vgpu-sim refuses this value in every point that uses it: .*expected 1..64, got 100"),
            ("unknown spec key", "gird: {l1.ways: [2]}",
             r"spec.yaml:4:1: error: gird: unknown spec key \(did you mean 'grid'\?\)"),
        ]
        for what, line, expected in cases:
            with self.subTest(what):
                text = "name: bad\nconfigs: [platforms/default.yaml]\n"
                text += "" if line.startswith("workloads") else "workloads: [testbenches/cuda/gemv.yaml]\n"
                text += line + "\n"
                out = os.path.join(self.dir, "bad-out")
                r = sweep("run", self.spec(text), "-o", out, "--sim", SIM)
                self.assertEqual(r.returncode, 2, r.stdout + r.stderr)
                self.assertRegex(r.stderr, expected)
                self.assertFalse(os.path.exists(out), "a bad spec runs nothing")


if __name__ == "__main__":
    unittest.main()
