// The workload's own lookups (the reader is workload_reader.cpp and workload_*.cpp). See
// docs/workloads.md.
#include "models/host/workload.h"

namespace vgpu::host {

int workload::buffer_index(std::string_view n) const
{
    for (std::size_t i = 0; i < buffers.size(); ++i)
        if (buffers[i].name == n)
            return static_cast<int>(i);
    return -1;
}

int workload::kernel_index(std::string_view n) const
{
    for (std::size_t i = 0; i < kernels.size(); ++i)
        if (kernels[i].name == n)
            return static_cast<int>(i);
    return -1;
}

const loop_decl* workload::loop_of(std::size_t p) const
{
    for (const loop_decl& l : loops)
        if (l.contains(p))
            return &l;
    return nullptr;
}

} // namespace vgpu::host
