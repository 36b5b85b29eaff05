// The GPU's physical memory map as the interconnect sees it: which module is an address's home
// and which LLC slice of that module caches its line. Pure C++; see models/noc/README.md.
#pragma once

#include <cstdint>
#include <optional>

namespace vgpu::noc {

/// Module m owns physical [m x module_bytes, (m + 1) x module_bytes); within a module, lines
/// are interleaved over the LLC slices (line i on slice i mod slices).
class address_map {
public:
    /// modules >= 1, module_bytes > 0, slices >= 1, line_bytes > 0.
    address_map(unsigned modules, std::uint64_t module_bytes, unsigned slices, unsigned line_bytes);

    /// Home module of `pa`, or nothing above the last module's memory.
    std::optional<unsigned> home(std::uint64_t pa) const;
    /// LLC slice of `pa` within its home module.
    unsigned slice(std::uint64_t pa) const
    {
        return static_cast<unsigned>((pa / m_line) % m_slices);
    }

    unsigned modules() const { return m_modules; }                ///< modules (chiplets)
    std::uint64_t module_bytes() const { return m_module_bytes; } ///< physical bytes per module
    unsigned slices() const { return m_slices; }                  ///< LLC slices per module
    unsigned line_bytes() const { return m_line; }                ///< interleave granule

private:
    unsigned m_modules;
    std::uint64_t m_module_bytes;
    unsigned m_slices, m_line;
};

} // namespace vgpu::noc
