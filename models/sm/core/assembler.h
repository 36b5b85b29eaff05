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

/// A stretch of program text that sits in the file from line:col on (see source_origin).
struct source_span {
    std::size_t at = 0; ///< text offset where the stretch starts
    int line = 1;       ///< file line of that character
    int col = 1;        ///< its file column; the next characters follow it on the line
    bool fixed = false; ///< every character is at line:col (a value that replaced a reference)
};

/// Where the program text is in its enclosing file; line and column are 1-based.
struct source_origin {
    std::string file; ///< file name used in messages
    int line = 1;     ///< file line of the text's first line
    int col = 1;      ///< file column of the text's first column (block scalar indentation)
    /// When not empty, where the text is instead (a quoted scalar with escapes or folded
    /// lines, "${...}" replaced by values): spans in increasing `at`, the first at 0.
    std::vector<source_span> spans{};
};

/// Output of assemble().
struct assembly_result {
    program code;           ///< the instructions; empty when there are errors
    std::vector<int> lines; ///< file line of each instruction of code
    std::map<std::string, std::uint32_t, std::less<>> labels; ///< label -> PC
    std::vector<std::string> errors; ///< every error, "file:line:col: error: message", in order
    bool ok() const { return errors.empty(); } ///< true if the text assembled
};

/// Assembles text; without origin.spans, character c of text line k (0-based) is at file line
/// origin.line + k, column origin.col + c. nregs (1..255) is the register count per thread
/// that register operands must fit.
assembly_result assemble(std::string_view text, const symbol_table& params,
                         const source_origin& origin, unsigned nregs = 64);

} // namespace vgpu::sm
