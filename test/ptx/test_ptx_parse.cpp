// PTX parser: the syntax PTX 6.0 to 9.0 compilers emit, read into the AST (declarations,
// registers, predicates, operands, calls, .loc), and files from nvcc 13 (PTX 9.0) and clang 14
// (PTX 6.0).
#include "models/sm/ptx/entry.h"
#include "models/sm/ptx/parser.h"
#include "ptx_test_util.h"

#include <catch2/catch.hpp>

#include <cstring>

using namespace vgpu::ptx;

namespace {

parse_result must_parse(const std::string& text)
{
    parse_result r = parse(text, "t.ptx");
    for (const std::string& e : r.errors)
        UNSCOPED_INFO(e);
    REQUIRE(r.ok());
    return r;
}

const char* header = ".version 7.0\n.target sm_70\n.address_size 64\n";

} // namespace

TEST_CASE("module directives, globals with alignment, arrays and initialisers")
{
    const parse_result r = must_parse(
        std::string(header) + ".file 1 \"k.cu\"\n"
                              ".global .align 4 .b8 bytes[5] = {1, 2, 3, 0xff, 0};\n"
                              ".visible .const .align 16 .f32 cf[4] = {0f3F800000, 2.5, 3, -1.0};\n"
                              ".global .u64 ptrs[2] = {generic(bytes), bytes+4};\n"
                              ".global .s32 neg = -7;\n"
                              ".extern .shared .align 8 .b8 dyn[];\n"
                              ".global .v2 .u32 vv[2] = {{1, 2}, {3, 4}};\n"
                              ".global .u32 unsized[] = {5, 6, 7};\n"
                              ".global .texref tref;\n");
    const module& m = r.mod;
    CHECK(m.version_major == 7);
    CHECK(m.version_minor == 0);
    CHECK(m.target == "sm_70");
    CHECK(m.address_size == 64);
    CHECK(m.files.at(1) == "k.cu");
    REQUIRE(m.globals.size() == 8);
    const variable& b = m.globals[0];
    CHECK(b.space == state_space::global);
    CHECK(b.align == 4);
    CHECK(b.type == data_type::b8);
    CHECK(b.bytes() == 5);
    CHECK(b.init == std::vector<std::uint64_t>{1, 2, 3, 0xff, 0});
    const variable& cf = m.globals[1];
    CHECK(cf.is_visible);
    CHECK(cf.space == state_space::const_);
    float f[4];
    for (int i = 0; i < 4; ++i) {
        const auto bits = static_cast<std::uint32_t>(cf.init[static_cast<std::size_t>(i)]);
        std::memcpy(&f[i], &bits, 4);
    }
    CHECK(f[0] == 1.0f);
    CHECK(f[1] == 2.5f);
    CHECK(f[2] == 3.0f);
    CHECK(f[3] == -1.0f);
    const variable& p = m.globals[2];
    CHECK(p.init_symbols.at(0) == std::pair<std::string, std::int64_t>{"bytes", 0});
    CHECK(p.init_symbols.at(1) == std::pair<std::string, std::int64_t>{"bytes", 4});
    CHECK(m.globals[3].init == std::vector<std::uint64_t>{0xfffffff9u});
    const variable& dyn = m.globals[4];
    CHECK(dyn.is_extern);
    CHECK(dyn.space == state_space::shared);
    CHECK(dyn.dims == std::vector<std::uint64_t>{0});
    CHECK(m.globals[5].vec == 2);
    CHECK(m.globals[5].bytes() == 16);
    CHECK(m.globals[6].bytes() == 12);
    CHECK(m.globals[7].type == data_type::texref);
}

