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

/// The part of a request that falls into one cache line.
struct line_segment {
    std::uint64_t addr;      ///< first byte
    unsigned char* data;     ///< the request's data for this part
    unsigned len;            ///< bytes (within one line)
    const unsigned char* be; ///< the request's byte enables, or nullptr
    unsigned be_len;         ///< byte-enable length
    unsigned be_offset;      ///< index of this part's first byte in the request
};

/// Calls f(line_segment) for each line-bounded part of [addr, addr + len) in address order
/// until f returns false; returns false if it did.
template <class F>
bool for_each_segment(std::uint64_t addr, unsigned char* data, unsigned len,
                      const unsigned char* be, unsigned be_len, unsigned line_bytes, F f)
{
    unsigned done = 0;
    while (done < len) {
        const std::uint64_t a = addr + done;
        const unsigned n = std::min<unsigned>(len - done, line_bytes - (a & (line_bytes - 1)));
        if (!f(line_segment{a, data + done, n, be, be_len, done}))
            return false;
        done += n;
    }
    return true;
}

/// Why a cache cannot serve `gp` (zero length, streaming, byte-enable pointer without length),
/// with the response to give in `rsp`; nullptr when it can.
inline const char* unsupported_attributes(const tlm::tlm_generic_payload& gp,
                                          tlm::tlm_response_status& rsp)
{
    if (gp.get_data_length() == 0) {
        rsp = tlm::TLM_GENERIC_ERROR_RESPONSE;
        return "request of zero bytes";
    }
    if (gp.get_streaming_width() < gp.get_data_length()) {
        rsp = tlm::TLM_BURST_ERROR_RESPONSE;
        return "streaming request is not supported";
    }
    if (gp.get_byte_enable_ptr() && gp.get_byte_enable_length() == 0) {
        rsp = tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE;
        return "byte-enable pointer with zero length";
    }
    return nullptr;
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
