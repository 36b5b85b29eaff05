// The verilated arbiter for a NoC port (noc.arbiter_impl rtl): the seam between the platform's
// ports (models/noc/shared_resource.cpp) and the RTL. No Verilator header: the verilated model
// stays inside port_arbiter.cpp. See models/noc/rtl/README.md ("In the platform").
#pragma once

#include "models/noc/core/arbiter.h"

#include <cstdint>
#include <memory>
#include <string>

namespace vgpu::noc {

/// A port's arbiter whose grants come from the verilated noc_arbiter.sv (verilated_arbiter in
/// rtl_arbiter.h), clocked once per grant() call that has a valid candidate. `port` names the
/// port in errors. kind round_robin or barrier_aware, inputs 1..rtl_arbiter_max_inputs,
/// max_wait_cycles <= rtl_arbiter_max_wait (noc_config.h; the configuration checks them):
/// anything else throws std::invalid_argument. A failed RTL assertion at a grant throws
/// std::logic_error naming the port.
std::unique_ptr<arbiter> make_rtl_arbiter(const std::string& port, arbiter_kind kind,
                                          unsigned inputs, std::uint64_t max_wait_cycles);

} // namespace vgpu::noc
