// Shader-trace core throughput (scripts/bench trace): events from 16 sources through the
// packers, the K-slot buffer (16 slots, both policies, a write engine that keeps up or one
// that takes a group every 16th event) and the decoder. Prints events and decoded tokens per
// host-second, the stores a stall policy refused and the groups replace lost.
#include "models/shader_trace/core/decoder.h"
#include "models/shader_trace/core/packer.h"
#include "models/shader_trace/core/slot_buffer.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <random>
#include <vector>

using namespace vgpu::shader_trace;

namespace {
void run(const char* name, full_policy fp, unsigned drain_every, std::uint64_t n)
{
    const unsigned sources = 16, g = 8;
    std::vector<packer> packers;
    for (unsigned s = 0; s < sources; ++s)
        packers.emplace_back(s, g);
    slot_buffer buf(16, sources, fp, victim_policy::lowest_priority);
    std::vector<std::uint64_t> memory;
    memory.reserve(n * 2);
    std::vector<std::uint64_t> now(sources, 0);
    std::vector<group> out;
    std::vector<std::deque<group>> held(sources); // stall: groups waiting for a slot
    std::mt19937 rng(7);
    std::uint64_t stalled = 0, dropped = 0;
    const auto start = std::chrono::steady_clock::now();
    for (std::uint64_t i = 0; i < n; ++i) {
        const unsigned s = rng() % sources;
        now[s] += rng() % 64;
        packers[s].add(event::user, i % 64, static_cast<std::uint32_t>(i), now[s], out);
        for (group& gr : out) {
            if (!held[s].empty()) { // stall: a source's groups enter the buffer in order
                held[s].push_back(std::move(gr));
                continue;
            }
            const store_result r = buf.store(s, gr);
            stalled += r.what == store_result::kind::stall;
            dropped +=
                r.what == store_result::kind::dropped || r.what == store_result::kind::replaced;
            // A lost group breaks its source's delta chain: the packer syncs again (the
            // buffer flags the source's next group written).
            if (r.what == store_result::kind::stall)
                held[s].push_back(std::move(gr));
            else if (r.what == store_result::kind::dropped)
                packers[s].request_sync();
            else if (r.what == store_result::kind::replaced)
                packers[r.victim_source].request_sync();
        }
        out.clear();
        if (i % drain_every == 0)
            if (const auto h = buf.take_head()) {
                const group& gr = buf.contents(*h);
                memory.insert(memory.end(), gr.begin(), gr.end());
                buf.write_done(*h);
                for (unsigned k = 0; k < sources && buf.free_slots() != 0; ++k) {
                    auto& q = held[(s + 1 + k) % sources];
                    while (!q.empty() && buf.free_slots() != 0) {
                        buf.store((s + 1 + k) % sources, std::move(q.front()));
                        q.pop_front();
                    }
                }
            }
    }
    const double pack_s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const auto t1 = std::chrono::steady_clock::now();
    const decode_result d = decode(memory, g);
    const double dec_s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t1).count();
    std::printf("%-36s %14.0f %14.0f %12llu %12llu\n", name, static_cast<double>(n) / pack_s,
                static_cast<double>(memory.size()) / dec_s,
                static_cast<unsigned long long>(stalled), static_cast<unsigned long long>(dropped));
    if (!d.ok())
        std::printf("decode error: %s\n", d.error.c_str());
}
} // namespace

int main(int argc, char** argv)
{
    const std::uint64_t n = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 10000000;
    std::printf("%-36s %14s %14s %12s %12s\n", "case", "events/s", "decode tok/s", "stall refusals",
                "groups lost");
    run("replace, engine keeps up", full_policy::replace, 1, n);
    run("replace, engine every 16th event", full_policy::replace, 16, n);
    run("stall, engine every 16th event", full_policy::stall, 16, n);
    return 0;
}
