// vgpu-sim: the command-line front end (ARCHITECTURE.md, "User-facing contract"); main() is
// vgpu_sim_main.cpp. See README.md and docs/configuration.md.
#include "platforms/vgpu_sim.h"

#include "models/common/config.h"
#include "models/common/logger.h"
#include "models/common/run_progress.h"
#include "models/common/stats.h"
#include "models/common/trace_events.h"
#include "models/common/yaml_input.h"
#include "models/host/workload.h"
#include "models/noc/shared_resource.h"
#include "platforms/builder.h"
#include "platforms/cli.h"
#include "platforms/outputs.h"
#include "platforms/thread_unwinder.h"
#include "platforms/trace_files.h"
#include "platforms/vgpu_config.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <mutex>
#include <sstream>
#include <systemc>
#include <thread>
#include <tlm_utils/tlm_quantumkeeper.h>
#include <unistd.h>

namespace {

using namespace vgpu;

using platforms::exit_ok;
using platforms::exit_sim_failure;
using platforms::exit_usage;

/// The contents of a file, or "" when it cannot be read.
std::string slurp(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

/// Writes exactly text to path; false when it cannot.
bool write_text(const std::string& path, const std::string& text)
{
    std::ofstream out(path, std::ios::binary);
    out << text;
    out.flush();
    return out.good();
}

/// While it lives, a line on the terminal (stderr, when it is one) that shows how far a long run
/// has got: simulated time, kernels and CTAs ended (run_progress). It appears after two host
/// seconds, updates every second, and is erased at the end. It reads only run_progress's
/// atomics: the simulation runs as without it.
class progress_line {
public:
    progress_line()
    {
        if (::isatty(STDERR_FILENO) == 1)
            m_thread = std::thread([this] { loop(); });
    }
    ~progress_line()
    {
        if (!m_thread.joinable())
            return;
        {
            std::lock_guard<std::mutex> lock(m_mutex);
            m_stop = true;
        }
        m_wake.notify_all();
        m_thread.join();
        if (m_shown)
            std::fputs("\r\033[K", stderr);
    }
    progress_line(const progress_line&) = delete;
    progress_line& operator=(const progress_line&) = delete;

private:
    void loop()
    {
        const auto start = std::chrono::steady_clock::now();
        std::unique_lock<std::mutex> lock(m_mutex);
        auto next = start + std::chrono::seconds(2);
        while (!m_wake.wait_until(lock, next, [this] { return m_stop; })) {
            const run_progress& p = run_progress::get();
            const double host =
                std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
            std::fprintf(
                stderr,
                "\rvgpu-sim: %.3f us simulated, %llu of %llu kernels done, %llu CTAs done [%.0f "
                "s]\033[K",
                static_cast<double>(p.sim_ps.load(std::memory_order_relaxed)) * 1e-6,
                static_cast<unsigned long long>(p.kernels_done.load(std::memory_order_relaxed)),
                static_cast<unsigned long long>(p.launches.load(std::memory_order_relaxed)),
                static_cast<unsigned long long>(p.ctas_done.load(std::memory_order_relaxed)), host);
            std::fflush(stderr);
            m_shown = true;
            next += std::chrono::seconds(1);
        }
    }

    std::thread m_thread;
    std::mutex m_mutex;
    std::condition_variable m_wake;
    bool m_stop = false;
    bool m_shown = false;
};

/// A port the configuration cannot build (noc.arbiter_impl rtl on a port of more inputs than
/// the RTL arbiter has), found when the ports are made at elaboration: the configuration error
/// at the place that set its key.
std::string located(const noc::port_config_error& e, const config::provenance& sources)
{
    const auto at = sources.find(e.key);
    config::errors errors;
    errors.add(at == sources.end() ? config::location{"(configuration)"} : at->second, e.key,
               e.what());
    return errors.messages().front();
}

/// SystemC errors and fatals end the run with exit code 1; warnings go through the logger.
void report_handler(const sc_core::sc_report& rep, const sc_core::sc_actions& actions)
{
    using namespace sc_core;
    if (rep.get_severity() == SC_INFO) {
        sc_report_handler::default_handler(rep, actions & ~SC_DISPLAY);
        return;
    }
    if (rep.get_severity() == SC_WARNING) {
        static logger log("systemc");
        VGPU_WARN(log, "%s: %s", rep.get_msg_type(), rep.get_msg());
        return;
    }
    throw rep;
}

int run(int argc, char** argv, const std::vector<platforms::attach::block_maker>& extra_blocks)
{
    platforms::command_line cl = platforms::parse_command_line(argc, argv, std::cout, std::cerr);
    if (cl.exit_code >= 0)
        return cl.exit_code;
    platforms::vgpu_config& cfg = cl.cfg;
    const std::string& outdir = cl.outdir;
    const bool trace = cl.trace, vcd = cl.vcd;
    std::string effective = cl.effective;

    logger::configure(cfg.log.level, cfg.log.debug);
    logger::set_time_source([] { return sc_core::sc_time_stamp().to_string(); });
    sc_core::sc_report_handler::set_handler(report_handler);
    tlm::tlm_global_quantum::instance().set(
        sc_core::sc_time(static_cast<double>(cfg.platform.effective_quantum_ns()), sc_core::SC_NS));

    platforms::run_options opts;
    opts.trace = trace;
    opts.sources = cl.sources;
    opts.extra_blocks = extra_blocks;
    std::unique_ptr<platforms::platform> top;
    try {
        top = platforms::build(cfg, opts);
    } catch (const platforms::build_error& e) {
        for (const auto& m : e.messages)
            std::cerr << m << "\n";
        return exit_usage;
    }
    if (cl.check) {
        // With the RTL arbiter the ports' inputs are checked when they are made: elaborated
        // here (nothing is simulated after --check), the platform shows a port it cannot serve.
        if (cfg.noc.arbiter_impl == noc::arbiter_impl_kind::rtl) {
            try {
                sc_core::sc_get_curr_simcontext()->elaborate();
            } catch (const noc::port_config_error& e) {
                std::cerr << located(e, cl.sources) << "\n";
                return exit_usage;
            }
        }
        // One JSON object on stdout, for scripts (scripts/sweep validates specs with it): the
        // workload's declared variables with the values this run would use.
        nlohmann::json j = {{"valid", true}, {"vars", nlohmann::json::object()}};
        if (const host::workload* wl = top->workload())
            for (const auto& [name, value] : wl->vars)
                j["vars"][name] = value;
        std::cout << j.dump() << "\n";
        return std::cout.flush() ? exit_ok : exit_sim_failure;
    }
    platforms::output_writer out(outdir);
    if (!out.ok()) {
        std::cerr << "vgpu-sim: error: cannot create output folder '" << outdir << "'\n";
        return exit_usage;
    }
    // The run's record: the workload as used, and a config.yaml that names that copy, so that
    // `vgpu-sim -c OUTDIR/config.yaml` repeats the run from any folder.
    const host::workload* wl = top->workload();
    platforms::vgpu_config recorded = cfg;
    if (wl) {
        const std::string copy = outdir + "/workload.yaml";
        std::error_code ec;
        const bool same_file = std::filesystem::equivalent(cfg.workload.file, copy, ec);
        if (same_file && wl->text != slurp(copy)) {
            std::cerr << "vgpu-sim: error: cannot write '" << copy
                      << "': it is the workload file itself (choose another -o)\n";
            return exit_sim_failure;
        }
        if (!same_file && !write_text(copy, wl->text)) {
            std::cerr << "vgpu-sim: error: cannot write '" << copy << "'\n";
            return exit_sim_failure;
        }
        recorded.workload.file = "workload.yaml";
        // The files the record refers to (kernels/<kernel>.ptx and .vasm of CUDA/PTX kernels).
        if (const std::string bad = out.write_files(wl->files); !bad.empty()) {
            std::cerr << "vgpu-sim: error: cannot write '" << bad << "'\n";
            return exit_sim_failure;
        }
    }
    effective = platforms::saved_config_text(
        config::to_yaml([&](config::visitor& v) { recorded.declare(v); }));
    platforms::trace_files traces(outdir, trace, vcd);
    if (!traces.error().empty()) {
        std::cerr << "vgpu-sim: error: " << traces.error() << "\n";
        return exit_sim_failure;
    }
    if (traces.waveform())
        top->trace(traces.waveform());

    auto host_start = std::chrono::steady_clock::now();
    sc_core::sc_time limit(static_cast<double>(cfg.platform.max_time.ps), sc_core::SC_PS);
    std::vector<std::string> failures;
    try {
        progress_line progress;
        sc_core::sc_start(limit, sc_core::SC_EXIT_ON_STARVATION);
    } catch (const noc::port_config_error& e) {
        // At elaboration, before anything was simulated: a configuration error (the output
        // folder holds only the workload copy, no statistics).
        std::cerr << located(e, cl.sources) << "\n";
        return exit_usage;
    } catch (const sc_core::sc_report& rep) {
        failures.push_back(std::string(rep.get_msg_type()) + ": " + rep.get_msg());
    }
    // However run() returns from here on, suspended threads are unwound (their locals freed)
    // while the platform still exists.
    platforms::thread_unwinder unwind_threads;
    double host_seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - host_start).count();
    const std::vector<std::string> output_failures = traces.finish();

    if (failures.empty()) {
        if (!top->finished()) {
            // Stopped before the limit with nothing scheduled: nothing could ever happen again.
            const bool starved =
                sc_core::sc_time_stamp() < limit && !sc_core::sc_pending_activity();
            std::string why = starved ? "the simulation ran out of events at " +
                                            sc_core::sc_time_stamp().to_string() +
                                            " before the workload finished (deadlock)"
                                      : "the workload did not finish within platform.max_time (" +
                                            format(cfg.platform.max_time) + ")";
            const std::string progress = top->progress();
            failures.push_back(progress.empty() ? why : why + ": " + progress);
        }
        for (auto& f : top->failures())
            failures.push_back(f);
    }
    failures.insert(failures.end(), output_failures.begin(), output_failures.end());
    platforms::run_meta meta;
    meta.effective_config = effective;
    meta.seed = cfg.platform.seed;
    meta.sim_time_ps = sc_core::sc_time_stamp().value();
    meta.core_period_ps = cfg.platform.clocks.core.ps;
    meta.host_seconds = host_seconds;
    meta.kernel_host_seconds = top->kernel_host_seconds();
    meta.run_counts = top->run_counts();
    meta.kernel_counts = top->kernel_counts();
    meta.mode = name_of(cfg.platform.timing.mode);
    meta.verdict = failures.empty() ? "pass" : "fail";
    if (wl) {
        meta.workload = wl->name;
        meta.workload_text = wl->text;
    }
    if (!out.write(meta, stats::collect_all(), top->records())) {
        std::cerr << "vgpu-sim: error: cannot write the outputs to '" << outdir << "'\n";
        return exit_sim_failure;
    }
    for (const auto& [file, bytes] : top->files()) {
        const std::string path = outdir + "/" + file;
        std::error_code dir_ec; // a file in a folder (buffers/<name>.bin): the folder first
        std::filesystem::create_directories(std::filesystem::path(path).parent_path(), dir_ec);
        if (!write_text(path, std::string(bytes.begin(), bytes.end()))) {
            std::cerr << "vgpu-sim: error: cannot write '" << path << "'\n";
            return exit_sim_failure;
        }
    }

    top->summary(std::cout);
    std::cout << "simulated " << sc_core::sc_time_stamp().to_string() << " ("
              << meta.sim_time_ps / std::max<std::uint64_t>(1, meta.core_period_ps)
              << " core cycles) in " << host_seconds << " host s, " << meta.mode
              << " mode; outputs in " << outdir << "/\n";
    std::cout << platforms::host_rates_text(meta);
    for (const auto& f : failures)
        std::cerr << "vgpu-sim: FAIL: " << f << "\n";
    std::cout << "verdict: " << meta.verdict << "\n";
    return failures.empty() ? exit_ok : exit_sim_failure;
}

} // namespace

int vgpu::platforms::vgpu_sim_main(int argc, char** argv,
                                   const std::vector<attach::block_maker>& extra_blocks)
{
    setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 1);
    try {
        return run(argc, argv, extra_blocks);
    } catch (const sc_core::sc_report& rep) {
        std::cerr << "vgpu-sim: error: " << rep.get_msg_type() << ": " << rep.get_msg() << "\n";
        return exit_sim_failure;
    } catch (const std::exception& e) {
        std::cerr << "vgpu-sim: internal error: " << e.what() << "\n";
        return exit_sim_failure;
    }
}
