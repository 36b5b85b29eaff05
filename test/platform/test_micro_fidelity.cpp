// The microbenchmarks that decide, one per resource, against the figures their effective
// configuration implies. Cases, formulas and rules: testbenches/workloads/micro/README.md.
#include "test/platform/cli_runner.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <regex>
#include <string>
#include <vector>

using vgpu::test::cli_runner;

namespace {
const std::string micro = VGPU_SOURCE_DIR "/testbenches/workloads/micro/";
const std::string mcm4 = VGPU_SOURCE_DIR "/platforms/mcm4.yaml";

/// The effective configuration of a run (its config.yaml), read with units.
struct config {
    YAML::Node root;
    std::string text(const std::string& section, const std::string& key) const
    {
        return root[section][key].as<std::string>();
    }
    double num(const std::string& section, const std::string& key) const
    {
        return std::stod(text(section, key));
    }
    /// A time ("22500 ps", "1 ns") in ns.
    double ns(const std::string& section, const std::string& key) const
    {
        const std::string t = text(section, key);
        const std::size_t u = t.find_first_not_of("0123456789.");
        const double v = std::stod(t.substr(0, u));
        const std::string unit = t.substr(t.find_first_not_of(' ', u));
        if (unit == "ps")
            return v / 1000;
        if (unit == "ns")
            return v;
        if (unit == "us")
            return v * 1000;
        FAIL(section << "." << key << ": unexpected time '" << t << "'");
        return 0;
    }
    /// A size ("1 KiB", "128") in bytes.
    double bytes(const std::string& section, const std::string& key) const
    {
        const std::string t = text(section, key);
        const double v = std::stod(t);
        if (t.find("KiB") != std::string::npos)
            return v * 1024;
        if (t.find("MiB") != std::string::npos)
            return v * 1024 * 1024;
        return v;
    }
};

/// The path's contention-free times (ns) and capacities, from the configuration alone.
struct path {
    const config& c;
    double core, noc, link_bpc;
    double xbar_req_w, xbar_rsp_w, noc_req_w, noc_rsp_w, xbar_hop, xbar_rsp_hop, hop, rsp_hop;
    double xbar_hdr, noc_hdr; ///< NoC cycles a read's request header holds a port
    double sector, line;

