// Unit tests of vgpu::tlm_bus::payload_pool: pooled payloads and their gpu_extension.
// See docs/tlm-bus.md.
#include "tlm_bus/payload_pool.h"

#include <catch2/catch.hpp>

#include <memory>

using namespace vgpu::tlm_bus;

TEST_CASE("payload_pool hands out a payload whose extension is its own member")
{
    payload_pool pool;
    pooled_payload* gp = pool.acquire();
    REQUIRE(gp->get_ref_count() == 1);
    REQUIRE(gp->get_extension<gpu_extension>() == &gp->ext);
    REQUIRE(&ext(*gp) == &gp->ext);
    REQUIRE(gp->ext.sm == -1);
    REQUIRE(gp->ext.kind == access_kind::other);
    REQUIRE(gp->get_response_status() == tlm::TLM_INCOMPLETE_RESPONSE);
    gp->release();
    REQUIRE(pool.allocated() == 1);
}

TEST_CASE("payload_pool resets a released payload and its extension before handing it out again")
{
    payload_pool pool;
    pooled_payload* gp = pool.acquire();
    std::uint8_t data[4] = {};
    gp->set_command(tlm::TLM_WRITE_COMMAND);
    gp->set_address(0x1000);
    gp->set_data_ptr(data);
    gp->set_data_length(4);
    gp->set_response_status(tlm::TLM_OK_RESPONSE);
    gp->ext.sm = 7;
    gp->ext.kind = access_kind::atomic;
    auto wait = std::make_shared<fault_wait>();
    gp->ext.fault = wait;
    gp->release();
    REQUIRE(wait.use_count() == 1); // the pooled payload let go of the fault it carried

    pooled_payload* again = pool.acquire();
    REQUIRE(again == gp); // the one payload, reused
    REQUIRE(pool.allocated() == 1);
    REQUIRE(again->get_command() == tlm::TLM_IGNORE_COMMAND);
    REQUIRE(again->get_address() == 0);
    REQUIRE(again->get_data_ptr() == nullptr);
    REQUIRE(again->get_response_status() == tlm::TLM_INCOMPLETE_RESPONSE);
    REQUIRE(again->get_extension<gpu_extension>() == &again->ext);
    REQUIRE(again->ext.sm == -1);
    REQUIRE(again->ext.kind == access_kind::other);
    REQUIRE(again->ext.fault == nullptr);

    pooled_payload* second = pool.acquire(); // the first is still held: a new one
    REQUIRE(second != again);
    REQUIRE(pool.allocated() == 2);
    again->release();
    second->release();
    // The pool goes with its payloads; each extension is a member, not the payload's to free
    // (a second free shows under the sanitizers' build).
}
