// vgpu CUDA shim: <cuda_runtime.h> names the runtime shim (included implicitly anyway). See
// docs/cuda.md.
#pragma once

#include "vgpu_cuda_runtime.h"
