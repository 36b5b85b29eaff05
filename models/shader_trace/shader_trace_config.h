// Configuration of the shader-trace unit (section `shader_trace`). See
// models/shader_trace/README.md.
#pragma once

#include "models/common/config.h"
#include "models/shader_trace/core/slot_buffer.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

namespace vgpu::shader_trace {

/// What the write engine does at the end of the trace region.
enum class region_mode : std::uint8_t {
    stop, ///< stop writing: further groups are dropped and counted (STATUS.FULL)
    wrap  ///< start again at BASE, over the oldest groups (STATUS.WRAPPED)
};

/// What the unit's group buffer is.
enum class buffer_impl : std::uint8_t {
    tlm, ///< the C++ core, slot_buffer
    rtl  ///< the verilated OUTLis buffer (rtl/outlis_buffer.sv) behind its adapter
};

} // namespace vgpu::shader_trace

template <> struct vgpu::enum_names<vgpu::shader_trace::full_policy> {
    static constexpr std::pair<std::string_view, shader_trace::full_policy> table[] = {
        {"stall", shader_trace::full_policy::stall},
        {"replace", shader_trace::full_policy::replace}};
};
template <> struct vgpu::enum_names<vgpu::shader_trace::victim_policy> {
    static constexpr std::pair<std::string_view, shader_trace::victim_policy> table[] = {
        {"same_source", shader_trace::victim_policy::same_source},
        {"lowest_priority", shader_trace::victim_policy::lowest_priority}};
};
template <> struct vgpu::enum_names<vgpu::shader_trace::buffer_impl> {
    static constexpr std::pair<std::string_view, shader_trace::buffer_impl> table[] = {
        {"tlm", shader_trace::buffer_impl::tlm}, {"rtl", shader_trace::buffer_impl::rtl}};
};
template <> struct vgpu::enum_names<vgpu::shader_trace::region_mode> {
    static constexpr std::pair<std::string_view, shader_trace::region_mode> table[] = {
        {"stop", shader_trace::region_mode::stop}, {"wrap", shader_trace::region_mode::wrap}};
};

namespace vgpu::shader_trace {

/// The kinds of source `shader_trace.sources` names, in its spelling.
inline const std::vector<std::string>& source_names()
{
    static const std::vector<std::string> names{"ce", "rm", "isu"};
    return names;
}

/// Splits "ce, rm,isu" into names (spaces dropped, empty items kept so they can be refused).
inline std::vector<std::string> split_sources(const std::string& list)
{
    std::vector<std::string> out(1);
    for (char ch : list) {
        if (ch == ',')
            out.emplace_back();
        else if (ch != ' ')
            out.back() += ch;
    }
    return out;
}

/// Section `shader_trace`: the GPU's shader-trace unit (seed 000).
struct shader_trace_config {
    bool enable = false;                   ///< build the unit; the driver sets it up
    unsigned slots = 16;                   ///< K: groups the buffer holds
    unsigned token_bits = 64;              ///< token width
    unsigned write_bits = 512;             ///< one memory write = one group
    full_policy full = full_policy::stall; ///< what a store into a full buffer does
    victim_policy victim = victim_policy::lowest_priority; ///< replace: whose group is lost
    std::string sources = "ce,rm,isu"; ///< sources recorded, highest priority first
    byte_size region_bytes{1u << 20};  ///< the trace region the driver allocates
    region_mode mode = region_mode::stop;
    double watermark = 0.75;             ///< WPTR share of the region that raises trace_irq
    unsigned idle_flush_cycles = 1000;   ///< a partial group older than this is flushed
    unsigned writes_in_flight = 16;      ///< group writes the write engine keeps outstanding
    unsigned write_interval_cycles = 0;  ///< least cycles between two group writes (throttle)
    unsigned sync_interval = 16;         ///< a SYNC token opens every this-many groups of a source
    buffer_impl impl = buffer_impl::tlm; ///< the group buffer: the core or the verilated RTL

    unsigned tokens_per_group() const { return write_bits / token_bits; } ///< G
    unsigned group_bytes() const { return write_bits / 8; }               ///< bytes per write
    /// The source kinds recorded, highest priority first (validated names).
    std::vector<std::string> source_list() const { return split_sources(sources); }

