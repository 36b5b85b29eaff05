// Workload checks against the platform: SM ranges and warp slots, and the limits known
// before the run. See docs/workloads.md ("Limits").
#include "models/host/workload_reader.h"

namespace vgpu::host {

std::vector<std::string> check_against_platform(const workload& wl, unsigned num_sms,
                                                unsigned warp_slots, unsigned regs_per_thread)
{
    std::vector<std::string> errs;
    auto err = [&](const config::location& l, const std::string& path, const std::string& msg) {
        errs.push_back(l.str() + ": error: " + path + ": " + msg);
    };
    auto resolved = [&](const sm_range& r) {
        return sm_range{r.first,
                        r.count == 0 ? (r.first < num_sms ? num_sms - r.first : 0) : r.count};
    };
    for (std::size_t i = 0; i < wl.kernels.size(); ++i) {
        const kernel_decl& k = wl.kernels[i];
        const std::string path = "kernels[" + std::to_string(i) + "]";
        const sm_range r = resolved(k.sms);
        if (k.sms.first >= num_sms || std::uint64_t{r.first} + r.count > num_sms)
            err(k.where, path + ".sms",
                "kernel '" + k.name + "' uses " + detail::workload_reader::describe(k.sms) +
                    " but the platform has " + std::to_string(num_sms) + " SMs (0.." +
                    std::to_string(num_sms - 1) + ")");
        if (k.block_warps() > warp_slots)
            err(k.where, path + ".block",
                "kernel '" + k.name + "' has " + std::to_string(k.block_warps()) +
                    " warps per CTA but an SM has " + std::to_string(warp_slots) + " warp slots");
        if (k.instrumented() && (k.grid_z > 1 || k.block_z > 1))
            err(k.instrument_where, path + ".instrument",
                "kernel '" + k.name +
                    "' has a 3-D grid or block: instrumentation numbers "
                    "threads in 2-D only");
        if (k.translated()) { // its register count is the translation's
            if (k.registers > regs_per_thread)
                err(k.source_where, path + (k.ptx_file.empty() ? ".cuda" : ".ptx"),
                    "kernel '" + k.name + "' (entry '" + k.entry + "') needs " +
                        std::to_string(k.registers) +
                        " registers per thread but an SM gives a thread " +
                        std::to_string(regs_per_thread) + " (sm.regs_per_thread)");
            continue;
        }
        for (std::size_t pc = 0; pc < k.code.size(); ++pc)
            if (auto problem = sm::check(k.code[pc], regs_per_thread)) {
                const int line = pc < k.lines.size() ? k.lines[pc] : k.origin.line;
                err({wl.file, line, k.origin.col}, path + ".program",
                    *problem + " (sm.regs_per_thread is " + std::to_string(regs_per_thread) + ")");
                break; // one report per kernel is enough to act on
            }
    }
    for (std::size_t p = 0; p < wl.schedule.size(); ++p) {
        const auto& ph = wl.schedule[p];
        for (std::size_t a = 0; a < ph.size(); ++a)
            for (std::size_t b = a + 1; b < ph.size(); ++b) {
                const kernel_decl& ka = wl.kernels[ph[a]];
                const kernel_decl& kb = wl.kernels[ph[b]];
                const sm_range ra = resolved(ka.sms);
                const sm_range rb = resolved(kb.sms);
                if (ra.first < rb.first + rb.count && rb.first < ra.first + ra.count)
                    err({wl.file}, "schedule[" + std::to_string(p) + "]",
                        "kernels '" + ka.name + "' and '" + kb.name + "' share SMs in one phase");
            }
    }
    return errs;
}

// ---- Limits known before the run (docs/workloads.md, "Limits") ----

namespace {

std::uint64_t sat_mul(std::uint64_t a, std::uint64_t b)
{
    std::uint64_t p;
    return __builtin_mul_overflow(a, b, &p) ? std::numeric_limits<std::uint64_t>::max() : p;
}

std::uint64_t sat_add(std::uint64_t a, std::uint64_t b)
{
    return b > std::numeric_limits<std::uint64_t>::max() - a
               ? std::numeric_limits<std::uint64_t>::max()
               : a + b;
}

/// A time in ps with three significant digits and a unit ("5.37 s", "100 ms").
std::string approx_time(std::uint64_t ps)
{
    static const struct {
        double scale;
        const char* unit;
    } units[] = {{1e12, "s"}, {1e9, "ms"}, {1e6, "us"}, {1e3, "ns"}};
    const double v = static_cast<double>(ps);
    for (const auto& u : units)
        if (v >= u.scale || u.scale == 1e3) {
            char buf[48];
            std::snprintf(buf, sizeof buf, "%.3g %s", v / u.scale, u.unit);
            return buf;
        }
    return "";
}

} // namespace

sm::occupancy_result kernel_occupancy(const kernel_decl& k, const sm::sm_resources& sm,
                                      unsigned regs_per_thread)
{
    return sm::occupancy(
        sm, {k.block_threads(), k.registers != 0 ? k.registers : regs_per_thread, k.shared_bytes});
}

std::uint64_t min_kernel_ps(const kernel_decl& k, unsigned sms, const platform_limits& limits)
{
    if (sms == 0)
        return 0;
    const std::uint64_t ctas = std::uint64_t{k.grid_x} * k.grid_y * k.grid_z;
    const std::uint64_t per_sm = (ctas + sms - 1) / sms; // the busiest SM has at least this many
    const std::uint64_t dispatch = sat_add(sat_mul(per_sm - 1, limits.cta_dispatch_interval), 1);
    const std::uint64_t issue = sat_mul(per_sm, k.block_warps());
    const std::uint64_t cycles = sat_add(limits.dispatch_latency, std::max(dispatch, issue));
    return sat_mul(cycles, limits.core_period_ps);
}

std::vector<std::string> check_against_platform(const workload& wl, const platform_limits& limits)
{
    std::vector<std::string> errs =
        check_against_platform(wl, limits.num_sms, limits.warp_slots, limits.regs_per_thread);
    auto err = [&](const config::location& l, const std::string& path, const std::string& msg) {
        errs.push_back(l.str() + ": error: " + path + ": " + msg);
    };
    for (std::size_t i = 0; i < wl.kernels.size(); ++i) {
        const kernel_decl& k = wl.kernels[i];
        if (k.block_warps() > limits.warp_slots)
            continue; // reported above
        const auto occ = kernel_occupancy(k, limits.sm, limits.regs_per_thread);
        if (occ.ctas_per_sm == 0)
            err(k.where, "kernels[" + std::to_string(i) + "]",
                "kernel '" + k.name + "': not even one CTA fits an SM: " + occ.why);
    }
    const std::uint64_t max_instructions = limits.max_program_bytes / sm::instruction_bytes;
    for (std::size_t i = 0; i < wl.kernels.size(); ++i) {
        const kernel_decl& k = wl.kernels[i];
        if (k.instrumented()) {
            // Seed 002: both instrumented programs must fit the kernel's registers, parameters
            // and the SM's program limit; the profiling launch and the restore of its buffers
            // need the kernel alone in its phase, once.
            const std::string path = "kernels[" + std::to_string(i) + "].instrument";
            const auto params = static_cast<unsigned>(k.params.size());
            const auto prof = instrument_profile(k.code, params, limits.regs_per_thread);
            const auto traced =
                instrument_trace(k.code, k.instrument, params, limits.regs_per_thread);
            const std::string problem = !prof.error.empty() ? prof.error : traced.error;
            if (!problem.empty())
                err(k.instrument_where, path,
                    "kernel '" + k.name + "' cannot be instrumented: " + problem);
            else if (std::max(prof.code.size(), traced.code.size()) > max_instructions)
                err(k.instrument_where, path,
                    "the instrumented program of kernel '" + k.name + "' has " +
                        std::to_string(std::max(prof.code.size(), traced.code.size())) +
                        " instructions, more than an SM loads (" +
                        std::to_string(max_instructions) + ")");
            std::uint64_t runs = 0;
            bool alone = true;
            for (std::size_t p = 0; p < wl.schedule.size(); ++p)
                for (std::size_t q : wl.schedule[p])
                    if (q == i) {
                        const loop_decl* l = wl.loop_of(p);
                        runs += l ? l->most() : 1;
                        alone = alone && wl.schedule[p].size() == 1;
                    }
            if (runs != 1 || !alone)
                err(k.instrument_where, path,
                    "an instrumented kernel runs once, alone in its phase (kernel '" + k.name +
                        "' runs " + std::to_string(runs) + " time(s)" +
                        (alone ? "" : ", beside other kernels") +
                        "): its profiling launch and the restore of its buffers come first");
        }
        if (k.code.size() > max_instructions)
            err({wl.file, k.origin.line, k.origin.col},
                "kernels[" + std::to_string(i) + "].program",
                "kernel '" + k.name + "' has " + std::to_string(k.code.size()) +
                    " instructions but an SM loads programs of at most " +
                    std::to_string(max_instructions) + " (" +
                    std::to_string(limits.max_program_bytes) + " bytes)");
    }
    for (std::size_t p = 0; p < wl.schedule.size(); ++p)
        if (wl.schedule[p].size() > limits.queues)
            err(p < wl.schedule_where.size() ? wl.schedule_where[p] : config::location{wl.file},
                "schedule[" + std::to_string(p) + "]",
                "the phase runs " + std::to_string(wl.schedule[p].size()) +
                    " kernels side by side but the CP has " + std::to_string(limits.queues) +
                    " queue(s) (cp.queues)");

    // Simulated time: a kernel that cannot end before the phase's timeout or the run's limit
    // would only be stopped there, after a long run; say so now.
    auto sms_of = [&](const sm_range& r) {
        if (r.first >= limits.num_sms)
            return 0u;
        const unsigned rest = limits.num_sms - r.first;
        return r.count == 0 ? rest : std::min(r.count, rest);
    };
    auto why = [&](const kernel_decl& k, unsigned sms) {
        return std::to_string(std::uint64_t{k.grid_x} * k.grid_y * k.grid_z) + " CTAs of " +
               std::to_string(k.block_warps()) + " warp(s) on " + std::to_string(sms) +
               " SMs take at least " + approx_time(min_kernel_ps(k, sms, limits)) +
               " of simulated time (an SM starts one CTA per cp.cta_dispatch_interval = " +
               std::to_string(limits.cta_dispatch_interval) +
               " cycles and issues one warp-instruction per cycle)";
    };
    std::vector<bool> reported(wl.kernels.size(), false);
    std::uint64_t total = 0;
    for (std::size_t p = 0; p < wl.schedule.size(); ++p) {
        std::uint64_t phase = 0;
        for (std::size_t ki : wl.schedule[p]) {
            const kernel_decl& k = wl.kernels[ki];
            const unsigned sms = sms_of(k.sms);
            const std::uint64_t t = min_kernel_ps(k, sms, limits);
            phase = std::max(phase, t);
            const char* limit = nullptr;
            std::uint64_t limit_ps = 0;
            if (limits.kernel_timeout_ps != 0 && t > limits.kernel_timeout_ps &&
                (limits.max_time_ps == 0 || limits.kernel_timeout_ps <= limits.max_time_ps)) {
                limit = "host.kernel_timeout";
                limit_ps = limits.kernel_timeout_ps;
            } else if (limits.max_time_ps != 0 && t > limits.max_time_ps) {
                limit = "platform.max_time";
                limit_ps = limits.max_time_ps;
            }
            if (limit && !reported[ki]) {
                reported[ki] = true;
                err(k.where, "kernels[" + std::to_string(ki) + "].grid",
                    why(k, sms) + ", more than " + limit + " (" + format(duration{limit_ps}) + ")");
            }
        }
        // A loop's phases run times passes (an `until` loop at least one).
        const loop_decl* l = wl.loop_of(p);
        const std::uint64_t passes = l ? l->least() : 1;
        total =
            sat_add(total, phase > ~std::uint64_t{0} / passes ? ~std::uint64_t{0} : phase * passes);
    }
    if (limits.max_time_ps != 0 && total > limits.max_time_ps &&
        std::none_of(reported.begin(), reported.end(), [](bool b) { return b; }))
        err(wl.schedule_where.empty() ? config::location{wl.file} : wl.schedule_where.front(),
            "schedule",
            "the " + std::to_string(wl.schedule.size()) + " phases" +
                (wl.loops.empty() ? "" : " (with their loops' passes)") + " take at least " +
                approx_time(total) + " of simulated time, more than platform.max_time (" +
                format(duration{limits.max_time_ps}) + ")");
    return errs;
}

} // namespace vgpu::host