TEST_CASE("an entry: parameters, register ranges, guards, operands, labels, scopes and calls")
{
    const parse_result r = must_parse(std::string(header) + R"(
.file 1 "k.cu"
.extern .func (.param .b32 func_retval0) vprintf (.param .b64 vprintf_param_0, .param .b64 vprintf_param_1);
.func (.param .b32 ret) helper (.param .b32 x)
{
    .reg .b32 %r<2>;
    ld.param.b32 %r0, [x];
    add.s32 %r1, %r0, 1;
    st.param.b32 [ret+0], %r1;
    ret;
}
.visible .entry k(
    .param .u64 .ptr .global .align 16 k_p0,
    .param .u32 k_p1,
    .param .align 8 .b8 k_s[24]
)
.maxntid 256, 1, 1
.minnctapersm 2
{
    .reg .pred %p<3>;
    .reg .b32 %r<6>;
    .reg .f32 %f<4>;
    .reg .b64 %rd<4>;
    .reg .b64 %SP;
    .reg .f64 %fd<1>;
    .local .align 8 .b8 __local_depot0[8];
    .shared .align 4 .b8 tile[64];
    .loc 1 10 3
    ld.param.u64 %rd1, [k_p0];
    mov.u32 %r1, %tid.x;
    mov.u32 %r2, %laneid;
    setp.ge.u32 %p1|%p2, %r1, WARP_SZ;
    @%p1 bra $L__BB0_2;
    .loc 1 11 5, function_name $L__info_string0, inlined_at 1 12 7
    @!%p2 ld.global.v2.f32 {%f1, %f2}, [%rd1+-8];
    mov.f32 %f3, 0fBF800000;
    mov.f64 %fd0, 0d3FF0000000000000;
    st.shared.f32 [tile+4], %f3;
    shfl.sync.down.b32 %r3|%p2, %r1, 16, 31, -1;
    mov.u64 %SP, __local_depot0;
    {
    .reg .b32 temp;
    .param .b32 param0;
    st.param.b32 [param0+0], %r1;
    .param .b32 retval0;
    call.uni (retval0), helper, (param0);
    ld.param.b32 %r4, [retval0+0];
    }
$L__BB0_2:
    ret;
}
)" + std::string(""));
    const module& m = r.mod;
    REQUIRE(m.functions.size() == 3);
    const function& pf = m.functions[0];
    CHECK(pf.name == "vprintf");
    CHECK(!pf.has_body);
    CHECK(pf.returns.size() == 1);
    const function& h = m.functions[1];
    CHECK(!h.is_entry);
    CHECK(h.returns.at(0).name == "ret");
    CHECK(h.params.at(0).name == "x");
    const function& k = m.functions[2];
    CHECK(k.is_entry);
    CHECK(k.is_visible);
    CHECK(k.maxntid == std::vector<unsigned>{256, 1, 1});
    CHECK(k.minnctapersm == 2);
    REQUIRE(k.params.size() == 3);
    CHECK(k.params[0].is_ptr);
    CHECK(k.params[0].ptr_space == state_space::global);
    CHECK(k.params[0].ptr_align == 16);
    CHECK(k.params[0].type == data_type::u64);
    CHECK(k.params[2].align == 8);
    CHECK(k.params[2].bytes() == 24);
    const std::vector<param_info> pi = entry_params(m, 2);
    CHECK(pi[0].is_pointer);
    CHECK(pi[1].bytes == 4);
    CHECK(pi[2].align == 8);

    REQUIRE(k.body.size() == 15);
    const instruction& ld = k.body[0];
    CHECK(ld.opcode == "ld");
    CHECK(ld.space == state_space::param);
    CHECK(ld.type() == data_type::u64);
    CHECK(ld.where.line == 32);
    CHECK(ld.loc_line == 10);
    CHECK(m.source_line(ld) == "k.cu:10");
    REQUIRE(ld.ops.size() == 2);
    CHECK(ld.ops[0].k == operand::kind::reg);
    CHECK(k.decls[static_cast<std::size_t>(ld.ops[0].decl)].name == "%rd");
    CHECK(ld.ops[0].index == 1);
    CHECK(ld.ops[1].k == operand::kind::address);
    CHECK(ld.ops[1].name == "k_p0");
    CHECK(!ld.ops[1].base_is_reg);

    CHECK(k.body[1].ops[1].k == operand::kind::special);
    CHECK(k.body[1].ops[1].name == "%tid.x");
    CHECK(k.body[2].ops[1].name == "%laneid");
    const instruction& setp = k.body[3];
    CHECK(setp.mods == std::vector<std::string>{"ge", "u32"});
    CHECK(setp.ops[0].k == operand::kind::pair);
    CHECK(setp.ops[0].elems.at(1).name == "%p2");
    CHECK(setp.ops[2].k == operand::kind::imm_int);
    CHECK(setp.ops[2].ival == 32);
    const instruction& bra = k.body[4];
    CHECK(bra.guard == "%p1");
    CHECK(!bra.guard_negated);
    CHECK(bra.guard_index == 1);
    CHECK(bra.ops[0].k == operand::kind::symbol);
    CHECK(k.labels.at("$L__BB0_2") == 14);
    const instruction& vld = k.body[5];
    CHECK(vld.guard_negated);
    CHECK(vld.has("v2"));
    CHECK(vld.space == state_space::global);
    CHECK(vld.ops[0].k == operand::kind::vector);
    CHECK(vld.ops[0].elems.size() == 2);
    CHECK(vld.ops[1].base_is_reg);
    CHECK(vld.ops[1].ival == -8);
    CHECK(vld.loc_line == 11);
    CHECK(vld.call_line == 12);
    CHECK(m.source_line(vld) == "k.cu:11");
    CHECK(k.body[6].ops[1].k == operand::kind::imm_f32);
    CHECK(k.body[6].ops[1].fval == -1.0);
    CHECK(k.body[7].ops[1].k == operand::kind::imm_f64);
    CHECK(k.body[7].ops[1].fval == 1.0);
    CHECK(k.body[8].ops[0].name == "tile");
    CHECK(k.body[8].ops[0].ival == 4);
    CHECK(k.body[9].ops[4].ival == -1);
    CHECK(k.body[10].ops[1].k == operand::kind::symbol);
    const instruction& st = k.body[11];
    CHECK(st.scope == 1);
    CHECK(k.decls[static_cast<std::size_t>(st.ops[0].decl)].scope == 1);
    const instruction& call = k.body[12];
    CHECK(call.opcode == "call");
    CHECK(call.has("uni"));
    CHECK(call.callee == "helper");
    CHECK(call.ops.size() == 1);
    CHECK(call.args.size() == 1);
    CHECK(!call.indirect);
    CHECK(k.body[14].opcode == "ret");
    CHECK(k.body[14].scope == 0);
    CHECK(check_entry(m, 2).empty());
}

