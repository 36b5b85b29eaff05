// Settings without effect warn once, naming what would make them count; the same settings warn
// not when they count (platforms/inert_settings.cpp, docs/configuration.md).
#include "models/common/config.h"
#include "platforms/cli.h"
#include "platforms/inert_settings.h"

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

using namespace vgpu;
using namespace vgpu::platforms;

namespace {
const std::string src = VGPU_SOURCE_DIR;

/// What vgpu-sim's command line prints on stderr for `args` (the configuration is loaded, not
/// simulated).
std::string warnings_of(const std::vector<std::string>& args)
{
    std::vector<const char*> argv{"vgpu-sim"};
    for (const auto& a : args)
        argv.push_back(a.c_str());
    argv.push_back("--dump-config");
    std::ostringstream out, err;
    const command_line cl =
        parse_command_line(static_cast<int>(argv.size()), argv.data(), out, err);
    INFO(err.str());
    REQUIRE(cl.exit_code == exit_ok);
    return err.str();
}

/// The effective configuration vgpu-sim's command line prints for `args` (--dump-config, the
/// text OUTDIR/config.yaml records).
std::string effective_of(const std::vector<std::string>& args)
{
    std::vector<const char*> argv{"vgpu-sim"};
    for (const auto& a : args)
        argv.push_back(a.c_str());
    argv.push_back("--dump-config");
    std::ostringstream out, err;
    const command_line cl =
        parse_command_line(static_cast<int>(argv.size()), argv.data(), out, err);
    REQUIRE(cl.exit_code == exit_ok);
    return out.str();
}

/// A scratch folder of this test process, removed at its end.
struct scratch {
    const std::filesystem::path dir = std::filesystem::temp_directory_path() /
                                      ("vgpu_saved_config_" + std::to_string(::getpid()));
    scratch() { std::filesystem::create_directories(dir); }
    ~scratch() { std::filesystem::remove_all(dir); }
    /// Writes `text` to file `name` in the folder; returns its path.
    std::string write(const std::string& name, const std::string& text) const
    {
        const std::string path = (dir / name).string();
        std::ofstream f(path);
        f << text;
        REQUIRE(f.good());
        return path;
    }
};

std::size_t count(const std::string& text, const std::string& what)
{
    std::size_t n = 0;
    for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1))
        ++n;
    return n;
}

/// A setting, a configuration where it has no effect, and one where it counts.
struct inert_case {
    std::string key;                 ///< the parameter path
    std::vector<std::string> inert;  ///< arguments that set it where it has no effect
    std::vector<std::string> counts; ///< arguments that set it where it counts
    std::string named;               ///< what the warning names to make it count
};

