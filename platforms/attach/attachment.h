// How a block joins the GPU platform: the platform makes every block of the block table
// (platforms/attach/blocks.cpp) before it builds the GPU; a block may add a part to each
// cluster (per-cluster state, a stage on each SM's memory path, the L1s' joining) and joins the
// built GPU at one step of its construction. See docs/architecture.md ("Adding a block").
#pragma once

#include "models/common/timing.h"
#include "tlm_bus/path_stage.h"

#include <memory>
#include <string>
#include <tlm>
#include <vector>

namespace vgpu::cp {
class cp;
}
namespace vgpu::host {
class driver;
}
namespace vgpu::l1 {
class l1;
}
namespace vgpu::sm {
class sm;
class same_time_gate;
} // namespace vgpu::sm
namespace vgpu::stats {
class group;
}
namespace vgpu::tlm_bus {
class router;
}
namespace vgpu::platforms {
class module_unit;
struct vgpu_config;
} // namespace vgpu::platforms

namespace vgpu::platforms::attach {

/// The parts of the GPU a block's attach() may join the block to (the platform owns them for
/// the whole run; the structure below the platform is platforms/gpu_units.h).
struct gpu_view {
    std::vector<std::unique_ptr<module_unit>>& modules; ///< m0, m1, ...
    tlm_bus::router& mmio_bus; ///< register windows, bound by name (platforms/mmio_map.h)
    cp::cp& cp;                ///< the command processor
    host::driver& host;        ///< the host driver
    stats::group& figures;     ///< the platform's group (stats `gpu.*`): GPU-wide figures
    /// Fast mode: the same-time gate the SMs (keys 0 .. SMs - 1) sleep through; null otherwise.
    sm::same_time_gate* sm_order = nullptr;
};

/// A block's part of one cluster, made as the cluster begins (before its SMs) and owned by the
/// cluster. The cluster asks every part, in block-table order, SM by SM.
class cluster_part {
public:
    virtual ~cluster_part() = default;
    /// The `home_bits` of the cluster's L1s (l1::l1), or 0.
    virtual unsigned l1_home_bits() const { return 0; }
    /// Cluster SM `i`'s stage on its memory path (between the SM and its L1), or null.
    virtual std::unique_ptr<tlm_bus::path_stage> path_stage(unsigned i, const std::string& sm_name)
    {
        (void)i;
        (void)sm_name;
        return nullptr;
    }
    /// Joins cluster SM `i`'s memory path, which ends at `path_end`, to its L1 `l1`; false when
    /// the part leaves that to the cluster (a direct binding). Every part is asked; at most one
    /// may join (a second binding of the path is an elaboration error).
    virtual bool join_l1(unsigned i, const std::string& sm_name,
                         tlm::tlm_initiator_socket<>& path_end, l1::l1& l1)
    {
        (void)i;
        (void)sm_name;
        (void)path_end;
        (void)l1;
        return false;
    }
    /// Once every SM of the cluster is built and joined.
    virtual void end_cluster() {}
};

/// When a block joins the built GPU (the order of the NoC inputs and the routes depend on it).
enum class attach_step {
    modules_built, ///< after the modules, the CP's dispatch and the MMIO bus's CP window
    host_bound,    ///< after the host's NoC input of module 0
    links_bound,   ///< after the inter-module links and every module NoC's default route
};

/// One block's way into the platform, made by its line of the block table before the GPU is
/// built and owned by the platform for the whole run (it outlives the modules, which may refer
/// to what it made).
class block {
public:
    virtual ~block() = default;
    /// The block's part of the cluster named `cluster` (its path) whose SMs `sms` will hold
    /// (the first has id `first_id`), or null.
    virtual std::unique_ptr<cluster_part>
    begin_cluster(const std::string& cluster, const std::vector<std::unique_ptr<sm::sm>>& sms,
                  unsigned first_id)
    {
        (void)cluster;
        (void)sms;
        (void)first_id;
        return nullptr;
    }
    /// Adds the block's part of the host driver (host::driver::add_part), if it has one; called
    /// in block-table order as the driver is built, before any cluster.
    virtual void add_driver_part(host::driver& drv) { (void)drv; }
    /// The step after which attach() runs.
    virtual attach_step step() const { return attach_step::modules_built; }
    /// Builds the block's modules, binds them and its register window by name, adds its
    /// figures. Called once, within the platform's construction.
    virtual void attach(gpu_view& gpu) { (void)gpu; }
    /// The block and its mode as the run summary names it ("tlb (timed, xor index, ...)"), or
    /// "" when the block is built but at its baseline (e.g. l1.sharing private).
    virtual std::string active() const { return {}; }
};

/// A line of the block table: the block for this configuration, or null when it has none.
using block_maker = std::unique_ptr<block> (*)(const vgpu_config& cfg, const clock_params& clk);

} // namespace vgpu::platforms::attach
