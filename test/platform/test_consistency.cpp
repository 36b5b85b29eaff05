// Randomized memory-consistency test: a seeded, data-race-free workload run by vgpu-sim and
// checked against an independent model of its private, CTA-shared and read-only accesses.
#include "test/platform/cli_runner.h"
#include "test/seed.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

using vgpu::test::cli_runner;

namespace {

// Shape of the workload: 16 CTAs x 64 threads (2 warps each) spread over the SMs.
constexpr std::uint32_t grid = 16;
constexpr std::uint32_t block = 64; // a power of two (address permutations mask with block-1)
constexpr std::uint32_t threads = grid * block; // a power of two
constexpr std::uint32_t priv_slots = 4;         // private words per thread
constexpr std::uint32_t shared_slots = 3;       // shared words per thread of a CTA
constexpr std::uint32_t table_words = 512;      // read-only table, a power of two
constexpr std::uint32_t rounds = 4;             // write half, BAR, read half, BAR
constexpr std::uint32_t load_regs = 32;         // R16..R47 receive loaded values
constexpr std::uint32_t first_load_reg = 16;
constexpr std::uint32_t res_fill = 0xdeadbeefu; // results never written keep this

enum class kind {
    priv_store,   // private slot `slot` = value
    priv_load,    // load private slot `slot`
    shared_store, // CTA word slot*block + ((tid*mul + add) & (block-1)) = value
    shared_load,  // load CTA word slot*block + ((tid*mul + add) & (block-1))
    table_load,   // load table[((gtid*mul + add) ^ x) & (table_words-1)]
    flush,        // write the pending loaded values to the results buffer
    barrier,      // BAR
};

/// One step of the program that every thread runs. A value is gtid*vmul + vadd, or (src >= 0)
/// the value of load number src plus vadd.
struct op {
    kind k;
    std::uint32_t slot = 0, mul = 0, add = 0, x = 0;
    std::uint32_t vmul = 0, vadd = 0;
    int src = -1;
    int load = -1; // loads: the index of this load (its results row)
};

/// The generated test: the operation list, the layout constants and the initial contents.
struct program {
    std::vector<op> ops;
    std::array<std::uint32_t, priv_slots> priv_mul{}, priv_add{}; // private address permutation
    std::uint32_t loads = 0;
    std::vector<std::uint32_t> priv0, shared0, table;
};

std::uint32_t priv_index(const program& p, std::uint32_t gtid, std::uint32_t slot)
{
    return slot * threads + ((gtid * p.priv_mul[slot] + p.priv_add[slot]) & (threads - 1));
}

std::uint32_t shared_index(std::uint32_t cta, std::uint32_t tid, const op& o)
{
    return cta * block * shared_slots + o.slot * block + ((tid * o.mul + o.add) & (block - 1));
}

std::uint32_t table_index(std::uint32_t gtid, const op& o)
{
    return ((gtid * o.mul + o.add) ^ o.x) & (table_words - 1);
}

/// The random operation list for `seed`: data-race-free by construction (see the model).
program generate(std::uint32_t seed)
{
    std::mt19937 rng(seed);
    auto below = [&](std::uint32_t n) {
        return std::uniform_int_distribution<std::uint32_t>(0, n - 1)(rng);
    };
    auto word = [&] { return static_cast<std::uint32_t>(rng()); };
    auto odd = [&] { return word() | 1u; };
    program p;
    for (std::uint32_t s = 0; s < priv_slots; ++s) {
        p.priv_mul[s] = odd();
        p.priv_add[s] = word();
    }
    for (std::uint32_t i = 0; i < threads * priv_slots; ++i)
        p.priv0.push_back(word());
    for (std::uint32_t i = 0; i < threads * shared_slots; ++i)
        p.shared0.push_back(word());
    for (std::uint32_t i = 0; i < table_words; ++i)
        p.table.push_back(word());

    int loads = 0, pending = 0;
    auto value = [&](op& o) {
        o.vadd = word();
        // a loaded value whose register is still live (not overwritten by a later load)
        if (loads > 0 && below(3) == 0)
            o.src =
                loads - 1 - static_cast<int>(below(std::min<std::uint32_t>(loads, load_regs / 2)));
        else
            o.vmul = odd();
    };
    auto load = [&](op o) {
        o.load = loads++;
        p.ops.push_back(o);
        // flush at random, and always before a load register is reused
        if (++pending >= 8 || below(3) == 0) {
            p.ops.push_back(op{kind::flush});
            pending = 0;
        }
    };
    auto priv_op = [&] {
        op o{below(2) ? kind::priv_store : kind::priv_load};
        o.slot = below(priv_slots);
        if (o.k == kind::priv_store) {
            value(o);
            p.ops.push_back(o);
        } else {
            load(o);
        }
    };
    auto table_op = [&] {
        op o{kind::table_load};
        o.mul = odd();
        o.add = word();
        o.x = word();
        load(o);
    };
    for (std::uint32_t r = 0; r < rounds; ++r) {
        // Write half: each written slot has one owner permutation for the round; a thread may
        // reread its own words, and anyone may read the slots nobody writes in this round.
        std::array<bool, shared_slots> written{};
        std::array<std::uint32_t, shared_slots> wmul{}, wadd{};
        std::array<bool, shared_slots> stored{};
        for (std::uint32_t s = 0; s < shared_slots; ++s) {
            written[s] = below(3) != 0;
            wmul[s] = odd();
            wadd[s] = word();
        }
        for (std::uint32_t n = 8 + below(8); n-- > 0;) {
            const std::uint32_t c = below(10);
            if (c < 3) {
                priv_op();
            } else if (c < 4) {
                table_op();
            } else {
                const std::uint32_t s = below(shared_slots);
                op o{kind::shared_load};
                o.slot = s;
                if (written[s]) {
                    o.mul = wmul[s];
                    o.add = wadd[s];
                    if (!stored[s] || below(2)) {
                        o.k = kind::shared_store;
                        value(o);
                        stored[s] = true;
                        p.ops.push_back(o);
                    } else {
                        load(o); // its own word, written earlier in this half
                    }
                } else {
                    o.mul = odd();
                    o.add = word();
                    load(o);
                }
            }
        }
        // every slot chosen for writing is written, so each of its words has exactly one owner
        for (std::uint32_t s = 0; s < shared_slots; ++s)
            if (written[s] && !stored[s]) {
                op o{kind::shared_store};
                o.slot = s;
                o.mul = wmul[s];
                o.add = wadd[s];
                value(o);
                p.ops.push_back(o);
            }
        p.ops.push_back(op{kind::barrier});
        // Read half: nobody writes shared words; anyone reads any word of its CTA.
        for (std::uint32_t n = 8 + below(8); n-- > 0;) {
            const std::uint32_t c = below(10);
            if (c < 3) {
                priv_op();
            } else if (c < 4) {
                table_op();
            } else {
                op o{kind::shared_load};
                o.slot = below(shared_slots);
                o.mul = odd();
                o.add = word();
                load(o);
            }
        }
        p.ops.push_back(op{kind::barrier});
    }
    // read back every private word, in a random order
    std::vector<std::uint32_t> order(priv_slots);
    for (std::uint32_t s = 0; s < priv_slots; ++s)
        order[s] = s;
    std::shuffle(order.begin(), order.end(), rng);
    for (std::uint32_t s : order) {
        op o{kind::priv_load};
        o.slot = s;
        load(o);
    }
    if (pending > 0)
        p.ops.push_back(op{kind::flush});
    p.loads = static_cast<std::uint32_t>(loads);
    return p;
}

/// The expected final contents, computed by running the operation list on plain arrays.
struct model_result {
    std::vector<std::uint32_t> priv, shared, res;
    bool valid = true; // data-race-free and well-formed
};

model_result run_model(const program& p)
{
    model_result m{p.priv0, p.shared0, std::vector<std::uint32_t>(p.loads * threads, res_fill)};
    // Between two barriers the threads may run in any order; the program is data-race-free, so
    // one thread after another gives the only possible result. Race check: a shared word
    // written in a segment is touched in that segment by its writer only.
    std::vector<std::vector<std::uint32_t>> loaded(threads);
    std::size_t begin = 0;
    while (begin < p.ops.size()) {
        std::size_t end = begin;
        while (end < p.ops.size() && p.ops[end].k != kind::barrier)
            ++end;
        std::map<std::uint32_t, std::uint32_t> writer;        // shared word -> gtid
        std::map<std::uint32_t, std::set<std::uint32_t>> who; // shared word -> accessing gtids
        for (std::uint32_t g = 0; g < threads; ++g) {
            const std::uint32_t cta = g / block, tid = g % block;
            auto value = [&](const op& o) {
                return o.src >= 0 ? loaded[g][static_cast<std::size_t>(o.src)] + o.vadd
                                  : g * o.vmul + o.vadd;
            };
            auto record = [&](const op& o, std::uint32_t v) {
                if (loaded[g].size() != static_cast<std::size_t>(o.load))
                    m.valid = false; // loads are numbered in program order
                loaded[g].push_back(v);
                m.res[static_cast<std::size_t>(o.load) * threads + g] = v;
            };
            for (std::size_t i = begin; i < end; ++i) {
                const op& o = p.ops[i];
                switch (o.k) {
                case kind::priv_store:
                    m.priv[priv_index(p, g, o.slot)] = value(o);
                    break;
                case kind::priv_load:
                    record(o, m.priv[priv_index(p, g, o.slot)]);
                    break;
                case kind::shared_store: {
                    const std::uint32_t w = shared_index(cta, tid, o);
                    if (writer.count(w) && writer[w] != g)
                        m.valid = false;
                    writer[w] = g;
                    who[w].insert(g);
                    m.shared[w] = value(o);
                    break;
                }
                case kind::shared_load: {
                    const std::uint32_t w = shared_index(cta, tid, o);
                    who[w].insert(g);
                    record(o, m.shared[w]);
                    break;
                }
                case kind::table_load:
                    record(o, p.table[table_index(g, o)]);
                    break;
                case kind::flush:
                case kind::barrier:
                    break;
                }
            }
        }
        for (const auto& [w, g] : writer)
            if (who[w].size() != 1)
                m.valid = false;
        begin = end + 1;
    }
    return m;
}

std::string hex(std::uint32_t v)
{
    std::ostringstream s;
    s << "0x" << std::hex << v;
    return s.str();
}

/// The kernel text: one program for every thread, addresses and values from thread ids.
std::string assembly(const program& p)
{
    std::ostringstream a;
    auto line = [&](const std::string& s) { a << "        " << s << "\n"; };
    auto reg = [](int load) {
        return "R" + std::to_string(first_load_reg + static_cast<std::uint32_t>(load) % load_regs);
    };
    a << "# generated: private, CTA-shared (BAR) and table accesses; R0 gtid, R1 tid\n";
    line("S2R  R0, SR_GLOBAL_TID_X");
    line("S2R  R1, SR_TID_X");
    line("S2R  R2, SR_CTAID_X");
    line("LDP  R3, priv");
    line("LDP  R4, shr");
    line("LDP  R5, tab");
    line("LDP  R6, res");
    line("IMUL R7, R2, " + std::to_string(block * shared_slots * 4));
    line("IADD R7, R7, R4                # this CTA's shared words");
    line("SHL  R13, R0, 2");
    line("IADD R13, R13, R6              # &res[gtid]");
    std::vector<int> pending;
    auto value = [&](const op& o) {
        if (o.src >= 0)
            line("IADD R9, " + reg(o.src) + ", " + hex(o.vadd));
        else
            line("IMAD R9, R0, " + hex(o.vmul) + ", " + hex(o.vadd));
    };
    auto priv_addr = [&](std::uint32_t slot) {
        line("IMAD R8, R0, " + hex(p.priv_mul[slot]) + ", " + hex(p.priv_add[slot]));
        line("AND  R8, R8, " + std::to_string(threads - 1));
        line("SHL  R8, R8, 2");
        line("IADD R8, R8, R3");
        return "[R8 + " + std::to_string(slot * threads * 4) + "]";
    };
    auto shared_addr = [&](const op& o) {
        line("IMAD R8, R1, " + hex(o.mul) + ", " + hex(o.add));
        line("AND  R8, R8, " + std::to_string(block - 1));
        line("SHL  R8, R8, 2");
        line("IADD R8, R8, R7");
        return "[R8 + " + std::to_string(o.slot * block * 4) + "]";
    };
    for (const op& o : p.ops) {
        switch (o.k) {
        case kind::priv_store:
            value(o);
            line("ST   " + priv_addr(o.slot) + ", R9");
            break;
        case kind::priv_load:
            line("LD   " + reg(o.load) + ", " + priv_addr(o.slot));
            pending.push_back(o.load);
            break;
        case kind::shared_store:
            value(o);
            line("ST   " + shared_addr(o) + ", R9");
            break;
        case kind::shared_load:
            line("LD   " + reg(o.load) + ", " + shared_addr(o));
            pending.push_back(o.load);
            break;
        case kind::table_load:
            line("IMAD R8, R0, " + hex(o.mul) + ", " + hex(o.add));
            line("XOR  R8, R8, " + hex(o.x));
            line("AND  R8, R8, " + std::to_string(table_words - 1));
            line("SHL  R8, R8, 2");
            line("IADD R8, R8, R5");
            line("LD   " + reg(o.load) + ", [R8]");
            pending.push_back(o.load);
            break;
        case kind::flush:
            for (int l : pending)
                line("ST   [R13 + " + std::to_string(static_cast<std::uint32_t>(l) * threads * 4) +
                     "], " + reg(l));
            pending.clear();
            break;
        case kind::barrier:
            line("BAR");
            break;
        }
    }
    line("EXIT");
    return a.str();
}

std::string list(const std::vector<std::uint32_t>& v)
{
    std::string s = "[";
    for (std::size_t i = 0; i < v.size(); ++i)
        s += (i ? ", " : "") + std::to_string(v[i]);
    return s + "]";
}

/// The workload file; `corrupt` changes one expected result (the negative control);
/// `on_demand` gives every buffer `alloc: on_demand` (its pages are faulted in by the host).
std::string workload(const program& p, const model_result& m, bool corrupt, bool on_demand)
{
    const std::string alloc = on_demand ? ", alloc: on_demand" : "";
    std::vector<std::uint32_t> res = m.res;
    if (corrupt)
        res[res.size() / 2] ^= 1u;
    std::ostringstream w;
    w << "name: consistency\n"
      << "buffers:\n"
      << "  - {name: priv, type: u32, elements: " << p.priv0.size()
      << ", init: {values: " << list(p.priv0) << "}" << alloc << "}\n"
      << "  - {name: shr, type: u32, elements: " << p.shared0.size()
      << ", init: {values: " << list(p.shared0) << "}" << alloc << "}\n"
      << "  - {name: tab, type: u32, elements: " << p.table.size()
      << ", init: {values: " << list(p.table) << "}" << alloc << "}\n"
      << "  - {name: res, type: u32, elements: " << res.size() << ", init: {fill: " << res_fill
      << "}" << alloc << "}\n"
      << "kernels:\n"
      << "  - name: mix\n"
      << "    params:\n"
      << "      - {name: priv, buffer: priv}\n"
      << "      - {name: shr, buffer: shr}\n"
      << "      - {name: tab, buffer: tab}\n"
      << "      - {name: res, buffer: res}\n"
      << "    grid: [" << grid << ", 1]\n"
      << "    block: [" << block << ", 1]\n"
      << "    program: |\n";
    std::istringstream text(assembly(p));
    for (std::string l; std::getline(text, l);)
        w << "      " << l << "\n";
    w << "checks:\n"
      << "  - {buffer: res, expect: " << list(res) << "}\n"
      << "  - {buffer: priv, expect: " << list(m.priv) << "}\n"
      << "  - {buffer: shr, expect: " << list(m.shared) << "}\n"
      << "  - {buffer: tab, expect: " << list(p.table) << "}\n";
    return w.str();
}

/// Generates, models and runs one workload; checks the exit code and verdict (exit code 1 and
/// exactly one differing result when `corrupt`), and returns the run's statistics.
nlohmann::json run_case(const std::string& tag, std::uint32_t seed, const std::string& options,
                        bool corrupt = false, bool on_demand = false)
{
    const program p = generate(seed);
    const model_result m = run_model(p);
    REQUIRE(m.valid);
    cli_runner cli("consistency_" + tag);
    const std::string text = workload(p, m, corrupt, on_demand);
    cli.write("w.yaml", text);
    const std::string args = "-s platform.kind=gpu " + options + " -w w.yaml";
    const auto r = cli.run(args);
    INFO("seed " << seed << " (rerun with VGPU_TEST_SEED=" << seed << "), vgpu-sim " << args
                 << ", loads per thread: " << p.loads << ", operations: " << p.ops.size());
    INFO("stdout:\n" << r.out << "\nstderr:\n" << r.err.substr(0, 4000));
    const int want = corrupt ? 1 : 0;
    std::string kept;
    if (r.code != want) {
        // keep the workload for reproduction (the scratch folder is removed)
        const auto path = std::filesystem::temp_directory_path() /
                          ("vgpu_consistency_" + tag + "_seed" + std::to_string(seed) + ".yaml");
        std::ofstream(path) << text;
        kept = path.string();
    }
    INFO("workload kept in: " << (kept.empty() ? "(not kept: the run behaved)" : kept));
    CHECK(r.code == want);
    if (corrupt) {
        CHECK(r.out.find("verdict: fail") != std::string::npos);
        CHECK(r.err.find("buffer 'res' (expect): 1 of") != std::string::npos);
    } else {
        CHECK(r.out.find("verdict: pass") != std::string::npos);
    }
    return cli.exists("out/stats.json") ? nlohmann::json::parse(cli.read("out/stats.json"))
                                        : nlohmann::json::object();
}

/// How many SMs ran CTAs, and the bytes that crossed the inter-module links.
std::pair<int, double> spread(const nlohmann::json& stats)
{
    int sms = 0;
    double link_bytes = 0;
    if (!stats.contains("stats"))
        return {0, 0};
    for (const auto& [key, v] : stats["stats"].items()) {
        const bool ctas = key.size() > 5 && key.compare(key.size() - 5, 5, ".ctas") == 0;
        if (ctas && key.find(".sm") != std::string::npos && v.get<double>() > 0)
            ++sms;
        if (key.rfind("gpu.link_", 0) == 0 && key.size() > 6 &&
            key.compare(key.size() - 6, 6, ".bytes") == 0 &&
            key.find("channel") == std::string::npos)
            link_bytes += v.get<double>();
    }
    return {sms, link_bytes};
}

} // namespace

