// Shared memory core: the bank-conflict rule against a reference written from its definition,
// and shared LD/ST/ATOM/CAS against a host computation. Randomized cases take a seed.
#include "models/sm/core/assembler.h"
#include "models/sm/core/shared_memory.h"
#include "tlm_bus/atomic_op.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <map>
#include <random>
#include <set>

using namespace vgpu::sm;

namespace {

/// Reference: the largest number of distinct 4-byte words among the active lanes that map to
/// one bank (word w in bank w % banks).
unsigned reference_passes(std::uint32_t active, const lane_values& addr, unsigned banks)
{
    std::map<unsigned, std::set<std::uint32_t>> words;
    for (unsigned l = 0; l < warp_size; ++l)
        if ((active >> l) & 1)
            words[(addr[l] / 4) % banks].insert(addr[l] / 4);
    std::size_t most = 0;
    for (const auto& [bank, set] : words)
        most = std::max(most, set.size());
    return static_cast<unsigned>(most);
}

lane_values strided(unsigned stride_words)
{
    lane_values a{};
    for (unsigned l = 0; l < warp_size; ++l)
        a[l] = l * stride_words * 4;
    return a;
}

std::uint32_t f(float x)
{
    std::uint32_t b;
    std::memcpy(&b, &x, 4);
    return b;
}

} // namespace

TEST_CASE("bank conflicts: stride k words gives k-way, broadcast and sub-words one pass",
          "[shared]")
{
    const shared_banks b(32);
    CHECK(b.passes(~0u, strided(1).data()) == 1);
    CHECK(b.passes(~0u, strided(2).data()) == 2);
    CHECK(b.passes(~0u, strided(4).data()) == 4);
    CHECK(b.passes(~0u, strided(32).data()) == 32);
    CHECK(b.passes(~0u, strided(3).data()) == 1); // odd strides spread over every bank
    CHECK(b.passes(~0u, strided(0).data()) == 1); // every lane on one word: a broadcast
    lane_values bytes{};
    for (unsigned l = 0; l < warp_size; ++l)
        bytes[l] = l; // 32 bytes: 8 words in 8 banks
    CHECK(b.passes(~0u, bytes.data()) == 1);
    CHECK(b.passes(0x0000ffffu, strided(32).data()) == 16);
    CHECK(b.passes(0, strided(32).data()) == 0);
    CHECK(shared_banks(16).passes(~0u, strided(1).data()) == 2);
    CHECK_THROWS(shared_banks(0));
    CHECK_THROWS(shared_banks(33));
}

TEST_CASE("bank conflicts match the reference on random accesses", "[shared]")
{
    const unsigned seed = Catch::rngSeed() ? Catch::rngSeed() : 36004u;
    CAPTURE(seed);
    std::mt19937 rng(seed);
    for (unsigned n = 0; n < 20000; ++n) {
        const unsigned banks = 1 + rng() % 32;
        const std::uint32_t active = static_cast<std::uint32_t>(rng()) | (rng() % 4 ? 0 : ~0u);
        lane_values a{};
        const std::uint32_t span = 4u << (rng() % 12);
        for (auto& v : a)
            v = static_cast<std::uint32_t>(rng() % span);
        CAPTURE(n, banks, active);
        REQUIRE(shared_banks(banks).passes(active, a.data()) == reference_passes(active, a, banks));
    }
}

TEST_CASE("shared accesses outside the window are found, lowest lane first", "[shared]")
{
    lane_values a = strided(1); // lane l at 4 l
    CHECK_FALSE(shared_out_of_window(~0u, a, 4, 128));
    CHECK(shared_out_of_window(~0u, a, 4, 124) == 31u);
    CHECK(shared_out_of_window(~0u, a, 4, 0) == 0u);
    CHECK_FALSE(shared_out_of_window(0x7fffffffu, a, 4, 124));
    a[3] = 0xfffffffeu; // an access that wraps the 32-bit space is outside too
    CHECK(shared_out_of_window(~0u, a, 4, 1u << 20) == 3u);
    CHECK(shared_out_of_window(1u << 3, a, 2, 0xffffffffu) == 3u);
    CHECK_FALSE(shared_out_of_window(1u << 3, a, 1, 0xffffffffu));
}

