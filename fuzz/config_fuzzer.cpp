// libFuzzer harness of the configuration reader: a YAML layer and -s overrides onto the whole
// configuration (config::loader, vgpu_config). See docs/fuzzing.md.
#include "models/common/config.h"
#include "platforms/vgpu_config.h"

#include <cstddef>
#include <cstdint>
#include <string>

namespace {

/// Separates the YAML layer from the -s overrides (one a line) in an input.
constexpr const char* overrides_marker = "\n=== -s\n";

} // namespace

/// Reads the input's YAML part as a -c file and each line after the marker as a -s override.
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const std::string input(reinterpret_cast<const char*>(data), size);
    const auto marker = input.find(overrides_marker);
    vgpu::config::loader loader;
    loader.add_text(input.substr(0, marker), "fuzz.yaml");
    if (marker != std::string::npos) {
        std::size_t at = marker + std::char_traits<char>::length(overrides_marker);
        while (at <= input.size()) {
            const auto end = std::min(input.find('\n', at), input.size());
            loader.add_override(input.substr(at, end - at));
            at = end + 1;
        }
    }
    vgpu::platforms::vgpu_config cfg;
    if (loader.apply(cfg))
        (void)vgpu::config::to_yaml([&](vgpu::config::visitor& v) { cfg.declare(v); });
    return 0;
}
