// The shader-trace image file (OUTDIR/shader_trace.bin): a header naming the sources and
// the clock, then the tokens in the order they reached memory. Pure C++. See
// docs/trace-format.md.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace vgpu::shader_trace {

/// What a source is (its events' `source` column).
enum class source_kind : std::uint32_t { ce = 0, rm = 1, isu = 2 };
const char* name(source_kind k); ///< "CE", "RM", "ISU"

struct source_info {
    source_kind kind = source_kind::ce;
    std::uint32_t sm = 0;             ///< ISU: its SM
    std::uint64_t dropped_tokens = 0; ///< tokens of this source lost (replace, stop mode)
};

struct image {
    std::uint32_t tokens_per_group = 8;
    std::uint64_t cycle_ps = 1000;     ///< core clock period: token times are cycles
    std::vector<source_info> sources;  ///< source id = index
    std::vector<std::uint64_t> tokens; ///< in memory order
};

constexpr char image_magic[8] = {'V', 'G', 'P', 'U', 'T', 'R', 'C', '1'};
/// 2: time deltas chained across groups, SYNC tokens (docs/trace-format.md); 1 had an
/// absolute header in every group.
constexpr std::uint32_t image_version = 2;
constexpr std::uint64_t header_bytes = 32; ///< magic, version, G, cycle_ps, source count

/// The file's bytes.
std::vector<std::uint8_t> encode_image(const image& im);
/// Parses `bytes`; `error` is "" or "offset N: ..." (N: the byte offset of the problem).
image decode_image(const std::vector<std::uint8_t>& bytes, std::string& error);

} // namespace vgpu::shader_trace