TEST_CASE("shared LD/ST of every width against the host's bytes", "[shared]")
{
    std::vector<std::uint8_t> win(256, 0);
    mem_access st;
    st.lane_mask = 0xfu;
    st.width = mem_width::u8;
    for (unsigned l = 0; l < 4; ++l) {
        st.addr[l] = 8 + l;
        st.data[l] = 0x1280u + l * 0x3f; // only the low byte lands
    }
    lane_values out{};
    shared_execute(win, st, step_kind::store, out);
    CHECK(win[8] == 0x80);
    CHECK(win[9] == 0xbf);
    CHECK(win[10] == 0xfe);
    CHECK(win[11] == 0x3d);
    CHECK(win[12] == 0);
    mem_access ld;
    ld.lane_mask = 1;
    const struct {
        mem_width w;
        std::uint32_t addr, value;
    } cases[] = {{mem_width::b32, 8, 0x3dfebf80u}, {mem_width::u8, 9, 0xbfu},
                 {mem_width::s8, 10, 0xfffffffeu}, {mem_width::u16, 10, 0x3dfeu},
                 {mem_width::s16, 8, 0xffffbf80u}, {mem_width::s8, 11, 0x3du}};
    for (const auto& c : cases) {
        ld.width = c.w;
        ld.addr[0] = c.addr;
        shared_execute(win, ld, step_kind::load, out);
        CAPTURE(name(c.w), c.addr);
        CHECK(out[0] == c.value);
    }
}

TEST_CASE("shared ATOM of every operation and CAS serialise the lanes in lane order", "[shared]")
{
    const unsigned seed = Catch::rngSeed() ? Catch::rngSeed() : 36005u;
    CAPTURE(seed);
    std::mt19937 rng(seed);
    for (unsigned o = 0; o <= num_atom_ops; ++o) {
        const bool cas = o == num_atom_ops;
        for (unsigned n = 0; n < 50; ++n) {
            std::vector<std::uint32_t> win(8);
            for (auto& v : win)
                v = rng() % 4 ? static_cast<std::uint32_t>(rng() % 64)
                              : static_cast<std::uint32_t>(rng());
            if (o == static_cast<unsigned>(atom_op::FADD))
                for (auto& v : win)
                    v = f(static_cast<float>(static_cast<int>(rng() % 2000) - 1000) / 7.0f);
            std::vector<std::uint8_t> bytes(32);
            std::memcpy(bytes.data(), win.data(), 32);
            mem_access a;
            a.lane_mask = static_cast<std::uint32_t>(rng()) | 1u;
            a.aop = cas ? atom_op::ADD : static_cast<atom_op>(o);
            a.cas = cas;
            for (unsigned l = 0; l < warp_size; ++l) {
                a.addr[l] = 4 * (rng() % 8);
                a.data[l] = o == static_cast<unsigned>(atom_op::FADD)
                                ? f(static_cast<float>(rng() % 100) / 3.0f)
                                : (rng() % 2 ? static_cast<std::uint32_t>(rng() % 64)
                                             : static_cast<std::uint32_t>(rng()));
                a.data2[l] = static_cast<std::uint32_t>(rng());
                if (cas && rng() % 2) // make some compares succeed
                    a.data[l] = win[a.addr[l] / 4];
            }
            lane_values out{};
            shared_execute(bytes, a, step_kind::atomic, out);
            // The host's serialisation in lane order, written from PTX's definitions.
            for (unsigned l = 0; l < warp_size; ++l) {
                if (!((a.lane_mask >> l) & 1))
                    continue;
                std::uint32_t& w = win[a.addr[l] / 4];
                CAPTURE(o, n, l);
                REQUIRE(out[l] == w);
                const std::uint32_t b = a.data[l];
                const auto s = [](std::uint32_t v) { return static_cast<std::int32_t>(v); };
                switch (cas ? static_cast<atom_op>(0xff) : a.aop) {
                case atom_op::ADD:
                    w = w + b;
                    break;
                case atom_op::FADD: {
                    float x, y;
                    std::memcpy(&x, &w, 4);
                    std::memcpy(&y, &b, 4);
                    w = f(x + y);
                    break;
                }
                case atom_op::MIN:
                    w = s(w) < s(b) ? w : b;
                    break;
                case atom_op::MAX:
                    w = s(w) > s(b) ? w : b;
                    break;
                case atom_op::UMIN:
                    w = std::min(w, b);
                    break;
                case atom_op::UMAX:
                    w = std::max(w, b);
                    break;
                case atom_op::EXCH:
                    w = b;
                    break;
                case atom_op::AND:
                    w &= b;
                    break;
                case atom_op::OR:
                    w |= b;
                    break;
                case atom_op::XOR:
                    w ^= b;
                    break;
                case atom_op::INC:
                    w = w >= b ? 0 : w + 1;
                    break;
                case atom_op::DEC:
                    w = (w == 0 || w > b) ? b : w - 1;
                    break;
                default:
                    w = w == b ? a.data2[l] : w;
                    break; // CAS
                }
            }
            std::vector<std::uint32_t> got(8);
            std::memcpy(got.data(), bytes.data(), 32);
            REQUIRE(got == win);
        }
    }
}

