// vgpu-sim's command line, up to the loaded configuration. See README.md.
#include "platforms/cli.h"

#include "models/common/yaml_input.h"
#include "platforms/default_config.h"
#include "platforms/inert_settings.h"
#include "platforms/outputs.h"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cctype>
#include <fstream>
#include <map>
#include <set>
#include <vector>
#include <yaml-cpp/yaml.h>

namespace vgpu::platforms {

namespace {

/// exit_ok when everything printed to out reached it (a full disk or a closed pipe is a
/// failure: a truncated docs/configuration.md must not pass unnoticed).
int out_written(std::ostream& out, std::ostream& err, const char* what)
{
    out.flush();
    if (out.good())
        return exit_ok;
    err << "vgpu-sim: error: cannot write " << what << " to standard output\n";
    return exit_sim_failure;
}

/// Why --seed TEXT is not a seed, or "": CLI11 alone would wrap -1, saturate past 2^64 and read
/// 010 as octal. Text that does not start like a number is left to CLI11 ("Could not convert").
std::string seed_problem(const std::string& text)
{
    const bool number_like = !text.empty() && (std::isdigit(static_cast<unsigned char>(text[0])) ||
                                               text[0] == '-' || text[0] == '+');
    const auto c = config::to_uint(text);
    return c.value || !number_like ? std::string() : c.problem;
}

/// Every leaf of YAML `node` by its dotted path (a sequence is one leaf), as text.
void flatten(const YAML::Node& node, const std::string& path,
             std::map<std::string, std::string>& leaves)
{
    if (node.IsMap()) {
        for (const auto& kv : node)
            flatten(kv.second,
                    path.empty() ? kv.first.as<std::string>()
                                 : path + "." + kv.first.as<std::string>(),
                    leaves);
        return;
    }
    leaves[path] = YAML::Dump(node);
}

/// True when file `path` opens with saved_config_marker (a saved effective configuration).
/// Reads no more than the marker: `path` may be any file (/dev/zero, a huge one).
bool is_saved_config(const std::string& path)
{
    const std::string marker = saved_config_marker;
    std::ifstream in(path, std::ios::binary);
    std::string head(marker.size(), '\0');
    return in && in.read(head.data(), static_cast<std::streamsize>(head.size())) && head == marker;
}

/// The parameters that `saved` files (saved effective configurations) set to the value a run
/// of `cfg`'s timing mode without settings records: these do not count as set by the user.
std::set<std::string> saved_defaults(vgpu_config cfg, const config::provenance& sources,
                                     const std::set<std::string>& saved)
{
    std::set<std::string> paths;
    if (saved.empty())
        return paths;
    config::loader l;
    l.add_defaults(default_config_yaml(), "platforms/default.yaml (embedded)");
    vgpu_config def;
    l.apply(def);
    def.platform.timing.mode = cfg.platform.timing.mode;
    record_effective(def);
    std::map<std::string, std::string> mine, base;
    flatten(YAML::Load(config::to_yaml([&](config::visitor& v) { cfg.declare(v); })), "", mine);
    flatten(YAML::Load(config::to_yaml([&](config::visitor& v) { def.declare(v); })), "", base);
    for (const auto& [path, where] : sources) {
        if (saved.count(where.file) == 0)
            continue;
        const auto a = mine.find(path), b = base.find(path);
        if (a != mine.end() && b != base.end() && a->second == b->second)
            paths.insert(path);
    }
    return paths;
}

} // namespace

std::string saved_config_text(const std::string& yaml)
{
    return std::string(saved_config_marker) +
           " (keys at their default value do not count as set: docs/outputs.md)\n" + yaml;
}

void record_effective(vgpu_config& cfg)
{
    // Accurate mode runs in lock-step whatever the quantum says; write the quantum it uses, so
    // that the effective configuration reloads (a non-zero quantum with accurate is an error).
    if (cfg.platform.timing.mode == timing_mode::accurate)
        cfg.platform.timing.quantum_ns = cfg.platform.effective_quantum_ns();
}

command_line parse_command_line(int argc, const char* const* argv, std::ostream& out,
                                std::ostream& err)
{
    command_line r;
    CLI::App app{"vgpu-sim: a SystemC/TLM-2.0 virtual GPU platform", "vgpu-sim"};
    std::vector<std::string> configs, overrides, workloads, defines;
    std::uint64_t seed = 0;
    bool dump_config = false, list_params = false;
    auto* opt_c =
        app.add_option("-c,--config", configs, "YAML configuration file (repeatable; later wins)");
    auto* opt_w = app.add_option("-w,--workload", workloads,
                                 "workload YAML file (gpu platform; = -s workload.file=FILE)");
    auto* opt_d = app.add_option(
        "-D,--define", defines,
        "NAME=VALUE: value of a variable the workload declares (repeatable; later wins)");
    auto* opt_s =
        app.add_option("-s,--set", overrides, "override key.path=value (repeatable; later wins)");
    app.add_option("-o,--outdir", r.outdir, "output folder (default out/)");
    app.add_flag("--trace", r.trace, "write a Chrome/Perfetto trace-event file trace.json");
    app.add_flag("--vcd", r.vcd, "write a VCD waveform of the platform's signals (trace.vcd)");
    auto* opt_seed =
        app.add_option("--seed", seed, "seed of every random generator (platform.seed)")
            ->check(seed_problem, "", "SEED");
    unsigned gdb_port = 0;
    auto* opt_gdb = app.add_option("--gdb", gdb_port,
                                   "host.kind riscv: GDB remote stub for the firmware on "
                                   "127.0.0.1:PORT (= -s host.cpu.gdb_port=PORT)")
                        ->check(CLI::Range(1, 65535));
    app.add_flag("--dump-config", dump_config, "print the effective configuration and exit");
    app.add_flag("--list-params", list_params, "print every parameter (Markdown) and exit");
    app.add_flag(
        "--check", r.check,
        "check the configuration and the workload (its variables, kernels and inputs) "
        "by building the platform, then exit without simulating: 0 valid (stdout: JSON with the "
        "workload's variables), 2 not");
    app.set_version_flag("--version", std::string("vgpu-sim ") + version_string());
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        int code = app.exit(e, out, err);
        r.exit_code = code == 0 ? exit_ok : exit_usage;
        return r;
    }

