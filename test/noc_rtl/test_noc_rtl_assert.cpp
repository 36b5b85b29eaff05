// The NoC arbiter's assertions can fail (issue 39: one-hot grant, no grant without a valid
// request). The test-only variant is verilated with --public-flat-rw, so the test can write the
// model's signals between the low phase of a cycle (the grant settles) and its rising edge
// (the assertions sample the settled values), as a fault in the grant logic would leave them.
// The arbiter's only registers are the round-robin pointer (last_valid, last_idx), and every
// value of them is legal (the pointer names one of the 64 requesters): the first case shows
// that corrupting them cannot make the RTL grant badly, so the assertions are made to fire by
// corrupting the grant itself. See models/noc/rtl/README.md ("Assertions").
#include "test/seed.h"

#include <Vnoc_arbiter_broken.h>
#include <Vnoc_arbiter_broken___024root.h>
#include <catch2/catch.hpp>
#include <verilated.h>

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <unistd.h>

namespace {
/// The verilated arbiter driven pin by pin, round_robin or barrier_aware without ageing.
class raw_arbiter {
public:
    explicit raw_arbiter(bool barrier_aware)
    {
        m_ctx.randReset(2);
        m_ctx.fatalOnError(false); // a failed assertion sets gotError()
        m_rtl = std::make_unique<Vnoc_arbiter_broken>(&m_ctx, "noc_arbiter");
        m_rtl->barrier_aware = barrier_aware;
        m_rtl->max_wait = 0;
        m_rtl->req_valid = 0;
        for (unsigned w = 0; w < 16; ++w) // 64 counts of 8 bits
            m_rtl->req_count[w] = 0;
        for (unsigned w = 0; w < 32; ++w) // 64 ages of 16 bits
            m_rtl->req_age[w] = 0;
        m_rtl->rst = 1;
        m_rtl->clk = 0;
        m_rtl->eval();
        m_rtl->clk = 1;
        m_rtl->eval();
        m_rtl->rst = 0;
    }
    ~raw_arbiter() { m_rtl->final(); }
    /// The low phase: this cycle's requests, the grant settles.
    void settle(std::uint64_t valid)
    {
        m_rtl->req_valid = valid;
        m_rtl->clk = 0;
        m_rtl->eval();
    }
    /// The rising edge: the pointer moves, the assertions check the settled values.
    void edge()
    {
        m_rtl->clk = 1;
        m_rtl->eval();
    }
    Vnoc_arbiter_broken___024root& root() { return *m_rtl->rootp; }
    Vnoc_arbiter_broken& pins() { return *m_rtl; }
    bool assertion_failed() const { return m_ctx.gotError(); }

private:
    VerilatedContext m_ctx;
    std::unique_ptr<Vnoc_arbiter_broken> m_rtl;
};

/// What `f` printed on stdout (where the RTL's $error messages go), echoed to stdout after.
template <class F> std::string stdout_of(F&& f)
{
    std::fflush(stdout);
    char path[] = "/tmp/noc_rtl_assert_XXXXXX";
    const int fd = mkstemp(path);
    REQUIRE(fd >= 0);
    const int saved = dup(1);
    dup2(fd, 1);
    f();
    std::fflush(stdout);
    dup2(saved, 1);
    close(saved);
    close(fd);
    std::ifstream in(path);
    std::stringstream s;
    s << in.rdbuf();
    std::remove(path);
    std::cout << s.str();
    return s.str();
}
} // namespace

TEST_CASE("noc_arbiter RTL: any round-robin pointer gives a legal grant (no register can break "
          "the assertions)")
{
    const std::uint64_t seed = vgpu::test::seed_or(39);
    INFO("VGPU_TEST_SEED=" << seed);
    std::mt19937_64 rng(seed);
    for (bool aware : {false, true}) {
        raw_arbiter a(aware);
        for (unsigned k = 0; k < 4096; ++k) {
            // Corrupt the pointer to any value (it may also be right), then arbitrate.
            a.root().noc_arbiter__DOT__last_valid = rng() % 2;
            a.root().noc_arbiter__DOT__last_idx = rng() % 64;
            std::uint64_t valid = rng() & rng();
            if (aware)
                for (unsigned w = 0; w < 16; ++w)
                    a.pins().req_count[w] = static_cast<std::uint32_t>(rng() & 0x01010101u);
            a.settle(valid);
            const std::uint64_t g = a.pins().gnt;
            REQUIRE((g & (g - 1)) == 0);       // one-hot or zero
            REQUIRE((g & ~valid) == 0);        // only a valid requester
            REQUIRE((g != 0) == (valid != 0)); // and one whenever there is one
            a.edge();
            REQUIRE_FALSE(a.assertion_failed());
        }
    }
}

TEST_CASE("noc_arbiter RTL: the one-hot and valid-request assertions fire on a corrupted grant")
{
    raw_arbiter a(false); // round_robin (the variant's swapped tie-break is barrier_aware's)
    const std::uint64_t valid = 0b1011'0000;
    a.settle(valid);
    REQUIRE(a.pins().gnt == 0b0001'0000); // requester 4: the first after reset
    a.edge();
    REQUIRE_FALSE(a.assertion_failed());
    a.settle(valid);
    REQUIRE(a.pins().gnt == 0b0010'0000); // round-robin: 5 next
    SECTION("untouched: no assertion")
    {
        const std::string out = stdout_of([&] { a.edge(); });
        CHECK_FALSE(a.assertion_failed());
        CHECK(out.find("noc_arbiter:") == std::string::npos);
    }
    SECTION("two grants at once: a_onehot")
    {
        a.root().noc_arbiter__DOT__gnt = 0b0011'0000; // 4 and 5, both valid
        const std::string out = stdout_of([&] { a.edge(); });
        CHECK(a.assertion_failed());
        CHECK(out.find("grant not one-hot") != std::string::npos);
        CHECK(out.find("without a valid request") == std::string::npos);
    }
    SECTION("a grant to a requester without a valid request: a_no_request")
    {
        a.root().noc_arbiter__DOT__gnt = 0b0100'0000; // 6: not requesting
        const std::string out = stdout_of([&] { a.edge(); });
        CHECK(a.assertion_failed());
        CHECK(out.find("without a valid request") != std::string::npos);
        CHECK(out.find("grant not one-hot") == std::string::npos);
    }
    SECTION("no grant while requests wait: a_work_conserving")
    {
        a.root().noc_arbiter__DOT__gnt = 0;
        a.pins().gnt_valid = 0;
        const std::string out = stdout_of([&] { a.edge(); });
        CHECK(a.assertion_failed());
        CHECK(out.find("but grant") != std::string::npos);
    }
}