TEST_CASE("combining operations fold to the same word as lane-by-lane application", "[shared]")
{
    const unsigned seed = Catch::rngSeed() ? Catch::rngSeed() : 36006u;
    CAPTURE(seed);
    std::mt19937 rng(seed);
    for (unsigned o = 0; o < num_atom_ops; ++o) {
        const auto op = static_cast<atom_op>(o);
        CAPTURE(name(op));
        CHECK(atom_combines(op) ==
              (op != atom_op::FADD && op != atom_op::INC && op != atom_op::DEC));
        if (!atom_combines(op))
            continue;
        for (unsigned n = 0; n < 1000; ++n) {
            std::uint32_t w = static_cast<std::uint32_t>(rng());
            std::uint32_t seq = w;
            std::uint32_t acc = static_cast<std::uint32_t>(rng());
            seq = atom_apply(op, seq, acc);
            for (unsigned k = 0; k < 1 + rng() % 8; ++k) {
                const auto b = static_cast<std::uint32_t>(rng());
                seq = atom_apply(op, seq, b);
                acc = atom_fold(op, acc, b);
            }
            REQUIRE(atom_apply(op, w, acc) == seq);
        }
    }
    // The TLM rule and the ISA's are one function; FADD rounds as the host's float add.
    CHECK(vgpu::tlm_bus::atomic_result(vgpu::tlm_bus::atomic_op::fadd, f(1.0f), f(1e-8f)) ==
          f(1.0f + 1e-8f));
    CHECK(vgpu::tlm_bus::atomic_result(vgpu::tlm_bus::atomic_op::cas, 5, 5, 9) == 9u);
    CHECK(vgpu::tlm_bus::atomic_result(vgpu::tlm_bus::atomic_op::cas, 5, 6, 9) == 5u);
    CHECK(atom_apply(atom_op::INC, 7, 7) == 0u);
    CHECK(atom_apply(atom_op::DEC, 0, 7) == 7u);
    CHECK(atom_apply(atom_op::DEC, 9, 7) == 7u);
    CHECK(atom_apply(atom_op::MIN, 0x80000000u, 1) == 0x80000000u);
    CHECK(atom_apply(atom_op::UMIN, 0x80000000u, 1) == 1u);
}

TEST_CASE("an 8-byte access (ATOM/CAS.B64) touches two words: passes against the reference",
          "[shared]")
{
    const unsigned seed = Catch::rngSeed() ? Catch::rngSeed() : 3665u;
    CAPTURE(seed);
    std::mt19937 rng(seed);
    const shared_banks b(32);
    CHECK(b.passes(~0u, strided(2).data(), 8) == 2);     // 32 doublewords: 64 words
    CHECK(b.passes(0xffffu, strided(2).data(), 8) == 1); // a half warp: one pass
    CHECK(b.passes(~0u, strided(4).data(), 8) == 4);     // 16-byte stride: 8 banks
    CHECK(b.passes(~0u, strided(0).data(), 8) == 1);     // one doubleword: a broadcast
    for (int n = 0; n < 2000; ++n) {
        lane_values addr{};
        for (unsigned l = 0; l < warp_size; ++l)
            addr[l] = 8 * static_cast<std::uint32_t>(rng() % 96);
        const std::uint32_t active = static_cast<std::uint32_t>(rng());
        // Reference: the lanes' low words and high words as 64 lanes of 4 bytes.
        std::map<unsigned, std::set<std::uint32_t>> words;
        for (unsigned l = 0; l < warp_size; ++l)
            if ((active >> l) & 1)
                for (std::uint32_t w : {addr[l] / 4, addr[l] / 4 + 1})
                    words[w % 32].insert(w);
        std::size_t most = 0;
        for (const auto& [bank, set] : words)
            most = std::max(most, set.size());
        CAPTURE(n);
        CHECK(b.passes(active, addr.data(), 8) == most);
    }
}
