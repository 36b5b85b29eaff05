// The register maps agree: the firmware's generated C header with the models' C++ constants, and
// every model's register bank with its description. See docs/registers.md.
#include "models/cdl/cbv_table.h"
#include "models/cp/cp.h"
#include "models/llc/llc_switcher.h"
#include "models/shader_trace/shader_trace.h"
#include "models/tlb/fault_unit.h"
#include "platforms/mmio_map.h"
#include "scripts/gen_regs/reg_map.h"

#include <catch2/catch.hpp>

#include <string>

// Last, so that its macros cannot rename anything in the headers above.
extern "C" {
#include "platforms/firmware/gpu_regs.h"
}

using namespace vgpu;

// The firmware and the models must read the same offsets; a stale or hand-edited header fails
// to compile here.
#define SAME(c_name, cpp_name) static_assert((c_name) == (cpp_name), #c_name " != " #cpp_name)

namespace mm = platforms::mmio_map;
SAME(CP_WINDOW, mm::CP_BASE);
SAME(FU_WINDOW, mm::FAULT_BASE);
SAME(CBV_WINDOW, mm::CBV_BASE);
SAME(TRACE_WINDOW, mm::TRACE_BASE);
SAME(LLC_WINDOW, mm::LLC_SWITCH_BASE);
SAME(CP_WINDOW_BYTES, cp::reg::WINDOW_BYTES);
SAME(FU_WINDOW_BYTES, tlb::fault_reg::WINDOW_BYTES);
SAME(TRACE_WINDOW_BYTES, shader_trace::trace_reg::WINDOW_BYTES);
SAME(LLC_WINDOW_BYTES, llc::switch_reg::WINDOW_BYTES);

SAME(CP_QUEUE_STRIDE, cp::reg::QUEUE_STRIDE);
SAME(CP_PROG_ADDR, cp::reg::PROG_ADDR);
SAME(CP_PROG_BYTES, cp::reg::PROG_BYTES);
SAME(CP_GRID_X, cp::reg::GRID_X);
SAME(CP_GRID_Y, cp::reg::GRID_Y);
SAME(CP_BLOCK_X, cp::reg::BLOCK_X);
SAME(CP_BLOCK_Y, cp::reg::BLOCK_Y);
SAME(CP_SM_FIRST, cp::reg::SM_FIRST);
SAME(CP_SM_COUNT, cp::reg::SM_COUNT);
SAME(CP_NPARAMS, cp::reg::NPARAMS);
SAME(CP_LAUNCH, cp::reg::LAUNCH);
SAME(CP_STATUS, cp::reg::STATUS);
SAME(CP_CTAS_DONE, cp::reg::CTAS_DONE);
SAME(CP_ERROR_SM, cp::reg::ERROR_SM);
SAME(CP_ERROR_WARP, cp::reg::ERROR_WARP);
SAME(CP_ERROR_PC, cp::reg::ERROR_PC);
SAME(CP_ERROR_VADDR_LO, cp::reg::ERROR_VADDR_LO);
SAME(CP_ERROR_VADDR_HI, cp::reg::ERROR_VADDR_HI);
SAME(CP_KERNEL_SEQ, cp::reg::KERNEL_SEQ);
SAME(CP_ERROR_CAUSE, cp::reg::ERROR_CAUSE);
SAME(CP_CTAS_DISPATCHED, cp::reg::CTAS_DISPATCHED);
SAME(CP_PARAM0, cp::reg::PARAM0);
SAME(CP_ERROR_MSG, cp::reg::ERROR_MSG);
SAME(CP_GLOBAL, cp::reg::GLOBAL);
SAME(CP_IRQ_STATUS, cp::reg::IRQ_STATUS);
SAME(CP_IRQ_ENABLE, cp::reg::IRQ_ENABLE);
SAME(CP_PTBR_LO, cp::reg::PTBR_LO);
SAME(CP_PTBR_HI, cp::reg::PTBR_HI);
SAME(CP_NUM_SMS, cp::reg::NUM_SMS);
SAME(CP_LAUNCH_SEQ, cp::reg::LAUNCH_SEQ);
SAME(CP_VERSION, cp::reg::VERSION);
SAME(CP_NUM_QUEUES, cp::reg::NUM_QUEUES);
SAME(CP_TLB_INV_VA_LO, cp::reg::TLB_INV_VA_LO);
SAME(CP_TLB_INV_VA_HI, cp::reg::TLB_INV_VA_HI);
SAME(CP_TLB_INV_BYTES, cp::reg::TLB_INV_BYTES);
SAME(CP_TLB_INVALIDATE, cp::reg::TLB_INVALIDATE);
SAME(CP_ERROR_MSG_BYTES, cp::reg::ERROR_MSG_BYTES);
SAME(CP_VERSION_VALUE, cp::reg::VERSION_VALUE);
SAME(CP_STATUS_IDLE, static_cast<std::uint32_t>(cp::queue_status::idle));
SAME(CP_STATUS_RUNNING, static_cast<std::uint32_t>(cp::queue_status::running));
SAME(CP_STATUS_DONE, static_cast<std::uint32_t>(cp::queue_status::done));
SAME(CP_STATUS_ERROR, static_cast<std::uint32_t>(cp::queue_status::error));
SAME(CP_ERROR_CAUSE_NONE, static_cast<std::uint32_t>(cp::error_cause::none));
SAME(CP_ERROR_CAUSE_BAD_LAUNCH, static_cast<std::uint32_t>(cp::error_cause::bad_launch));
SAME(CP_ERROR_CAUSE_CTA_FAULT, static_cast<std::uint32_t>(cp::error_cause::cta_fault));
SAME(CP_ERROR_CAUSE_DISPATCH, static_cast<std::uint32_t>(cp::error_cause::dispatch));