    void declare(config::visitor& v)
    {
        using config::spec;
        v.value("enable", enable,
                spec("build the shader-trace unit: the CP (CE, RM) and every SM's issue stage "
                     "(ISU) record events, the driver allocates the trace region and writes "
                     "OUTDIR/shader_trace.bin after the run (docs/trace-format.md)"));
        v.value(
            "slots", slots,
            spec("K: token groups the unit's buffer holds while memory is busy").range(1, 4096));
        v.value("token_bits", token_bits,
                spec("token width; the format of docs/trace-format.md is 64-bit").range(64, 64));
        v.value("write_bits", write_bits,
                spec("width of one trace write = one token group (G = write_bits / token_bits "
                     "tokens, at least 2)")
                    .range(128, 32768)
                    .pow2()
                    .unit("bits"));
        v.choice("full_policy", full,
                 spec("a group that finds the buffer full: stall (the source waits; an SM stops "
                      "issuing; nothing is lost) or replace (the patent's S30: it overwrites the "
                      "victim's oldest group, which is counted as dropped)"));
        v.choice("victim", victim,
                 spec("replace: whose oldest group is overwritten: same_source (the arriving "
                      "source's own) or lowest_priority (the last source in `sources` order "
                      "that has a group waiting; claims 6/7)"));
        v.value("sources", sources,
                spec("sources recorded, comma-separated, highest priority first: ce (kernel "
                     "begin/end), rm (CTA dispatch/retire), isu (every SM's warps, barriers, "
                     "TRACE)"));
        v.value(
            "region_bytes", region_bytes,
            spec("size of the trace region in GPU memory (a multiple of write_bits / 8)").min(64));
        v.choice("mode", mode,
                 spec("at the end of the region: stop (later groups are dropped and counted) "
                      "or wrap (later groups overwrite the oldest)"));
        v.value("watermark", watermark,
                spec("share of the region written that sets STATUS.WMARK and raises trace_irq "
                     "(0: never)")
                    .range(0.0, 1.0));
        v.value("idle_flush_cycles", idle_flush_cycles,
                spec("a source's partly filled group whose last event is this many core cycles "
                     "old is padded and stored (0: only at kernel end and on FLUSH)")
                    .unit("cycles"));
        v.value("writes_in_flight", writes_in_flight,
                spec("group writes the write engine keeps outstanding").range(1, 64));
        v.value("write_interval_cycles", write_interval_cycles,
                spec("least core cycles between two group writes (0: as fast as memory takes "
                     "them); a test configuration throttles the trace path with it")
                    .unit("cycles"));
        v.value("sync_interval", sync_interval,
                spec("a source's time deltas chain across its groups; a SYNC token (absolute "
                     "time, group sequence, chain check) opens its group 0 and every "
                     "sync_interval-th group after it, so that a reader can start mid-stream "
                     "and the decoder checks the order (1: every group, the cost of an "
                     "absolute header per group; docs/trace-format.md)")
                    .range(1, 1024)
                    .unit("groups"));
        v.choice("impl", impl,
                 spec("the unit's group buffer: tlm (the C++ core, core/slot_buffer.h) or rtl "
                      "(the verilated OUTLis buffer, rtl/outlis_buffer.sv, behind an adapter: "
                      "the same results, at a host-time cost; 16 slots, at most 80 SMs, a build "
                      "with verilator; models/shader_trace/rtl/README.md)"));
    }

    /// `sms`: the GPU's SMs (the unit's sources are 2 + sms).
    void validate(config::checker& c, unsigned sms) const
    {
        validate_rtl(c, sms, outlis_rtl_built());
        if (write_bits / token_bits < 2)
            c.conflict({{"shader_trace.write_bits", std::to_string(write_bits)},
                        {"shader_trace.token_bits", std::to_string(token_bits)}},
                       "one write must hold at least 2 tokens",
                       "set shader_trace.write_bits to at least " + std::to_string(2 * token_bits) +
                           " or shader_trace.token_bits to at most " +
                           std::to_string(write_bits / 2));
        if (region_bytes.bytes > (std::uint64_t{256} << 20))
            c.error("shader_trace.region_bytes", "must be at most 256 MiB");
        if (region_bytes.bytes % group_bytes() != 0)
            c.conflict({{"shader_trace.region_bytes", format(region_bytes)},
                        {"shader_trace.write_bits", std::to_string(write_bits)}},
                       "not a whole number of groups of shader_trace.write_bits / 8 = " +
                           std::to_string(group_bytes()) + " bytes",
                       "set shader_trace.region_bytes to a multiple of " +
                           std::to_string(group_bytes()) + " bytes");
        const auto list = source_list();
        for (std::size_t i = 0; i < list.size(); ++i) {
            const auto& names = source_names();
            if (std::find(names.begin(), names.end(), list[i]) == names.end()) {
                const std::string hint = config::suggest(list[i], names);
                c.error("shader_trace.sources",
                        "'" + list[i] + "' is not a source (ce, rm, isu)" +
                            (hint.empty() ? "" : "; did you mean '" + hint + "'?"));
            } else if (std::find(list.begin(), list.begin() + static_cast<long>(i), list[i]) !=
                       list.begin() + static_cast<long>(i)) {
                c.error("shader_trace.sources", "'" + list[i] + "' is listed twice");
            }
        }
    }

    /// shader_trace.impl rtl: the build has the verilated buffer (`rtl_built`), of its size.
    void validate_rtl(config::checker& c, unsigned sms, bool rtl_built) const
    {
        if (!enable || impl != buffer_impl::rtl)
            return;
        const auto num = [](auto v) { return std::to_string(v); };
        if (!rtl_built) {
            c.error("shader_trace.impl",
                    "rtl needs the verilated OUTLis buffer, which this build does not have "
                    "(verilator was not found when it was configured): install verilator 5 "
                    "(the Debian package 'verilator'; scripts/test installs it) and configure "
                    "the build again, or set shader_trace.impl to tlm");
            return;
        }
        if (slots != outlis_rtl_slots)
            c.conflict({{"shader_trace.impl", "rtl"}, {"shader_trace.slots", num(slots)}},
                       "the verilated OUTLis buffer has " + num(outlis_rtl_slots) + " slots",
                       "set shader_trace.slots to " + num(outlis_rtl_slots) +
                           " or shader_trace.impl to tlm");
        if (2 + std::uint64_t{sms} > outlis_rtl_sources)
            c.error("shader_trace.impl",
                    "the verilated OUTLis buffer takes at most " + num(outlis_rtl_sources) +
                        " sources (CE, RM and " + num(outlis_rtl_sources - 2) +
                        " SMs), and this GPU has " + num(sms) +
                        " SMs (platform.modules x platform.clusters_per_module x "
                        "platform.sms_per_cluster); use a GPU of at most " +
                        num(outlis_rtl_sources - 2) + " SMs or set shader_trace.impl to tlm");
    }
};

} // namespace vgpu::shader_trace
