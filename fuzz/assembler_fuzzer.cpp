// libFuzzer harness of the assembler (models/sm/core/assembler.h). See docs/fuzzing.md.
#include "models/sm/core/assembler.h"

#include <cstddef>
#include <cstdint>
#include <string_view>

/// Assembles the input as program text with three kernel parameters and 64 registers.
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    static const vgpu::sm::symbol_table params{{"a", 0}, {"b", 1}, {"n", 2}};
    vgpu::sm::source_origin origin;
    origin.file = "fuzz.yaml";
    origin.line = 3;
    origin.col = 5;
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    (void)vgpu::sm::assemble(text, params, origin, 64);
    return 0;
}
