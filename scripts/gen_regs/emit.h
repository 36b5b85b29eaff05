// Writers of what the register descriptions generate: a block's C++ constants header, the MMIO
// map's C++ header, the firmware's C header and the docs' sections. See docs/registers.md.
#pragma once

#include "scripts/gen_regs/reg_map.h"

#include <string>
#include <utility>
#include <vector>

namespace vgpu::gen_regs {

/// How the generated files name their generator.
inline constexpr const char* tool = "scripts/gen-regs";

/// A block's C++ header (UPPER_CASE offsets and fields, enums, constants).
std::string cpp_header(const block& b);
/// The MMIO map's C++ header (every window's base address).
std::string map_header(const mmio_map& m);
/// The firmware's C header: every window's base and every block's offsets, fields and values.
std::string c_header(const mmio_map& m);
/// `page` (the docs page) with each generated section replaced by what the map and blocks
/// say now; throws desc_error when a block has no section or a section no block.
std::string docs_page(const mmio_map& m, const std::string& page);

/// Every generated file as (path relative to the repository, contents); `page` is the docs
/// page as it is now.
std::vector<std::pair<std::string, std::string>> generate(const mmio_map& m,
                                                          const std::string& page);

} // namespace vgpu::gen_regs
