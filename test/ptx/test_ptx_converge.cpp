// Volta's convergence of diverged .sync warp operations and bar.sync (issue 36 item 3): lanes
// that reach a shfl.sync whose membermask names lanes on another path, or a bar.sync while
// lanes of the warp are elsewhere, wait there until those lanes arrive (here through a loop's
// back edge, in another iteration, as Volta's independent thread scheduling lets them), in
// every textual order of the kernel's blocks; lanes waiting at two different warp-synchronous
// instructions for each other are a located execution error.
#include "translate_test_util.h"

#include <algorithm>
#include <array>

using namespace vgpu::ptx;
using namespace vgpu::ptx::test;

namespace {

/// A loop of two iterations; lane l takes the shuffle block in iteration (l + 1) & 1, so the
/// odd lanes arrive there in iteration 0 and the even lanes in iteration 1: they meet there,
/// and every lane reads lane l ^ 1's v (10 (l ^ 1)). Then a bar.sync in the same block, which
/// every lane of the warp reaches together. `order` places blocks 1..4 in the text.
std::string loop_kernel(const std::array<int, 4>& order)
{
    const std::string blocks[5] = {
        "mov.u32 %r1, %tid.x;\nmul.lo.u32 %r2, %r1, 10;\nmov.u32 %r3, 0;\nbra.uni HEAD;\n",
        "HEAD:\nadd.u32 %r4, %r1, %r3;\nand.b32 %r5, %r4, 1;\nsetp.eq.u32 %p1, %r5, 0;\n"
        "@%p1 bra LATCH;\nbra.uni SHF;\n",
        "SHF:\nxor.b32 %r6, %r1, 1;\nshfl.sync.idx.b32 %r2, %r2, %r6, 31, -1;\nbar.sync 0;\n"
        "add.u32 %r7, %r7, 1;\nbra.uni LATCH;\n",
        "LATCH:\nadd.u32 %r3, %r3, 1;\nsetp.lt.u32 %p2, %r3, 2;\n@%p2 bra HEAD;\nbra.uni TAIL;\n",
        "TAIL:\nld.param.u64 %rd1, [k_p0];\nmul.wide.u32 %rd2, %r1, 4;\nadd.s64 %rd3, %rd1, "
        "%rd2;\nst.global.u32 [%rd3], %r2;\nst.global.u32 [%rd3+128], %r3;\nret;\n"};
    std::string body = "mov.u32 %r7, 0;\n" + blocks[0];
    for (const int b : order)
        body += blocks[b];
    return entry_text(body);
}

} // namespace

TEST_CASE("diverged shfl.sync and bar.sync in a loop converge as on Volta, every block order")
{
    std::array<int, 4> order = {1, 2, 3, 4};
    int orders = 0;
    do {
        INFO("block order " << order[0] << order[1] << order[2] << order[3]);
        const translation t = translate_text(loop_kernel(order));
        for (const std::string& e : t.errors)
            UNSCOPED_INFO(e);
        REQUIRE(t.ok());
        INFO(t.text);
        const warp_run r = run_warp(t, {0x1000}, {}, 32);
        REQUIRE(r.error.empty());
        for (unsigned l = 0; l < 32; ++l) {
            INFO("lane " << l);
            CHECK(r.mem.at(0x1000 + 4 * l) == 10 * (l ^ 1)); // one shuffle, all 32 lanes
            CHECK(r.mem.at(0x1000 + 128 + 4 * l) == 2);      // both iterations ran
        }
        CHECK(r.barriers == 1); // the 32 lanes at the bar.sync together, once
        CHECK(r.partial_barriers == 0);
        ++orders;
    } while (std::next_permutation(order.begin(), order.end()));
    CHECK(orders == 24);
}