SAME(FU_COUNT, tlb::fault_reg::COUNT);
SAME(FU_VA_LO, tlb::fault_reg::VA_LO);
SAME(FU_VA_HI, tlb::fault_reg::VA_HI);
SAME(FU_SM, tlb::fault_reg::SM);
SAME(FU_WARP, tlb::fault_reg::WARP);
SAME(FU_PC, tlb::fault_reg::PC);
SAME(FU_INFO, tlb::fault_reg::INFO);
SAME(FU_POP, tlb::fault_reg::POP);
SAME(FU_ACK_VA_LO, tlb::fault_reg::ACK_VA_LO);
SAME(FU_ACK_VA_HI, tlb::fault_reg::ACK_VA_HI);
SAME(FU_ACK_REASON, tlb::fault_reg::ACK_REASON);
SAME(FU_ACK, tlb::fault_reg::ACK);
SAME(FU_IRQ_ENABLE, tlb::fault_reg::IRQ_ENABLE);
SAME(FU_CAPACITY, tlb::fault_reg::CAPACITY);
SAME(FU_OVERFLOWS, tlb::fault_reg::OVERFLOWS);
SAME(FU_INFO_ACCESS, tlb::fault_info::ACCESS);
SAME(FU_INFO_ACCESS_SHIFT, tlb::fault_info::ACCESS_SHIFT);
SAME(FU_INFO_TYPE, tlb::fault_info::TYPE);
SAME(FU_INFO_TYPE_SHIFT, tlb::fault_info::TYPE_SHIFT);
SAME(FU_ACCESS_LOAD, static_cast<std::uint32_t>(tlb::fault_access::load));
SAME(FU_ACCESS_STORE, static_cast<std::uint32_t>(tlb::fault_access::store));
SAME(FU_ACCESS_FETCH, static_cast<std::uint32_t>(tlb::fault_access::fetch));
SAME(FU_REASON_NOT_MAPPED, static_cast<std::uint32_t>(tlb::fault_reason::not_mapped));
SAME(FU_REASON_READ_ONLY, static_cast<std::uint32_t>(tlb::fault_reason::read_only));
SAME(FU_REASON_MEMORY_FULL, static_cast<std::uint32_t>(tlb::fault_reason::memory_full));
SAME(FU_REASON_NOT_A_FAULT, static_cast<std::uint32_t>(tlb::fault_reason::not_a_fault));

