// CUDA compile driver: runs Debian's clang-14 in device-only mode on a CUDA source with the
// vgpu shim included, and returns the PTX or located diagnostics. See docs/cuda.md.
#pragma once

#include "models/common/location.h"

#include <string>
#include <utility>
#include <vector>

namespace vgpu::ptx {

/// What to compile and how it is named in messages.
struct compile_request {
    std::string source;       ///< path of the .cu file (as the user wrote it, resolved)
    std::string kernel;       ///< entry name, for messages
    config::location where{}; ///< the workload key that names the source (`cuda:`)
    std::vector<std::pair<std::string, std::string>> defines{}; ///< -D NAME=value
    std::vector<std::string> includes{};                        ///< -I DIR
    std::string compiler = "clang-14"; ///< program looked up in PATH (tests replace it)
    std::string shim_dir{};            ///< the shim headers; empty: default_shim_dir()
    double timeout_s = 120.0;          ///< the compiler is killed after this many seconds
};

/// Output of compile_cuda().
struct compile_result {
    std::string ptx;                 ///< the PTX text; empty when there are errors
    std::vector<std::string> errors; ///< "file:line:col: error: ...", each naming the kernel
    std::string diagnostics;         ///< the compiler's own messages (warnings, notes), verbatim
    std::vector<std::string> argv;   ///< the command line that ran
    bool ok() const { return errors.empty(); } ///< true when ptx holds the compiler's output
};

/// Directory of the shim headers shipped with this build (models/sm/ptx/include).
std::string default_shim_dir();
/// The compiler's command line for req: every flag but the user's -D/-I is fixed.
std::vector<std::string> compile_command(const compile_request& req);
/// Runs the compiler (no shell) and collects its output; never throws for bad input.
compile_result compile_cuda(const compile_request& req);

/// Output of a child process run by run_program().
struct program_output {
    int status = -1;         ///< exit code, or -1 when it did not exit normally
    bool not_found = false;  ///< the program could not be started (ENOENT)
    bool timed_out = false;  ///< killed after the time limit
    std::string out;         ///< its standard output
    std::string err;         ///< its standard error
    std::string spawn_error; ///< why it could not be started, when it could not
};
/// Runs argv[0] (looked up in PATH) with argv, no shell, stdin closed; kills it after
/// timeout_s seconds.
program_output run_program(const std::vector<std::string>& argv, double timeout_s);

} // namespace vgpu::ptx
