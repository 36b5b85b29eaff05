// Shared memory of the SM: the bank-conflict rule of a warp access and the functional
// execution of shared LD/ST/ATOM/CAS on a CTA's window. No SystemC; models/sm/README.md.
#include "models/sm/core/shared_memory.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>

namespace vgpu::sm {

shared_banks::shared_banks(unsigned banks, unsigned bank_bytes)
    : m_banks(banks), m_bank_bytes(bank_bytes)
{
    if (banks == 0 || banks > warp_size || bank_bytes == 0 || (bank_bytes & (bank_bytes - 1)) != 0)
        throw std::invalid_argument("shared_banks: banks (" + std::to_string(banks) +
                                    ") must be 1..32 and bank_bytes (" +
                                    std::to_string(bank_bytes) + ") a power of two");
}

unsigned shared_banks::passes(std::uint32_t active, const std::uint32_t* lane_addr,
                              unsigned bytes) const
{
    // The distinct words of the access (at most 32 per word a lane touches), then the largest
    // count in one bank.
    const unsigned per_lane = std::max(1u, std::min(bytes / m_bank_bytes, 2u));
    std::uint32_t words[2 * warp_size];
    unsigned n = 0;
    for (std::uint32_t m = active; m != 0; m &= m - 1)
        for (unsigned k = 0; k < per_lane; ++k) {
            const std::uint32_t w = lane_addr[__builtin_ctz(m)] / m_bank_bytes + k;
            if (std::find(words, words + n, w) == words + n)
                words[n++] = w;
        }
    unsigned per_bank[warp_size] = {};
    unsigned most = 0;
    for (unsigned i = 0; i < n; ++i)
        most = std::max(most, ++per_bank[words[i] % m_banks]);
    return most;
}

std::optional<unsigned> shared_out_of_window(std::uint32_t active, const lane_values& addr,
                                             unsigned bytes, std::uint32_t window_bytes)
{
    for (std::uint32_t m = active; m != 0; m &= m - 1) {
        const auto l = static_cast<unsigned>(__builtin_ctz(m));
        if (std::uint64_t{addr[l]} + bytes > window_bytes)
            return l;
    }
    return std::nullopt;
}

void shared_execute(std::vector<std::uint8_t>& window, const mem_access& a, step_kind kind,
                    lane_values& out, lane_values* out_hi)
{
    const unsigned bytes = width_bytes(a.width);
    if (kind == step_kind::atomic && a.width == mem_width::b64) {
        // ATOM/CAS.B64: one doubleword, the lanes in lane order.
        for (std::uint32_t m = a.lane_mask; m != 0; m &= m - 1) {
            const auto l = static_cast<unsigned>(__builtin_ctz(m));
            std::uint8_t* p = window.data() + a.addr[l];
            std::uint64_t raw = 0;
            std::memcpy(&raw, p, 8);
            out[l] = static_cast<std::uint32_t>(raw);
            if (out_hi)
                (*out_hi)[l] = static_cast<std::uint32_t>(raw >> 32);
            const std::uint64_t b = a.data[l] | std::uint64_t{a.data_hi[l]} << 32;
            const std::uint64_t c = a.data2[l] | std::uint64_t{a.data2_hi[l]} << 32;
            const std::uint64_t next = a.cas ? (raw == b ? c : raw) : atom_apply64(a.aop, raw, b);
            std::memcpy(p, &next, 8);
        }
        return;
    }
    for (std::uint32_t m = a.lane_mask; m != 0; m &= m - 1) {
        const auto l = static_cast<unsigned>(__builtin_ctz(m));
        std::uint8_t* p = window.data() + a.addr[l];
        if (kind == step_kind::store) {
            std::memcpy(p, &a.data[l], bytes); // little-endian: the value's low bytes
            continue;
        }
        std::uint32_t raw = 0;
        std::memcpy(&raw, p, bytes);
        if (kind == step_kind::load) {
            out[l] = load_extend(a.width, raw);
            continue;
        }
        // ATOM/CAS: one 32-bit word, the lanes in lane order.
        out[l] = raw;
        const std::uint32_t next =
            a.cas ? (raw == a.data[l] ? a.data2[l] : raw) : atom_apply(a.aop, raw, a.data[l]);
        std::memcpy(p, &next, 4);
    }
}

} // namespace vgpu::sm
