// PTX parser: PTX ISA 6.0 to 9.0 text to a module (ast.h), every error located
// "file.ptx:LINE:COL: error: ...". See docs/cuda.md.
#pragma once

#include "models/sm/ptx/ast.h"

#include <string>
#include <string_view>
#include <vector>

namespace vgpu::ptx {

/// Oldest and newest PTX ISA versions read.
constexpr unsigned min_version = 60, max_version = 90;
/// Most errors reported for one file; the parse stops after them.
constexpr std::size_t max_errors = 50;

/// Output of parse().
struct parse_result {
    module mod;                                ///< the module (partial when there are errors)
    std::vector<std::string> errors;           ///< "file:line:col: error: message", in order
    bool ok() const { return errors.empty(); } ///< true if the text parsed and checked
};

/// Parses PTX text named `file` in messages: syntax, declarations, the names every operand
/// uses (registers in scope, labels, variables, functions), version, target and address size.
/// What an entry may not use (textures, recursion, ...) is checked by check_entry().
parse_result parse(std::string_view text, const std::string& file);

} // namespace vgpu::ptx
