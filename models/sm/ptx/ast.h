// PTX abstract syntax tree: what the parser (parser.h) produces and the translator consumes.
// Positions are 1-based lines and columns of the PTX file. See docs/cuda.md.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace vgpu::ptx {

/// A position in the PTX text; 0 when unknown.
struct position {
    int line = 0; ///< 1-based line
    int col = 0;  ///< 1-based column
};

// clang-format off
/// PTX fundamental types (and .pred); `none` when an instruction or variable has none.
enum class data_type : std::uint8_t {
    none, pred,
    b8, b16, b32, b64, b128,
    u8, u16, u32, u64,
    s8, s16, s32, s64,
    f16, f16x2, bf16, bf16x2, tf32, f32, f64,
    texref, surfref, samplerref
};
// clang-format on

/// The type named by a modifier without its dot ("u32"), or none.
data_type parse_type(std::string_view name);
/// The type's name without the dot ("u32"); "" for none.
const char* type_name(data_type t);
/// Size in bits (pred: 1, none and the opaque reference types: 0).
unsigned type_bits(data_type t);

/// PTX state spaces.
enum class state_space : std::uint8_t {
    none,
    reg,
    sreg,
    const_,
    global,
    local,
    param,
    shared,
    tex
};

/// The space named by a modifier without its dot ("global", "const"), or none.
state_space parse_space(std::string_view name);
/// The space's name without the dot ("const"); "" for none.
const char* space_name(state_space s);

/// A module-level, function-level or parameter declaration.
struct variable {
    std::string name; ///< identifier; the prefix of a register range
    state_space space = state_space::none;
    data_type type = data_type::none;
    unsigned vec = 1;                          ///< vector width (.v2 / .v4), else 1
    unsigned align = 0;                        ///< .align in bytes, 0 when not given
    std::vector<std::uint64_t> dims{};         ///< array extents; 0 for an unsized `[]`
    unsigned range = 0;                        ///< register range `%r<N>`: N; 0 for one register
    bool is_extern = false;                    ///< .extern
    bool is_visible = false;                   ///< .visible
    bool is_weak = false;                      ///< .weak or .common
    bool is_ptr = false;                       ///< parameter with the .ptr attribute
    state_space ptr_space = state_space::none; ///< .ptr's space (global, shared, ...)
    unsigned ptr_align = 0;                    ///< .ptr's .align
    /// Initialiser words, flattened in element order: numbers as their bits in `type`; a
    /// symbol (`sym`, `generic(sym)`, `sym+off`) is a reloc entry.
    std::vector<std::uint64_t> init{};
    /// Symbols in the initialiser: element index -> (symbol, offset).
    std::map<std::size_t, std::pair<std::string, std::int64_t>> init_symbols{};
    int scope = 0;    ///< scope id (0: module or function body)
    position where{}; ///< where the name is
    /// Bytes of one element (vector width included); 0 for opaque types.
    std::uint64_t element_bytes() const { return (type_bits(type) * vec + 7) / 8; }
    /// Elements (product of dims; an unsized dim counts its initialiser).
    std::uint64_t elements() const;
    /// Bytes of the whole variable.
    std::uint64_t bytes() const { return element_bytes() * elements(); }
};

/// An instruction operand.
struct operand {
    enum class kind : std::uint8_t {
        reg,     ///< a register, `name` as written ("%r5", "%SP"); decl/index resolve it
        special, ///< a special register ("%tid.x", "%laneid", "%clock64")
        imm_int, ///< integer immediate: value in `ival` (as written, two's complement)
        imm_f32, ///< 0fXXXXXXXX: bits in `ival`, value in `fval`
        imm_f64, ///< 0dXXXXXXXXXXXXXXXX or a decimal float: bits in `ival`, value in `fval`
        symbol,  ///< a variable, function or label name
        address, ///< [base + ival]: base a register (`reg`), a symbol, or none (absolute)
        vector,  ///< {a, b, ...}: elems
        sink,    ///< `_`
        pair     ///< p|q (setp's two predicate destinations): elems
    };
    kind k = kind::reg;
    std::string name{};           ///< register, special register or symbol name; address base
    bool base_is_reg = false;     ///< address: the base is a register
    bool negated = false;         ///< `!%p` predicate operand
    std::int64_t ival = 0;        ///< immediate bits, or the address offset
    double fval = 0;              ///< floating immediate value
    int decl = -1;                ///< reg / register-based address: index in function::decls
    int index = -1;               ///< register number inside a range, -1 for a scalar register
    std::vector<operand> elems{}; ///< vector or pair elements
    position where{};
};