TEST_CASE("lanes waiting for each other at two different shfl.sync are a located error")
{
    // if/else each with its own full-mask shuffle: the lanes of the if wait at theirs for the
    // lanes of the else, which wait at theirs (vgpu converges lanes at the same instruction).
    const std::string body = "mov.u32 %r1, %tid.x;\n"
                             "setp.lt.u32 %p1, %r1, 16;\n"
                             "@%p1 bra A;\n"
                             "shfl.sync.idx.b32 %r2, %r1, 0, 31, -1;\n"
                             "bra.uni J;\n"
                             "A:\n"
                             "shfl.sync.idx.b32 %r2, %r1, 1, 31, -1;\n"
                             "J:\n"
                             "ret;";
    const translation t = translate_text(entry_text(body));
    REQUIRE(t.ok());
    INFO(t.text);
    const warp_run r = run_warp(t, {0x1000}, {}, 32);
    CHECK(r.error.find("WARPSYNC membermask 0xffffffff waits for lanes ") == 0);
    CHECK(r.error.find(" (lanes converge only at the same warp-synchronous instruction)") !=
          std::string::npos);
    // A lane that exits is not waited for: the shuffle after a divergent exit runs.
    const std::string exits = "mov.u32 %r1, %tid.x;\n"
                              "setp.ge.u32 %p1, %r1, 8;\n"
                              "@%p1 bra DONE;\n"
                              "shfl.sync.idx.b32 %r2, %r1, 3, 31, -1;\n"
                              "ld.param.u64 %rd1, [k_p0];\n"
                              "mul.wide.u32 %rd2, %r1, 4;\n"
                              "add.s64 %rd3, %rd1, %rd2;\n"
                              "st.global.u32 [%rd3], %r2;\n"
                              "DONE:\n"
                              "ret;";
    const translation te = translate_text(entry_text(exits));
    REQUIRE(te.ok());
    const warp_run re = run_warp(te, {0x1000}, {}, 32);
    REQUIRE(re.error.empty());
    for (unsigned l = 0; l < 8; ++l)
        CHECK(re.mem.at(0x1000 + 4 * l) == 3);
}

TEST_CASE("mov.pred of 0, 1 (and -1), a predicate and its negation")
{
    // Lane l stores 1000 + 8 a + 4 b + 2 c + d for a = mov.pred 1, b = 0, c = (l < 5),
    // d = !(l < 5), each selected into 0/1 by selp.
    const std::string body = "mov.u32 %r1, %tid.x;\n"
                             "setp.lt.u32 %p1, %r1, 5;\n"
                             "mov.pred %p2, 1;\n"
                             "mov.pred %p3, 0;\n"
                             "mov.pred %p4, %p1;\n"
                             "mov.pred %p5, !%p1;\n"
                             "selp.u32 %r2, 8, 0, %p2;\n"
                             "selp.u32 %r3, 4, 0, %p3;\n"
                             "selp.u32 %r4, 2, 0, %p4;\n"
                             "selp.u32 %r5, 1, 0, %p5;\n"
                             "add.u32 %r6, %r2, %r3;\n"
                             "add.u32 %r6, %r6, %r4;\n"
                             "add.u32 %r6, %r6, %r5;\n"
                             "add.u32 %r6, %r6, 1000;\n"
                             "ld.param.u64 %rd1, [k_p0];\n"
                             "mul.wide.u32 %rd2, %r1, 4;\n"
                             "add.s64 %rd3, %rd1, %rd2;\n"
                             "st.global.u32 [%rd3], %r6;\n"
                             "ret;";
    const translation t = translate_text(entry_text(body));
    for (const std::string& e : t.errors)
        UNSCOPED_INFO(e);
    REQUIRE(t.ok());
    const warp_run r = run_warp(t, {0x1000}, {}, 32);
    REQUIRE(r.error.empty());
    for (unsigned l = 0; l < 32; ++l)
        CHECK(r.mem.at(0x1000 + 4 * l) == 1000 + 8 + (l < 5 ? 2u : 1u));
    // clang writes true as -1 (an all-ones i1): the same as 1.
    std::string minus_one = body;
    minus_one.replace(minus_one.find("mov.pred %p2, 1;"), 16, "mov.pred %p2, -1;");
    const translation tm = translate_text(entry_text(minus_one));
    REQUIRE(tm.ok());
    const warp_run rm = run_warp(tm, {0x1000}, {}, 32);
    REQUIRE(rm.error.empty());
    for (unsigned l = 0; l < 32; ++l)
        CHECK(rm.mem.at(0x1000 + 4 * l) == 1000 + 8 + (l < 5 ? 2u : 1u));
    const translation bad = translate_text(entry_text("mov.pred %p1, 2;\nret;"));
    REQUIRE(bad.errors.size() == 1);
    CHECK(bad.errors[0] == "t.ptx:11:1: error: unsupported 'mov.pred': mov.pred copies 0, 1 (or "
                           "-1: true), or a predicate");
}