    explicit path(const config& cfg) : c(cfg)
    {
        core = ns_of(c.root["platform"]["clocks"]["core"].as<std::string>());
        noc = ns_of(c.root["platform"]["clocks"]["noc"].as<std::string>());
        const double w = c.num("noc", "width_bytes");
        auto or_w = [&](const char* k) { return c.num("noc", k) > 0 ? c.num("noc", k) : w; };
        xbar_req_w = or_w("xbar_request_width_bytes");
        xbar_rsp_w = or_w("xbar_response_width_bytes");
        noc_req_w = or_w("request_width_bytes");
        noc_rsp_w = or_w("response_width_bytes");
        xbar_hop = c.num("noc", "xbar_hop_latency");
        xbar_rsp_hop = c.num("noc", "xbar_response_hop_latency") < 0
                           ? xbar_hop
                           : c.num("noc", "xbar_response_hop_latency");
        hop = c.num("noc", "hop_latency");
        rsp_hop =
            c.num("noc", "response_hop_latency") < 0 ? hop : c.num("noc", "response_hop_latency");
        link_bpc = c.num("noc", "link_bandwidth_gbps") * noc;
        // A header on a port's command channel takes one cycle of it; with header_bytes set,
        // the data channel's cycles for those bytes.
        auto hdr = [&](const char* k, double width) {
            return c.num("noc", k) > 0 ? cyc(c.num("noc", k), width) : 1.0;
        };
        xbar_hdr = hdr("xbar_header_bytes", xbar_req_w);
        noc_hdr = hdr("header_bytes", noc_req_w);
        sector = c.bytes("l1", "sector_bytes");
        line = c.bytes("l1", "line_bytes");
    }
    static double ns_of(const std::string& t)
    {
        const double v = std::stod(t);
        return t.find("ps") != std::string::npos ? v / 1000 : v;
    }
    /// NoC cycles a channel of `width` bytes per cycle is held for `b` bytes (8 at least).
    static double cyc(double b, double width)
    {
        return std::max(1.0, std::ceil(std::max(b, 8.0) / width - 1e-9));
    }
    double l1() const { return c.num("l1", "hit_latency") * core; }
    double local(double below) const
    {
        const double s = sector;
        return l1() + (xbar_hop + xbar_hdr) * noc + (hop + noc_hdr) * noc + llc(s) + below +
               (rsp_hop + cyc(s, noc_rsp_w)) * noc + (xbar_rsp_hop + cyc(s, xbar_rsp_w)) * noc;
    }
    double remote() const
    {
        const double s = sector, link = c.ns("noc", "link_latency");
        return local(0) + (hop + noc_hdr) * noc + cyc(8, link_bpc) * noc + link +
               (rsp_hop + cyc(s, noc_rsp_w)) * noc + cyc(s, link_bpc) * noc + link;
    }
    double llc(double s) const
    {
        return (std::max(1.0, std::ceil(s / c.num("llc", "bank_bytes_per_cycle"))) +
                c.num("llc", "hit_latency")) *
               noc;
    }
    /// A row conflict: PRECHARGE, ACTIVATE, column, transfer, controller latency.
    double dram_conflict(double s) const
    {
        return c.ns("dram", "tRP") + c.ns("dram", "tRCD") + c.ns("dram", "tCL") +
               std::max(c.ns("dram", "tBURST"), s / c.num("dram", "bandwidth_gbps")) +
               c.ns("dram", "latency");
    }
    double to_core(double t) const { return std::ceil(t / core - 1e-9) * core; }
};

/// One microbenchmark run into `out`; its stats.json and config.yaml.
struct run_result {
    nlohmann::json stats;
    config cfg;
};

run_result run(const cli_runner& r, const std::string& args, const std::string& out)
{
    const auto res = r.run(args + " -o " + out);
    INFO("vgpu-sim " << args << "\n" << res.out << res.err);
    REQUIRE(res.code == 0);
    return {nlohmann::json::parse(r.read(out + "/stats.json")),
            config{YAML::LoadFile((r.dir() / out / "config.yaml").string())}};
}

double window(const nlohmann::json& rec)
{
    return rec.at("end_ns").get<double>() - rec.at("start_ns").get<double>();
}

/// Sum of `field` (the window when empty) over the kernel records named `name`.
double kernels(const nlohmann::json& s, const std::string& name, const std::string& field = "")
{
    double sum = 0;
    for (const auto& k : s.at("kernels"))
        if (k.at("name") == name)
            sum += field.empty() ? window(k) : k.at(field).get<double>();
    return sum;
}

std::string mode_args(const std::string& mode)
{
    return " -s platform.timing.mode=" + mode;
}

/// Load latency of a pointer chase: per-hop time of two runs minus the AND, SHL, IADD chain.
void latency_case(const std::string& tag, const std::string& args, unsigned lo, unsigned hi,
                  const std::string& mode, double (*implied)(const path&))
{
    cli_runner r("micro_" + tag + "_" + mode);
    const std::string base = args + " -w '" + micro + "chase.yaml'" + mode_args(mode);
    const run_result a = run(r, base + " -D hops=" + std::to_string(lo), "a");
    const run_result b = run(r, base + " -D hops=" + std::to_string(hi), "b");
    const path p(a.cfg);
    const double per_hop = (kernels(b.stats, "chase") - kernels(a.stats, "chase")) / (hi - lo);
    const double measured = per_hop - 3 * a.cfg.num("sm", "alu_latency") * p.core;
    const double expected = implied(p);
    INFO(tag << " " << mode << ": load latency " << measured << " ns, implied " << expected
             << " ns");
    CHECK(std::abs(measured - expected) <= 0.03 * expected);
}

/// Bandwidth: bytes of the two runs' difference over their windows' difference at least 90 %
/// of the peak; the longer run's whole window at most the peak.
void bandwidth_case(const std::string& tag, const std::string& args, const std::string& var,
                    unsigned lo, unsigned hi, const std::string& kernel,
                    double (*bytes)(const nlohmann::json&, unsigned), const std::string& mode,
                    double (*peak)(const path&))
{
    cli_runner r("micro_" + tag + "_" + mode);
    const std::string base = args + " -s sm.scheduler=lrr" + mode_args(mode);
    const run_result a = run(r, base + " -D " + var + "=" + std::to_string(lo), "a");
    const run_result b = run(r, base + " -D " + var + "=" + std::to_string(hi), "b");
    const double dt = kernels(b.stats, kernel) - kernels(a.stats, kernel);
    const double measured = (bytes(b.stats, hi) - bytes(a.stats, lo)) / dt;
    const double whole = bytes(b.stats, hi) / kernels(b.stats, kernel);
    const double expected = peak(path(a.cfg));
    INFO(tag << " " << mode << ": " << measured << " GB/s (longer run " << whole << " GB/s), peak "
             << expected << " GB/s");
    CHECK(measured >= 0.9 * expected);
    CHECK(whole <= expected * (1 + 1e-9));
}

// ---- the cases ----

double l1_hit(const path& p)
{
    return p.to_core(p.l1());
}
double llc_hit(const path& p)
{
    return p.to_core(p.local(0));
}
double row_conflict(const path& p)
{
    return p.to_core(p.local(p.dram_conflict(p.sector)));
}
double remote_hit(const path& p)
{
    return p.to_core(p.remote());
}
double l1_peak(const path& p)
{
    return p.c.num("l1", "lines_per_cycle") * p.line / p.core;
}
double dram_peak(const path& p)
{
    // DRAM binds with the NoC's and the cluster crossbars' response channels widened to 128 B
    // (checked: they carry more; a cluster's responses all pass its crossbar's NoC port).
    const double noc_rsp =
        2 * p.line /
        (std::max(path::cyc(p.line, p.noc_rsp_w), path::cyc(p.line, p.xbar_rsp_w)) * p.noc);
    const double dram = p.c.num("dram", "channels") * p.c.num("dram", "bandwidth_gbps");
    REQUIRE(noc_rsp > dram);
    return dram;
}
double slice_peak(const path& p)
{
    // One slice: its banks and its NoC request port (one read header per cycle on its command
    // channel).
    const double banks = p.c.num("llc", "banks") * p.line /
                         (std::ceil(p.line / p.c.num("llc", "bank_bytes_per_cycle")) * p.noc);
    const double port = p.line / (p.noc_hdr * p.noc);
    return std::min(banks, port);
}
double bank_peak(const path& p)
{
    return p.line / (std::ceil(p.line / p.c.num("llc", "bank_bytes_per_cycle")) * p.noc);
}
/// sm.max_line_requests places, each held for a whole line's LLC-hit round trip.
double line_limit_peak(const path& p)
{
    const double s = p.line;
    const double trip = p.l1() + (p.xbar_hop + p.xbar_hdr) * p.noc + (p.hop + p.noc_hdr) * p.noc +
                        p.llc(s) + (p.rsp_hop + path::cyc(s, p.noc_rsp_w)) * p.noc +
                        (p.xbar_rsp_hop + path::cyc(s, p.xbar_rsp_w)) * p.noc;
    return p.c.num("sm", "max_line_requests") * s / p.to_core(trip);
}
double l1_bytes(const nlohmann::json&, unsigned iters)
{
    return 32.0 * 64 * iters * 128; // 32 warps x 64 line loads x iterations
}
double dram_bytes(const nlohmann::json& s, unsigned)
{
    return kernels(s, "lines", "dram_read_bytes");
}
/// Bytes of the lines the LLC slices answered (hits, fills and merged misses): with loads in
/// flight a warp's passes over a line overlap and the L1 answers some of them, so the lines
/// the kernel loads overstate the LLC's traffic.
double llc_bytes(const nlohmann::json& s, unsigned)
{
    static const std::regex answered(R"(.*\.llc\d+\.(hits|misses|mshr_merges)$)");
    double lines = 0;
    for (const auto& kv : s.at("stats").items())
        if (std::regex_match(kv.key(), answered))
            lines += kv.value().get<double>();
    return 128.0 * lines;
}

const std::string lines_wl = " -w '" + micro + "lines.yaml'";
const std::string wide = " -s noc.response_width_bytes=128 -s noc.xbar_response_width_bytes=128";
} // namespace

