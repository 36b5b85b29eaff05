// The shader-trace image file. See models/shader_trace/core/image.h.
#include "models/shader_trace/core/image.h"

#include <cstring>

namespace vgpu::shader_trace {

const char* name(source_kind k)
{
    switch (k) {
    case source_kind::ce:
        return "CE";
    case source_kind::rm:
        return "RM";
    case source_kind::isu:
        return "ISU";
    }
    return "?";
}

namespace {
template <typename T> void put(std::vector<std::uint8_t>& out, T v)
{
    const auto* p = reinterpret_cast<const std::uint8_t*>(&v);
    out.insert(out.end(), p, p + sizeof v);
}
} // namespace

std::vector<std::uint8_t> encode_image(const image& im)
{
    std::vector<std::uint8_t> out(image_magic, image_magic + 8);
    put<std::uint32_t>(out, image_version);
    put<std::uint32_t>(out, im.tokens_per_group);
    put<std::uint64_t>(out, im.cycle_ps);
    put<std::uint32_t>(out, static_cast<std::uint32_t>(im.sources.size()));
    put<std::uint32_t>(out, 0);
    for (const source_info& s : im.sources) {
        put<std::uint32_t>(out, static_cast<std::uint32_t>(s.kind));
        put<std::uint32_t>(out, s.sm);
        put<std::uint64_t>(out, s.dropped_tokens);
    }
    put<std::uint64_t>(out, im.tokens.size());
    for (std::uint64_t t : im.tokens)
        put<std::uint64_t>(out, t);
    return out;
}

image decode_image(const std::vector<std::uint8_t>& b, std::string& error)
{
    image im;
    std::size_t at = 0;
    auto need = [&](std::size_t n, const char* what) {
        if (b.size() - at >= n)
            return true;
        error = "offset " + std::to_string(at) + ": truncated " + what + " (" +
                std::to_string(b.size() - at) + " of " + std::to_string(n) + " bytes)";
        return false;
    };
    auto get32 = [&] {
        std::uint32_t v;
        std::memcpy(&v, &b[at], 4);
        at += 4;
        return v;
    };
    auto get64 = [&] {
        std::uint64_t v;
        std::memcpy(&v, &b[at], 8);
        at += 8;
        return v;
    };
    error.clear();
    if (!need(header_bytes, "header"))
        return im;
    if (std::memcmp(b.data(), image_magic, 8) != 0) {
        error = "offset 0: not a shader-trace image (no VGPUTRC1 magic)";
        return im;
    }
    at = 8;
    if (const std::uint32_t v = get32(); v != image_version) {
        error = "offset 8: unsupported version " + std::to_string(v) +
                (v == 1 ? " (groups with absolute headers; this decoder reads version 2, "
                          "chained deltas)"
                        : "");
        return im;
    }
    im.tokens_per_group = get32();
    if (im.tokens_per_group < 2 || im.tokens_per_group > 4096) {
        error = "offset 12: tokens per group " + std::to_string(im.tokens_per_group) +
                " outside 2..4096";
        return im;
    }
    im.cycle_ps = get64();
    if (im.cycle_ps == 0) {
        error = "offset 16: clock period 0";
        return im;
    }
    const std::uint32_t n = get32();
    get32();
    if (n > 1024) {
        error = "offset 24: " + std::to_string(n) + " sources (at most 1024)";
        return im;
    }
    for (std::uint32_t i = 0; i < n; ++i) {
        if (!need(16, "source table"))
            return im;
        source_info s;
        const std::size_t here = at;
        const std::uint32_t k = get32();
        if (k > 2) {
            error = "offset " + std::to_string(here) + ": unknown source kind " + std::to_string(k);
            return im;
        }
        s.kind = static_cast<source_kind>(k);
        s.sm = get32();
        s.dropped_tokens = get64();
        im.sources.push_back(s);
    }
    if (!need(8, "token count"))
        return im;
    const std::uint64_t count = get64();
    if ((b.size() - at) / 8 < count) {
        error = "offset " + std::to_string(at) + ": truncated tokens (" +
                std::to_string((b.size() - at) / 8) + " of " + std::to_string(count) + ")";
        return im;
    }
    if (b.size() - at != count * 8) {
        error = "offset " + std::to_string(at + count * 8) + ": " +
                std::to_string(b.size() - at - count * 8) + " bytes after the last token";
        return im;
    }
    im.tokens.resize(count);
    std::memcpy(im.tokens.data(), &b[at], count * 8);
    return im;
}

} // namespace vgpu::shader_trace
