// Translation time of CUDA kernels (scripts/bench cuda): each FILE.cu:ENTRY argument is
// compiled once by the compile driver (clang; not timed), then parsed, its entry found,
// translated and assembled `reps` times; prints the best host time of that front end per
// kernel (the compiler excluded) with the program's size. Exit 1 if a kernel does not compile
// or translate.
#include "models/sm/core/assembler.h"
#include "models/sm/ptx/compile.h"
#include "models/sm/ptx/entry.h"
#include "models/sm/ptx/parser.h"
#include "models/sm/ptx/translate.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>

using namespace vgpu;

int main(int argc, char** argv)
{
    const int reps = 20;
    int status = 0;
    std::printf("%-32s %9s %9s %9s %12s\n", "kernel", "PTX lines", "vgpu", "registers",
                "translate ms");
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        const auto colon = arg.rfind(':');
        if (colon == std::string::npos) {
            std::fprintf(stderr, "usage: vgpu-ptx-bench FILE.cu:ENTRY ...\n");
            return 2;
        }
        ptx::compile_request req;
        req.source = arg.substr(0, colon);
        req.kernel = arg.substr(colon + 1);
        const ptx::compile_result c = ptx::compile_cuda(req);
        if (!c.ok()) {
            for (const auto& e : c.errors)
                std::fprintf(stderr, "%s\n", e.c_str());
            status = 1;
            continue;
        }
        double best = 1e30;
        std::size_t instructions = 0;
        unsigned registers = 0;
        bool ok = true;
        for (int r = 0; r < reps && ok; ++r) {
            const auto t0 = std::chrono::steady_clock::now();
            const ptx::parse_result p = ptx::parse(c.ptx, req.kernel + ".ptx");
            ok = p.ok();
            const ptx::entry_lookup e =
                ok ? ptx::find_entry(p.mod, req.kernel, {"bench", 1, 1}) : ptx::entry_lookup{};
            ok = ok && e.ok();
            const ptx::translation t = ok ? ptx::translate(p.mod, e.index) : ptx::translation{};
            ok = ok && t.ok();
            if (!ok)
                break;
            const auto a = sm::assemble(t.text, {}, {"bench.vgpu", 1, 1}, t.registers);
            ok = a.ok();
            best = std::min(best, std::chrono::duration<double, std::milli>(
                                      std::chrono::steady_clock::now() - t0)
                                      .count());
            instructions = a.code.size();
            registers = t.registers;
        }
        if (!ok) {
            std::fprintf(stderr, "%s: does not parse, translate or assemble\n", arg.c_str());
            status = 1;
            continue;
        }
        const auto lines = static_cast<std::size_t>(std::count(c.ptx.begin(), c.ptx.end(), '\n'));
        std::printf("%-32s %9zu %9zu %9u %12.3f\n", req.kernel.c_str(), lines, instructions,
                    registers, best);
    }
    return status;
}
