#!/usr/bin/env bash
# The firmware CPU's GDB stub driven by Debian's gdb-multiarch in batch mode: a breakpoint on
# main, registers, memory read and write, single steps, continue to the end of the run.
# Usage: gdb_batch.sh VGPU_SIM FIRMWARE_ELF WORKLOAD OUTDIR
set -u
sim=$1 elf=$2 workload=$3 out=$4
mkdir -p "$out"
command -v gdb-multiarch >/dev/null || { echo "gdb-multiarch not installed (Debian gdb-multiarch)"; exit 1; }
# A port from the process id, so that parallel runs do not collide.
port=$((20000 + $$ % 20000))
"$sim" -w "$workload" -s host.kind=riscv --gdb "$port" -o "$out/run" >"$out/sim.out" 2>"$out/sim.err" &
sim_pid=$!
for _ in $(seq 100); do
    grep -q "waiting for GDB" "$out/sim.err" "$out/sim.out" 2>/dev/null && break
    sleep 0.1
done
timeout 120 gdb-multiarch -nx -batch "$elf" \
    -ex "set architecture riscv:rv32" \
    -ex "target remote 127.0.0.1:$port" \
    -ex "break main" \
    -ex "continue" \
    -ex "info registers pc sp" \
    -ex "stepi" \
    -ex "stepi" \
    -ex "info registers pc" \
    -ex "x/2wx 0x80000000" \
    -ex "set {int}&queues_failed = 0" \
    -ex "print queues_failed" \
    -ex "delete" \
    -ex "continue" >"$out/gdb.out" 2>&1
gdb_rc=$?
wait "$sim_pid"
sim_rc=$?
cat "$out/gdb.out"
echo "--- vgpu-sim (exit $sim_rc):"
tail -3 "$out/sim.out"
[ "$gdb_rc" = 0 ] || { echo "gdb failed (exit $gdb_rc)"; exit 1; }
[ "$sim_rc" = 0 ] || { echo "vgpu-sim failed"; exit 1; }
grep -q "Breakpoint 1, main" "$out/gdb.out" || { echo "no stop at main"; exit 1; }
grep -q "^pc .*0x800" "$out/gdb.out" || { echo "no pc register"; exit 1; }
grep -q "0x80000000.*:" "$out/gdb.out" || { echo "no memory"; exit 1; }
grep -q "^\$1 = 0" "$out/gdb.out" || { echo "no variable"; exit 1; }
grep -q "verdict: pass" "$out/sim.out" || { echo "the run did not pass"; exit 1; }
echo "gdb stub: pass"
