// Whether this build has the verilated OUTLis buffer. See models/shader_trace/core/group_buffer.h.
#include "models/shader_trace/core/group_buffer.h"

namespace vgpu::shader_trace {

bool outlis_rtl_built()
{
    return VGPU_OUTLIS_RTL_BUILT != 0; // set by CMake for this file alone
}

} // namespace vgpu::shader_trace
