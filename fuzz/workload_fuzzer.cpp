// libFuzzer harness of the workload reader: parse, check against a platform and compute the
// host reference of every check (models/host/workload.h). See docs/fuzzing.md.
#include "models/host/workload.h"

#include <cstddef>
#include <cstdint>
#include <string>

/// Reads the input as a workload file; a valid one is checked and its references computed.
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const std::string text(reinterpret_cast<const char*>(data), size);
    vgpu::host::workload_options opts;
    opts.seed = 1;
    const auto r = vgpu::host::parse_workload_text(text, "fuzz.yaml", opts);
    if (!r.ok())
        return 0;
    // The default platform's shape: 8 SMs of 32 warp slots and 64 registers a thread.
    (void)vgpu::host::check_against_platform(r.wl, 8, 32, 64);
    for (const auto& c : r.wl.checks)
        (void)vgpu::host::expected_contents(r.wl, c);
    return 0;
}