TEST_CASE("micro fidelity: L1 hit latency, accurate", "[figures]")
{
    latency_case("l1_hit", "", 64, 320, "accurate", l1_hit);
}
TEST_CASE("micro fidelity: L1 hit latency, fast", "[figures]")
{
    latency_case("l1_hit", "", 64, 320, "fast", l1_hit);
}
TEST_CASE("micro fidelity: LLC hit latency, accurate", "[figures]")
{
    latency_case("llc_hit", "-D chain=32768", 1024, 2048, "accurate", llc_hit);
}
TEST_CASE("micro fidelity: LLC hit latency, fast", "[figures]")
{
    latency_case("llc_hit", "-D chain=32768", 1024, 2048, "fast", llc_hit);
}
TEST_CASE("micro fidelity: DRAM row-miss latency, accurate", "[figures]")
{
    latency_case("row_miss", "-D chain=2097152 -D stride=512", 4096, 8192, "accurate",
                 row_conflict);
}
TEST_CASE("micro fidelity: DRAM row-miss latency, fast", "[figures]")
{
    latency_case("row_miss", "-D chain=2097152 -D stride=512", 4096, 8192, "fast", row_conflict);
}
TEST_CASE("micro fidelity: remote latency, accurate", "[figures]")
{
    latency_case("remote", "-c '" + mcm4 + "' -D chain=32768 -D home=8", 1024, 2048, "accurate",
                 remote_hit);
}
TEST_CASE("micro fidelity: remote latency, fast", "[figures]")
{
    latency_case("remote", "-c '" + mcm4 + "' -D chain=32768 -D home=8", 1024, 2048, "fast",
                 remote_hit);
}
TEST_CASE("micro fidelity: L1 bandwidth, accurate", "[figures]")
{
    bandwidth_case("l1_bw", " -w '" + micro + "l1_bw.yaml'", "iters", 8, 32, "l1_bw", l1_bytes,
                   "accurate", l1_peak);
}
TEST_CASE("micro fidelity: L1 bandwidth, fast", "[figures]")
{
    bandwidth_case("l1_bw", " -w '" + micro + "l1_bw.yaml'", "iters", 8, 32, "l1_bw", l1_bytes,
                   "fast", l1_peak);
}
// 122.8 GB/s of 128 (95.9 %) in accurate mode, 124.0 (96.9 %) in fast mode; 25 and 26 % of
// the accesses row conflicts (each LD reads half a row of each channel). Without the FR-FCFS
// rule that keeps a bank's open row while it has queued hits (40aa9aa), accurate mode closes
// rows under hits waiting for the data bus: 86.0 GB/s (67 %), 60 % conflicts.
TEST_CASE("micro fidelity: DRAM bandwidth, accurate", "[figures]")
{
    bandwidth_case("dram_bw", lines_wl + " -D lines=8192 -D step=8 -D lane=32" + wide, "passes", 1,
                   3, "lines", dram_bytes, "accurate", dram_peak);
}
TEST_CASE("micro fidelity: DRAM bandwidth, fast", "[figures]")
{
    bandwidth_case("dram_bw", lines_wl + " -D lines=8192 -D step=8 -D lane=32" + wide, "passes", 1,
                   3, "lines", dram_bytes, "fast", dram_peak);
}
// 512 lines, not 256: the lines 4 apart fall in 16 sets of an L1 (64 lines), so with 256 of
// them a warp less than a quarter of a pass behind another finds their lines still there; how far
// warps drift apart in accurate mode follows any change of timing (noc.hop_latency 3,
// llc.hit_latency 21 or noc.arbiter fifo gave L1 hit rates of 0.31-0.39 and 108-114 GB/s at
// the LLC). With 512 the L1 answers too few of them to matter: 120-128 GB/s under the same
// changes.
TEST_CASE("micro fidelity: all SMs on one LLC slice, accurate", "[figures]")
{
    bandwidth_case("llc_slice", lines_wl + " -D lines=512 -D step=4" + wide, "passes", 32, 128,
                   "lines", llc_bytes, "accurate", slice_peak);
}
TEST_CASE("micro fidelity: all SMs on one LLC slice, fast", "[figures]")
{
    bandwidth_case("llc_slice", lines_wl + " -D lines=512 -D step=4" + wide, "passes", 32, 128,
                   "lines", llc_bytes, "fast", slice_peak);
}
TEST_CASE("micro fidelity: one LLC bank, accurate", "[figures]")
{
    bandwidth_case("llc_bank", lines_wl + " -D lines=128 -D step=512 -D threads=512" + wide,
                   "passes", 32, 128, "lines", llc_bytes, "accurate", bank_peak);
}
TEST_CASE("micro fidelity: one LLC bank, fast", "[figures]")
{
    bandwidth_case("llc_bank", lines_wl + " -D lines=128 -D step=512 -D threads=512" + wide,
                   "passes", 32, 128, "lines", llc_bytes, "fast", bank_peak);
}

