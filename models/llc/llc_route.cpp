// The module NoC's route with an LLC switcher. See models/llc/README.md ("LLC switcher").
#include "models/llc/llc_route.h"

#include "tlm_bus/gpu_extension.h"

#include <string>
#include <vector>

namespace vgpu::llc {

noc::route_fn private_route(const noc::address_map& map, unsigned module,
                            const noc::interconnect& noc, const llc_switcher& sw, bool remote_ways)
{
    noc::route_fn home_route = noc::module_route(map, module, noc);
    std::vector<int> local_slice;
    for (unsigned k = 0; k < map.slices(); ++k)
        local_slice.push_back(noc.output_index("llc" + std::to_string(k)));
    const llc_switcher* s = &sw;
    return
        [home_route, local_slice, map, module, s, remote_ways](const tlm::tlm_generic_payload& gp) {
            using tlm_bus::access_kind;
            const bool priv = s->cur(module) == llc_org::private_org;
            if (priv || remote_ways) {
                const auto* e = gp.get_extension<tlm_bus::gpu_extension>();
                if (e && !e->home_access && e->sm >= 0 && e->module == static_cast<int>(module) &&
                    e->kind != access_kind::page_walk && map.home(gp.get_address()) &&
                    (priv || (e->read_only && gp.is_read())))
                    return local_slice[map.slice(gp.get_address())];
            }
            return home_route(gp);
        };
}

} // namespace vgpu::llc
