"""scripts/bench sweep: what a sweep costs beyond its runs, per point, for each launcher.

64 short points (vector_add at 8 CTAs on the default platform, 4 x 4 x 4 settings of three L1
keys) run through scripts/sweep; the overhead per point is the sweep's process time beyond its
runs: (wall time x jobs - the sum of the runs' host_seconds) / points, with jobs = 1, so that a
pool's parallelism does not hide it. The Slurm launcher is measured when a cluster answers
(scripts/slurm-local start). Whole-process wall times on this host; the target is under 0.2 s
per point locally.
"""
import csv
import os
import subprocess
import sys
import tempfile
import time

from sweep_lib.sim import ROOT

SPEC = """name: bench-overhead
configs: [platforms/default.yaml]
workloads: [{file: testbenches/cuda/vector_add.yaml, vars: {ctas: 8}}]
grid: {l1.ways: [1, 2, 4, 8], l1.mshrs: [4, 8, 16, 32], l1.hit_latency: [10, 20, 30, 40]}
"""


def slurm_up():
    script = os.path.join(ROOT, "scripts", "slurm-local")
    if not os.path.exists(script):
        return False
    r = subprocess.run([script, "status"],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return r.returncode == 0


def measure(sim, launcher, folder):
    spec = os.path.join(folder, "spec.yaml")
    with open(spec, "w") as f:
        f.write(SPEC)
    out = os.path.join(folder, f"sweep-{launcher}")
    start = time.monotonic()
    r = subprocess.run([os.path.join(ROOT, "scripts", "sweep"), "run", spec, "-o", out, "--jobs", "1",
                        "--launcher", launcher, "--sim", sim], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True)
    wall = time.monotonic() - start
    if r.returncode != 0:
        sys.exit(f"bench sweep: the {launcher} sweep failed (exit {r.returncode}):\n{r.stdout[-3000:]}")
    with open(os.path.join(out, "results.csv"), newline="") as f:
        rows = list(csv.DictReader(f))
    runs = sum(float(row["host_seconds"]) for row in rows)
    return len(rows), wall, runs


def main(argv):
    sim = argv[0]
    launchers = ["local"] + (["slurm"] if slurm_up() else [])
    print("== sweep: overhead per point (64 points, --jobs 1; scripts/sweep_lib/bench.py) ==")
    print(f"{'launcher':10} {'points':>7} {'wall s':>9} {'runs host s':>12} {'overhead s/point':>17}")
    with tempfile.TemporaryDirectory(prefix="vgpu-bench-sweep-") as folder:
        for launcher in launchers:
            n, wall, runs = measure(sim, launcher, folder)
            print(f"{launcher:10} {n:7d} {wall:9.2f} {runs:12.2f} {(wall - runs) / n:17.3f}")
    if "slurm" not in launchers:
        print("(slurm: no cluster answers; scripts/slurm-local start brings one up)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