// One SM, 32 warps with 8 line loads each in flight, lines the LLC holds, and 8 places
// (sm.max_line_requests): 15.515 GB/s in both modes, 100.0 % of 8 x 128 B per 66 ns round
// trip (31.03 GB/s with 16 places); 13.7 GB/s over the longer run's whole window.
TEST_CASE("micro fidelity: line requests in flight, accurate", "[figures]")
{
    bandwidth_case("line_limit",
                   lines_wl + " -D lines=2048 -D sms=1 -D ctas=1 -s sm.max_line_requests=8",
                   "passes", 2, 6, "lines", llc_bytes, "accurate", line_limit_peak);
}
TEST_CASE("micro fidelity: line requests in flight, fast", "[figures]")
{
    bandwidth_case("line_limit",
                   lines_wl + " -D lines=2048 -D sms=1 -D ctas=1 -s sm.max_line_requests=8",
                   "passes", 2, 6, "lines", llc_bytes, "fast", line_limit_peak);
}

namespace {
/// Remote read and write side by side (phase 5) against the longer alone (phases 2 and 4),
/// each the difference of two runs.
void remote_rw(const std::string& mode)
{
    cli_runner r("micro_remote_rw_" + mode);
    const std::string base =
        "-c '" + mcm4 + "' -w '" + micro + "remote_rw.yaml' -s sm.scheduler=lrr" + mode_args(mode);
    const run_result a = run(r, base + " -D passes=2", "a");
    const run_result b = run(r, base + " -D passes=6", "b");
    auto phase = [&](unsigned i) {
        return window(b.stats.at("phases").at(i)) - window(a.stats.at("phases").at(i));
    };
    const double read = phase(2), write = phase(4), both = phase(5);
    INFO(mode << ": read alone " << read << " ns, write alone " << write << " ns, side by side "
              << both << " ns: " << both / std::max(read, write) << "x");
    CHECK(both <= 1.05 * std::max(read, write));
}
} // namespace