TEST_CASE("consistency: random race-free private/shared/table accesses, fast timing")
{
    const std::uint32_t seed = vgpu::test::seed_or(1);
    CAPTURE(seed);
    const auto [sms, link_bytes] = spread(run_case("fast", seed, "-s platform.timing.mode=fast"));
    CHECK(sms == 8);
    CHECK(link_bytes == 0);
}

TEST_CASE("consistency: random race-free private/shared/table accesses, accurate timing")
{
    const std::uint32_t seed = vgpu::test::seed_or(2);
    CAPTURE(seed);
    const auto [sms, link_bytes] =
        spread(run_case("accurate", seed, "-s platform.timing.mode=accurate"));
    CHECK(sms == 8);
    CHECK(link_bytes == 0);
}

TEST_CASE("consistency: random race-free accesses on 2 modules, round-robin pages, fast")
{
    const std::uint32_t seed = vgpu::test::seed_or(3);
    CAPTURE(seed);
    const auto [sms, link_bytes] = spread(run_case("modules_fast", seed,
                                                   "-s platform.modules=2 -s "
                                                   "memory.page_alloc=round_robin "
                                                   "-s platform.timing.mode=fast"));
    CHECK(sms == 16);
    CHECK(link_bytes > 0); // data crossed between the modules
}

