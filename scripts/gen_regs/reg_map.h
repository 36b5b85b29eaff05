// Register maps as data: the reader of a block's register description
// (models/<block>/*_regs.yaml, with its MMIO window) and of the MMIO map's outputs
// (platforms/mmio_map.yaml). See docs/registers.md ("How the maps are made").
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace vgpu::gen_regs {

/// A description that does not read: names the file and the key.
struct desc_error : std::runtime_error {
    using std::runtime_error::runtime_error;
};

/// A bit field of a register.
struct field {
    std::string name;   ///< UPPER_CASE
    unsigned lsb = 0;   ///< lowest bit
    unsigned width = 1; ///< bits
    std::string access; ///< RW, RO, W1C or WO; empty: the register's
    std::string brief;  ///< one-line meaning
    /// The field's bits in the register.
    std::uint32_t mask() const
    {
        return static_cast<std::uint32_t>(((std::uint64_t{1} << width) - 1) << lsb);
    }
};

/// One register, or an array of `count` registers 4 bytes apart.
struct reg {
    std::string name;                   ///< UPPER_CASE, without the block's prefix
    std::string const_name;             ///< name of the offset constant (arrays: name + "0")
    std::uint64_t offset = 0;           ///< byte offset (in a repeated group: in the group)
    std::string access;                 ///< RW, RO, W1C or WO
    std::optional<std::uint32_t> reset; ///< reset value, when it is a number
    std::string reset_text;             ///< reset as documented (a parameter when not a number)
    std::optional<std::uint32_t> mask;  ///< write mask, when it is a number
    unsigned count = 1;                 ///< registers in the array
    std::string brief;                  ///< one-line meaning (C++ and C comments)
    std::string doc;                    ///< meaning in the docs' table (default: brief)
    std::string cpp_fields;             ///< C++ namespace of the field constants
    std::vector<field> fields;          ///< bit fields (may be empty)
};

/// Registers that appear once, or once per instance `stride` bytes apart (a queue, a slot).
struct group {
    std::string title;        ///< docs sub-heading (empty: none)
    std::string doc;          ///< markdown before the table
    std::string after;        ///< markdown after the table
    std::uint64_t stride = 0; ///< repeated group: bytes between instances (0: not repeated)
    std::string stride_const; ///< name of the stride constant
    std::string function;     ///< C++ function giving instance i's register offset
    std::string index;        ///< the instance index's name in comments (q, i)
    std::string start_const;  ///< constant for the group's first offset (may be empty)
    std::uint64_t start = 0;  ///< the group's first offset (with start_const)
    std::string bank_prefix;  ///< register-bank name prefix, "{i}" the instance
    std::string doc_prefix;   ///< name prefix in the docs' table
    std::vector<reg> regs;    ///< by offset
};

/// A named value of a register (STATUS, a reason code).
struct enum_value {
    std::string name; ///< lower_case
    std::uint32_t value = 0;
    std::string brief; ///< one-line meaning
};

/// An enumeration of a register's values.
struct enumeration {
    std::string name;   ///< C++ enum class name
    std::string c_name; ///< firmware prefix after the block's (CP_<c_name>_<VALUE>)
    std::string brief;  ///< one-line meaning
    std::vector<enum_value> values;
};

/// A constant that belongs to the map (a size, a version value).
struct constant {
    std::string name; ///< UPPER_CASE
    std::string type; ///< C++ type: std::uint64_t, std::uint32_t or unsigned
    std::uint64_t value = 0;
    std::string brief; ///< one-line meaning
};

/// A register window of the MMIO bus.
struct window {
    std::string name; ///< lower_case, e.g. cp
    std::string bind; ///< the name its block binds it with on the MMIO bus, e.g. faults
    std::uint64_t base = 0;
    std::string regs;  ///< the description of its registers (the block it is in)
    std::string size;  ///< size as documented
    std::string brief; ///< one-line meaning
};

/// One block's register map.
struct block {
    std::string source;        ///< the description, relative to the repository
    std::string header;        ///< generated C++ header, relative to the repository
    std::string title;         ///< e.g. "Command processor"
    std::string summary;       ///< line 2 of the generated header: what the block is
    std::string instance;      ///< SystemC path, e.g. gpu.cp
    std::string model;         ///< the model's header
    std::string cpp_namespace; ///< e.g. vgpu::cp
    std::string reg_namespace; ///< namespace of the offsets, e.g. reg
    std::string c_prefix;      ///< firmware prefix, e.g. CP
    std::string prefix;        ///< register-bank and docs name prefix, e.g. FAULT_
    std::optional<std::uint64_t> window_bytes; ///< size to map (none: it depends on the config)
    std::string doc;                           ///< markdown after the heading
    std::string after;                         ///< markdown after the tables
    std::vector<group> groups;
    std::vector<constant> constants;
    std::vector<enumeration> enums;
    std::optional<window> mmio; ///< its window on the MMIO bus (`window:`), if it has one
};

/// The MMIO bus's windows and the blocks behind them.
struct mmio_map {
    std::string source;          ///< platforms/mmio_map.yaml (where the outputs go)
    std::string header;          ///< generated C++ header
    std::string cpp_namespace;   ///< e.g. vgpu::platforms::mmio_map
    std::string firmware_header; ///< generated C header
    std::string docs;            ///< the page with the generated sections
    std::string doc;             ///< markdown after the map's heading
    std::string after;           ///< markdown after the map's table
    std::vector<window> windows;
    std::vector<block> blocks; ///< in windows' order
};

/// Reads `map_path` (relative to `root`) and every block description it names; throws
/// desc_error naming the file and key of the first mistake.
mmio_map read_map(const std::string& root, const std::string& map_path);

/// Reads one block description (relative to `root`).
block read_block(const std::string& root, const std::string& path);

} // namespace vgpu::gen_regs
