// The end of a run unwinds the threads it stopped: their locals are destroyed, nothing runs on;
// threads a model reports parked are left alone. See platforms/thread_unwinder.h.
#define SC_INCLUDE_DYNAMIC_PROCESSES // sc_spawn
#include "models/common/host_resources.h"
#include "platforms/thread_unwinder.h"

#include <catch2/catch.hpp>
#include <systemc>
#include <vector>

namespace {

/// Counts its destructions: proof that the stack frame holding it was unwound.
struct local_guard {
    int* destroyed;
    ~local_guard() { ++*destroyed; }
};

/// Three threads stopped in the middle of their work: a timed wait past the end of the run, a
/// wait for an event nobody notifies, and a spawned child thread; and a fourth, spawned, that
/// the module reports parked (as an SM reports its idle LSU threads).
struct sleepers : sc_core::sc_module {
    int destroyed = 0;
    int resumed = 0;
    sc_core::sc_event never;
    const void* parked = nullptr;

    SC_HAS_PROCESS(sleepers);
    explicit sleepers(const sc_core::sc_module_name& name) : sc_module(name)
    {
        SC_THREAD(timed);
        SC_THREAD(untimed);
        sc_core::sc_spawn([this] { timed(); }, "spawned");
        parked = sc_core::sc_spawn([this] { untimed(); }, "parked").get_process_object();
    }
    void timed()
    {
        local_guard g{&destroyed};
        sc_core::wait(sc_core::sc_time(1, sc_core::SC_US));
        ++resumed;
    }
    void untimed()
    {
        local_guard g{&destroyed};
        sc_core::wait(never);
        ++resumed;
    }
};

} // namespace

TEST_CASE("threads stopped by the time limit are unwound (locals destroyed, no code runs on), "
          "and parked threads are left alone")
{
    sleepers s("s");
    const unsigned source = vgpu::host_resources::add_parked_source(
        [&s](std::vector<const void*>& out) { out.push_back(s.parked); });
    sc_core::sc_start(sc_core::sc_time(100, sc_core::SC_NS), sc_core::SC_EXIT_ON_STARVATION);
    REQUIRE(s.destroyed == 0);
    const sc_core::sc_time stopped_at = sc_core::sc_time_stamp();
    {
        vgpu::platforms::thread_unwinder unwind;
    }
    vgpu::host_resources::remove_parked_source(source);
    CHECK(s.destroyed == 3); // not the parked thread's local
    CHECK(s.resumed == 0);
    CHECK(sc_core::sc_time_stamp() == stopped_at);
    for (sc_core::sc_object* o : s.get_child_objects()) {
        sc_core::sc_process_handle h(o);
        if (h.valid() && h.proc_kind() == sc_core::SC_THREAD_PROC_) {
            INFO(o->name());
            CHECK(h.terminated() == (o != s.parked));
        }
    }
}
