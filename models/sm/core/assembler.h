// Text assembler for the SIMT instruction set: program text (a workload YAML block scalar)
// to instructions, with every error reported as file:line:col. See docs/isa.md.
#pragma once

#include "models/sm/core/isa.h"

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace vgpu::sm {

/// Kernel parameter names, each mapped to its index in the launch's parameter list (LDP).
using symbol_table = std::map<std::string, std::uint32_t, std::less<>>;

/// Where the program text starts in its enclosing file; line and column are 1-based.
struct source_origin {
    std::string file; ///< file name used in messages
    int line = 1;     ///< file line of the text's first line
    int col = 1;      ///< file column of the text's first column (block scalar indentation)
};

/// Output of assemble().
struct assembly_result {
    program code;           ///< the instructions; empty when there are errors
    std::vector<int> lines; ///< file line of each instruction of code
    std::map<std::string, std::uint32_t, std::less<>> labels; ///< label -> PC
    std::vector<std::string> errors; ///< every error, "file:line:col: error: message", in order
    bool ok() const { return errors.empty(); } ///< true if the text assembled
};

/// Assembles text; text line k (0-based) is file line origin.line + k. nregs (1..255) is the
/// register count per thread that register operands must fit.
assembly_result assemble(std::string_view text, const symbol_table& params,
                         const source_origin& origin, unsigned nregs = 64);

} // namespace vgpu::sm
