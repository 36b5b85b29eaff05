// Demangler, entry lookup (unqualified names, overloads, templates, did-you-mean) and the
// checks of what an entry may use (textures, recursion, indirect calls, dynamic parallelism,
// grid-wide synchronisation, undefined functions).
#include "models/sm/ptx/compile.h"
#include "models/sm/ptx/entry.h"
#include "models/sm/ptx/parser.h"
#include "ptx_test_util.h"

#include <catch2/catch.hpp>

using namespace vgpu::ptx;

TEST_CASE("demangle: the Itanium subset kernel names use")
{
    const char* cases[][2] = {
        {"_Z11gemm_kerneliiiffPfS_S_",
         "gemm_kernel(int, int, int, float, float, float*, float*, float*)"},
        {"_Z4vaddPKfS0_Pfi", "vadd(const float*, const float*, float*, int)"},
        {"_Z11gemm_kerneliiiffPKfS0_Pf",
         "gemm_kernel(int, int, int, float, float, const float*, const float*, float*)"},
        {"_ZN2ns5scaleIfEEvPT_S1_", "ns::scale<float>(float*, float)"},
        {"_Z6kernelIdLi4EEvPT_", "kernel<double, 4>(double*)"},
        {"_Z1kv", "k()"},
        {"_Z1kPVjRKdPPcA4_s", "k(volatile unsigned int*, const double&, char**, short[4])"},
        {"_ZN3foo3bar3bazEPNS_3QuxES2_", "foo::bar::baz(foo::Qux*, foo::Qux*)"},
        {"_Z1kyxhtbDn", "k(unsigned long long, long long, unsigned char, unsigned short, bool, "
                        "decltype(nullptr))"},
        {"_Z1kPK6float4P5uint2", "k(const float4*, uint2*)"},
        {"_ZN12_GLOBAL__N_16kernelEPf", "(anonymous namespace)::kernel(float*)"},
        {"_ZL10uniformAddPjS_iii", "uniformAdd(unsigned int*, unsigned int*, int, int, int)"},
        {"_ZL7prescanILb1ELb0EEvPjPKjS0_iii",
         "prescan<true, false>(unsigned int*, const unsigned int*, unsigned int*, int, int, int)"},
        {"_Z1kPU3AS1f", "_Z1kPU3AS1f"}, // vendor qualifiers: not understood, kept as is
    };
    for (const auto& c : cases) {
        INFO(c[0]);
        CHECK(demangle(c[0]).signature() == c[1]);
    }
    CHECK(demangle("_ZN2ns5scaleIfEEvPT_S1_").unqualified == "scale");
    CHECK(demangle("_ZN2ns5scaleIfEEvPT_S1_").scoped == "ns::scale");
    CHECK(!demangle("vector_add").ok);
    CHECK(demangle("vector_add").unqualified == "vector_add");
    CHECK(!demangle("_Z").ok);
    CHECK(!demangle("_Z99k").ok);
    CHECK(!demangle("_Z1kS5_").ok);
}

namespace {

parse_result compiled(const std::string& cu)
{
    compile_request req;
    req.source = test::path("kernels/" + cu);
    req.kernel = "*";
    const compile_result c = compile_cuda(req);
    for (const std::string& e : c.errors)
        UNSCOPED_INFO(e);
    REQUIRE(c.ok());
    parse_result p = parse(c.ptx, "u.ptx");
    for (const std::string& e : p.errors)
        UNSCOPED_INFO(e);
    REQUIRE(p.ok());
    return p;
}

/// The errors of check_entry for the kernel `name`, with the CUDA file path shortened.
std::vector<std::string> check(const module& m, const std::string& name)
{
    const entry_lookup e = find_entry(m, name, {"w.yaml", 2, 8});
    REQUIRE(e.ok());
    std::vector<std::string> errs = check_entry(m, e.index);
    const std::string dir = test::path("kernels/");
    for (std::string& s : errs)
        for (std::size_t at; (at = s.find(dir)) != std::string::npos;)
            s.erase(at, dir.size());
    return errs;
}

} // namespace