TEST_CASE("consistency: random race-free accesses on 2 modules, round-robin pages, accurate")
{
    const std::uint32_t seed = vgpu::test::seed_or(4);
    CAPTURE(seed);
    const auto [sms, link_bytes] = spread(run_case("modules_accurate", seed,
                                                   "-s platform.modules=2 -s "
                                                   "memory.page_alloc=round_robin "
                                                   "-s platform.timing.mode=accurate"));
    CHECK(sms == 16);
    CHECK(link_bytes > 0);
}

TEST_CASE("consistency: negative control, one corrupted expected value fails with exit code 1")
{
    const std::uint32_t seed = vgpu::test::seed_or(1);
    CAPTURE(seed);
    run_case("corrupt", seed, "-s platform.timing.mode=fast", true);
}

// The same programs with every buffer on_demand: each page arrives through a page fault that
// the host's shadow thread services (its initial values staged on the host), while the
// accesses of other warps go on.
TEST_CASE("consistency: random race-free accesses on on_demand buffers (page faults), fast")
{
    const std::uint32_t seed = vgpu::test::seed_or(5);
    CAPTURE(seed);
    const nlohmann::json st =
        run_case("on_demand_fast", seed, "-s platform.timing.mode=fast", false, true);
    REQUIRE(st.contains("stats"));
    CHECK(st["stats"]["gpu.fault_services"].get<double>() > 0);
    CHECK(st["stats"]["gpu.fault_services"] == st["stats"]["gpu.page_faults"]);
}