std::vector<inert_case> cases()
{
    const std::string mcm4 = src + "/platforms/mcm4.yaml";
    std::vector<inert_case> out = {
        {"tlb.index",
         {"-s", "tlb.index=modulo"},
         {"-s", "tlb.index=modulo", "-s", "tlb.model=timed"},
         "tlb.model: timed"},
        // Set to its default value, it warns as well.
        {"tlb.l1.sets",
         {"-s", "tlb.l1.sets=16"},
         {"-s", "tlb.l1.sets=16", "-s", "tlb.model=timed"},
         "tlb.model: timed"},
        {"tlb.l2.sets",
         {"-s", "tlb.l2.sets=0"},
         {"-s", "tlb.l2.sets=0", "-s", "tlb.model=timed"},
         "tlb.model: timed"},
        {"tlb.walkers",
         {"-s", "tlb.walkers=2"},
         {"-s", "tlb.walkers=2", "-s", "tlb.model=timed"},
         "tlb.model: timed"},
        {"tlb.xor_bits",
         {"-s", "tlb.model=timed", "-s", "tlb.index=modulo", "-s", "tlb.xor_bits=16"},
         {"-s", "tlb.model=timed", "-s", "tlb.xor_bits=16"},
         "tlb.index: xor"},
        {"tlb.l2.ways",
         {"-s", "tlb.model=timed", "-s", "tlb.l2.sets=0", "-s", "tlb.l2.ways=4"},
         {"-s", "tlb.model=timed", "-s", "tlb.l2.ways=4"},
         "tlb.l2.sets above 0"},
        {"noc.max_wait_cycles",
         {"-s", "platform.timing.mode=accurate", "-s", "noc.max_wait_cycles=0"},
         {"-s", "platform.timing.mode=accurate", "-s", "noc.arbiter=barrier_aware", "-s",
          "noc.max_wait_cycles=0"},
         "noc.arbiter: barrier_aware"},
        {"noc.mesh_rows",
         {"-s", "noc.mesh_rows=2"},
         {"-s", "noc.topology=mesh", "-s", "noc.mesh_rows=2"},
         "noc.topology: mesh"},
        {"noc.mesh_buffer_depth",
         {"-s", "noc.topology=mesh", "-s", "noc.mesh_buffer_depth=2"},
         {"-s", "noc.topology=mesh", "-s", "noc.mesh_buffer_depth=2", "-s",
          "platform.timing.mode=accurate"},
         "platform.timing.mode: accurate"},
        {"noc.link_latency",
         {"-s", "noc.link_latency=10ns"},
         {"-c", mcm4, "-s", "noc.link_latency=10ns"},
         "platform.modules above 1"},
        {"llc.mode",
         {"-s", "llc.mode=private"},
         {"-c", mcm4, "-s", "llc.mode=private"},
         "platform.modules above 1"},
        {"llc.epoch_cycles",
         {"-c", mcm4, "-s", "llc.epoch_cycles=1000"},
         {"-c", mcm4, "-s", "llc.mode=adaptive", "-s", "llc.epoch_cycles=1000"},
         "llc.mode: adaptive"},
        {"llc.switch_cycles",
         {"-c", mcm4, "-s", "llc.switch_cycles=10"},
         {"-c", mcm4, "-s", "llc.forced_switch_ns=1000", "-s", "llc.switch_cycles=10"},
         "llc.mode: adaptive (or llc.forced_switch_ns above 0)"},
        {"memory.page_alloc",
         {"-s", "memory.page_alloc=round_robin"},
         {"-c", mcm4, "-s", "memory.page_alloc=round_robin"},
         "platform.modules above 1"},
        {"memory.balance_ratio",
         {"-c", mcm4, "-s", "memory.balance_ratio=2"},
         {"-c", mcm4, "-s", "memory.page_alloc=adaptive", "-s", "memory.balance_ratio=2"},
         "memory.page_alloc: adaptive"},
        {"l1.share_index",
         {"-s", "l1.share_index=xor"},
         {"-s", "l1.sharing=shared", "-s", "l1.share_index=xor"},
         "l1.sharing: shared"},
        {"l1.epoch_cycles",
         {"-s", "l1.epoch_cycles=1000"},
         {"-s", "l1.sharing=adaptive", "-s", "l1.epoch_cycles=1000"},
         "l1.sharing: adaptive"},
        {"shader_trace.slots",
         {"-s", "shader_trace.slots=8"},
         {"-s", "shader_trace.enable=true", "-s", "shader_trace.slots=8"},
         "shader_trace.enable: true"},
        {"shader_trace.impl",
         {"-s", "shader_trace.impl=tlm"},
         {"-s", "shader_trace.enable=true", "-s", "shader_trace.impl=tlm"},
         "shader_trace.enable: true"},
        {"shader_trace.victim",
         {"-s", "shader_trace.enable=true", "-s", "shader_trace.victim=same_source"},
         {"-s", "shader_trace.enable=true", "-s", "shader_trace.full_policy=replace", "-s",
          "shader_trace.victim=same_source"},
         "shader_trace.full_policy: replace"},
        {"sm.icache_ways",
         {"-s", "sm.icache_bytes=0", "-s", "sm.icache_ways=2"},
         {"-s", "sm.icache_ways=2"},
         "sm.icache_bytes above 0"},
        {"sm.lsu_threads",
         {"-s", "sm.lsu_threads=4"},
         {"-s", "sm.lsu_threads=4", "-s", "platform.timing.mode=accurate"},
         "platform.timing.mode: accurate"},
        {"dram.dmi",
         {"-s", "platform.timing.mode=accurate", "-s", "dram.dmi=false"},
         {"-s", "dram.dmi=false"},
         "platform.timing.mode: fast"},
        {"platform.timing.quantum_ns",
         {"-s", "platform.timing.mode=accurate", "-s", "platform.timing.quantum_ns=0"},
         {"-s", "platform.timing.quantum_ns=0"},
         "platform.timing.mode: fast"},
        {"platform.timing.memory_quantum_ns",
         {"-s", "platform.timing.mode=accurate", "-s", "platform.timing.memory_quantum_ns=50"},
         {"-s", "platform.timing.memory_quantum_ns=50"},
         "platform.timing.mode: fast"},
        {"host.dma_bytes",
         {"-s", "host.dma_bytes=64"},
         {"-s", "host.load=dma", "-s", "host.dma_bytes=64"},
         "host.load: dma"},
        {"host.cpu.mips",
         {"-s", "host.cpu.mips=500"},
         {"-s", "host.kind=riscv", "-s", "host.cpu.mips=500"},
         "host.kind: riscv"},
        {"traffic.generators",
         {"-s", "traffic.generators=2"},
         {"-s", "platform.kind=traffic", "-s", "traffic.generators=2"},
         "platform.kind: traffic"},
        {"sm.warp_slots",
         {"-s", "platform.kind=traffic", "-s", "sm.warp_slots=16"},
         {"-s", "sm.warp_slots=16"},
         "platform.kind: gpu"},
        {"dram.banks",
         {"-s", "platform.kind=traffic", "-s", "dram.banks=8"},
         {"-s", "dram.banks=8"},
         "platform.kind: gpu"},
    };
    // Fast mode books NoC ports in arrival order (platforms/inert_settings.h).
    if (arbiter_inert_in_fast_mode)
        out.push_back({"noc.arbiter",
                       {"-s", "noc.arbiter=barrier_aware"},
                       {"-s", "noc.arbiter=barrier_aware", "-s", "platform.timing.mode=accurate"},
                       "platform.timing.mode: accurate"});
    return out;
}
} // namespace

