// The GPU's structure below the platform: a module (chiplet) of clusters, NoC, LLC slices
// and DRAM; a cluster of SMs with their memory-path stages and L1s. See docs/architecture.md.
#pragma once

#include "models/common/timing.h"
#include "models/dram/dram.h"
#include "models/l1/l1.h"
#include "models/llc/home_router.h"
#include "models/llc/llc.h"
#include "models/noc/interconnect.h"
#include "models/sm/sm.h"
#include "platforms/attach/attachment.h"
#include "platforms/vgpu_config.h"
#include "tlm_bus/path_stage.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace vgpu::platforms {

/// The blocks of the platform (platforms/attach/blocks.h), in block-table order.
using block_list = std::vector<std::unique_ptr<attach::block>>;

/// One cluster: SMs with their memory-path stages and L1, and the cluster crossbar.
class cluster_unit : public sc_core::sc_module {
public:
    /// Each block of `blocks` may add a part (attach::block::begin_cluster), which gives each
    /// SM's memory-path stages and may join the SMs to their L1s.
    cluster_unit(const sc_core::sc_module_name& name, const vgpu_config& cfg,
                 const clock_params& clk, unsigned module, unsigned cluster,
                 const block_list& blocks);
    /// The blocks' parts of this cluster (e.g. the cluster TLB, the L1 routing), in block-table
    /// order; declared first, so that they outlive the SMs, stages and L1s that refer to them.
    std::vector<std::unique_ptr<attach::cluster_part>> parts;
    std::vector<std::unique_ptr<sm::sm>> sms;
    std::vector<std::vector<std::unique_ptr<tlm_bus::path_stage>>> stages; ///< per SM
    std::vector<std::unique_ptr<l1::l1>> l1s;
    /// Inputs `sm<i>_l1` and each stage's side ports (`sm<i>_<stage>_<port>`); output `noc`.
    std::unique_ptr<noc::interconnect> xbar;
};

/// One module (chiplet): clusters, the module NoC, LLC slices and the DRAM controller.
class module_unit : public sc_core::sc_module {
public:
    module_unit(const sc_core::sc_module_name& name, const vgpu_config& cfg,
                const clock_params& clk, unsigned module, const block_list& blocks);
    std::vector<std::unique_ptr<cluster_unit>> clusters;
    /// Inputs `c<c>`, `host` (module 0), `link_<a>_<m>`; outputs `llc<k>`, `link_<m>_<b>`.
    std::unique_ptr<noc::interconnect> noc;
    std::vector<std::unique_ptr<llc::llc>> llcs;
    /// Multi-module GPUs: per slice, its fills and write-backs to the home of their line.
    std::vector<std::unique_ptr<llc::home_router>> homes;
    ::vgpu::dram::dram dram; ///< this module's memory
};

/// Sum of one SM statistic over every SM of `modules`.
double sum_over_sms(const std::vector<std::unique_ptr<module_unit>>& modules,
                    std::uint64_t (sm::sm::*stat)() const);

} // namespace vgpu::platforms
