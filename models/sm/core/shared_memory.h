// Shared memory of the SM: the bank-conflict rule of a warp access and the functional
// execution of shared LD/ST/ATOM/CAS on a CTA's window. No SystemC; models/sm/README.md.
#pragma once

#include "models/sm/core/warp.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace vgpu::sm {

/// Shared memory's banks: word w (bank_bytes each) lies in bank w % banks.
class shared_banks {
public:
    /// banks in 1..32, bank_bytes a power of two (throws std::invalid_argument otherwise).
    explicit shared_banks(unsigned banks = 32, unsigned bank_bytes = 4);

    unsigned banks() const { return m_banks; }           ///< number of banks
    unsigned bank_bytes() const { return m_bank_bytes; } ///< bytes per bank word

    /// Pipeline passes of a warp access of the lanes in `active` (lane_addr: 32 entries) of
    /// `bytes` each: the largest number of distinct words any one bank serves (an 8-byte
    /// access touches two 4-byte words). Lanes on one word (any bytes of it) share a pass
    /// (broadcast). 0 when no lane is active.
    unsigned passes(std::uint32_t active, const std::uint32_t* lane_addr, unsigned bytes = 4) const;

private:
    unsigned m_banks;
    unsigned m_bank_bytes;
    unsigned m_word_shift = 0; ///< log2(m_bank_bytes): a byte address's word
    /// m_banks - 1 when m_banks is a power of two (a word's bank is then a mask), else 0.
    unsigned m_bank_mask = 0;
};

/// The lowest active lane whose access of `bytes` at its address does not lie inside a window
/// of window_bytes, or nullopt.
std::optional<unsigned> shared_out_of_window(std::uint32_t active, const lane_values& addr,
                                             unsigned bytes, std::uint32_t window_bytes);

/// Performs access `a` of a step of `kind` (load, store or atomic; every lane inside `window`)
/// in lane order: a store writes its lanes' low bytes, a load returns the lanes' values (zero-
/// or sign-extended), an ATOM or CAS returns each lane's old word after the lanes before it
/// (serialised in lane order). `out` receives the loaded or old values of a.lane_mask's lanes;
/// of an ATOM/CAS.B64 (a.width b64: 8 bytes, operands a.data/data_hi, a.data2/data2_hi), `out`
/// the old values' low words and `out_hi` their high words.
void shared_execute(std::vector<std::uint8_t>& window, const mem_access& a, step_kind kind,
                    lane_values& out, lane_values* out_hi = nullptr);

} // namespace vgpu::sm
