#!/usr/bin/python3
"""The CUDA application suite (testbenches/cuda/) measured: scripts/bench blocks | suite.

blocks: every application at its default sizes, once per setting of each of the six blocks
        against the block's baseline; one table per block: per application, the kernel time
        ratio (setting / baseline) and the block's own figure.
suite:  every application at its large size (LARGE below) on platforms/v100.yaml in fast mode:
        bottleneck verdict, achieved DRAM bandwidth, IPC and host seconds.

Runs go side by side (--jobs, default: the host's cores); each is an ordinary vgpu-sim run
into a scratch folder, read back from its stats.json (the kernels' records for the kernel
window, run-wide statistics for block counters). A failed run stops the bench (exit 1) and
prints its command and output. Standard library only.
"""
import argparse
import concurrent.futures
import glob
import json
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SUITE = os.path.join(ROOT, "testbenches", "cuda")
PLAT = os.path.join(ROOT, "platforms")

# The large sizes of the applications for platforms/v100.yaml (80 SMs): -D settings per
# application; an application not listed runs at its defaults.
LARGE = {
    "vector_add": ["-D", "ctas=16384"],
    "gather": ["-D", "ctas=1024", "-D", "src=16777216"],
    "ffma_chain": ["-D", "ctas=1280", "-D", "count=1000"],
    "histogram": ["-D", "ctas=160", "-D", "words=4194304"],
    "matmul_tiled": ["-D", "tm=32", "-D", "tn=32", "-D", "k=512"],
    "reduce_shfl": ["-D", "ctas=8192"],
    "softmax_row": ["-D", "rows=8192", "-D", "cols=1024"],
    "stencil3": ["-D", "ctas=16384"],
    "sgemm_naive": ["-D", "tm=32", "-D", "tn=32", "-D", "k=512"],
    "transpose_naive": ["-D", "tr=64", "-D", "tc=64"],
    "transpose_shared": ["-D", "tr=64", "-D", "tc=64"],
    "gemv": ["-D", "ctas=1024", "-D", "n=4096"],
    "jacobi2d": ["-D", "tiles=32", "-D", "pairs=1"],
    "hotspot": ["-D", "tx=43", "-D", "ty=43"],
    "conv2d": ["-D", "tx=64", "-D", "ty=64"],
    "pathfinder": ["-D", "ctas=100", "-D", "h=20"],
    "scan": ["-D", "ctas=4096", "-D", "sthreads=512"],
    "bitonic_sort": ["-D", "ctas=256"],
    "spmv_csr": ["-D", "rows=262144", "-D", "cols=262144", "-D", "ctas=640"],
    "bfs": ["-D", "nodes=262144", "-D", "degree=8", "-D", "ctas=640"],
    "nbody": ["-D", "block=256", "-D", "ctas=64", "-D", "dt=0.0000625"],
    "kmeans": ["-D", "ctas=2048", "-D", "iterations=5"],
}

# Published V100 figures beside vgpu's, for the applications where one exists: (what, how
# vgpu's figure follows from the workload's variables and the kernel time in ns, the published
# figure, its source). Sizes and kernels differ from the published ones (given in the source
# column): a library or a tuned kernel is an upper bound for the suite's simple kernels.
STREAM_810 = ("810.0", "SAXPY, V100-SXM2-32GB (pc2/GPUInspector.jl, docs/src/devices/v100_sxm2.md)")
COPY_795 = ("794.6", "device-to-device copy of 1.4 GiB, V100-SXM2-32GB (pc2/GPUInspector.jl, "
            "docs/src/devices/v100_sxm2.md; 740.02 GiB/s)")
SGEMM_14380 = ("14380", "cuBLAS SGEMM 8192x8192 (PyTorch FP32 matmul), V100-SXM2-16GB "
               "(zzc0721/torch-performance-test-data issue #140)")
