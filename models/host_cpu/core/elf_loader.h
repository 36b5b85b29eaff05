// ELF loader of the firmware CPU: checks a 32-bit little-endian RISC-V executable and returns
// its loadable segments. No SystemC. See models/host_cpu/README.md.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace vgpu::host_cpu {

/// A bad image: the message names the file and the problem.
struct elf_error : std::runtime_error {
    using std::runtime_error::runtime_error;
};

/// One PT_LOAD segment: `data` (file bytes) at `addr`, zero-filled up to `mem_bytes`.
struct elf_segment {
    std::uint32_t addr = 0;         ///< physical address (p_paddr)
    std::uint32_t mem_bytes = 0;    ///< bytes in memory (p_memsz)
    std::vector<std::uint8_t> data; ///< the file's bytes (p_filesz of them)
};

/// A checked executable.
struct elf_image {
    std::uint32_t entry = 0;           ///< first instruction
    std::vector<elf_segment> segments; ///< PT_LOAD segments in file order
};

/// Checks `bytes` (the contents of `name`) as an rv32 executable whose segments and entry lie
/// in RAM [ram_base, ram_base + ram_bytes); throws elf_error("name: problem") otherwise.
elf_image parse_elf(const std::vector<std::uint8_t>& bytes, const std::string& name,
                    std::uint32_t ram_base, std::uint32_t ram_bytes);

/// Reads `path` and parses it (parse_elf); an unreadable file is an elf_error too.
elf_image load_elf(const std::string& path, std::uint32_t ram_base, std::uint32_t ram_bytes);

} // namespace vgpu::host_cpu
