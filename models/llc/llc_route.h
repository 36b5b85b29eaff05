// The module NoC's route of a multi-module GPU with an LLC switcher: the private organisation
// (and llc.remote_ways) sends an SM's accesses to a slice of its own module. See
// models/llc/README.md ("LLC switcher").
#pragma once

#include "models/llc/llc_switcher.h"
#include "models/noc/core/address_map.h"
#include "models/noc/interconnect.h"

namespace vgpu::llc {

/// Module `module`'s NoC route: while the switcher's organisation is private, an SM's data,
/// instruction and constant reads and its writes go to a slice of its own module (the slice
/// writes through to a remote home); with `remote_ways`, so does a read of a read-only page in
/// shared mode (its remote ways); page walks, the homes' fills and everything else go to the
/// line's home (noc::module_route). Call after the NoC's outputs are bound.
noc::route_fn private_route(const noc::address_map& map, unsigned module,
                            const noc::interconnect& noc, const llc_switcher& sw, bool remote_ways);

} // namespace vgpu::llc