SAME(CBV_SLOT_STRIDE, cdl::cbv_reg::SLOT_STRIDE);
SAME(CBV_BASE_LO, cdl::cbv_reg::BASE_LO);
SAME(CBV_BASE_HI, cdl::cbv_reg::BASE_HI);
SAME(CBV_SIZE, cdl::cbv_reg::SIZE);

SAME(TRACE_BASE_LO, shader_trace::trace_reg::BASE_LO);
SAME(TRACE_BASE_HI, shader_trace::trace_reg::BASE_HI);
SAME(TRACE_SIZE, shader_trace::trace_reg::SIZE);
SAME(TRACE_MODE, shader_trace::trace_reg::MODE);
SAME(TRACE_ENABLE, shader_trace::trace_reg::ENABLE);
SAME(TRACE_WPTR, shader_trace::trace_reg::WPTR);
SAME(TRACE_STATUS, shader_trace::trace_reg::STATUS);
SAME(TRACE_WATERMARK, shader_trace::trace_reg::WATERMARK);
SAME(TRACE_IRQ_ENABLE, shader_trace::trace_reg::IRQ_ENABLE);
SAME(TRACE_FLUSH, shader_trace::trace_reg::FLUSH);
SAME(TRACE_SRC_SEL, shader_trace::trace_reg::SRC_SEL);
SAME(TRACE_SRC_INFO, shader_trace::trace_reg::SRC_INFO);
SAME(TRACE_DROPPED_LO, shader_trace::trace_reg::DROPPED_LO);
SAME(TRACE_DROPPED_HI, shader_trace::trace_reg::DROPPED_HI);
SAME(TRACE_SOURCES, shader_trace::trace_reg::SOURCES);
SAME(TRACE_GROUP_TOKENS, shader_trace::trace_reg::GROUP_TOKENS);
SAME(TRACE_CLOCK_PS, shader_trace::trace_reg::CLOCK_PS);
SAME(TRACE_WRITTEN_LO, shader_trace::trace_reg::WRITTEN_LO);
SAME(TRACE_WRITTEN_HI, shader_trace::trace_reg::WRITTEN_HI);
SAME(TRACE_STATUS_WMARK, shader_trace::trace_status::WMARK);
SAME(TRACE_STATUS_FULL, shader_trace::trace_status::FULL);
SAME(TRACE_STATUS_WRAPPED, shader_trace::trace_status::WRAPPED);
SAME(TRACE_STATUS_IDLE, shader_trace::trace_status::IDLE);
SAME(TRACE_SRC_INFO_KIND, shader_trace::trace_src_info::KIND);
SAME(TRACE_SRC_INFO_SM, shader_trace::trace_src_info::SM);

SAME(LLC_ARCH, llc::switch_reg::ARCH);
SAME(LLC_CHANGE, llc::switch_reg::CHANGE);
SAME(LLC_CUR, llc::switch_reg::CUR);
SAME(LLC_MODE, llc::switch_reg::MODE);
SAME(LLC_SWITCHES, llc::switch_reg::SWITCHES);
SAME(LLC_SWITCH_CYCLES, llc::switch_reg::SWITCH_CYCLES);

