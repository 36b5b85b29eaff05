/* generated from platforms/mmio_map.yaml by scripts/gen-regs; do not edit */
/* The firmware's view of the GPU's register windows (docs/registers.md), from the descriptions the
  map names: models/cp/cp_regs.yaml, models/tlb/fault_regs.yaml, models/cdl/cbv_regs.yaml,
  models/shader_trace/trace_regs.yaml, models/llc/switch_regs.yaml. */
#ifndef VGPU_FW_GPU_REGS_H
#define VGPU_FW_GPU_REGS_H

/* Register windows on the MMIO bus (docs/registers.md, "MMIO map"). */
#define CP_WINDOW 0x40000000u
#define CP_WINDOW_BYTES 0x2000u
#define FU_WINDOW 0x40010000u
#define FU_WINDOW_BYTES 0x100u
#define CBV_WINDOW 0x40020000u
#define TRACE_WINDOW 0x40030000u
#define TRACE_WINDOW_BYTES 0x100u
#define LLC_WINDOW 0x40040000u
#define LLC_WINDOW_BYTES 0x100u

/* Command processor (models/cp/cp_regs.yaml). */
#define CP_QUEUE_STRIDE 0x100u
#define CP_PROG_ADDR 0x00u
#define CP_PROG_BYTES 0x04u
#define CP_GRID_X 0x08u
#define CP_GRID_Y 0x0cu
#define CP_BLOCK_X 0x10u
#define CP_BLOCK_Y 0x14u
#define CP_SM_FIRST 0x18u
#define CP_SM_COUNT 0x1cu
#define CP_NPARAMS 0x20u
#define CP_LAUNCH 0x24u
#define CP_STATUS 0x28u
#define CP_CTAS_DONE 0x2cu
#define CP_ERROR_SM 0x30u
#define CP_ERROR_WARP 0x34u
#define CP_ERROR_PC 0x38u
#define CP_ERROR_VADDR_LO 0x3cu
#define CP_ERROR_VADDR_HI 0x40u
#define CP_KERNEL_SEQ 0x44u
#define CP_ERROR_CAUSE 0x48u
#define CP_CTAS_DISPATCHED 0x4cu
#define CP_SHARED_BYTES 0x5cu
#define CP_PARAM0 0x60u
#define CP_ERROR_MSG 0xa0u
#define CP_GLOBAL 0x1000u
#define CP_IRQ_STATUS 0x1000u
#define CP_IRQ_ENABLE 0x1004u
#define CP_PTBR_LO 0x1008u
#define CP_PTBR_HI 0x100cu
#define CP_NUM_SMS 0x1010u
#define CP_LAUNCH_SEQ 0x1014u
#define CP_VERSION 0x1018u
#define CP_NUM_QUEUES 0x101cu
#define CP_TLB_INV_VA_LO 0x1020u
#define CP_TLB_INV_VA_HI 0x1024u
#define CP_TLB_INV_BYTES 0x1028u
#define CP_TLB_INVALIDATE 0x102cu
#define CP_L1_INV_PA_LO 0x1030u
#define CP_L1_INV_PA_HI 0x1034u
#define CP_L1_INV_BYTES 0x1038u
#define CP_L1_INVALIDATE 0x103cu
#define CP_ERROR_MSG_BYTES 96u
#define CP_VERSION_VALUE 0x10000u
#define CP_STATUS_IDLE 0u
#define CP_STATUS_RUNNING 1u
#define CP_STATUS_DONE 2u
#define CP_STATUS_ERROR 3u
#define CP_ERROR_CAUSE_NONE 0u
#define CP_ERROR_CAUSE_BAD_LAUNCH 1u
#define CP_ERROR_CAUSE_CTA_FAULT 2u
#define CP_ERROR_CAUSE_DISPATCH 3u

