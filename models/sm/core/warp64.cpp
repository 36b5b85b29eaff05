// Execution of the fp64 and 64-bit integer instructions on register pairs (isa64.h): the
// warp's part; the per-lane results are lane_ops64.cpp's.
#include "models/sm/core/isa64.h"
#include "models/sm/core/warp.h"

#include <array>

namespace vgpu::sm {

void warp::wide_step(const instruction& inst, std::uint32_t exec, std::uint32_t& p)
{
    const unsigned pairs = pair_mask(inst);
    const bool fp = wide_float_sources(inst.op, inst.mod);
    std::array<std::array<std::uint64_t, warp_size>, 3> v{};
    for (unsigned i = 0; i < 3; ++i) {
        const operand& o = inst.src[i];
        const bool pair = (pairs >> (i + 1)) & 1;
        for (unsigned l = 0; l < warp_size; ++l) {
            if (!((exec >> l) & 1))
                continue;
            if (o.kind == operand_kind::imm)
                v[i][l] = pair ? lane_ops::wide_imm(o.value, fp) : o.value;
            else if (o.kind == operand_kind::reg && o.value != reg_zero)
                v[i][l] = reg(o.value, l) |
                          (pair ? std::uint64_t{reg(o.value + 1, l)} << 32 : std::uint64_t{0});
            else
                v[i][l] = 0;
        }
    }
    const auto& a = v[0];
    const auto& b = v[1];
    const auto& c = v[2];
    std::array<std::uint64_t, warp_size> r{};
    for (unsigned l = 0; l < warp_size; ++l) {
        if (!((exec >> l) & 1))
            continue;
        switch (inst.op) {
        case opcode::DADD:
            r[l] = lane_ops::dadd(a[l], b[l], inst.mod);
            break;
        case opcode::DMUL:
            r[l] = lane_ops::dmul(a[l], b[l], inst.mod);
            break;
        case opcode::DFMA:
            r[l] = lane_ops::dfma(a[l], b[l], c[l], inst.mod);
            break;
        case opcode::DFN:
            r[l] = lane_ops::dfn(a[l], b[l], inst.mod);
            break;
        case opcode::DSETP:
            p |= static_cast<std::uint32_t>(lane_ops::dsetp(a[l], b[l], inst.mod)) << l;
            break;
        case opcode::DCVT:
            r[l] = lane_ops::dcvt(a[l], inst.mod);
            break;
        case opcode::I64:
            r[l] = lane_ops::i64(a[l], b[l], inst.mod);
            break;
        case opcode::I64SETP:
            p |= static_cast<std::uint32_t>(lane_ops::i64setp(a[l], b[l], inst.mod)) << l;
            break;
        default:
            break;
        }
    }
    if (writes_predicate(info(inst.op).form) || inst.dst == reg_zero || inst.dst >= m_nregs)
        return;
    const bool pair = pairs & 1;
    if (pair && inst.dst + 1u < m_nregs)
        writable(inst.dst + 1u); // first: it may move the storage
    std::uint32_t* lo = writable(inst.dst);
    for (unsigned l = 0; l < warp_size; ++l)
        if ((exec >> l) & 1) {
            lo[l] = static_cast<std::uint32_t>(r[l]);
            if (pair && inst.dst + 1u < m_nregs)
                lo[warp_size + l] = static_cast<std::uint32_t>(r[l] >> 32);
        }
}

} // namespace vgpu::sm
