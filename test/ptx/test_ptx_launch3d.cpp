// %tid.z, %ntid.z, %ctaid.z and %nctaid.z translated to S2R of the z special registers and run
// on a warp of a 3-D CTA: each lane stores its ids, compared with CUDA's numbering computed
// here (x fastest, then y, then z). See docs/cuda.md ("Mapping tables").
#include "test/ptx/translate_test_util.h"

using namespace vgpu;
using namespace vgpu::ptx;
using namespace vgpu::ptx::test;

TEST_CASE("the z special registers translate to S2R and read a 3-D launch's ids")
{
    // Lane l stores tid.x, tid.y, tid.z, ntid.z, ctaid.z, nctaid.z at param0 + 32 * l.
    const std::string body = "ld.param.u64 %rd1, [k_p0];\n"
                             "cvta.to.global.u64 %rd2, %rd1;\n"
                             "mov.u32 %r1, %laneid;\n"
                             "mul.wide.u32 %rd3, %r1, 32;\n"
                             "add.s64 %rd4, %rd2, %rd3;\n"
                             "mov.u32 %r2, %tid.x;\n"
                             "st.global.u32 [%rd4], %r2;\n"
                             "mov.u32 %r3, %tid.y;\n"
                             "st.global.u32 [%rd4+4], %r3;\n"
                             "mov.u32 %r4, %tid.z;\n"
                             "st.global.u32 [%rd4+8], %r4;\n"
                             "mov.u32 %r5, %ntid.z;\n"
                             "st.global.u32 [%rd4+12], %r5;\n"
                             "mov.u32 %r6, %ctaid.z;\n"
                             "st.global.u32 [%rd4+16], %r6;\n"
                             "mov.u32 %r7, %nctaid.z;\n"
                             "st.global.u32 [%rd4+20], %r7;\n"
                             "ret;";
    const translation t = translate_text(entry_text(body));
    for (const std::string& e : t.errors)
        UNSCOPED_INFO(e);
    REQUIRE(t.ok());
    INFO(t.text);
    const auto ins = instructions(t.text);
    for (const char* s : {"SR_TID_Z", "SR_NTID_Z", "SR_CTAID_Z", "SR_NCTAID_Z"})
        CHECK(std::count_if(ins.begin(), ins.end(), [&](const std::string& i) {
                  return i.find(s) != std::string::npos;
              }) == 1);
    const sm::assembly_result a = sm::assemble(t.text, {}, {"t.vgpu", 1, 1}, t.registers);
    REQUIRE(a.ok());
    // A CTA of 3 x 2 x 6 = 36 threads: warp 1 holds threads 32..35; grid depth 5, CTA z 3.
    sm::launch_context ctx;
    ctx.params = {0x1000, 0};
    ctx.ntid_x = 3;
    ctx.ntid_y = 2;
    ctx.ntid_z = 6;
    ctx.nctaid_z = 5;
    ctx.ctaid_z = 3;
    for (unsigned warp_in_cta : {0u, 1u}) {
        sm::warp w(a.code, ctx, warp_in_cta, t.registers);
        std::map<std::uint32_t, std::uint32_t> mem;
        unsigned steps = 0;
        while (!w.done() && steps++ < 1000) {
            const sm::step_result r = w.step();
            REQUIRE(r.kind != sm::step_kind::error);
            if (r.kind == sm::step_kind::store)
                for (unsigned l = 0; l < sm::warp_size; ++l)
                    if (r.access->lane_mask >> l & 1)
                        mem[r.access->addr[l]] = r.access->data[l];
        }
        REQUIRE(w.done());
        for (unsigned lane = 0; lane < sm::warp_size; ++lane) {
            const unsigned t_lin = warp_in_cta * 32 + lane;
            const std::uint32_t at = 0x1000 + 32 * lane;
            INFO("thread " << t_lin);
            if (t_lin >= 36) { // dead lanes of the partial warp store nothing
                CHECK(mem.count(at) == 0);
                continue;
            }
            // CUDA: threads numbered with x fastest, then y, then z.
            unsigned x = 0, y = 0, z = 0, n = 0;
            for (unsigned zz = 0; zz < 6; ++zz)
                for (unsigned yy = 0; yy < 2; ++yy)
                    for (unsigned xx = 0; xx < 3; ++xx, ++n)
                        if (n == t_lin) {
                            x = xx;
                            y = yy;
                            z = zz;
                        }
            CHECK(mem[at] == x);
            CHECK(mem[at + 4] == y);
            CHECK(mem[at + 8] == z);
            CHECK(mem[at + 12] == 6u);
            CHECK(mem[at + 16] == 3u);
            CHECK(mem[at + 20] == 5u);
        }
    }
}
