// ELF loader of the firmware CPU. See models/host_cpu/README.md.
#include "models/host_cpu/core/elf_loader.h"

#include <algorithm>
#include <fstream>
#include <iterator>
#include <sstream>

namespace vgpu::host_cpu {

namespace {
constexpr std::uint16_t et_exec = 2;
constexpr std::uint16_t em_riscv = 243;
constexpr std::uint32_t pt_load = 1;
constexpr unsigned ehdr_bytes = 52; ///< Elf32_Ehdr
constexpr unsigned phdr_bytes = 32; ///< Elf32_Phdr

std::string hex(std::uint64_t v)
{
    std::ostringstream os;
    os << "0x" << std::hex << v;
    return os.str();
}

std::uint32_t u32(const std::vector<std::uint8_t>& b, std::size_t off)
{
    return b[off] | b[off + 1] << 8 | b[off + 2] << 16 | std::uint32_t{b[off + 3]} << 24;
}

std::uint16_t u16(const std::vector<std::uint8_t>& b, std::size_t off)
{
    return static_cast<std::uint16_t>(b[off] | b[off + 1] << 8);
}
} // namespace

elf_image parse_elf(const std::vector<std::uint8_t>& b, const std::string& name,
                    std::uint32_t ram_base, std::uint32_t ram_bytes)
{
    const auto bad = [&](const std::string& problem) { return elf_error(name + ": " + problem); };
    const std::uint64_t ram_end = std::uint64_t{ram_base} + ram_bytes;
    const std::string ram = "RAM [" + hex(ram_base) + ", " + hex(ram_end) + ")";
    if (b.empty())
        throw bad("empty file (not an ELF image)");
    if (b.size() < 4 || b[0] != 0x7f || b[1] != 'E' || b[2] != 'L' || b[3] != 'F')
        throw bad("not an ELF file (no \\x7fELF magic)");
    if (b.size() < 16)
        throw bad("truncated ELF identification (" + std::to_string(b.size()) + " bytes)");
    if (b[4] != 1)
        throw bad(std::string("wrong ELF class: ") + (b[4] == 2 ? "ELF64" : "invalid") +
                  " (the firmware CPU is rv32: ELF32 required)");
    if (b[5] != 1)
        throw bad("wrong data encoding: " + std::string(b[5] == 2 ? "big-endian" : "invalid") +
                  " (little-endian required)");
    if (b[6] != 1)
        throw bad("unknown ELF version " + std::to_string(b[6]));
    if (b.size() < ehdr_bytes)
        throw bad("truncated ELF header (" + std::to_string(b.size()) + " of " +
                  std::to_string(ehdr_bytes) + " bytes)");
    const std::uint16_t type = u16(b, 16), machine = u16(b, 18);
    if (machine != em_riscv)
        throw bad("wrong machine " + std::to_string(machine) + " (RISC-V, 243, required)");
    if (type != et_exec)
        throw bad("not an executable (ELF type " + std::to_string(type) +
                  (type == 1   ? ", a relocatable object"
                   : type == 3 ? ", a shared object"
                               : "") +
                  ")");
    elf_image im;
    im.entry = u32(b, 24);
    const std::uint32_t phoff = u32(b, 28);
    const std::uint16_t phentsize = u16(b, 42), phnum = u16(b, 44);
    if (phnum == 0)
        throw bad("no program headers (nothing to load)");
    if (phentsize != phdr_bytes)
        throw bad("bad program header entry size " + std::to_string(phentsize) + " (expected " +
                  std::to_string(phdr_bytes) + ")");
    if (std::uint64_t{phoff} + std::uint64_t{phnum} * phentsize > b.size())
        throw bad("truncated program header table (" + std::to_string(phnum) + " entries at " +
                  hex(phoff) + ", file of " + std::to_string(b.size()) + " bytes)");
    for (unsigned i = 0; i < phnum; ++i) {
        const std::size_t h = phoff + std::size_t{i} * phentsize;
        if (u32(b, h) != pt_load)
            continue;
        const std::uint32_t offset = u32(b, h + 4), paddr = u32(b, h + 12), filesz = u32(b, h + 16),
                            memsz = u32(b, h + 20);
        if (memsz == 0)
            continue;
        const std::string seg = "segment " + std::to_string(i) + " [" + hex(paddr) + ", " +
                                hex(std::uint64_t{paddr} + memsz) + ")";
        if (filesz > memsz)
            throw bad(seg + ": file size " + std::to_string(filesz) + " exceeds memory size " +
                      std::to_string(memsz));
        if (std::uint64_t{offset} + filesz > b.size())
            throw bad(seg + ": truncated (its " + std::to_string(filesz) + " bytes at offset " +
                      hex(offset) + " pass the end of the " + std::to_string(b.size()) +
                      "-byte file)");
        if (paddr < ram_base || std::uint64_t{paddr} + memsz > ram_end)
            throw bad(seg + " lies outside " + ram);
        for (const elf_segment& o : im.segments)
            if (paddr < std::uint64_t{o.addr} + o.mem_bytes &&
                o.addr < std::uint64_t{paddr} + memsz)
                throw bad(seg + " overlaps the segment at " + hex(o.addr));
        elf_segment s;
        s.addr = paddr;
        s.mem_bytes = memsz;
        s.data.assign(b.begin() + offset, b.begin() + offset + filesz);
        im.segments.push_back(std::move(s));
    }
    if (im.segments.empty())
        throw bad("no loadable segment");
    if (im.entry < ram_base || im.entry >= ram_end)
        throw bad("entry point " + hex(im.entry) + " lies outside " + ram);
    if (im.entry % 2 != 0)
        throw bad("entry point " + hex(im.entry) + " is not 2-byte aligned");
    if (std::none_of(im.segments.begin(), im.segments.end(), [&](const elf_segment& s) {
            return im.entry >= s.addr && im.entry - s.addr < s.mem_bytes;
        }))
        throw bad("entry point " + hex(im.entry) + " lies in no loaded segment");
    return im;
}

elf_image load_elf(const std::string& path, std::uint32_t ram_base, std::uint32_t ram_bytes)
{
    std::ifstream f(path, std::ios::binary);
    if (!f)
        throw elf_error(path + ": cannot open the firmware image");
    std::vector<std::uint8_t> bytes((std::istreambuf_iterator<char>(f)),
                                    std::istreambuf_iterator<char>());
    if (f.bad())
        throw elf_error(path + ": cannot read the firmware image");
    return parse_elf(bytes, path, ram_base, ram_bytes);
}

} // namespace vgpu::host_cpu