/* Fault unit (models/tlb/fault_regs.yaml). */
#define FU_COUNT 0x00u
#define FU_VA_LO 0x04u
#define FU_VA_HI 0x08u
#define FU_SM 0x0cu
#define FU_WARP 0x10u
#define FU_PC 0x14u
#define FU_INFO 0x18u
#define FU_POP 0x1cu
#define FU_ACK_VA_LO 0x20u
#define FU_ACK_VA_HI 0x24u
#define FU_ACK_REASON 0x28u
#define FU_ACK 0x2cu
#define FU_IRQ_ENABLE 0x30u
#define FU_CAPACITY 0x34u
#define FU_OVERFLOWS 0x38u
#define FU_INFO_ACCESS 0xffu
#define FU_INFO_ACCESS_SHIFT 0u
#define FU_INFO_TYPE 0xff00u
#define FU_INFO_TYPE_SHIFT 8u
#define FU_ACCESS_LOAD 0u
#define FU_ACCESS_STORE 1u
#define FU_ACCESS_FETCH 2u
#define FU_TYPE_NOT_PRESENT 0u
#define FU_TYPE_PROTECTION 1u
#define FU_TYPE_OTHER 2u
#define FU_REASON_NOT_MAPPED 1u
#define FU_REASON_READ_ONLY 2u
#define FU_REASON_MEMORY_FULL 3u
#define FU_REASON_NOT_A_FAULT 4u

/* CBV table (models/cdl/cbv_regs.yaml). */
#define CBV_SLOT_STRIDE 0x10u
#define CBV_BASE_LO 0x00u
#define CBV_BASE_HI 0x04u
#define CBV_SIZE 0x08u

/* Shader-trace unit (models/shader_trace/trace_regs.yaml). */
#define TRACE_BASE_LO 0x00u
#define TRACE_BASE_HI 0x04u
#define TRACE_SIZE 0x08u
#define TRACE_MODE 0x0cu
#define TRACE_ENABLE 0x10u
#define TRACE_WPTR 0x14u
#define TRACE_STATUS 0x18u
#define TRACE_WATERMARK 0x1cu
#define TRACE_IRQ_ENABLE 0x20u
#define TRACE_FLUSH 0x24u
#define TRACE_SRC_SEL 0x28u
#define TRACE_SRC_INFO 0x2cu
#define TRACE_DROPPED_LO 0x30u
#define TRACE_DROPPED_HI 0x34u
#define TRACE_SOURCES 0x38u
#define TRACE_GROUP_TOKENS 0x3cu
#define TRACE_CLOCK_PS 0x40u
#define TRACE_WRITTEN_LO 0x44u
#define TRACE_WRITTEN_HI 0x48u
#define TRACE_STATUS_WMARK 0x01u
#define TRACE_STATUS_WMARK_SHIFT 0u
#define TRACE_STATUS_FULL 0x02u
#define TRACE_STATUS_FULL_SHIFT 1u
#define TRACE_STATUS_WRAPPED 0x04u
#define TRACE_STATUS_WRAPPED_SHIFT 2u
#define TRACE_STATUS_IDLE 0x08u
#define TRACE_STATUS_IDLE_SHIFT 3u
#define TRACE_SRC_INFO_KIND 0xffu
#define TRACE_SRC_INFO_KIND_SHIFT 0u
#define TRACE_SRC_INFO_SM 0xffffff00u
#define TRACE_SRC_INFO_SM_SHIFT 8u

/* LLC switcher (models/llc/switch_regs.yaml). */
#define LLC_ARCH 0x00u
#define LLC_CHANGE 0x04u
#define LLC_CUR 0x08u
#define LLC_MODE 0x0cu
#define LLC_SWITCHES 0x10u
#define LLC_SWITCH_CYCLES 0x14u
#define LLC_MODULES 0x18u
#define LLC_MOD_ARCH0 0x40u
#define LLC_MOD_CHANGE0 0x80u
#define LLC_MOD_CUR0 0xc0u

#endif