TEST_CASE("entry lookup: unqualified, scoped, templated and mangled names, errors list candidates")
{
    const parse_result p = compiled("unsupported.cu");
    const module& m = p.mod;
    CHECK(find_entry(m, "calls_function", {"w.yaml", 2, 8}).ok());
    CHECK(find_entry(m, "_Z14calls_functionPf", {"w.yaml", 2, 8}).ok());
    CHECK(find_entry(m, "_Z10overloadedPi", {"w.yaml", 2, 8}).ok());
    CHECK(find_entry(m, "ns::scale<float>", {"w.yaml", 2, 8}).name.signature() ==
          "ns::scale<float>(float*, float)");

    entry_lookup e = find_entry(m, "overloaded", {"w.yaml", 2, 8});
    REQUIRE(e.errors.size() == 1);
    CHECK(e.errors[0] == "w.yaml:2:8: error: entry: 'overloaded' is ambiguous in u.ptx: it names 2 "
                         "kernels: overloaded(float*) [_Z10overloadedPf], overloaded(int*) "
                         "[_Z10overloadedPi]; give the mangled name of one");
    e = find_entry(m, "ns::scale", {"w.yaml", 2, 8});
    REQUIRE(e.errors.size() == 1);
    CHECK(e.errors[0] == "w.yaml:2:8: error: entry: 'ns::scale' is ambiguous in u.ptx: it names 2 "
                         "kernels: ns::scale<float>(float*, float) [_ZN2ns5scaleIfEEvPT_S1_], "
                         "ns::scale<double>(double*, double) [_ZN2ns5scaleIdEEvPT_S1_]; give the "
                         "mangled name of one");
    e = find_entry(m, "calls_functoin", {"w.yaml", 2, 8});
    REQUIRE(e.errors.size() == 1);
    CHECK(e.errors[0].rfind("w.yaml:2:8: error: entry: no kernel 'calls_functoin' in u.ptx; did "
                            "you mean 'calls_function'? (kernels: uses_texture(float*) "
                            "[_Z12uses_texturePf], uses_recursion(int*) [_Z14uses_recursionPi], "
                            "calls_function(float*) [_Z14calls_functionPf], ",
                            0) == 0);
    e = find_entry(m, "twice", {"w.yaml", 2, 8}); // a device function is not a kernel
    REQUIRE(e.errors.size() == 1);
    CHECK(e.errors[0].rfind("w.yaml:2:8: error: entry: no kernel 'twice' in u.ptx (kernels: ", 0) ==
          0);

    const parse_result none = parse(".version 6.0\n.target sm_70\n.address_size 64\n", "n.ptx");
    REQUIRE(none.ok());
    e = find_entry(none.mod, "k", {"w.yaml", 2, 8});
    REQUIRE(e.errors.size() == 1);
    CHECK(e.errors[0] == "w.yaml:2:8: error: entry: no kernel 'k' in n.ptx, which has no .entry");
}

TEST_CASE("what an entry may not use is a located unsupported error with the CUDA line")
{
    const parse_result p = compiled("unsupported.cu");
    const module& m = p.mod;
    CHECK(check(m, "calls_function").empty());
    std::vector<std::string> errs = check(m, "uses_texture");
    INFO((errs.empty() ? "" : errs[0]));
    REQUIRE(errs.size() == 1);
    CHECK(errs[0].find("u.ptx:") == 0);
    CHECK(errs[0].find(": error: unsupported texture fetch (tex1Dfetch, tex1D, tex2D read a "
                       "texture) (CUDA source unsupported.cu:6)") != std::string::npos);
    errs = check(m, "uses_recursion");
    REQUIRE(errs.size() == 1);
    INFO((errs.empty() ? "" : errs[0]));
    CHECK(errs[0].find(": error: unsupported recursion: fib(int) -> fib(int) (CUDA source "
                       "unsupported.cu:11)") != std::string::npos);
}

