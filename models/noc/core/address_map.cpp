// The GPU's physical memory map. See models/noc/README.md.
#include "models/noc/core/address_map.h"

#include <stdexcept>

namespace vgpu::noc {

address_map::address_map(unsigned modules, std::uint64_t module_bytes, unsigned slices,
                         unsigned line_bytes)
    : m_modules(modules), m_module_bytes(module_bytes), m_slices(slices), m_line(line_bytes)
{
    if (modules == 0 || module_bytes == 0 || slices == 0 || line_bytes == 0)
        throw std::invalid_argument("address_map: every dimension must be positive");
}

std::optional<unsigned> address_map::home(std::uint64_t pa) const
{
    const std::uint64_t m = pa / m_module_bytes;
    if (m >= m_modules)
        return std::nullopt;
    return static_cast<unsigned>(m);
}

} // namespace vgpu::noc
