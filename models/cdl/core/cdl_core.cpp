// The CDL access controller's algorithm. See models/cdl/core/cdl_core.h.
#include "models/cdl/core/cdl_core.h"

#include <algorithm>
#include <cstring>

namespace vgpu::cdl {

std::string check(const request& r, const std::vector<cbv>& table, unsigned cbv_index,
                  unsigned registers)
{
    if (cbv_index >= table.size())
        return "CBV " + std::to_string(cbv_index) + " does not exist (cdl.cbv_slots is " +
               std::to_string(table.size()) + ")";
    if (table[cbv_index].bytes == 0)
        return "CBV " + std::to_string(cbv_index) + " is not programmed (size 0)";
    if (!r.bulk)
        return r.dst < registers || r.dst == 255
                   ? ""
                   : "CDL destination R" + std::to_string(r.dst) + " past the register file";
    if (r.dwords == 0)
        return "CDL with a data amount of 0 dwords";
    const std::uint64_t last = std::uint64_t{r.dst} + registers_for(r.dwords) - 1;
    if (last >= registers)
        return "CDL destination R" + std::to_string(r.dst) + "..R" + std::to_string(last) +
               " past the register file (R0..R" + std::to_string(registers - 1) + ")";
    return "";
}

std::vector<line_read> bulk_reads(const cbv& view, std::uint32_t offset, std::uint32_t dwords,
                                  unsigned line_bytes)
{
    std::vector<line_read> out;
    const std::uint64_t start = view.base + offset;
    const std::uint64_t end = start + std::uint64_t{dwords} * 4;
    const std::uint64_t limit = view.base + view.bytes; // bytes from here read as zero
    for (std::uint64_t a = start; a < end;) {
        const std::uint64_t line_end = (a / line_bytes + 1) * line_bytes;
        const std::uint64_t to = std::min(end, line_end);
        line_read r;
        r.addr = a;
        r.bytes = static_cast<unsigned>(to - a);
        r.valid = a >= limit ? 0 : static_cast<unsigned>(std::min(to, limit) - a);
        out.push_back(r);
        a = to;
    }
    return out;
}

std::uint64_t out_of_range_bytes(const std::vector<line_read>& reads)
{
    std::uint64_t n = 0;
    for (const line_read& r : reads)
        n += r.bytes - r.valid;
    return n;
}

bulk_loader::bulk_loader(unsigned dst, std::uint32_t dwords) : m_reg(dst), m_remaining(dwords) {}

void bulk_loader::retire(const std::uint8_t* data, unsigned bytes, const write_fn& write)
{
    while (bytes > 0 && m_remaining > 0) {
        const unsigned take = std::min(bytes, register_bytes - m_staged);
        std::memcpy(m_stage.data() + m_staged, data, take);
        m_staged += take;
        m_offset += take; // the running offset advances with every retired read
        data += take;
        bytes -= take;
        // A register's worth, or the last (partial) register once every dword is in.
        if (m_staged == register_bytes || m_staged / 4 >= m_remaining)
            flush(write);
    }
}

void bulk_loader::flush(const write_fn& write)
{
    lane_values v{};
    const unsigned n = std::min<std::uint32_t>(m_staged / 4, m_remaining);
    std::memcpy(v.data(), m_stage.data(), n * 4); // lanes past n stay zero
    write(m_reg, v);                              // write register dst + k,
    m_remaining -= n;                             // then decrement the unread amount,
    ++m_reg;                                      // then advance the destination register
    m_staged = 0;
}

legacy_plan plan_legacy(const cbv& view, const lane_values& offsets, std::uint32_t lane_mask)
{
    legacy_plan p;
    for (unsigned l = 0; l < lanes; ++l) {
        if (!(lane_mask >> l & 1))
            continue;
        if (std::uint64_t{offsets[l]} + 4 <= view.bytes) {
            p.addr[l] = view.base + offsets[l];
            p.read |= 1u << l;
        } else {
            p.zero |= 1u << l;
        }
    }
    return p;
}

} // namespace vgpu::cdl