TEST_CASE("inert settings: each warns once where it has no effect, naming what makes it count")
{
    for (const inert_case& c : cases()) {
        INFO(c.key);
        const std::string inert = warnings_of(c.inert);
        INFO(inert);
        CHECK(count(inert, "warning: " + c.key + ": has no effect") == 1);
        CHECK(count(inert, "it counts with " + c.named + "\n") == 1);
        const std::string counts = warnings_of(c.counts);
        INFO(counts);
        CHECK(counts.find("warning: " + c.key + ":") == std::string::npos);
    }
}

TEST_CASE("inert settings: the warning points at the place that set the key, once over layers")
{
    const std::string w =
        warnings_of({"-s", "tlb.index=xor", "-s", "tlb.index=modulo", "-s", "tlb.pwc_entries=4"});
    CHECK(count(w, "warning: tlb.index:") == 1);
    CHECK(w.find("-s tlb.index=modulo: warning: tlb.index: has no effect: tlb.model is ideal") !=
          std::string::npos);
    CHECK(count(w, "warning: tlb.pwc_entries:") == 1);
    CHECK(count(w, "warning:") == 2);
}

TEST_CASE("inert settings: the defaults and the shipped platforms warn of nothing")
{
    CHECK(warnings_of({}).empty());
    for (const char* p :
         {"mcm4.yaml", "v100.yaml", "traffic.yaml", "patents.yaml", "congested.yaml"}) {
        INFO(p);
        CHECK(warnings_of({"-c", src + "/platforms/" + p}).empty());
    }
}

TEST_CASE("inert settings: noc.arbiter warns in fast mode exactly when the policy is inert there")
{
    const std::string w = warnings_of({"-s", "noc.arbiter=barrier_aware"});
    CHECK((w.find("warning: noc.arbiter: has no effect") != std::string::npos) ==
          arbiter_inert_in_fast_mode);
}

TEST_CASE("inert settings: log.level error silences the warnings")
{
    CHECK(warnings_of({"-s", "tlb.index=xor", "-s", "log.level=error"}).empty());
}

TEST_CASE("inert settings: every key of the table is a declared parameter or a section")
{
    config::param_lister l;
    vgpu_config cfg;
    cfg.declare(l);
    for (const inert_rule& r : inert_rules()) {
        std::string keys(r.keys);
        std::istringstream in(keys);
        for (std::string k; in >> k;) {
            INFO(k);
            bool found = false;
            for (const auto& row : l.rows)
                found = found || (k.back() == '.' ? row.path.rfind(k, 0) == 0 : row.path == k);
            CHECK(found);
        }
        CHECK(!r.because.empty());
        CHECK(!r.counts.empty());
    }
}

TEST_CASE(
    "inert settings: a saved effective configuration reruns without warnings, edited keys warn")
{
    // OUTDIR/config.yaml (and --dump-config) sets every key. Reloaded with -c it warns of
    // nothing: its first line marks it as saved, and its keys at their default value are not
    // the user's settings. Without that line it is an ordinary file setting every key, and the
    // keys that have no effect warn (about 60 on the default platform).
    const scratch tmp;
    const std::string mcm4 = src + "/platforms/mcm4.yaml",
                      patents = src + "/platforms/patents.yaml";
    const std::vector<std::vector<std::string>> runs = {{},
                                                        {"-s", "platform.timing.mode=accurate"},
                                                        {"-c", mcm4},
                                                        {"-c", patents},
                                                        {"-s", "host.kind=riscv"},
                                                        {"-c", mcm4, "-s", "l1.sharing=adaptive"}};
    for (std::size_t i = 0; i < runs.size(); ++i) {
        INFO("run " << i);
        const std::string saved = effective_of(runs[i]);
        REQUIRE(saved.rfind(saved_config_marker, 0) == 0);
        const std::string file = tmp.write("saved_" + std::to_string(i) + ".yaml", saved);
        CHECK(warnings_of({"-c", file}).empty());
        CHECK(effective_of({"-c", file}) == saved); // it reloads to itself
        tmp.write("saved_" + std::to_string(i) + ".yaml", saved.substr(saved.find('\n') + 1));
        CHECK(count(warnings_of({"-c", file}), "warning:") >= 10);
    }
    // An edited key with no effect warns where the file sets it; so does a -s of any value.
    std::string saved = effective_of({});
    const std::string tlb_index = "  index: xor\n  xor_bits:";
    const auto at = saved.find(tlb_index);
    REQUIRE(at != std::string::npos);
    saved.replace(at, tlb_index.size(), "  index: modulo\n  xor_bits:");
    const std::string edited = tmp.write("edited.yaml", saved);
    const std::string w = warnings_of({"-c", edited, "-s", "tlb.walkers=8"});
    INFO(w);
    CHECK(count(w, edited + ":") == 1);
    CHECK(count(w, "warning: tlb.index: has no effect") == 1);
    CHECK(count(w, "-s tlb.walkers=8: warning: tlb.walkers: has no effect") == 1);
    CHECK(count(w, "warning:") == 2);
}
