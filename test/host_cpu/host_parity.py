#!/usr/bin/env python3
"""Runs one workload with host.kind native and host.kind riscv and compares what must match:
both pass their checks, the same warp-instruction count, the same pages per module, the same
pages placed during the run (fault services, and the native driver's first-touch placements,
which the firmware makes in its fault handler), evictions and the L1 invalidations of the evicted
pages' frames, LLC switch requests and seed 002 trace records, and the same
instrumented trace (the trace buffers' contents). Prints the kernel-time difference the
firmware's own time adds.
Usage: host_parity.py VGPU_SIM WORKLOAD OUTDIR [--insert AFTER TEXT]... [vgpu-sim arguments...]
--insert puts TEXT after the first AFTER in the workload (an empty AFTER: at its end), e.g. an
`evict` entry or a kernel's `llc` key; the edited workload is OUTDIR/workload.yaml."""
import json
import os
import subprocess
import sys

sim, workload, outdir, extra = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
inserts = []
while extra[:1] == ["--insert"]:  # "\n" in AFTER and TEXT is a newline
    inserts.append((extra[1].replace("\\n", "\n"), extra[2].replace("\\n", "\n")))
    extra = extra[3:]
if inserts:
    with open(workload) as f:
        text = f.read()
    for after, add in inserts:
        at = text.find(after) if after else len(text)
        if at < 0:
            print(f"--insert: '{after}' is not in {workload}")
            sys.exit(1)
        at += len(after)
        text = text[:at] + add + text[at:]
    os.makedirs(outdir, exist_ok=True)
    workload = f"{outdir}/workload.yaml"
    with open(workload, "w") as f:
        f.write(text)

stats, traces = {}, {}
for kind in ("native", "riscv"):
    out = f"{outdir}/{kind}"
    r = subprocess.run([sim, "-w", workload, "-s", f"host.kind={kind}", "-o", out] + extra,
                       capture_output=True, text=True)
    if r.returncode != 0 or "verdict: pass" not in r.stdout:
        print(f"host.kind {kind}: exit {r.returncode}\n{r.stdout}\n{r.stderr}")
        sys.exit(1)
    with open(f"{out}/stats.json") as f:
        stats[kind] = json.load(f)["stats"]
    trace = f"{out}/instrumented_trace.csv"
    traces[kind] = open(trace).read() if os.path.exists(trace) else None

native, riscv = stats["native"], stats["riscv"]
# Pages placed at their first touch (models/page_alloc/README.md): the native driver places
# them without a fault (gpu.host.touch_placements), the firmware in its fault handler. Compared:
# the pages placed during the run; fault records only when no page was placed at first touch.
for s in (native, riscv):
    s["pages placed at run time"] = (s.get("gpu.host.fault_services", 0) +
                                     s.get("gpu.host.touch_placements", 0))
keys = ["gpu.instructions", "pages placed at run time"]
if not native.get("gpu.host.touch_placements"):
    keys += ["gpu.host.fault_services", "gpu.host.fault_records"]
keys += ["gpu.host.fatal_faults", "gpu.host.checks_passed", "gpu.host.checks_failed",
        "gpu.host.kernels", "gpu.host.evictions", "gpu.cp.l1_invalidations"]
# Adaptive placement depends on the order pages are placed in, which differs between the
# hosts when pages are placed at first touch (at the touch natively, when the firmware serves
# the fault): then the pages in total are compared, not per module.
if native.get("gpu.host.touch_placements") and "memory.page_alloc=adaptive" in " ".join(extra):
    for s in (native, riscv):
        s["pages placed in total"] = sum(v for k, v in s.items()
                                         if k.startswith("gpu.host.pages.m"))
    keys += ["pages placed in total"]
else:
    keys += sorted(k for k in native if k.startswith("gpu.host.pages.m"))
keys += sorted(k for k in native if k.startswith("gpu.host.instrument."))
keys += [k for k in ("gpu.llc_switch.requests",) if k in native]
bad = [k for k in keys if native.get(k) != riscv.get(k)]
for k in keys:
    print(f"{k}: native {native.get(k)} riscv {riscv.get(k)}")
if traces["native"] != traces["riscv"]:
    bad.append("instrumented_trace.csv")
elif traces["native"] is not None:
    print(f"instrumented_trace.csv: identical ({traces['native'].count(chr(10)) - 1} records)")
for k in sorted(native):
    if k.startswith("gpu.host.kernel_time.") and not k.endswith((".max", ".min", ".samples")):
        n, r = native[k], riscv.get(k, 0)
        print(f"{k}: native {n:.1f} ns, riscv {r:.1f} ns ({r - n:+.1f} ns firmware time)")
print(f"firmware: {riscv.get('gpu.host.cpu.instructions')} instructions, "
      f"{riscv.get('gpu.host.cpu.interrupts')} interrupts, {riscv.get('gpu.host.cpu.idle_ns')} ns idle")
if bad:
    print("MISMATCH: " + ", ".join(bad))
    sys.exit(1)
print("parity: pass")
