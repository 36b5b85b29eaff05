#!/usr/bin/env python3
"""Runs one workload with host.kind native and host.kind riscv and compares what must match:
both pass their checks, the same warp-instruction count, the same pages per module, the same
fault services. Prints the kernel-time difference the firmware's own time adds.
Usage: host_parity.py VGPU_SIM WORKLOAD OUTDIR [vgpu-sim arguments...]"""
import json
import subprocess
import sys

sim, workload, outdir, extra = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
stats = {}
for kind in ("native", "riscv"):
    out = f"{outdir}/{kind}"
    r = subprocess.run([sim, "-w", workload, "-s", f"host.kind={kind}", "-o", out] + extra,
                       capture_output=True, text=True)
    if r.returncode != 0 or "verdict: pass" not in r.stdout:
        print(f"host.kind {kind}: exit {r.returncode}\n{r.stdout}\n{r.stderr}")
        sys.exit(1)
    with open(f"{out}/stats.json") as f:
        stats[kind] = json.load(f)["stats"]

native, riscv = stats["native"], stats["riscv"]
keys = ["gpu.instructions", "gpu.host.fault_services", "gpu.host.fault_records",
        "gpu.host.fatal_faults", "gpu.host.checks_passed", "gpu.host.checks_failed",
        "gpu.host.kernels"]
keys += sorted(k for k in native if k.startswith("gpu.host.pages.m"))
bad = [k for k in keys if native.get(k) != riscv.get(k)]
for k in keys:
    print(f"{k}: native {native.get(k)} riscv {riscv.get(k)}")
for k in sorted(native):
    if k.startswith("gpu.host.kernel_time.") and k.count(".") == 3:
        n, r = native[k], riscv.get(k, 0)
        print(f"{k}: native {n:.1f} ns, riscv {r:.1f} ns ({r - n:+.1f} ns firmware time)")
print(f"firmware: {riscv.get('gpu.host.cpu.instructions')} instructions, "
      f"{riscv.get('gpu.host.cpu.interrupts')} interrupts, {riscv.get('gpu.host.cpu.idle_ns')} ns idle")
if bad:
    print("MISMATCH: " + ", ".join(bad))
    sys.exit(1)
print("parity: pass")