PUBLIC = {
    "vector_add": ("GB/s (3 x 4 B per element)", lambda v, ns: 12 * v["n"] / ns) + STREAM_810,
    "transpose_naive": ("GB/s (read + write)", lambda v, ns: 8 * v["rows"] * v["cols"] / ns) + COPY_795,
    "transpose_shared": ("GB/s (read + write)", lambda v, ns: 8 * v["rows"] * v["cols"] / ns) + COPY_795,
    "reduce_shfl": ("GB/s (4 B read per element)", lambda v, ns: 4 * v["n"] / ns,
                    "899.7", "warp-shuffle sum of 2^25 doubles, V100 32GB (jhlee508/reduction-cuda, README)"),
    "sgemm_naive": ("GFLOP/s", lambda v, ns: 2 * v["m"] * v["n"] * v["k"] / ns) + SGEMM_14380,
    "matmul_tiled": ("GFLOP/s", lambda v, ns: 2 * v["m"] * v["n"] * v["k"] / ns) + SGEMM_14380,
    "ffma_chain": ("GFLOP/s", lambda v, ns: 2 * v["n"] * v["count"] / ns,
                   "15500", "FMA peakflops kernel, V100-SXM2-32GB (pc2/GPUInspector.jl, "
                   "docs/src/devices/v100_sxm2.md)"),
}


def apps(selected):
    names = sorted(os.path.splitext(os.path.basename(p))[0]
                   for p in glob.glob(os.path.join(SUITE, "*.yaml")))
    if selected:
        unknown = [a for a in selected if a not in names]
        if unknown:
            sys.exit(f"suite_bench: no application {', '.join(unknown)} in {SUITE} "
                     f"(there are: {' '.join(names)})")
        names = [a for a in names if a in selected]
    return names


class Runner:
    """Runs vgpu-sim into scratch folders and returns each run's stats.json."""

    def __init__(self, sim, jobs):
        self.sim = sim
        self.pool = concurrent.futures.ThreadPoolExecutor(max_workers=jobs)
        self.scratch = tempfile.mkdtemp(prefix="vgpu-suite-")
        self.count = 0

    def submit(self, args):
        self.count += 1
        out = os.path.join(self.scratch, f"run{self.count}")
        return self.pool.submit(self._run, args, out)

    def _run(self, args, out):
        cmd = [self.sim, *args, "-o", out]
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if p.returncode != 0:
            raise RuntimeError(f"vgpu-sim failed (exit {p.returncode}): {' '.join(cmd)}\n"
                               f"{p.stdout[-4000:]}")
        with open(os.path.join(out, "stats.json")) as f:
            j = json.load(f)
        subprocess.run(["rm", "-rf", out])
        return j

    def variables(self, args):
        """The workload's variables as a run with args uses them (vgpu-sim --check), as numbers."""
        p = subprocess.run([self.sim, *args, "--check"], stdout=subprocess.PIPE, text=True, check=True)
        return {k: float(v) for k, v in json.loads(p.stdout)["vars"].items()}


def kernel_ns(j):
    return sum(k["end_ns"] - k["start_ns"] for k in j["kernels"])


def total(j, pattern):
    """Sum of the run-wide statistics whose names match the regular expression."""
    rx = re.compile(pattern)
    return sum(v for n, v in j["stats"].items() if rx.fullmatch(n) and isinstance(v, (int, float)))


def noc_bytes(j):
    """Bytes between the clusters and the module NoC: requests' write data and responses' read
    data at every cluster port (as scripts/bench l1 counts them)."""
    return sum(v for n, v in j["stats"].items()
               if ".noc.c" in n and (n.endswith(".bytes") or n.endswith(".response_bytes")))


def kernel_mean(j, key):
    """A kernel-record figure averaged over the kernels, weighted by their windows."""
    ks = j["kernels"]
    w = sum(k["end_ns"] - k["start_ns"] for k in ks)
    return sum(k[key] * (k["end_ns"] - k["start_ns"]) for k in ks) / w if w else 0.0


def kernel_sum(j, key):
    return sum(k.get(key, 0) for k in j["kernels"])


