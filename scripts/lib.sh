# Shared by scripts/run, scripts/test and scripts/bench: install missing Debian packages, then
# configure and build incrementally in build/ (override with VGPU_BUILD_DIR).
set -euo pipefail

VGPU_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VGPU_BUILD_DIR="${VGPU_BUILD_DIR:-$VGPU_ROOT/build}"

# Everything vgpu builds and tests with (python3 runs scripts/compare), all from Debian 12.
# The third line is firmware co-simulation (host.kind: riscv): the instruction-set simulator,
# the RISC-V cross compiler and C library the firmware is built with, and the debugger the
# GDB-stub test drives; the fourth, the compiler of CUDA workloads (cuda:, device code to PTX);
# the last, the RTL blocks' simulator and synthesis (models/*/rtl).
VGPU_PACKAGES=(g++ cmake make pkg-config libsystemc-dev libyaml-cpp-dev libboost-dev catch2
               nlohmann-json3-dev libcli11-dev libgoogle-perftools-dev clang-format python3
               libunicorn-dev gcc-riscv64-unknown-elf picolibc-riscv64-unknown-elf gdb-multiarch
               clang-14
               verilator yosys)

# A single-node Slurm cluster on 127.0.0.1 for laptops and CI (scripts/slurm-local).
VGPU_SLURM_PACKAGES=(slurmctld slurmd slurm-client munge)

# What scripts/bench needs beyond the build: callgrind counts host instructions
# (scripts/bench hostspeed).
VGPU_BENCH_PACKAGES=(valgrind)

# What the HTML reports need (scripts/report, scripts/sweep report; docs/reports.md): Debian's
# Python packages, and the browser their test opens the reports in.
VGPU_REPORT_PACKAGES=(python3-yaml python3-matplotlib chromium)

vgpu_install_deps() {
    vgpu_install_packages "${VGPU_PACKAGES[@]}"
}

vgpu_install_bench_deps() {
    vgpu_install_packages "${VGPU_BENCH_PACKAGES[@]}"
}

vgpu_install_report_deps() {
    vgpu_install_packages "${VGPU_REPORT_PACKAGES[@]}"
}

# Installs those of the given Debian packages that are missing (scripts that need more than
# the build: scripts/sweep, scripts/report, scripts/slurm-local).
vgpu_install_packages() {
    local missing=()
    for p in "$@"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    echo "vgpu: installing missing Debian packages: ${missing[*]}" >&2
    local sudo=""
    if [ "$(id -u)" != 0 ]; then
        command -v sudo >/dev/null || { echo "vgpu: run as root or install: ${missing[*]}" >&2; exit 2; }
        sudo=sudo
    fi
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
}

# Extra options for the first configuration of a build folder (scripts/test --sanitize).
VGPU_CMAKE_ARGS=()

vgpu_build() {
    vgpu_install_deps
    if [ ! -f "$VGPU_BUILD_DIR/CMakeCache.txt" ]; then
        cmake -S "$VGPU_ROOT" -B "$VGPU_BUILD_DIR" -DCMAKE_BUILD_TYPE="${VGPU_BUILD_TYPE:-Release}" \
              "${VGPU_CMAKE_ARGS[@]}" >&2
    fi
    cmake --build "$VGPU_BUILD_DIR" -j "$(nproc)" "$@" >&2
}