// Side by side takes 1.00x the time of either alone in both modes (read, write and both
// 32768 ns). Read headers and write acknowledgements travel on the ports' command channels
// (noc.header_bytes = noc.xbar_header_bytes = 0) and the link's sideband; with a data-channel
// flit each (header_bytes 8) a line pair holds the home NoC's link port and the remote NoC's
// response port 5 cycles instead of 4: 1.25x in both modes.
TEST_CASE("micro fidelity: remote read and write side by side, accurate", "[figures]")
{
    remote_rw("accurate");
}
TEST_CASE("micro fidelity: remote read and write side by side, fast", "[figures]")
{
    remote_rw("fast");
}

// ---- cases held to the timing contract at every quantum (issue 34) ----
// Each runs in accurate mode and in fast mode at quanta 0, 100 and 1000 ns: fast within 5 % of
// accurate, every mode within 10 % of the implied figure where there is one, and never above a
// configured peak.

namespace {
/// One mode of a contract case: "accurate", or fast at a quantum.
struct mode_run {
    std::string label, tag, args;
};
std::vector<mode_run> contract_modes()
{
    const std::string fast = mode_args("fast") + " -s platform.timing.quantum_ns=";
    return {{"accurate", "accurate", mode_args("accurate")},
            {"fast q=0", "fast_q0", fast + "0"},
            {"fast q=100", "fast_q100", fast + "100"},
            {"fast q=1000", "fast_q1000", fast + "1000"}};
}

/// Fast mode's figure within 5 % of accurate mode's, at every quantum (the default is 100 ns).
void check_fast_near_accurate(const std::vector<double>& figures)
{
    for (std::size_t i = 1; i < figures.size(); ++i) {
        INFO(contract_modes()[i].label << ": " << figures[i] << ", accurate " << figures[0]);
        CHECK(std::abs(figures[i] - figures[0]) <= 0.05 * figures[0]);
    }
}

/// The NoC response port of one LLC slice: cyc(line, response width) cycles per line.
double slice_port_peak(const path& p)
{
    return p.line / (path::cyc(p.line, p.noc_rsp_w) * p.noc);
}
} // namespace

