// Demangler for the subset of the Itanium C++ ABI that kernel names use (namespaces, templates
// with type and literal arguments, builtin, pointer, reference, cv-qualified, array and class
// types, substitutions). See docs/cuda.md.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace vgpu::ptx {

/// A demangled function name.
struct demangled {
    bool ok = false;                   ///< false when the name is not mangled or not understood
    std::string qualified{};           ///< "ns::kernel<float>"
    std::string unqualified{};         ///< "kernel" (no scope, no template arguments)
    std::string scoped{};              ///< "ns::kernel" (scope, no template arguments)
    std::vector<std::string> params{}; ///< parameter types ("const float*", "int")
    /// "ns::kernel<float>(float*, int)", or the name itself when not ok.
    std::string signature() const;
};

/// Demangles `name`; a name that does not start with _Z comes back with ok false.
demangled demangle(std::string_view name);

} // namespace vgpu::ptx
