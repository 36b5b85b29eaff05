// vgpu CUDA shim, included implicitly before every CUDA source (as nvcc does): the device side
// and the declarations of the runtime API that host code uses. See docs/cuda.md.
#pragma once

#include "vgpu_cuda_device.h"
#include "vgpu_cuda_host.h"
#include "vgpu_cuda_math.h"
