// Configuration of the host driver (section `host`) and the platform facts it is built with.
// See models/host/README.md.
#pragma once

#include "models/common/config.h"
#include "models/host_cpu/cpu_config.h"

#include <cstdint>

namespace vgpu::host {

/// Which host runs the workload.
enum class host_kind : std::uint8_t {
    native, ///< the driver is a SystemC thread of the simulator
    riscv   ///< RISC-V firmware on the firmware CPU (models/host_cpu) drives the GPU
};

/// How the driver puts programs, page tables and buffers into GPU memory and reads results.
enum class load_kind : std::uint8_t {
    backdoor, ///< debug transport: zero simulated time, coherent with the caches
    dma       ///< a timed copy engine: whole lines, several in flight, through the NoC
};

/// How the host serves the fault unit's records (`host.fault_service`).
enum class fault_service : std::uint8_t {
    shadow, ///< seed 003: a shadow thread per faulting warp, host.shadow_threads at once
    batched ///< one driver thread in rounds of up to host.fault_batch records (UVM-like)
};

/// Which buffers the driver writes to OUTDIR/buffers/<name>.bin after the run.
enum class dump_kind : std::uint8_t {
    none,    ///< no buffer
    checked, ///< the buffers a check names
    all      ///< every buffer
};

/// How the driver picks the home module of a physical page (`memory.page_alloc`).
enum class page_alloc : std::uint8_t {
    first_touch, ///< the module of the first SM of the first kernel (in schedule order) using it
    round_robin, ///< virtual page number modulo the number of modules
    adaptive     ///< first touch while it keeps the modules balanced, else round robin
};
} // namespace vgpu::host

template <> struct vgpu::enum_names<vgpu::host::dump_kind> {
    static constexpr std::pair<std::string_view, host::dump_kind> table[] = {
        {"none", host::dump_kind::none},
        {"checked", host::dump_kind::checked},
        {"all", host::dump_kind::all}};
};
template <> struct vgpu::enum_names<vgpu::host::host_kind> {
    static constexpr std::pair<std::string_view, host::host_kind> table[] = {
        {"native", host::host_kind::native}, {"riscv", host::host_kind::riscv}};
};
template <> struct vgpu::enum_names<vgpu::host::load_kind> {
    static constexpr std::pair<std::string_view, host::load_kind> table[] = {
        {"backdoor", host::load_kind::backdoor}, {"dma", host::load_kind::dma}};
};
template <> struct vgpu::enum_names<vgpu::host::fault_service> {
    static constexpr std::pair<std::string_view, host::fault_service> table[] = {
        {"shadow", host::fault_service::shadow}, {"batched", host::fault_service::batched}};
};
template <> struct vgpu::enum_names<vgpu::host::page_alloc> {
    static constexpr std::pair<std::string_view, host::page_alloc> table[] = {
        {"first_touch", host::page_alloc::first_touch},
        {"round_robin", host::page_alloc::round_robin},
        {"adaptive", host::page_alloc::adaptive}};
};

namespace vgpu::host {

/// Section `host`: the driver that loads and runs the workload.
struct host_config {
    host_kind kind = host_kind::native;   ///< host implementation
    load_kind load = load_kind::backdoor; ///< how set-up and result reads reach GPU memory
    unsigned dma_bytes = 128;             ///< largest DMA transaction (aligned; capped at a line)
    unsigned dma_outstanding = 32;        ///< DMA transactions the copy engine keeps in flight
    duration kernel_timeout{1000000000000ull};     ///< simulated time a phase may take (1 s)
    unsigned max_mismatches = 8;                   ///< mismatching elements listed per failed check
    dump_kind dump_buffers = dump_kind::none;      ///< buffers written to OUTDIR/buffers/
    fault_service service = fault_service::shadow; ///< host.fault_service
    unsigned shadow_threads = 8;                   ///< shadow threads that run at once (host cores)
    duration fault_latency{20000000};        ///< OS handler per fault (shadow) or round (20 us)
    duration swap_in_latency{10000000};      ///< bringing a swapped-out page back (10 us)
    unsigned fault_batch = 256;              ///< batched: fault records taken per round
    duration fault_timeout{10000000000};     ///< a faulting access waits at most this (10 ms)
    byte_size instrument_bytes{16u << 20};   ///< largest trace buffer per record type
    unsigned instrument_undersize = 0;       ///< test: records taken off each computed buffer
    byte_size printf_buffer_bytes{1u << 20}; ///< kernel printf's FIFO per kernel (data bytes)
    std::string firmware;                    ///< host.kind riscv: ELF image (empty: generic)
    host_cpu::cpu_config cpu;                ///< host.kind riscv: the firmware CPU

