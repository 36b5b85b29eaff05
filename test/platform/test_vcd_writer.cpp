// Shell tests of platforms::vcd_writer: definitions by instance path, sampled variables per
// delta cycle, booked levels at their own times, errors. See platforms/vcd_writer.h.
#include "platforms/vcd_writer.h"

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

using namespace vgpu;
using sc_core::SC_NS;

namespace {

std::string temp_file(const std::string& tag)
{
    return (std::filesystem::temp_directory_path() /
            ("vgpu_vcd_" + tag + "_" + std::to_string(::getpid()) + ".vcd"))
        .string();
}

std::string read_all(const std::string& file)
{
    std::ifstream in(file);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

/// The dump read back: declarations (full name -> width) and the changes after #0's dump as
/// (time in fs, full name, value).
struct dump {
    std::map<std::string, unsigned> widths;
    std::map<std::string, std::uint64_t> initial;
    struct change {
        std::uint64_t fs;
        std::string name;
        std::uint64_t value;
    };
    std::vector<change> changes;
    std::uint64_t last_time = 0;
    std::string timescale;
};

dump parse(const std::string& text)
{
    dump d;
    std::istringstream in(text);
    std::vector<std::string> scopes;
    std::map<std::string, std::string> by_code;
    std::string tok;
    std::uint64_t now = 0;
    bool in_dumpvars = false, defined = false;
    auto words_to_end = [&] {
        std::vector<std::string> w;
        std::string x;
        while (in >> x && x != "$end")
            w.push_back(x);
        return w;
    };
    auto value = [&](const std::string& code, std::uint64_t v) {
        REQUIRE(by_code.count(code) == 1);
        if (in_dumpvars)
            d.initial[by_code[code]] = v;
        else
            d.changes.push_back({now, by_code[code], v});
    };
    while (in >> tok) {
        if (tok == "$scope") {
            scopes.push_back(words_to_end().at(1));
        } else if (tok == "$upscope") {
            words_to_end();
            scopes.pop_back();
        } else if (tok == "$var") {
            const auto w = words_to_end(); // wire width code name [range]
            std::string name;
            for (const auto& s : scopes)
                name += s + ".";
            name += w.at(3);
            d.widths[name] = static_cast<unsigned>(std::stoul(w.at(1)));
            by_code[w.at(2)] = name;
        } else if (tok == "$timescale") {
            for (const auto& w : words_to_end())
                d.timescale += w;
        } else if (tok == "$enddefinitions") {
            words_to_end();
            defined = true;
        } else if (tok == "$dumpvars") {
            in_dumpvars = true;
        } else if (tok == "$end") {
            in_dumpvars = false;
        } else if (tok[0] == '$') {
            words_to_end();
        } else if (tok[0] == '#') {
            REQUIRE(defined);
            const std::uint64_t t = std::stoull(tok.substr(1));
            CHECK(t >= now);
            now = d.last_time = t;
        } else if (tok[0] == 'b') {
            std::string code;
            in >> code;
            value(code, std::stoull(tok.substr(1), nullptr, 2));
        } else {
            value(tok.substr(1), static_cast<std::uint64_t>(tok[0] - '0'));
        }
    }
    return d;
}

/// Changes the traced variables over simulated time and books levels ahead.
struct stimulus : sc_core::sc_module {
    unsigned v = 7;
    sc_core::sc_signal<bool> sig{"sig"};
    platforms::vcd_writer* w = nullptr;
    unsigned lvl = 0, bit = 0;
    bool done = false;
    explicit stimulus(const sc_core::sc_module_name& n) : sc_module(n)
    {
        SC_HAS_PROCESS(stimulus);
        SC_THREAD(run);
    }
    void run()
    {
        v = 1; // then 0 one delta cycle later: a pulse of zero simulated time
        w->step_level(lvl, 2000, +1);
        w->step_level(lvl, 7000, -1);
        w->step_level(lvl, 4000, +1); // booked out of time order
        w->step_level(lvl, 6000, -1);
        w->step_level(bit, 1000, +1);
        w->step_level(bit, 3000, -1); // ... and +1 in the same instant: no change
        w->step_level(bit, 3000, +1);
        w->step_level(bit, 8000, -1);
        sc_core::wait(sc_core::SC_ZERO_TIME);
        v = 0;
        sc_core::wait(5, SC_NS);
        v = 3;
        sig.write(true);
        sc_core::wait(10, SC_NS);
        done = true;
    }
};

} // namespace

TEST_CASE("vcd writer: scopes by path, delta cycles as femtoseconds, levels at their own times")
{
    const std::string file = temp_file("main");
    platforms::vcd_writer w(file);
    REQUIRE(w.ok());
    stimulus top("top");
    top.w = &w;
    sc_core::sc_trace(&w, top.v, "top.v");
    sc_core::sc_trace(&w, top.sig, top.sig.name());
    top.lvl = w.add_level("top.unit.lvl", false);
    top.bit = w.add_level("top.unit.bit", true);
    sc_core::sc_start();
    REQUIRE(top.done);
    REQUIRE(w.close());
    const dump d = parse(read_all(file));
    std::filesystem::remove(file);

    CHECK(d.timescale == "1fs");
    CHECK(d.widths ==
          std::map<std::string, unsigned>{
              {"top.v", 32}, {"top.sig", 1}, {"top.unit.lvl", 32}, {"top.unit.bit", 1}});
    // Initial values: as registered (v was 7 at construction).
    CHECK(d.initial == std::map<std::string, std::uint64_t>{
                           {"top.v", 7}, {"top.sig", 0}, {"top.unit.lvl", 0}, {"top.unit.bit", 0}});
    REQUIRE(d.changes.size() == 10);
    // The pulse: two delta cycles of instant 0, in order.
    CHECK(d.changes[0].name == "top.v");
    CHECK(d.changes[0].value == 1);
    CHECK(d.changes[1].name == "top.v");
    CHECK(d.changes[1].value == 0);
    CHECK(d.changes[0].fs >= 1);
    CHECK(d.changes[1].fs > d.changes[0].fs);
    CHECK(d.changes[1].fs < 1000);
    // Levels at exactly their booked picoseconds, sampled values in a delta cycle of 5 ns.
    auto at = [&](std::size_t i, std::uint64_t fs, const char* name, std::uint64_t value) {
        INFO(i);
        CHECK(d.changes[i].fs == fs);
        CHECK(d.changes[i].name == name);
        CHECK(d.changes[i].value == value);
    };
    at(2, 1000000, "top.unit.bit", 1);
    at(3, 2000000, "top.unit.lvl", 1);
    at(4, 4000000, "top.unit.lvl", 2);
    CHECK(d.changes[5].fs > 5000000);
    CHECK(d.changes[5].fs < 5001000);
    CHECK(d.changes[6].fs == d.changes[5].fs);
    std::map<std::string, std::uint64_t> at5 = {{d.changes[5].name, d.changes[5].value},
                                                {d.changes[6].name, d.changes[6].value}};
    CHECK(at5 == std::map<std::string, std::uint64_t>{{"top.v", 3}, {"top.sig", 1}});
    at(7, 6000000, "top.unit.lvl", 1);
    at(8, 7000000, "top.unit.lvl", 0);
    at(9, 8000000, "top.unit.bit", 0);
    CHECK(d.last_time == 15000000); // the end of the simulation
}

TEST_CASE("vcd writer: a file that cannot be created is reported, not written")
{
    const std::string dir = temp_file("dir");
    std::filesystem::create_directories(dir); // a folder where the file should be
    platforms::vcd_writer w(dir);
    CHECK_FALSE(w.ok());
    CHECK_FALSE(w.close());
    std::filesystem::remove_all(dir);
}

TEST_CASE("vcd writer: a type it cannot dump is an error naming the signal")
{
    const std::string file = temp_file("type");
    platforms::vcd_writer w(file);
    const double x = 1.5;
    try {
        sc_core::sc_trace(&w, x, "top.x");
        FAIL("no error");
    } catch (const sc_core::sc_report& r) {
        CHECK(std::string(r.get_msg()).find("top.x") != std::string::npos);
    }
    CHECK(w.close());
    std::filesystem::remove(file);
}
