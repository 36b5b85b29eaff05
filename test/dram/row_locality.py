#!/usr/bin/env python3
# Row locality at platform level: runs testbenches/workloads/micro/dram_row_local.yaml and
# dram_random.yaml in one timing mode and checks that the row-local gather runs at least 1.3x
# faster, with its DRAM accesses mostly row hits and the random one's mostly conflicts.
# See models/dram/README.md ("Row locality").
#
# usage: row_locality.py VGPU_SIM SOURCE_DIR MODE OUT_DIR
#
# The platform has 16 SMs (4 clusters) so that the gathers have the memory-level parallelism to
# load the DRAM, and 128-byte NoC ports so that the cluster-crossbar ports (which carry the read
# data on the request path) are not what bounds both gathers: the figure is the DRAM's.
import json
import os
import subprocess
import sys

MIN_RATIO = 1.3
PLATFORM = ["-s", "platform.clusters_per_module=4", "-s", "noc.width_bytes=128"]


def run(sim, src, mode, out, workload):
    folder = os.path.join(out, f"{workload}_{mode}")
    cmd = [sim, "-w", os.path.join(src, "testbenches", "workloads", "micro", workload + ".yaml"),
           "-s", f"platform.timing.mode={mode}", *PLATFORM, "-o", folder]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0 or "verdict: pass" not in r.stdout:
        sys.exit(f"{' '.join(cmd)} failed ({r.returncode}):\n{r.stdout}\n{r.stderr}")
    with open(os.path.join(folder, "stats.json")) as f:
        j = json.load(f)
    k = j["kernels"][0]
    s = j["stats"]
    rows = {o: sum(v for n, v in s.items() if n.startswith("gpu.m0.dram.ch") and n.endswith(o))
            for o in (".row_hits", ".row_misses", ".row_conflicts")}
    return k["end_ns"] - k["start_ns"], rows


def main():
    if len(sys.argv) != 5:
        sys.exit("usage: row_locality.py VGPU_SIM SOURCE_DIR MODE OUT_DIR")
    sim, src, mode, out = sys.argv[1:]
    local_ns, local_rows = run(sim, src, mode, out, "dram_row_local")
    random_ns, random_rows = run(sim, src, mode, out, "dram_random")
    ratio = random_ns / local_ns
    hit = lambda r: r[".row_hits"] / max(1, sum(r.values()))
    print(f"{mode}: row-local {local_ns:.0f} ns (row hits {hit(local_rows):.1%}), "
          f"random {random_ns:.0f} ns (row hits {hit(random_rows):.1%}), ratio {ratio:.3f}")
    ok = True
    if hit(local_rows) < 0.5:
        print("FAIL: the row-local gather should mostly hit open rows")
        ok = False
    if hit(random_rows) > 0.2:
        print("FAIL: the random gather should mostly find other rows open")
        ok = False
    if ratio < MIN_RATIO:
        print(f"FAIL: row-local must be at least {MIN_RATIO}x faster than random")
        ok = False
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