    vgpu_config& cfg = r.cfg;
    if (list_params) {
        config::param_lister l;
        cfg.declare(l);
        out << configuration_reference(l) << inert_rules_markdown();
        r.exit_code = out_written(out, err, "the parameter list");
        return r;
    }

    // Layers in command-line order: the embedded default, then -c, -s, -w and -D as given.
    config::loader loader;
    loader.add_defaults(default_config_yaml(), "platforms/default.yaml (embedded)");
    std::size_t next_c = 0, next_s = 0, next_w = 0, next_d = 0;
    std::set<std::string> saved; // -c files that are saved effective configurations
    for (CLI::Option* o : app.parse_order()) {
        if (o == opt_c) {
            if (is_saved_config(configs[next_c]))
                saved.insert(configs[next_c]);
            loader.add_file(configs[next_c++]);
        } else if (o == opt_s) {
            loader.add_override(overrides[next_s++]);
        } else if (o == opt_w) {
            const std::string& w = workloads[next_w++];
            loader.add_override("workload.file=" + w, "-w " + w);
        } else if (o == opt_d) {
            const std::string& d = defines[next_d++];
            const auto eq = d.find('=');
            const std::string name = d.substr(0, eq);
            const bool is_name = !name.empty() &&
                                 !std::isdigit(static_cast<unsigned char>(name[0])) &&
                                 std::all_of(name.begin(), name.end(), [](char c) {
                                     return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
                                 });
            if (eq == std::string::npos || !is_name)
                loader.add_error({"-D " + d}, "",
                                 "malformed variable (expected NAME=VALUE, NAME of letters, "
                                 "digits and '_')");
            else
                loader.add_override("workload.vars." + d, "-D " + d);
        }
    }
    if (opt_gdb->count())
        loader.add_override("host.cpu.gdb_port=" + std::to_string(gdb_port), "--gdb");
    if (opt_seed->count())
        loader.add_override("platform.seed=" + std::to_string(seed));
    if (!loader.apply(cfg)) {
        for (const auto& m : loader.errs().messages())
            err << m << "\n";
        err << "vgpu-sim: " << loader.errs().messages().size()
            << " configuration error(s); nothing was simulated\n";
        r.exit_code = exit_usage;
        return r;
    }
    // Settings that do nothing here say so, once each (platforms/inert_settings.cpp); a saved
    // configuration's keys at their default value are not the user's settings.
    const std::set<std::string> not_set = saved_defaults(cfg, loader.sources(), saved);
    loader.check([&](config::checker& c) { warn_inert_settings(cfg, c, not_set); });
    if (cfg.log.level != log_level::error)
        for (const auto& w : loader.warnings())
            err << w << "\n";
    record_effective(cfg);
    r.effective = saved_config_text(config::to_yaml([&](config::visitor& v) { cfg.declare(v); }));
    r.sources = loader.sources();
    if (dump_config) {
        out << r.effective;
        r.exit_code = out_written(out, err, "the configuration");
    }
    return r;
}

} // namespace vgpu::platforms