namespace {

tlm_bus::reg_access kind(const std::string& a)
{
    if (a == "RO")
        return tlm_bus::reg_access::ro;
    if (a == "W1C")
        return tlm_bus::reg_access::w1c;
    if (a == "WO")
        return tlm_bus::reg_access::wo;
    return tlm_bus::reg_access::rw;
}

std::string instance_prefix(std::string p, unsigned i)
{
    const auto at = p.find("{i}");
    if (at != std::string::npos)
        p.replace(at, 3, std::to_string(i));
    return p;
}

/// The bank holds exactly the registers the description declares (`instances` of each repeated
/// group): name, offset, access, and the reset and write mask where they are numbers.
void check_bank(const std::string& description, const tlm_bus::reg_bank& bank, unsigned instances)
{
    const gen_regs::block b = gen_regs::read_block(VGPU_SOURCE_DIR, description);
    std::size_t described = 0;
    for (const gen_regs::group& g : b.groups)
        for (unsigned i = 0; i < (g.stride != 0 ? instances : 1u); ++i)
            for (const gen_regs::reg& r : g.regs)
                for (unsigned k = 0; k < r.count; ++k) {
                    ++described;
                    const std::uint64_t offset = i * g.stride + r.offset + 4 * k;
                    const std::string name = instance_prefix(g.bank_prefix, i) + r.name +
                                             (r.count > 1 ? std::to_string(k) : "");
                    INFO(description << ": " << name << " at " << offset);
                    const tlm_bus::reg_def* d = bank.find(offset);
                    REQUIRE(d != nullptr);
                    CHECK(d->name == name);
                    CHECK(d->access == kind(r.access));
                    if (r.reset)
                        CHECK(d->reset == *r.reset);
                    if (r.mask && r.access != "RO")
                        CHECK(d->write_mask == *r.mask);
                    for (const gen_regs::field& f : r.fields)
                        if (f.access == "W1C" || f.access == "RW")
                            CHECK((d->write_mask & f.mask()) == f.mask());
                }
    CHECK(bank.registers().size() == described);
}

} // namespace

TEST_CASE("the CP's register bank is its description")
{
    cp::cp dut("cp", cp::cp_config{}, clock_params{}, 4, 2, 8);
    check_bank("models/cp/cp_regs.yaml", dut.regs(), cp::cp_config{}.queues);
}

TEST_CASE("the fault unit's register bank is its description")
{
    tlb::fault_unit dut("faults", 16, 4096, 1000000);
    check_bank("models/tlb/fault_regs.yaml", dut.regs(), 1);
}

TEST_CASE("the CBV table's register bank is its description")
{
    cdl::cbv_table dut("cbvs", 3);
    check_bank("models/cdl/cbv_regs.yaml", dut.regs(), 3);
}

TEST_CASE("the shader-trace unit's register bank is its description")
{
    shader_trace::shader_trace_config cfg;
    cfg.enable = true;
    shader_trace::trace_unit dut("trace_unit", cfg, clock_params{}, 2);
    check_bank("models/shader_trace/trace_regs.yaml", dut.regs(), 1);
}

TEST_CASE("the LLC switcher's register bank is its description")
{
    llc::llc_config cfg;
    const noc::address_map map(2, std::uint64_t{1} << 30, cfg.slices_per_module, cfg.line_bytes);
    llc::llc_switcher dut("llc_switch", cfg, clock_params{}, map, llc::path_costs{}, 1);
    check_bank("models/llc/switch_regs.yaml", dut.regs(), 1);
}

TEST_CASE("the MMIO map's windows are the platform's")
{
    const gen_regs::mmio_map m = gen_regs::read_map(VGPU_SOURCE_DIR, "platforms/mmio_map.yaml");
    REQUIRE(m.windows.size() == 5);
    CHECK(m.windows[0].base == mm::CP_BASE);
    CHECK(m.blocks[0].window_bytes == cp::reg::WINDOW_BYTES);
    // Windows must not overlap on the bus.
    for (std::size_t a = 0; a < m.windows.size(); ++a)
        for (std::size_t b = a + 1; b < m.windows.size(); ++b) {
            const auto bytes = [&](std::size_t i) {
                return m.blocks[i].window_bytes.value_or(0x10000);
            };
            INFO(m.windows[a].name << " and " << m.windows[b].name);
            CHECK((m.windows[a].base + bytes(a) <= m.windows[b].base ||
                   m.windows[b].base + bytes(b) <= m.windows[a].base));
        }
}
