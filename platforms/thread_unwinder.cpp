// End of a run: unwinds the suspended SystemC threads. See platforms/thread_unwinder.h.
#define SC_INCLUDE_DYNAMIC_PROCESSES // sc_spawn of the method that kills the threads
#include "platforms/thread_unwinder.h"
#include "models/common/host_resources.h"

#include <algorithm>
#include <systemc>
#include <vector>

namespace vgpu::platforms {
namespace {

/// The threads under `objects` to unwind: those not terminated and not `parked` (sorted).
void collect_threads(const std::vector<sc_core::sc_object*>& objects,
                     const std::vector<const void*>& parked,
                     std::vector<sc_core::sc_process_handle>& out)
{
    for (sc_core::sc_object* o : objects) {
        sc_core::sc_process_handle h(o);
        if (h.valid() && !h.terminated() &&
            !std::binary_search(parked.begin(), parked.end(), static_cast<const void*>(o)) &&
            (h.proc_kind() == sc_core::SC_THREAD_PROC_ ||
             h.proc_kind() == sc_core::SC_CTHREAD_PROC_))
            out.push_back(h);
        collect_threads(o->get_child_objects(), parked, out);
    }
}

} // namespace

thread_unwinder::~thread_unwinder()
{
    // After a SystemC error the kernel refuses to simulate again: nothing can be unwound.
    if (sc_core::sc_get_curr_simcontext()->sim_status() != sc_core::SC_SIM_OK)
        return;
    // Threads parked owning nothing (host_resources::parked_threads) are left as they are.
    std::vector<const void*> parked = host_resources::parked_threads();
    std::sort(parked.begin(), parked.end());
    std::vector<sc_core::sc_process_handle> threads;
    collect_threads(sc_core::sc_get_top_level_objects(), parked, threads);
    if (threads.empty())
        return;
    // A kill must come from a process: the main program cannot preempt a thread in SystemC
    // 2.3. A method spawned now runs in the next delta cycle and kills them one by one.
    sc_core::sc_spawn_options opts;
    opts.spawn_method();
    sc_core::sc_spawn(
        [threads] {
            // One thread whose unwinding reports an error must not keep the others alive.
            for (const auto& h : threads)
                if (!h.terminated()) {
                    try {
                        sc_core::sc_process_handle(h).kill();
                    } catch (...) {
                    }
                }
        },
        "vgpu_thread_unwinder", &opts);
    try {
        sc_core::sc_start(sc_core::SC_ZERO_TIME);
    } catch (...) { // a report from a process that ran in that delta; the run is over
    }
}

} // namespace vgpu::platforms
