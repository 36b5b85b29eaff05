// Memory manager: pooled generic payloads, each with a gpu_extension attached for life.
// See docs/tlm-bus.md.
#pragma once

#include "tlm_bus/gpu_extension.h"

#include <memory>
#include <tlm>
#include <vector>

namespace vgpu::tlm_bus {

/// A pooled payload and its gpu_extension in one allocation: the payload's owner reaches the
/// extension without the payload's extension array (a separate block, out of the host's
/// caches when a payload comes back from the pool after a long wait).
struct pooled_payload : tlm::tlm_generic_payload {
    explicit pooled_payload(tlm::tlm_mm_interface* mm) : tlm::tlm_generic_payload(mm)
    {
        set_extension(&ext);
    }
    /// The extension is a member: taken out first, so the payload does not free it.
    ~pooled_payload() override { clear_extension(&ext); }
    pooled_payload(const pooled_payload&) = delete;
    pooled_payload& operator=(const pooled_payload&) = delete;

    gpu_extension ext;
};

/// Hands out payloads with reference counting; freed payloads return to the pool.
class payload_pool : public tlm::tlm_mm_interface {
public:
    payload_pool() = default;
    ~payload_pool() override = default;
    payload_pool(const payload_pool&) = delete;
    payload_pool& operator=(const payload_pool&) = delete;
    /// A payload with ref count 1, default attributes and a reset gpu_extension.
    pooled_payload* acquire();
    /// Called by release() when the reference count drops to zero.
    void free(tlm::tlm_generic_payload* gp) override;
    std::size_t allocated() const { return m_all.size(); }

private:
    std::vector<std::unique_ptr<pooled_payload>> m_all;
    std::vector<pooled_payload*> m_free;
};

/// The extension of a payload from a pool (never null for pooled payloads).
inline gpu_extension& ext(tlm::tlm_generic_payload& gp)
{
    auto* e = gp.get_extension<gpu_extension>();
    if (!e) {
        e = new gpu_extension;
        gp.set_extension(e);
    }
    return *e;
}

} // namespace vgpu::tlm_bus
