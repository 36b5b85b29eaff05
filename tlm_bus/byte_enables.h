// Helpers for payloads with TLM byte enables and for requests that span several cache lines.
// See docs/tlm-bus.md.
#pragma once

#include <algorithm>
#include <cstdint>
#include <tlm>

namespace vgpu::tlm_bus {

/// Calls f(offset, length) for each run of enabled bytes among `len` bytes whose byte-enable
/// index starts at `be_offset` (byte enables repeat every `be_len` bytes, IEEE 1666 14.15);
/// the whole range is one run when there are no byte enables.
template <class F>
void for_each_run(unsigned len, const unsigned char* be, unsigned be_len, unsigned be_offset, F f)
{
    if (!be) {
        f(0u, len);
        return;
    }
    unsigned i = 0;
    while (i < len) {
        if (be[(be_offset + i) % be_len] != TLM_BYTE_ENABLED) {
            ++i;
            continue;
        }
        unsigned j = i + 1;
        while (j < len && be[(be_offset + j) % be_len] == TLM_BYTE_ENABLED)
            ++j;
        f(i, j - i);
        i = j;
    }
}

/// Calls f(Segment{addr, data, len, be, be_len, be_offset}) for each line-bounded part of
/// [addr, addr + len) in address order until f returns false; returns false if it did.
template <class Segment, class F>
bool for_each_segment(std::uint64_t addr, unsigned char* data, unsigned len,
                      const unsigned char* be, unsigned be_len, unsigned line_bytes, F f)
{
    unsigned done = 0;
    while (done < len) {
        const std::uint64_t a = addr + done;
        const unsigned n = std::min<unsigned>(len - done, line_bytes - (a & (line_bytes - 1)));
        if (!f(Segment{a, data + done, n, be, be_len, done}))
            return false;
        done += n;
    }
    return true;
}

/// A short name of a response status for messages ("ok", "address error", ...).
inline const char* response_name(tlm::tlm_response_status s)
{
    switch (s) {
    case tlm::TLM_OK_RESPONSE:
        return "ok";
    case tlm::TLM_INCOMPLETE_RESPONSE:
        return "incomplete";
    case tlm::TLM_GENERIC_ERROR_RESPONSE:
        return "generic error";
    case tlm::TLM_ADDRESS_ERROR_RESPONSE:
        return "address error";
    case tlm::TLM_COMMAND_ERROR_RESPONSE:
        return "command error";
    case tlm::TLM_BURST_ERROR_RESPONSE:
        return "burst error";
    case tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE:
        return "byte-enable error";
    }
    return "unknown response";
}

} // namespace vgpu::tlm_bus
