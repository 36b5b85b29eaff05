// CTA slots: the life cycle of each resident CTA (free, pending, running, ending) and the
// warp slots it holds. Pure C++ core of the SM model, no SystemC; see models/sm/README.md.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace vgpu::sm {

// ---- Occupancy: how many CTAs of a kernel an SM holds at once ----

constexpr unsigned register_granularity = 256; ///< registers allocated per warp in units of this
constexpr unsigned shared_granularity = 256;   ///< shared memory allocated per CTA in bytes

/// What an SM gives resident CTAs (section `sm`).
struct sm_resources {
    unsigned max_threads = 2048;        ///< sm.max_threads
    unsigned warp_slots = 64;           ///< sm.warp_slots
    unsigned cta_slots = 32;            ///< sm.cta_slots
    unsigned registers = 65536;         ///< sm.registers: 32-bit registers of the register file
    unsigned register_partitions = 4;   ///< sm.schedulers: the file is split among the sub-cores
    std::uint32_t shared_bytes = 98304; ///< sm.shared_bytes
};

/// What one CTA of a kernel needs.
struct cta_demand {
    unsigned threads = 1;           ///< threads per CTA (block x * y * z)
    unsigned regs_per_thread = 0;   ///< registers per thread
    std::uint32_t shared_bytes = 0; ///< shared memory per CTA (static + dynamic)
};

/// occupancy(): resident CTAs per SM and what limits them.
struct occupancy_result {
    unsigned ctas_per_sm = 0;         ///< 0: not even one CTA fits
    std::string limit;                ///< limiting keys, e.g. "sm.warp_slots+sm.registers"
    unsigned warps_per_cta = 0;       ///< warps allocated to a CTA
    unsigned regs_per_warp = 0;       ///< registers allocated to a warp (rounded up to 256)
    unsigned regs_per_cta = 0;        ///< regs_per_warp * warps_per_cta
    std::uint32_t shared_per_cta = 0; ///< shared memory allocated to a CTA (rounded up to 256)
    /// Each limit alone: sm.max_threads, sm.warp_slots, sm.cta_slots, sm.registers,
    /// sm.shared_bytes (~0u: no limit, a CTA without shared memory).
    unsigned by_threads = 0, by_warps = 0, by_ctas = 0, by_registers = 0, by_shared = 0;
    std::string why; ///< ctas_per_sm 0: what does not fit, in words
};

/// Resident CTAs per SM by the CUDA occupancy rules for compute capability 7.0 (NVIDIA's
/// cuda_occupancy.h; docs/outputs.md "Occupancy"): the minimum of the limits by threads
/// (whole warps), warp slots, CTA slots, registers (per warp rounded up to 256, the register
/// file split evenly among register_partitions) and shared memory (per CTA rounded up to 256).
occupancy_result occupancy(const sm_resources& sm, const cta_demand& cta);

/// Life cycle of a CTA slot.
enum class cta_state : std::uint8_t {
    free,    ///< unused
    pending, ///< launch accepted, slots reserved, not started yet
    running, ///< its warps were launched
    ending   ///< stopped (a fault); ends when its requests in flight complete
};

/// Allocates CTA slots and the warp slots of their warps (up to 64 warp slots).
class cta_slots {
public:
    /// Result of allocate(): the CTA slot and its warp slots, or why none was given.
    struct grant {
        int cta = -1;                  ///< CTA slot, -1 when refused
        std::uint64_t warp_mask = 0;   ///< bit w: warp slot w belongs to the CTA
        const char* refused = nullptr; ///< "no free CTA slot", "not enough free warp slots"
                                       ///< (or "no warps"), nullptr when granted
    };

    /// cta_slots >= 1, warp_slots in 1..64.
    cta_slots(unsigned cta_slots, unsigned warp_slots);

    unsigned size() const { return static_cast<unsigned>(m_slots.size()); } ///< CTA slots
    /// Reserves the lowest free CTA slot and the warps lowest free warp slots at once (the
    /// launch can be trusted), state pending, queued in pending(); or refuses and changes
    /// nothing.
    grant allocate(std::uint64_t warps);
    /// Pending CTA slots in the order they were accepted (not yet started).
    const std::vector<int>& pending() const { return m_pending; }
    /// Forgets the pending list (its CTAs were started).
    void clear_pending() { m_pending.clear(); }
    /// A pending CTA starts: running.
    void start(unsigned cta) { m_slots.at(cta).st = cta_state::running; }
    /// A CTA stops early (a fault): ending.
    void stop(unsigned cta) { m_slots.at(cta).st = cta_state::ending; }
    /// A CTA ended: its CTA slot and warp slots are free again.
    void release(unsigned cta);

    cta_state state(unsigned cta) const { return m_slots[cta].st; }           ///< its state
    std::uint64_t warp_mask(unsigned cta) const { return m_slots[cta].mask; } ///< its warp slots
    unsigned warps(unsigned cta) const { return m_slots[cta].warps; }         ///< its warps
    std::uint64_t free_warp_mask() const { return m_free_warps; } ///< bit w: warp slot w free
    unsigned free_warps() const;                                  ///< number of free warp slots
    unsigned resident() const; ///< CTA slots not free (pending, running or ending)
    bool active() const;       ///< some CTA is running or ending

private:
    struct slot {
        cta_state st = cta_state::free;
        std::uint64_t mask = 0;
        unsigned warps = 0;
    };

    std::vector<slot> m_slots;
    std::vector<int> m_pending;
    std::uint64_t m_free_warps;
};

} // namespace vgpu::sm
