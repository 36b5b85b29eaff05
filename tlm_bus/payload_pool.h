// Memory manager: pooled generic payloads, each with a gpu_extension attached for life.
// See docs/tlm-bus.md.
#pragma once

#include "tlm_bus/gpu_extension.h"

#include <memory>
#include <tlm>
#include <vector>

namespace vgpu::tlm_bus {

/// Hands out payloads with reference counting; freed payloads return to the pool.
class payload_pool : public tlm::tlm_mm_interface {
public:
    payload_pool() = default;
    ~payload_pool() override;
    payload_pool(const payload_pool&) = delete;
    payload_pool& operator=(const payload_pool&) = delete;
    /// A payload with ref count 1, default attributes and a reset gpu_extension.
    tlm::tlm_generic_payload* acquire();
    /// Called by release() when the reference count drops to zero.
    void free(tlm::tlm_generic_payload* gp) override;
    std::size_t allocated() const { return m_all.size(); }

private:
    std::vector<std::unique_ptr<tlm::tlm_generic_payload>> m_all;
    std::vector<tlm::tlm_generic_payload*> m_free;
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