// All 8 SMs read 4096 lines 4 apart (512 KiB, all in slice 0; llc.sets 1024 so that the slice
// holds them, and no L1 holds a warp's lines until it reads them again): every response leaves
// through slice 0's port of the module NoC, 32 B per NoC cycle = 32 GB/s. Booked only on the
// requesters' ports (before issue 34), the slice delivered 64 GB/s (one port per cluster).
// Measured: 32.00 GB/s in both modes at every quantum.
TEST_CASE("micro fidelity: hot LLC slice bounded by its response port, both modes", "[figures]")
{
    std::vector<double> figures;
    for (const auto& m : contract_modes()) {
        cli_runner r("micro_hot_slice_" + m.tag);
        const std::string base = lines_wl + " -D lines=4096 -D step=4 -s llc.sets=1024" +
                                 " -s sm.scheduler=lrr" + m.args;
        const run_result a = run(r, base + " -D passes=2", "a");
        const run_result b = run(r, base + " -D passes=6", "b");
        const double dt = kernels(b.stats, "lines") - kernels(a.stats, "lines");
        const double measured = (llc_bytes(b.stats, 6) - llc_bytes(a.stats, 2)) / dt;
        const double whole = llc_bytes(b.stats, 6) / kernels(b.stats, "lines");
        const double peak = slice_port_peak(path(a.cfg));
        INFO("hot slice " << m.label << ": " << measured << " GB/s (longer run " << whole
                          << " GB/s), slice port " << peak << " GB/s");
        CHECK(std::abs(measured - peak) <= 0.1 * peak);
        CHECK(measured <= 1.02 * peak);
        CHECK(whole <= peak * (1 + 1e-9));
        figures.push_back(measured);
    }
    check_fast_near_accurate(figures);
}

