// vgpu CUDA shim: <device_launch_parameters.h> names the runtime shim (included implicitly anyway).
// See docs/cuda.md.
#pragma once

#include "vgpu_cuda_runtime.h"
