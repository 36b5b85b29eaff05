// vgpu CUDA shim: <vector_types.h> names the runtime shim (included implicitly anyway). See
// docs/cuda.md.
#pragma once

#include "vgpu_cuda_runtime.h"
