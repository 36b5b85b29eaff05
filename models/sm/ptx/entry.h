// Entry lookup and checks of what an entry may use: find a kernel by its unqualified name,
// expose its parameters, and reject what vgpu cannot run (textures, surfaces, dynamic
// parallelism, grid-wide synchronisation, indirect calls, recursion). See docs/cuda.md.
#pragma once

#include "models/common/location.h"
#include "models/sm/ptx/ast.h"
#include "models/sm/ptx/demangle.h"

#include <string>
#include <string_view>
#include <vector>

namespace vgpu::ptx {

/// Output of find_entry().
struct entry_lookup {
    int index = -1;                    ///< index in module::functions, -1 when not found
    demangled name{};                  ///< the entry's demangled name
    std::vector<std::string> errors{}; ///< "where: error: entry: ..."
    bool ok() const { return index >= 0; }
};

/// Finds the .entry named `name`: its mangled name, its unqualified name ("gemm_kernel"), its
/// scoped name ("ns::gemm_kernel") or its name with template arguments ("k<float>"). No match
/// is an error with a did-you-mean and the list of kernels; several matches (overloads,
/// template instances) is an error listing the candidates. `where` is the workload's key.
entry_lookup find_entry(const module& m, std::string_view name, const config::location& where);

/// One kernel parameter, in order, as the workload checker needs it.
struct param_info {
    std::string name;     ///< PTX parameter name
    data_type type;       ///< PTX type (.u64 for a pointer, .b8 for a struct by value)
    std::uint64_t bytes;  ///< size in bytes
    unsigned align;       ///< alignment in bytes (the type's size when not given)
    bool is_pointer;      ///< the C++ type is a pointer (from the mangled name)
    std::string cxx_type; ///< C++ type from the mangled name, "" when unknown
};

/// The parameters of functions[index].
std::vector<param_info> entry_params(const module& m, int index);

/// Everything functions[index] and the functions it calls use that vgpu cannot run, each
/// "file.ptx:LINE:COL: error: unsupported ... (CUDA source FILE:LINE)".
std::vector<std::string> check_entry(const module& m, int index);

} // namespace vgpu::ptx
