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
    m_word_shift = static_cast<unsigned>(__builtin_ctz(bank_bytes));
    m_bank_mask = (banks & (banks - 1)) == 0 ? banks - 1 : 0;
}

namespace {

/// The largest count of distinct words in one bank, bank_of(word) giving a word's bank. Per
/// bank, the first word seen; the other distinct words (conflicts) in one list: a word that
/// repeats (broadcast) or starts a bank needs no search of every word seen.
template <typename BankOf>
unsigned most_words_in_a_bank(std::uint32_t active, const std::uint32_t* lane_addr, unsigned shift,
                              unsigned per_lane, BankOf bank_of)
{
    std::uint32_t first[warp_size];
    unsigned distinct[warp_size] = {};
    std::uint32_t more[2 * warp_size];
    unsigned n_more = 0;
    unsigned most = 0;
    for (std::uint32_t m = active; m != 0; m &= m - 1)
        for (unsigned k = 0; k < per_lane; ++k) {
            const std::uint32_t w = (lane_addr[__builtin_ctz(m)] >> shift) + k;
            const unsigned b = bank_of(w);
            if (distinct[b] == 0) {
                first[b] = w;
                distinct[b] = 1;
                most = std::max(most, 1u);
            } else if (first[b] != w && std::find(more, more + n_more, w) == more + n_more) {
                more[n_more++] = w;
                most = std::max(most, ++distinct[b]);
            }
        }
    return most;
}

} // namespace

unsigned shared_banks::passes(std::uint32_t active, const std::uint32_t* lane_addr,
                              unsigned bytes) const
{
    if (active == 0)
        return 0;
    const unsigned per_lane = std::max(1u, std::min(bytes / m_bank_bytes, 2u));
    if (m_bank_mask == 0) // banks not a power of two (or one bank)
        return most_words_in_a_bank(active, lane_addr, m_word_shift, per_lane,
                                    [this](std::uint32_t w) { return w % m_banks; });
    return most_words_in_a_bank(active, lane_addr, m_word_shift, per_lane,
                                [this](std::uint32_t w) { return w & m_bank_mask; });
}

std::optional<unsigned> shared_out_of_window(std::uint32_t active, const lane_values& addr,
                                             unsigned bytes, std::uint32_t window_bytes)
{
    // The highest address first (a loop the compiler can vectorise); the lane only when one is
    // outside.
    std::uint32_t highest = 0;
    for (unsigned l = 0; l < warp_size; ++l)
        highest = std::max(highest, (active >> l & 1) ? addr[l] : 0u);
    if (active == 0 || std::uint64_t{highest} + bytes <= window_bytes)
        return std::nullopt;
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
    if (a.width == mem_width::b32 && (kind == step_kind::load || kind == step_kind::store)) {
        // Words, most accesses: copies of a fixed size (no library call per lane).
        for (std::uint32_t m = a.lane_mask; m != 0; m &= m - 1) {
            const auto l = static_cast<unsigned>(__builtin_ctz(m));
            std::uint8_t* p = window.data() + a.addr[l];
            if (kind == step_kind::store)
                std::memcpy(p, &a.data[l], 4);
            else
                std::memcpy(&out[l], p, 4);
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
