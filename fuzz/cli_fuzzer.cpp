// libFuzzer harness of vgpu-sim's command line up to the loaded configuration
// (platforms/cli.h): nothing is built or simulated. See docs/fuzzing.md.
#include "platforms/cli.h"

#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

/// Splits the input into arguments, one a line, and parses them as vgpu-sim's command line.
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const std::string input(reinterpret_cast<const char*>(data), size);
    std::vector<std::string> args{"vgpu-sim"};
    std::size_t at = 0;
    while (at < input.size()) {
        const auto end = std::min(input.find('\n', at), input.size());
        args.push_back(input.substr(at, end - at));
        at = end + 1;
    }
    std::vector<const char*> argv;
    for (const auto& a : args)
        argv.push_back(a.c_str());
    argv.push_back(nullptr);
    std::ostringstream out, err;
    (void)vgpu::platforms::parse_command_line(static_cast<int>(args.size()), argv.data(), out, err);
    return 0;
}
