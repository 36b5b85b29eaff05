// Unit tests of vgpu::cache::mshr_table, with a global allocation counter for this executable.
// See models/cache/README.md.
#include "models/cache/core/mshr_table.h"

#include <catch2/catch.hpp>

#include <cstdint>
#include <cstdlib>
#include <new>
#include <stdexcept>
#include <vector>

using vgpu::cache::mshr_table;

/// Global operator new calls so far; lets tests prove a hot path allocation-free.
std::uint64_t g_test_allocations = 0;

// Every non-aligned form is replaced, so allocation and release always match (also under ASan).
namespace {
void* counted_alloc(std::size_t size) noexcept
{
    ++g_test_allocations;
    return std::malloc(size ? size : 1);
}

void* counted_alloc_or_throw(std::size_t size)
{
    if (void* p = counted_alloc(size))
        return p;
    throw std::bad_alloc();
}
} // namespace

void* operator new(std::size_t size)
{
    return counted_alloc_or_throw(size);
}
void* operator new[](std::size_t size)
{
    return counted_alloc_or_throw(size);
}
void* operator new(std::size_t size, const std::nothrow_t&) noexcept
{
    return counted_alloc(size);
}
void* operator new[](std::size_t size, const std::nothrow_t&) noexcept
{
    return counted_alloc(size);
}

// GCC 12 flags free() of memory from a replaced operator new as mismatched; here it matches.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
void operator delete(void* p) noexcept
{
    std::free(p);
}
void operator delete[](void* p) noexcept
{
    std::free(p);
}
void operator delete(void* p, std::size_t) noexcept
{
    std::free(p);
}
void operator delete[](void* p, std::size_t) noexcept
{
    std::free(p);
}
void operator delete(void* p, const std::nothrow_t&) noexcept
{
    std::free(p);
}
void operator delete[](void* p, const std::nothrow_t&) noexcept
{
    std::free(p);
}
#pragma GCC diagnostic pop

namespace {
/// A waiting request as an L1 shell might keep it.
struct target {
    unsigned warp;
    unsigned offset;
    bool operator==(const target& o) const { return warp == o.warp && offset == o.offset; }
};
} // namespace

TEST_CASE("mshr_table rejects an empty geometry")
{
    REQUIRE_THROWS_AS(mshr_table<int>(0, 4), std::invalid_argument);
    REQUIRE_THROWS_AS(mshr_table<int>(4, 0), std::invalid_argument);
}

TEST_CASE("mshr_table allocates, merges, rejects and releases")
{
    mshr_table<target> t(2, 3);
    REQUIRE(t.capacity() == 2);
    REQUIRE(t.max_merged() == 3);
    REQUIRE(t.lookup(0x100) == nullptr);
    REQUIRE(t.can_allocate());

    auto& a = t.allocate(0x100);
    REQUIRE(a.line() == 0x100);
    REQUIRE(a.targets().empty());
    REQUIRE(t.lookup(0x100) == &a);
    REQUIRE(t.in_use() == 1);
    REQUIRE_THROWS_WITH(t.allocate(0x100), Catch::Contains("already has an entry"));

    REQUIRE(t.add_target(a, {1, 0}));
    REQUIRE(t.merges() == 0);
    REQUIRE(t.add_target(a, {2, 4}));
    REQUIRE(t.add_target(a, {3, 8}));
    REQUIRE(t.merges() == 2);
    REQUIRE_FALSE(t.add_target(a, {4, 12}));
    REQUIRE(t.rejects() == 1);
    REQUIRE(a.targets().size() == 3);

    auto& b = t.allocate(0x200);
    REQUIRE(t.add_target(b, {9, 0}));
    REQUIRE(t.index_of(0x100) == 0); // entries are taken lowest first
    REQUIRE(t.index_of(0x200) == 1);
    REQUIRE(t.index_of(0x300) == -1);
    REQUIRE_FALSE(t.can_allocate());
    REQUIRE_THROWS_WITH(t.allocate(0x300), Catch::Contains("table full"));
    REQUIRE(t.allocations() == 2);

    std::vector<target> out{{99, 99}};
    t.release(0x100, out);
    REQUIRE(out == std::vector<target>{{1, 0}, {2, 4}, {3, 8}});
    REQUIRE(t.lookup(0x100) == nullptr);
    REQUIRE(t.lookup(0x200) == &b);
    REQUIRE(t.in_use() == 1);
    REQUIRE(t.can_allocate());
    REQUIRE_THROWS_WITH(t.release(0x100), Catch::Contains("no entry"));

    REQUIRE(t.index_of(0x100) == -1);
    // Serving the released targets may miss on the same line again.
    auto& again = t.allocate(0x100);
    REQUIRE(t.index_of(0x100) == 0); // the entry freed first
    REQUIRE(again.targets().empty());
    REQUIRE(t.add_target(again, out[0]));

    t.release(0x200);
    REQUIRE(t.in_use() == 1);
    REQUIRE(t.allocate(0x400).targets().empty());
}

TEST_CASE("mshr_table steady state does not allocate")
{
    mshr_table<target> t(8, 4);
    std::vector<target> out;
    out.reserve(4);
    const std::uint64_t before = g_test_allocations;
    unsigned served = 0;
    for (unsigned i = 0; i < 10000; ++i) {
        const std::uint64_t line = (i % 13) * 128;
        auto* e = t.lookup(line);
        if (!e && t.can_allocate())
            e = &t.allocate(line);
        if (e)
            t.add_target(*e, {i, 0});
        if (i % 3 == 0 && t.lookup((i % 11) * 128)) {
            t.release((i % 11) * 128, out);
            served += static_cast<unsigned>(out.size());
        }
    }
    REQUIRE(g_test_allocations == before);
    REQUIRE(served > 1000);
    REQUIRE(t.merges() > 1000);
}