/// One PTX instruction with its modifiers, kept as written.
struct instruction {
    std::string opcode;              ///< "ld", "mad", "setp"
    std::vector<std::string> mods{}; ///< every modifier in order, without dots ("global", "f32")
    std::vector<data_type> types{};  ///< the type modifiers in order (cvt has two)
    state_space space = state_space::none; ///< the state-space modifier, if any
    std::string guard{};                   ///< guard predicate register ("%p1"), "" if none
    bool guard_negated = false;            ///< @!%p
    int guard_decl = -1;                   ///< guard register's declaration
    int guard_index = -1;                  ///< guard register's number in its range
    position guard_where{};                ///< where the guard register is
    std::vector<operand> ops{};            ///< operands in order (call: see below)
    // call only: returns (ops) , callee, arguments
    std::string callee{};        ///< called function (call), "" otherwise
    std::vector<operand> args{}; ///< call arguments
    bool indirect = false;       ///< call through a register
    int scope = 0;               ///< scope id the instruction sits in
    position where{};            ///< where the opcode (or the guard) is
    int loc_file = 0;            ///< .loc file index (module::files), 0 when none
    int loc_line = 0;            ///< .loc source line, 0 when none
    int loc_col = 0;             ///< .loc source column
    int call_file = 0;           ///< .loc inlined_at: the call site's file index, or 0
    int call_line = 0;           ///< .loc inlined_at: the call site's line
    /// True when `m` is one of the modifiers.
    bool has(std::string_view m) const;
    /// The type modifier (the last one), or none.
    data_type type() const { return types.empty() ? data_type::none : types.back(); }
};

/// A .entry (kernel) or a .func (device function).
struct function {
    std::string name;
    bool is_entry = false;           ///< .entry
    bool is_extern = false;          ///< .extern (declared, defined elsewhere)
    bool is_visible = false;         ///< .visible
    bool has_body = false;           ///< defined here
    bool noreturn = false;           ///< .noreturn
    std::vector<variable> params{};  ///< parameters in order
    std::vector<variable> returns{}; ///< .func return parameters
    std::vector<variable> decls{};   ///< .reg/.local/.shared/.param declared in the body
    std::vector<instruction> body{}; ///< instructions in order
    /// label -> index of the instruction it precedes (body.size() at the end).
    std::map<std::string, std::size_t, std::less<>> labels{};
    std::map<std::string, position, std::less<>> label_where{}; ///< where each label is
    std::vector<int> scope_parent{0}; ///< scope id -> enclosing scope id (0 is the body)
    std::vector<unsigned> maxntid{};  ///< .maxntid x[, y, z]
    std::vector<unsigned> reqntid{};  ///< .reqntid x[, y, z]
    unsigned minnctapersm = 0;        ///< .minnctapersm (from __launch_bounds__)
    unsigned maxnreg = 0;             ///< .maxnreg
    position where{};                 ///< where the name is
};

/// A parsed PTX file.
struct module {
    std::string file;                          ///< file name used in messages
    unsigned version_major = 0;                ///< .version major
    unsigned version_minor = 0;                ///< .version minor
    std::string target{};                      ///< .target architecture ("sm_70")
    std::vector<std::string> target_options{}; ///< other .target entries
    unsigned address_size = 0;                 ///< .address_size (0 when absent)
    std::map<int, std::string> files{};        ///< .file index -> source path
    std::vector<variable> globals{};           ///< module-scope variables in order
    std::vector<function> functions{};         ///< entries and functions in order
    /// Index of the function or global with this exact name, -1 when none.
    int find_function(std::string_view name) const;
    int find_global(std::string_view name) const;
    /// "file:line" of the CUDA source of an instruction (from .loc), "" when unknown; code
    /// inlined from another file (a shim header) names the call site too ("k.cu:7 via h:440").
    std::string source_line(const instruction& ins) const;
};

} // namespace vgpu::ptx
