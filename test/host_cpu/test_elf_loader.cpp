// Unit tests of the firmware CPU's ELF loader: a good image and every kind of bad one.
// See models/host_cpu/README.md.
#include "models/host_cpu/core/elf_loader.h"

#include <catch2/catch.hpp>

#include <cstring>
#include <functional>

using namespace vgpu::host_cpu;

namespace {
constexpr std::uint32_t ram = 0x80000000, ram_bytes = 1 << 20;

void put16(std::vector<std::uint8_t>& b, std::size_t off, std::uint16_t v)
{
    std::memcpy(b.data() + off, &v, 2);
}
void put32(std::vector<std::uint8_t>& b, std::size_t off, std::uint32_t v)
{
    std::memcpy(b.data() + off, &v, 4);
}

/// A valid rv32 executable: two PT_LOAD segments (code 16 bytes, data 8 + 8 zero bytes).
std::vector<std::uint8_t> good()
{
    std::vector<std::uint8_t> b(52 + 2 * 32 + 24, 0);
    b[0] = 0x7f;
    b[1] = 'E';
    b[2] = 'L';
    b[3] = 'F';
    b[4] = 1;          // ELFCLASS32
    b[5] = 1;          // little-endian
    b[6] = 1;          // EV_CURRENT
    put16(b, 16, 2);   // ET_EXEC
    put16(b, 18, 243); // EM_RISCV
    put32(b, 20, 1);
    put32(b, 24, ram); // entry
    put32(b, 28, 52);  // phoff
    put16(b, 40, 52);
    put16(b, 42, 32); // phentsize
    put16(b, 44, 2);  // phnum
    const auto ph = [&](unsigned i, std::uint32_t off, std::uint32_t addr, std::uint32_t filesz,
                        std::uint32_t memsz) {
        const std::size_t h = 52 + 32 * i;
        put32(b, h, 1); // PT_LOAD
        put32(b, h + 4, off);
        put32(b, h + 8, addr);
        put32(b, h + 12, addr);
        put32(b, h + 16, filesz);
        put32(b, h + 20, memsz);
    };
    ph(0, 116, ram, 16, 16);
    ph(1, 132, ram + 0x100, 8, 16);
    for (unsigned i = 0; i < 24; ++i)
        b[116 + i] = static_cast<std::uint8_t>(i + 1);
    return b;
}

std::string error_of(const std::vector<std::uint8_t>& b)
{
    try {
        parse_elf(b, "fw.elf", ram, ram_bytes);
    } catch (const elf_error& e) {
        return e.what();
    }
    return "";
}

std::string mutated(const std::function<void(std::vector<std::uint8_t>&)>& f)
{
    auto b = good();
    f(b);
    return error_of(b);
}
} // namespace

TEST_CASE("a valid image loads its segments and entry")
{
    const elf_image im = parse_elf(good(), "fw.elf", ram, ram_bytes);
    REQUIRE(im.entry == ram);
    REQUIRE(im.segments.size() == 2);
    REQUIRE(im.segments[0].addr == ram);
    REQUIRE(im.segments[0].data.size() == 16);
    REQUIRE(im.segments[0].data[0] == 1);
    REQUIRE(im.segments[1].addr == ram + 0x100);
    REQUIRE(im.segments[1].mem_bytes == 16);
    REQUIRE(im.segments[1].data.size() == 8);
}

TEST_CASE("bad images: each kind is named with the file")
{
    struct bad_case {
        const char* what;
        std::string message;
    };
    const std::vector<bad_case> cases = {
        {"empty file", error_of({})},
        {"not an ELF file", error_of({'#', '!', '/', 'b', 'i', 'n'})},
        {"truncated ELF identification", mutated([](auto& b) { b.resize(10); })},
        {"wrong ELF class: ELF64", mutated([](auto& b) { b[4] = 2; })},
        {"wrong data encoding: big-endian", mutated([](auto& b) { b[5] = 2; })},
        {"unknown ELF version", mutated([](auto& b) { b[6] = 9; })},
        {"truncated ELF header", mutated([](auto& b) { b.resize(40); })},
        {"wrong machine 62", mutated([](auto& b) { put16(b, 18, 62); })},
        {"a relocatable object", mutated([](auto& b) { put16(b, 16, 1); })},
        {"no program headers", mutated([](auto& b) { put16(b, 44, 0); })},
        {"bad program header entry size 40", mutated([](auto& b) { put16(b, 42, 40); })},
        {"truncated program header table", mutated([](auto& b) { put32(b, 28, 100); })},
        {"exceeds memory size", mutated([](auto& b) { put32(b, 52 + 32 + 16, 32); })},
        {"truncated (its", mutated([](auto& b) { b.resize(130); })},
        {"lies outside RAM", mutated([](auto& b) { put32(b, 52 + 32 + 12, 0x40000000); })},
        {"lies outside RAM", mutated([](auto& b) { put32(b, 52 + 32 + 12, ram + ram_bytes - 8); })},
        {"overlaps the segment at 0x80000000",
         mutated([](auto& b) { put32(b, 52 + 32 + 12, ram + 8); })},
        {"no loadable segment", mutated([](auto& b) {
             put32(b, 52, 4);
             put32(b, 52 + 32, 4);
         })},
        {"entry point 0x0 lies outside RAM", mutated([](auto& b) { put32(b, 24, 0); })},
        {"is not 2-byte aligned", mutated([](auto& b) { put32(b, 24, ram + 3); })},
        {"lies in no loaded segment", mutated([](auto& b) { put32(b, 24, ram + 0x800); })},
    };
    for (const auto& c : cases) {
        INFO(c.what << " -> '" << c.message << "'");
        CHECK(c.message.rfind("fw.elf: ", 0) == 0);
        CHECK(c.message.find(c.what) != std::string::npos);
    }
}

TEST_CASE("a missing file is an ELF error naming it")
{
    REQUIRE_THROWS_WITH(load_elf("/nonexistent/fw.elf", ram, ram_bytes),
                        Catch::Contains("/nonexistent/fw.elf: cannot open"));
}
