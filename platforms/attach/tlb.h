// The TLB block joined to the GPU platform: the fault unit and its window and interrupt, every
// SM's L1 TLB and every cluster's TLB tied to it and to the CP's shootdown, and the GPU's TLB
// and page-fault figures. See models/tlb/README.md.
#pragma once

#include "models/common/timing.h"
#include "platforms/attach/attachment.h"
#include "platforms/vgpu_config.h"
#include "tlm_bus/path_stage.h"

#include <memory>
#include <string>

namespace vgpu::tlb {
class cluster_tlb;
}

namespace vgpu::platforms::attach {

/// SM `sm_name`'s L1 TLB, a stage of its memory path (`<sm>_tlb`), missing to `cluster`.
std::unique_ptr<tlm_bus::path_stage> tlb_stage(const std::string& sm_name, const vgpu_config& cfg,
                                               const clock_params& clk, tlb::cluster_tlb& cluster);

/// Builds the fault unit (`gpu.faults`, MMIO window `faults`, fault_irq to the host), gives it
/// and one set of ideal translations to every SM's L1 TLB, wires the CP's TLB_INVALIDATE to
/// every TLB, and adds the figures tlb_hits, tlb_misses, page_faults, fault_services,
/// fault_batches and fault_stall_cycles. After the modules are built.
std::unique_ptr<attachment> attach_tlb(gpu_view& gpu, const vgpu_config& cfg);

} // namespace vgpu::platforms::attach