TEST_CASE("scopes: a name declared in a block is not visible after it, call blocks reuse names")
{
    const std::string text = std::string(header) + R"(
.visible .entry k()
{
    .reg .b32 %r<2>;
    {
    .reg .b32 inner;
    mov.u32 inner, 1;
    }
    {
    .reg .b32 inner;
    mov.u32 inner, 2;
    }
    mov.u32 %r1, inner;
    ret;
}
)";
    const parse_result r = parse(text, "t.ptx");
    REQUIRE(r.errors.size() == 1);
    CHECK(r.errors[0] == "t.ptx:16:18: error: 'inner' is not declared");
}

TEST_CASE("PTX 9.0 from nvcc 13 parses, with .loc inlined_at and .file at the end")
{
    const parse_result r = must_parse(test::read("data/reduce_shfl.nvcc13.ptx"));
    CHECK(r.mod.version_major == 9);
    CHECK(r.mod.target == "sm_75");
    const entry_lookup e = find_entry(r.mod, "reduce_shfl", {"w.yaml", 1, 1});
    REQUIRE(e.ok());
    CHECK(e.name.signature() == "reduce_shfl(const float*, float*, int)");
    const function& f = r.mod.functions[static_cast<std::size_t>(e.index)];
    CHECK(test::opcode_counts(f)["shfl.sync.down.b32"] == 5);
    CHECK(check_entry(r.mod, e.index).empty());
    bool saw_inlined = false;
    for (const instruction& ins : f.body)
        if (ins.opcode == "shfl") {
            CHECK(r.mod.source_line(ins) ==
                  "test/ptx/kernels/reduce_shfl.cu:7 via "
                  "/usr/local/cuda/bin/../targets/x86_64-linux/include/sm_30_intrinsics.hpp:440");
            saw_inlined = true;
        }
    CHECK(saw_inlined);

    const parse_result mm = must_parse(test::read("data/matmul_tiled.nvcc13.ptx"));
    const entry_lookup g = find_entry(mm.mod, "gemm_kernel", {"w.yaml", 1, 1});
    REQUIRE(g.ok());
    CHECK(entry_params(mm.mod, g.index).size() == 8);
    std::uint64_t shared = 0;
    for (const variable& v : mm.mod.globals) // nvcc declares them in the entry
        CHECK(v.space != state_space::shared);
    for (const variable& v : mm.mod.functions[static_cast<std::size_t>(g.index)].decls)
        if (v.space == state_space::shared)
            shared += v.bytes();
    CHECK(shared == 2048);
}

TEST_CASE("PTX 6.0 from clang 14 with line tables and debug sections parses")
{
    const parse_result r = must_parse(test::read("data/softmax_row.clang14.ptx"));
    CHECK(r.mod.version_major == 6);
    CHECK(r.mod.version_minor == 0);
    const entry_lookup e = find_entry(r.mod, "softmax_row", {"w.yaml", 1, 1});
    REQUIRE(e.ok());
    const function& f = r.mod.functions[static_cast<std::size_t>(e.index)];
    CHECK(r.mod.source_line(f.body.front()).rfind("test/ptx/kernels/softmax_row.cu:", 0) == 0);
    CHECK(check_entry(r.mod, e.index).empty());
}