TEST_CASE("unsupported features in hand-written PTX: exact messages")
{
    const std::string h = ".version 7.0\n.target sm_70\n.address_size 64\n.file 1 \"k.cu\"\n";
    const char* cases[][2] = {
        {".global .texref t;\n.entry k() {\n.reg .f32 %f<5>;\n.reg .s32 %r<2>;\n.loc 1 7 2\n"
         "tex.1d.v4.f32.s32 {%f1, %f2, %f3, %f4}, [t, {%r1}];\nret;\n}\n",
         "t.ptx:10:1: error: unsupported texture instruction 'tex.1d.v4.f32.s32' (CUDA source "
         "k.cu:7)"},
        {".global .surfref s;\n.entry k() {\n.reg .b32 %r<2>;\nsuld.b.1d.b32.trap {%r1}, [s, "
         "{%r0}];\nret;\n}\n",
         "t.ptx:8:1: error: unsupported surface instruction 'suld.b.1d.b32.trap'"},
        {".global .texref t;\n.entry k() {\n.reg .b64 %rd<2>;\nmov.u64 %rd1, t;\nret;\n}\n",
         "t.ptx:8:1: error: unsupported texture or surface reference 't'"},
        {".entry k() {\n.reg .b64 %rd<2>;\ncall.uni %rd1, (%rd0), proto;\nret;\n}\n",
         "t.ptx:7:1: error: unsupported indirect call through %rd1"},
        {".extern .func (.param .b32 r) cudaLaunchDeviceV2 (.param .b64 a, .param .b64 b);\n"
         ".entry k() {\n.reg .b64 %rd<2>;\n.reg .b32 %r<2>;\n.loc 1 3 1\n"
         "call.uni (%r1), cudaLaunchDeviceV2, (%rd0, %rd1);\nret;\n}\n",
         "t.ptx:10:1: error: unsupported dynamic parallelism (device-side 'cudaLaunchDeviceV2') "
         "(CUDA source k.cu:3)"},
        {".extern .func cudaCGSynchronize (.param .b64 h, .param .b32 f);\n"
         ".entry k() {\n.reg .b64 %rd<2>;\n.reg .b32 %r<2>;\ncall.uni cudaCGSynchronize, (%rd0, "
         "%r0);\nret;\n}\n",
         "t.ptx:9:1: error: unsupported grid-wide synchronisation ('cudaCGSynchronize', "
         "cooperative groups)"},
        {".extern .func (.param .f32 r) expf (.param .f32 x);\n"
         ".entry k() {\n.reg .f32 %f<2>;\ncall.uni (%f1), expf, (%f0);\nret;\n}\n",
         "t.ptx:8:1: error: unsupported call to 'expf', which the PTX declares but does not "
         "define (a library function vgpu does not provide)"},
        {".func a() {\ncall.uni b;\nret;\n}\n.func b() {\ncall.uni a;\nret;\n}\n"
         ".entry k() {\ncall.uni a;\nret;\n}\n",
         "t.ptx:10:1: error: unsupported recursion: a -> b -> a"},
        {".entry k() {\n.reg .b32 %r<2>;\nts: .branchtargets L1;\nbrx.idx %r1, ts;\nL1:\nret;\n}\n",
         "t.ptx:8:1: error: unsupported indirect branch 'brx.idx'"},
    };
    for (const auto& c : cases) {
        const parse_result p = parse(h + c[0], "t.ptx");
        INFO(h + c[0]);
        for (const std::string& e : p.errors)
            UNSCOPED_INFO(e);
        REQUIRE(p.ok());
        const int k = p.mod.find_function("k");
        REQUIRE(k >= 0);
        const std::vector<std::string> errs = check_entry(p.mod, k);
        REQUIRE(errs.size() == 1);
        CHECK(errs[0] == c[1]);
    }
}