# The blocks: (key, title, platform file, mode, baseline settings, [(label, settings)], figure
# columns [(header, function of a run)]).
BLOCKS = [
    ("tlb", "TLB: tlb.index xor against modulo (timed TLB, accurate mode, default platform)",
     "default.yaml", "accurate", ["tlb.model=timed", "tlb.index=modulo"],
     [("xor", ["tlb.index=xor"])],
     [("L1 TLB misses", lambda j: total(j, r"gpu\..*_tlb\.misses")),
      ("walks", lambda j: total(j, r"gpu\..*\.tlb\.walks"))]),
    ("cdl", "CDL: bulk constant loads against legacy ones (cdl.bulk_loads; fast mode, default "
     "platform; applications without constant loads show 1.000 and no CDLs)",
     "default.yaml", "fast", ["cdl.bulk_loads=false"], [("bulk", ["cdl.bulk_loads=true"])],
     [("bulk CDLs", lambda j: total(j, r"gpu\..*_cdl\.controller\.bulk")),
      ("legacy CDLs", lambda j: total(j, r"gpu\..*_cdl\.controller\.legacy")),
      ("CDL bytes read", lambda j: total(j, r"gpu\..*_cdl\.core\.bytes_read"))]),
    ("trace", "Shader trace: tracing on against off (fast mode, default platform)",
     "default.yaml", "fast", [], [("traced", ["shader_trace.enable=true"])],
     [("tokens", lambda j: j["stats"].get("gpu.trace_unit.tokens", 0)),
      ("groups written", lambda j: j["stats"].get("gpu.trace_unit.groups_written", 0)),
      ("groups dropped", lambda j: j["stats"].get("gpu.trace_unit.groups_dropped", 0))]),
    ("noc", "NoC arbiter: barrier_aware against round_robin (platforms/congested.yaml, "
     "accurate mode)", "congested.yaml", "accurate", ["noc.arbiter=round_robin"],
     [("barrier_aware", ["noc.arbiter=barrier_aware"])],
     [("barrier wait cycles", lambda j: total(j, r"gpu\..*\.sm\d+\.barrier_wait_cycles"))]),
    ("l1", "L1 sharing: shared and adaptive against private (fast mode, default platform)",
     "default.yaml", "fast", ["l1.sharing=private"],
     [("shared", ["l1.sharing=shared"]), ("adaptive", ["l1.sharing=adaptive"])],
     [("L1 hit rate", lambda j: kernel_mean(j, "l1_hit_rate")),
      ("NoC bytes", noc_bytes)]),
]
# The LLC switcher on platforms/mcm4.yaml, once per page-allocation policy.
for policy in ("first_touch", "round_robin", "adaptive"):
    BLOCKS.append((
        "llc", f"LLC switcher: private, adaptive and remote ways against shared "
        f"(platforms/mcm4.yaml, fast mode, memory.page_alloc {policy})",
        "mcm4.yaml", "fast", ["llc.mode=shared", f"memory.page_alloc={policy}"],
        [("private", ["llc.mode=private"]), ("adaptive", ["llc.mode=adaptive"]),
         ("remote_ways 2", ["llc.remote_ways=2"])],
        [("link bytes", lambda j: kernel_sum(j, "link_bytes"))]))


def settings(keys):
    out = []
    for k in keys:
        out += ["-s", k]
    return out


def fmt(v):
    if isinstance(v, float) and v < 1 and v != 0:
        return f"{100 * v:.1f}%"
    return f"{v:,.0f}"