TEST_CASE("consistency: random race-free accesses on on_demand buffers (page faults), accurate")
{
    const std::uint32_t seed = vgpu::test::seed_or(6);
    CAPTURE(seed);
    const nlohmann::json st =
        run_case("on_demand_accurate", seed, "-s platform.timing.mode=accurate", false, true);
    REQUIRE(st.contains("stats"));
    CHECK(st["stats"]["gpu.fault_services"].get<double>() > 0);
    CHECK(st["stats"]["gpu.fault_services"] == st["stats"]["gpu.page_faults"]);
}

TEST_CASE("consistency: random race-free accesses with shared L1s (l1.sharing shared), both modes")
{
    for (const char* mode : {"fast", "accurate"}) {
        const std::uint32_t seed = vgpu::test::seed_or(3);
        CAPTURE(seed, mode);
        const auto [sms, link_bytes] =
            spread(run_case(std::string("shared_l1_") + mode, seed,
                            std::string("-s l1.sharing=shared -s platform.timing.mode=") + mode));
        CHECK(sms == 8);
        CHECK(link_bytes == 0);
    }
}

TEST_CASE("consistency: random race-free accesses on 2 modules under llc.mode private and "
          "forced LLC switches, both modes")
{
    for (const char* mode : {"fast", "accurate"})
        for (const char* llc : {"-s llc.mode=private", "-s llc.forced_switch_ns=30"}) {
            const std::uint32_t seed = vgpu::test::seed_or(5);
            CAPTURE(seed, mode, llc);
            const auto [sms, link_bytes] = spread(
                run_case(std::string("llc_") + mode, seed,
                         std::string("-s platform.modules=2 -s memory.page_alloc=round_robin "
                                     "-s platform.timing.mode=") +
                             mode + " " + llc));
            CHECK(sms == 16);
            CHECK(link_bytes > 0);
        }
}

