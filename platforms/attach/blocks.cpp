// The block table: the one place that names the blocks the GPU platform can hold. Each line's
// maker is defined in the block's attach file (platforms/attach/<block>.cpp). See
// docs/architecture.md ("Adding a block").
#include "platforms/attach/blocks.h"

namespace vgpu::platforms::attach {

std::unique_ptr<block> tlb_block(const vgpu_config& cfg, const clock_params& clk);
std::unique_ptr<block> cdl_block(const vgpu_config& cfg, const clock_params& clk);
std::unique_ptr<block> l1_share_block(const vgpu_config& cfg, const clock_params& clk);
std::unique_ptr<block> shader_trace_block(const vgpu_config& cfg, const clock_params& clk);
std::unique_ptr<block> llc_switch_block(const vgpu_config& cfg, const clock_params& clk);

namespace {
/// In this order: the order of the blocks' driver parts (their hooks' order), of their parts
/// in each cluster (the SMs' memory-path stages, SM side first), and, among the blocks joining
/// at one attach_step, of their router outputs, NoC inputs and processes.
constexpr block_maker table[] = {
    shader_trace_block, // shader_trace.enable: the trace unit (after the host's NoC input)
    tlb_block,          // L1 TLB stages, cluster TLBs, fault unit
    cdl_block,          // CBV table, each SM's CDL controller
    l1_share_block,     // every L1's sharing counters; shared | adaptive: the L1 routing
    llc_switch_block,   // more than one module: the LLC switcher (after the links)
};
} // namespace

std::vector<std::unique_ptr<block>> make_blocks(const vgpu_config& cfg, const clock_params& clk,
                                                const std::vector<block_maker>& extra)
{
    std::vector<std::unique_ptr<block>> out;
    for (block_maker make : table)
        if (auto b = make(cfg, clk))
            out.push_back(std::move(b));
    for (block_maker make : extra)
        if (auto b = make(cfg, clk))
            out.push_back(std::move(b));
    return out;
}

std::string active_blocks(const std::vector<std::unique_ptr<block>>& blocks)
{
    std::string out;
    for (const auto& b : blocks)
        if (const std::string a = b->active(); !a.empty())
            out += (out.empty() ? "" : ", ") + a;
    return out.empty() ? "none" : out;
}

} // namespace vgpu::platforms::attach