namespace {
/// A kernel with no closed-form figure (`wl`, its arguments `args`, on the platform `args`
/// names): fast mode's kernel time within 5 % of accurate mode's at every quantum, and the DRAM
/// never moves more than its peak over the kernel's window.
void kernel_contract(const std::string& tag, const std::string& args, const std::string& kernel)
{
    std::vector<double> figures;
    for (const auto& m : contract_modes()) {
        cli_runner r("micro_" + tag + "_" + m.tag);
        const run_result a = run(r, args + m.args, "a");
        const double t = kernels(a.stats, kernel);
        const double dram = (kernels(a.stats, kernel, "dram_read_bytes") +
                             kernels(a.stats, kernel, "dram_write_bytes")) /
                            t;
        const double peak = a.cfg.num("dram", "channels") * a.cfg.num("dram", "bandwidth_gbps");
        INFO(tag << " " << m.label << ": " << t << " ns, DRAM " << dram << " GB/s of " << peak);
        CHECK(dram <= peak);
        figures.push_back(t);
    }
    check_fast_near_accurate(figures);
}

/// A random 4-byte gather over a table of `mib` MiB (micro/gather.yaml).
void gather_contract(unsigned mib)
{
    kernel_contract("gather_" + std::to_string(mib) + "m",
                    " -w '" + micro + "gather.yaml' -D table_mib=" + std::to_string(mib), "gather");
}
} // namespace

// 8 SMs gather 32,768 random words (one LD of the index, one of up to 32 lines per warp): bound
// by DRAM bank conflicts (about 24 GB/s; accurate 52,912 ns at 16 MiB, 54,484 ns at 64 MiB). The
// L1's 32 MSHRs are busy for most misses. Fast mode was +5.8 % (16 MiB) and +5.5 % (64 MiB) at
// the default quantum while such a miss was booked ahead at its MSHR's time and reached the
// DRAM microseconds ahead of global time in call order, so its banks lost the gaps that order
// left; now the SM replays it when an MSHR is free (as accurate mode's L1 keeps it waiting),
// without a second tag check: -0.0 / +0.2 / +0.2 % (16 MiB) and -0.5 / -0.1 / -0.5 % (64 MiB)
// at 0 / 100 / 1000 ns.
TEST_CASE("micro fidelity: random gather over 16 MiB, fast within 5 % of accurate", "[figures]")
{
    gather_contract(16);
}
TEST_CASE("micro fidelity: random gather over 64 MiB, fast within 5 % of accurate", "[figures]")
{
    gather_contract(64);
}

// The 16 MiB gather with the timed TLB (L1 TLB 16x4, L2 TLB 64x8, 8 walkers per cluster):
// bound by the page walkers (about 12,200 walks per cluster in accurate mode, 59,113 ns). Fast
// mode was +11.9 to +14.2 % while a line read the L1 answered "replay when an MSHR is free" was
// translated again at its replay (twice the translations, a second L2 TLB lookup or walk on the
// way to its MSHR) and while the LLC merged a PTE or data read with a fill asked for later in
// simulated time (booked ahead at its walker's turn); now the replay keeps its translation and
// such a read misses itself: +4.2 / +4.7 / +4.1 % at 0 / 100 / 1000 ns (issue 35).
TEST_CASE("micro fidelity: random gather over 16 MiB, timed TLB, fast within 5 % of accurate",
          "[figures]")
{
    // Was checked at 6 % at quantum 1000 ns while the timed TLB's walk thread was not a member
    // of the same-time gate the SMs resume through (fast +3.2 / +4.8 / +5.5 % at 0 / 100 /
    // 1000 ns); as a member (before the SMs at one time): +2.7 / +2.2 / +4.1 % (2026-12-02).
    kernel_contract("gather_16m_tlb",
                    " -w '" + micro + "gather.yaml' -D table_mib=16 -s tlb.model=timed", "gather");
}