TEST_CASE("consistency: random race-free accesses with adaptive L1 sharing, both modes")
{
    // Small L1s, short epochs and low thresholds, so SMs evict and borrow each other's L1s: the
    // partner requests, replacement blocks and store updates all carry data here.
    double blocks = 0;
    for (const char* mode : {"fast", "accurate"}) {
        const std::uint32_t seed = vgpu::test::seed_or(5);
        CAPTURE(seed, mode);
        const nlohmann::json st =
            run_case(std::string("adaptive_l1_") + mode, seed,
                     std::string("-s l1.sharing=adaptive -s l1.sets=4 -s l1.epoch_cycles=50 "
                                 "-s l1.miss_rate_threshold=0.2 -s l1.mem_share_threshold=0.05 "
                                 "-s platform.timing.mode=") +
                         mode);
        REQUIRE(st.contains("stats"));
        double borrowed = 0, updates = 0, stored = 0, sent = 0, received = 0, dropped = 0;
        for (const auto& [key, v] : st["stats"].items()) {
            const auto ends = [&](const std::string& s) {
                return key.size() > s.size() &&
                       key.compare(key.size() - s.size(), s.size(), s) == 0;
            };
            borrowed += ends("_l1.borrowed_reads") ? v.get<double>() : 0;
            updates += ends("_l1.updates_received") ? v.get<double>() : 0;
            stored += ends("_l1.replacements_stored") ? v.get<double>() : 0;
            received += ends("_l1.replacements_received") ? v.get<double>() : 0;
            sent += ends("_l1.replacements_sent") ? v.get<double>() : 0;
            dropped += ends("_l1.replacements_dropped") ? v.get<double>() : 0;
        }
        INFO("borrowed reads " << borrowed << ", updates " << updates << ", replacement blocks "
                               << sent << " sent, " << received << " received, " << stored
                               << " stored, " << dropped << " dropped");
        CHECK(borrowed > 0);
        CHECK(updates > 0);
        blocks += stored;
    }
    // Whether the L1s fill up enough to evict depends on the seed and the timing: the two runs
    // together must have stored replacement blocks.
    CHECK(blocks > 0);
}
