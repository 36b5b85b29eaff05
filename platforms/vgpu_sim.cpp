// vgpu-sim: the command-line front end (ARCHITECTURE.md, "User-facing contract").
// See README.md and docs/configuration.md.
#include "models/common/config.h"
#include "models/common/logger.h"
#include "models/common/stats.h"
#include "models/common/trace_events.h"
#include "platforms/builder.h"
#include "platforms/default_config.h"
#include "platforms/outputs.h"
#include "platforms/thread_unwinder.h"
#include "platforms/vgpu_config.h"

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdlib>
#include <iostream>
#include <systemc>
#include <tlm_utils/tlm_quantumkeeper.h>

namespace {

using namespace vgpu;

constexpr int exit_ok = 0, exit_sim_failure = 1, exit_usage = 2;

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

int run(int argc, char** argv)
{
    CLI::App app{"vgpu-sim: a SystemC/TLM-2.0 virtual GPU platform", "vgpu-sim"};
    std::vector<std::string> configs, overrides;
    std::string workload, outdir = "out";
    std::uint64_t seed = 0;
    bool trace = false, vcd = false, dump_config = false, list_params = false;
    auto* opt_c =
        app.add_option("-c,--config", configs, "YAML configuration file (repeatable; later wins)");
    app.add_option("-w,--workload", workload, "workload YAML file (gpu platform)");
    auto* opt_s =
        app.add_option("-s,--set", overrides, "override key.path=value (repeatable; later wins)");
    app.add_option("-o,--outdir", outdir, "output folder (default out/)");
    app.add_flag("--trace", trace, "write a Chrome/Perfetto trace-event file trace.json");
    app.add_flag("--vcd", vcd, "write a VCD waveform of the platform's signals (trace.vcd)");
    auto* opt_seed =
        app.add_option("--seed", seed, "seed of every random generator (platform.seed)");
    app.add_flag("--dump-config", dump_config, "print the effective configuration and exit");
    app.add_flag("--list-params", list_params, "print every parameter (Markdown) and exit");
    app.set_version_flag("--version", std::string("vgpu-sim ") + vgpu::platforms::version_string());
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        int code = app.exit(e);
        return code == 0 ? exit_ok : exit_usage;
    }

    platforms::vgpu_config cfg;
    if (list_params) {
        config::param_lister l;
        cfg.declare(l);
        std::cout << platforms::configuration_reference(l);
        return exit_ok;
    }

    // Layers in command-line order: the embedded default, then -c and -s as given.
    config::loader loader;
    loader.add_text(platforms::default_config_yaml(), "platforms/default.yaml (embedded)");
    std::size_t next_c = 0, next_s = 0;
    for (CLI::Option* o : app.parse_order()) {
        if (o == opt_c)
            loader.add_file(configs[next_c++]);
        else if (o == opt_s)
            loader.add_override(overrides[next_s++]);
    }
    if (opt_seed->count())
        loader.add_override("platform.seed=" + std::to_string(seed));
    if (!loader.apply(cfg)) {
        for (const auto& m : loader.errs().messages())
            std::cerr << m << "\n";
        std::cerr << "vgpu-sim: " << loader.errs().messages().size()
                  << " configuration error(s); nothing was simulated\n";
        return exit_usage;
    }
    std::string effective = config::to_yaml([&](config::visitor& v) { cfg.declare(v); });
    if (dump_config) {
        std::cout << effective;
        return exit_ok;
    }

    logger::configure(cfg.log.level, cfg.log.debug);
    logger::set_time_source([] { return sc_core::sc_time_stamp().to_string(); });
    sc_core::sc_report_handler::set_handler(report_handler);
    tlm::tlm_global_quantum::instance().set(
        sc_core::sc_time(static_cast<double>(cfg.platform.effective_quantum_ns()), sc_core::SC_NS));

    platforms::run_options opts;
    opts.workload = workload;
    opts.trace = trace;
    std::unique_ptr<platforms::platform> top;
    try {
        top = platforms::build(cfg, opts);
    } catch (const platforms::build_error& e) {
        for (const auto& m : e.messages)
            std::cerr << m << "\n";
        return exit_usage;
    }
    platforms::output_writer out(outdir);
    if (!out.ok()) {
        std::cerr << "vgpu-sim: error: cannot create output folder '" << outdir << "'\n";
        return exit_usage;
    }
    sc_core::sc_trace_file* wave = nullptr;
    if (vcd)
        wave = sc_core::sc_create_vcd_trace_file((outdir + "/trace").c_str());

    auto host_start = std::chrono::steady_clock::now();
    sc_core::sc_time limit(static_cast<double>(cfg.platform.max_time.ps), sc_core::SC_PS);
    std::vector<std::string> failures;
    try {
        sc_core::sc_start(limit, sc_core::SC_EXIT_ON_STARVATION);
    } catch (const sc_core::sc_report& rep) {
        failures.push_back(std::string(rep.get_msg_type()) + ": " + rep.get_msg());
    }
    // However run() returns from here on, suspended threads are unwound (their locals freed)
    // while the platform still exists.
    platforms::thread_unwinder unwind_threads;
    double host_seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - host_start).count();
    if (wave)
        sc_core::sc_close_vcd_trace_file(wave);
    if (trace)
        out.write_trace(trace::recorder::instance().to_json());

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
    platforms::run_meta meta;
    meta.effective_config = effective;
    meta.seed = cfg.platform.seed;
    meta.sim_time_ps = sc_core::sc_time_stamp().value();
    meta.core_period_ps = cfg.platform.clocks.core.ps;
    meta.host_seconds = host_seconds;
    meta.mode = name_of(cfg.platform.timing.mode);
    meta.verdict = failures.empty() ? "pass" : "fail";
    if (!out.write(meta, stats::collect_all(), top->records())) {
        std::cerr << "vgpu-sim: error: cannot write the outputs to '" << outdir << "'\n";
        return exit_sim_failure;
    }

    top->summary(std::cout);
    std::cout << "simulated " << sc_core::sc_time_stamp().to_string() << " ("
              << meta.sim_time_ps / std::max<std::uint64_t>(1, meta.core_period_ps)
              << " core cycles) in " << host_seconds << " host s, " << meta.mode
              << " mode; outputs in " << outdir << "/\n";
    for (const auto& f : failures)
        std::cerr << "vgpu-sim: FAIL: " << f << "\n";
    std::cout << "verdict: " << meta.verdict << "\n";
    return failures.empty() ? exit_ok : exit_sim_failure;
}

} // namespace

int main(int argc, char** argv)
{
    setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 1);
    try {
        return run(argc, argv);
    } catch (const sc_core::sc_report& rep) {
        std::cerr << "vgpu-sim: error: " << rep.get_msg_type() << ": " << rep.get_msg() << "\n";
        return exit_sim_failure;
    } catch (const std::exception& e) {
        std::cerr << "vgpu-sim: internal error: " << e.what() << "\n";
        return exit_sim_failure;
    }
}

/// libsystemc refers to sc_main; vgpu-sim has its own main().
int sc_main(int, char**)
{
    return exit_usage;
}