// dram_row_local.yaml (each warp's lanes read 32 consecutive lines: mostly row hits) and its
// random twin dram_random.yaml on the default platform; both keep every L1's MSHRs busy, so
// most line reads wait for one. Fast mode was +10.7 % on dram_row_local at the default quantum
// while its replay of such a read took the L1's tag stage a second time: the tag latency was
// added to every MSHR's wait and the tag stage, held twice per miss, delayed the next misses
// (accurate mode's waiting miss goes below without a second tag check). Now (accurate 5,141
// and 13,865 ns) fast is -0.9 / -0.8 / -0.9 % and -0.5 / -1.3 / -1.2 % at 0 / 100 / 1000 ns.
TEST_CASE("micro fidelity: DRAM row-local gather, fast within 5 % of accurate", "[figures]")
{
    kernel_contract("dram_row_local", " -w '" + micro + "dram_row_local.yaml'", "gather");
}
TEST_CASE("micro fidelity: DRAM random gather, fast within 5 % of accurate", "[figures]")
{
    kernel_contract("dram_random", " -w '" + micro + "dram_random.yaml'", "gather");
}

namespace {
/// Issue order: time per load or iteration (the kernel window difference of two runs over
/// `per` x the iteration difference) in accurate mode and in fast mode at quanta 0, 100 and
/// 1000 ns: each within 10 % of the figure, fast mode within 5 % of accurate mode.
void order_case(const std::string& tag, const std::string& args, const std::string& kernel,
                unsigned per, double (*implied)(const path&))
{
    const unsigned lo = 64, hi = 128;
    double accurate = 0;
    for (const char* q : {"accurate", "0", "100", "1000"}) {
        const bool acc = std::string(q) == "accurate";
        cli_runner r("micro_" + tag + "_" + q);
        const std::string base =
            args + (acc ? mode_args("accurate")
                        : mode_args("fast") + " -s platform.timing.quantum_ns=" + q);
        const run_result a = run(r, base + " -D iters=" + std::to_string(lo), "a");
        const run_result b = run(r, base + " -D iters=" + std::to_string(hi), "b");
        const double measured =
            (kernels(b.stats, kernel) - kernels(a.stats, kernel)) / ((hi - lo) * per);
        const double expected = implied(path(a.cfg));
        if (acc)
            accurate = measured;
        INFO(tag << " " << (acc ? "accurate" : "fast, quantum " + std::string(q) + " ns") << ": "
                 << measured << " ns, expected " << expected << " ns, accurate mode " << accurate
                 << " ns");
        CHECK(std::abs(measured - expected) <= 0.10 * expected);
        CHECK(std::abs(measured - accurate) <= 0.05 * accurate);
    }
}
double llc_load(const path& p)
{
    return p.to_core(p.local(0));
}
const std::string waw_wl = " -w '" + micro + "waw.yaml'";
} // namespace

// A load that writes the register of a pending load waits for it (write after write), in both
// modes (fast mode did not: 29.5 ns per iteration against accurate mode's 236 with one
// register, 29.5 against 59 with four): four independent LLC-hit loads per iteration into one
// register take one LLC hit each (59 ns on the default platform) ...
TEST_CASE("micro fidelity: write after write on one register, both modes", "[figures]")
{
    order_case("waw_one_reg", waw_wl + " -D spread=0", "waw", 4, llc_load);
}
// ... and into four registers, reused every iteration, one LLC hit per iteration.
TEST_CASE("micro fidelity: write after write on four registers, both modes", "[figures]")
{
    order_case("waw_four_regs", waw_wl + " -D spread=1", "waw", 1, llc_load);
}
// A store to one LLC-resident line and an independent L1-hit load per iteration: the stores to
// the line follow each other through the in-order path instead of waiting for each other's
// completion (66 ns per iteration before, in both modes), so an iteration takes one L1 hit.
TEST_CASE("micro fidelity: stores to one line pipeline, both modes", "[figures]")
{
    order_case("store_order", " -w '" + micro + "store_order.yaml'", "store_order", 1, l1_hit);
}
