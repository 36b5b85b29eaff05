// Helpers of the translator tests: wrap a PTX body in an entry, translate it, assemble the
// result and run it on one functional warp with a word-addressed memory.
#pragma once

#include "models/sm/core/assembler.h"
#include "models/sm/core/warp.h"
#include "models/sm/ptx/parser.h"
#include "models/sm/ptx/translate.h"

#include <catch2/catch.hpp>

#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace vgpu::ptx::test {

/// An entry `k(.u64 k_p0, .u32 k_p1, .u32 k_p2, .u32 k_p3, .f32 k_p4)` around body, with
/// %p<8>, %r<64>, %f<32>, %rd<32>.
/// Prefix of the lowering-rule cases: %rd2 = param 0 (an address), %r1..%r3 = params 1..3,
/// %f1 = param 4, %f2 and %f3 = the bits of %r2 and %r3 as f32.
inline const char* const rule_prefix = "ld.param.u64 %rd1, [k_p0];\n"
                                       "cvta.to.global.u64 %rd2, %rd1;\n"
                                       "ld.param.u32 %r1, [k_p1];\n"
                                       "ld.param.u32 %r2, [k_p2];\n"
                                       "ld.param.u32 %r3, [k_p3];\n"
                                       "ld.param.f32 %f1, [k_p4];\n"
                                       "mov.b32 %f2, %r2;\n"
                                       "mov.b32 %f3, %r3;\n";

inline std::string entry_text(const std::string& body)
{
    return ".version 6.0\n.target sm_70\n.address_size 64\n"
           ".visible .entry k(.param .u64 k_p0, .param .u32 k_p1, .param .u32 k_p2,\n"
           "  .param .u32 k_p3, .param .f32 k_p4)\n{\n"
           ".reg .pred %p<8>;\n.reg .b32 %r<64>;\n.reg .f32 %f<32>;\n.reg .b64 %rd<32>;\n" +
           body + "\n}\n";
}

/// Parses text (it must parse) and translates its only entry.
inline translation translate_text(const std::string& text, const translate_options& o = {})
{
    const parse_result p = parse(text, "t.ptx");
    for (const std::string& e : p.errors)
        UNSCOPED_INFO(e);
    REQUIRE(p.ok());
    return translate(p.mod, 0, o);
}

/// The instructions of translated text without labels, comments and repeated blanks.
inline std::vector<std::string> instructions(const std::string& text)
{
    std::vector<std::string> out;
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line)) {
        if (const auto h = line.find('#'); h != std::string::npos)
            line.erase(h);
        if (const auto c = line.find(':'); c != std::string::npos)
            line.erase(0, c + 1);
        std::istringstream w(line);
        std::string word, s;
        while (w >> word)
            s += (s.empty() ? "" : " ") + word;
        if (!s.empty())
            out.push_back(s);
    }
    return out;
}

/// Outcome of run_warp().
struct warp_run {
    std::map<std::uint32_t, std::uint32_t> mem; ///< word address -> value after the run
    std::string error;                          ///< assembler or execution error, "" if none
    unsigned barriers = 0;                      ///< BAR steps
    unsigned partial_barriers = 0;              ///< BAR steps with fewer lanes than are live
    unsigned steps = 0;                         ///< warp instructions executed
};

/// Assembles t and runs one warp of `lanes` threads (CTA = that warp) with params and mem.
inline warp_run run_warp(const translation& t, const std::vector<std::uint32_t>& params,
                         std::map<std::uint32_t, std::uint32_t> mem, unsigned lanes = 32)
{
    warp_run out;
    const sm::assembly_result a = sm::assemble(t.text, {}, {"t.vgpu", 1, 1}, t.registers);
    if (!a.ok()) {
        out.error = a.errors.front();
        return out;
    }
    sm::launch_context ctx;
    ctx.params = params;
    ctx.ntid_x = lanes;
    sm::warp w(a.code, ctx, 0, t.registers);
    while (!w.done() && out.steps < 1000000) {
        const std::uint32_t live = w.live_mask();
        const sm::step_result r = w.step();
        ++out.steps;
        switch (r.kind) {
        case sm::step_kind::load:
        case sm::step_kind::atomic: {
            sm::lane_values v{};
            for (unsigned l = 0; l < sm::warp_size; ++l)
                if (r.access->lane_mask >> l & 1) {
                    v[l] = mem[r.access->addr[l]];
                    if (r.kind == sm::step_kind::atomic)
                        mem[r.access->addr[l]] += r.access->data[l];
                }
            w.complete_load(r.access->reg, v, r.access->lane_mask);
            break;
        }
        case sm::step_kind::store:
            for (unsigned l = 0; l < sm::warp_size; ++l)
                if (r.access->lane_mask >> l & 1)
                    mem[r.access->addr[l]] = r.access->data[l];
            break;
        case sm::step_kind::barrier:
            ++out.barriers;
            out.partial_barriers += r.lane_mask != live;
            break;
        case sm::step_kind::error:
            out.error = std::string(r.message);
            return out;
        default:
            break;
        }
    }
    out.mem = std::move(mem);
    return out;
}

} // namespace vgpu::ptx::test