def bench_blocks(runner, names, only):
    for key, title, plat, mode, base, variants, figs in BLOCKS:
        if only and key not in only:
            continue
        common = ["-c", os.path.join(PLAT, plat), "-s", f"platform.timing.mode={mode}"]
        futures = {}
        for a in names:
            wl = ["-w", os.path.join(SUITE, a + ".yaml")]
            futures[(a, "base")] = runner.submit(common + wl + settings(base))
            for label, s in variants:
                futures[(a, label)] = runner.submit(common + wl + settings(base + s))
        print(f"== {title} ==")
        head = ["application", "base ns"] + [f"base {h}" for h, _ in figs]
        for label, _ in variants:
            head += [f"{label} ratio"] + [f"{label} {h}" for h, _ in figs]
        rows = []
        for a in names:
            b = futures[(a, "base")].result()
            row = [a, fmt(kernel_ns(b))] + [fmt(f(b)) for _, f in figs]
            for label, _ in variants:
                v = futures[(a, label)].result()
                row += [f"{kernel_ns(v) / kernel_ns(b):.3f}"] + [fmt(f(v)) for _, f in figs]
            rows.append(row)
        print_table(head, rows)
        print()


def bench_suite(runner, names):
    print("== suite: platforms/v100.yaml, fast mode, large sizes (LARGE in scripts/suite_bench.py) ==")
    futures = {a: runner.submit(["-c", os.path.join(PLAT, "v100.yaml"),
                                 "-w", os.path.join(SUITE, a + ".yaml"),
                                 "-s", "platform.timing.mode=fast"] + LARGE.get(a, []))
               for a in names}
    head = ["application", "sizes", "kernel us", "bound", "DRAM GB/s", "IPC", "host s"]
    rows = []
    for a in names:
        j = futures[a].result()
        ns = kernel_ns(j)
        dram = kernel_sum(j, "dram_read_bytes") + kernel_sum(j, "dram_write_bytes")
        instr = kernel_sum(j, "instructions")
        cycles = kernel_sum(j, "cycles")
        bounds = sorted({k["bound"] for k in j["kernels"]})
        rows.append([a, " ".join(LARGE.get(a, ["defaults"])).replace("-D ", ""),
                     f"{ns / 1000:.1f}", "/".join(bounds), f"{dram / ns:.1f}" if ns else "0",
                     f"{instr / cycles:.2f}" if cycles else "0",
                     f"{j['meta']['host_seconds']:.2f}"])
    print_table(head, rows)
    public = [a for a in names if a in PUBLIC]
    if public:
        print()
        print("published V100 figures beside vgpu's (sizes differ: see each source)")
        rows = []
        for a in public:
            what, figure, published, source = PUBLIC[a]
            v = runner.variables(["-c", os.path.join(PLAT, "v100.yaml"),
                                  "-w", os.path.join(SUITE, a + ".yaml")] + LARGE.get(a, []))
            rows.append([a, what, f"{figure(v, kernel_ns(futures[a].result())):.1f}", published, source])
        print_table(["application", "figure", "vgpu", "V100 (published)", "source"], rows)


def print_table(head, rows):
    widths = [max(len(str(r[i])) for r in [head] + rows) for i in range(len(head))]
    for r in [head] + rows:
        print("  ".join(str(c).rjust(w) if i else str(c).ljust(w)
                        for i, (c, w) in enumerate(zip(r, widths))))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("what", choices=["blocks", "suite"])
    ap.add_argument("--sim", required=True, help="the vgpu-sim to run")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--apps", default="", help="comma-separated applications (default: all)")
    ap.add_argument("--blocks", default="", help="blocks: comma-separated of tlb,cdl,trace,noc,l1,llc")
    a = ap.parse_args()
    if a.jobs < 1:
        ap.error("--jobs must be at least 1")
    only = [b for b in a.blocks.split(",") if b]
    bad = [b for b in only if b not in {k for k, *_ in BLOCKS}]
    if bad:
        ap.error(f"unknown block(s) {', '.join(bad)} (tlb, cdl, trace, noc, l1, llc)")
    runner = Runner(a.sim, a.jobs)
    try:
        names = apps([x for x in a.apps.split(",") if x])
        if a.what == "blocks":
            bench_blocks(runner, names, only)
        else:
            bench_suite(runner, names)
    except RuntimeError as e:
        print(e, file=sys.stderr)
        return 1
    finally:
        runner.pool.shutdown(cancel_futures=True)
        subprocess.run(["rm", "-rf", runner.scratch])
    return 0


if __name__ == "__main__":
    sys.exit(main())