    void declare(config::visitor& v)
    {
        using config::spec;
        v.choice("kind", kind,
                 spec("host that runs the workload (native: a driver thread in the simulator; "
                      "riscv: RISC-V firmware on the firmware CPU, models/host_cpu/README.md)"));
        v.value("firmware", firmware,
                spec("host.kind riscv: the firmware's ELF image (empty: the generic driver built "
                     "with vgpu, platforms/firmware/)"));
        v.section("cpu", cpu, "The firmware CPU (host.kind riscv).");
        v.choice("load", load,
                 spec("backdoor: programs, page tables and buffers are written (and results read) "
                      "through debug transport in zero simulated time, coherently with the "
                      "caches, so kernels start with cold, clean caches; dma: a timed copy engine "
                      "moves them through the NoC (access kind host, counted apart)"));
        v.value("dma_bytes", dma_bytes,
                spec("largest DMA transaction of the driver (host.load dma); never crosses a "
                     "line")
                    .range(4, 4096)
                    .pow2()
                    .unit("bytes"));
        v.value(
            "dma_outstanding", dma_outstanding,
            spec("transactions the DMA copy engine keeps in flight (host.load dma)").range(1, 256));
        v.value("kernel_timeout", kernel_timeout,
                spec("simulated time one schedule phase may take before the driver reports a "
                     "hang")
                    .min(1));
        v.value("max_mismatches", max_mismatches,
                spec("mismatching elements listed per failed check").range(1, 1000));
        v.choice("dump_buffers", dump_buffers,
                 spec("buffers whose contents after the run the driver writes to "
                      "OUTDIR/buffers/<name>.bin (raw little-endian elements of the buffer's "
                      "type): none, checked (the buffers a check names), all; read in zero "
                      "simulated time, also when a check fails (docs/outputs.md)"));
        v.choice("fault_service", service,
                 spec("how the host serves page faults: shadow (seed 003: each faulting warp "
                      "has a host shadow thread that blocks on its own fault record and repeats "
                      "the access against the host's page table; host.shadow_threads of them "
                      "run at once, each fault costs host.fault_latency); batched (one driver "
                      "thread takes up to host.fault_batch records per round, host.fault_latency "
                      "per round, as NVIDIA's UVM driver does)"));
        v.value("shadow_threads", shadow_threads,
                spec("host.fault_service shadow: shadow threads that can run at once (the host "
                     "CPU's cores); more faulting warps wait for a free one")
                    .range(1, 4096));
        v.value("fault_latency", fault_latency,
                spec("time of the host OS's fault handler (interrupt, driver and OS work) before "
                     "its own DMA and register accesses: per fault with host.fault_service "
                     "shadow, per service round with batched; real unified-memory systems "
                     "measure tens of microseconds (models/host/README.md)"));
        v.value("swap_in_latency", swap_in_latency,
                spec("time the host OS takes to bring a swapped-out page back (an evicted page "
                     "of the host's page table) before its copy to the GPU; a 4 KiB read from "
                     "an NVMe SSD takes about 10 us"));
        v.value("fault_batch", fault_batch,
                spec("host.fault_service batched: fault records the driver thread takes per "
                     "service round (1: one at a time, serialised)")
                    .range(1, 65536));
        v.value("instrument_bytes", instrument_bytes,
                spec("largest per-type trace buffer of an instrumented kernel (seed 002): the "
                     "virtual window the driver reserves per type; the buffer it maps after the "
                     "profiling run is exactly the size that run computes, and a run that needs "
                     "more fails with the size")
                    .min(4096));
        v.value("printf_buffer_bytes", printf_buffer_bytes,
                spec("the printf FIFO of a CUDA or PTX kernel that calls printf (data bytes, "
                     "after a 16-byte header; CUDA's cudaLimitPrintfFifoSize): records that do "
                     "not fit are dropped and counted (gpu.host.printf.dropped, a warning)")
                    .min(16));
        v.value("instrument_undersize", instrument_undersize,
                spec("for tests of seed 002: records taken off each trace buffer the profiling "
                     "run sized, so that the traced run must refuse that many (reported as a "
                     "failure, never written past)")
                    .range(0, 1u << 20));
        v.value("fault_timeout", fault_timeout,
                spec("longest a faulting access waits for the host's answer before its kernel "
                     "fails with a report of what it waits on")
                    .min(1));
    }

    void validate(config::checker& c) const { cpu.validate(c); }
};

/// What the driver must know about the platform it drives (built by the platform builder).
struct platform_facts {
    unsigned modules = 1;                  ///< modules (chiplets), each with its own DRAM
    std::uint64_t dram_bytes = 1ull << 30; ///< DRAM per module; module m owns [m*size, (m+1)*size)
    std::uint64_t page_bytes = 4096;       ///< `memory.page_bytes`
    page_alloc alloc = page_alloc::first_touch; ///< `memory.page_alloc`
    double balance_ratio = 1.5;                 ///< `memory.balance_ratio` (adaptive placement)
    unsigned sms_per_module = 8;                ///< SMs per module (SM s is on module s / this)
    std::uint64_t cp_base = 0;                  ///< address of the CP register window on `mmio`
    unsigned line_bytes = 64;       ///< cache line size (DMA transactions stay within one)
    unsigned regs_per_thread = 255; ///< `sm.regs_per_thread` (instrumentation's spare registers)
    std::uint64_t instrument_bytes = 16u << 20; ///< `host.instrument_bytes`
    /// Bytes per picosecond of the NoC input port the DMA engine uses (its peak rate).
    double port_bytes_per_ps = 0.032;
    /// The host serves page faults (a fault unit): pages can be placed at first touch.
    bool serves_faults = false;
};

} // namespace vgpu::host
