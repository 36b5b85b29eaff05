// PTX abstract syntax tree helpers (see ast.h).
#include "models/sm/ptx/ast.h"

#include <algorithm>
#include <array>

namespace vgpu::ptx {

namespace {

struct type_entry {
    data_type t;
    std::string_view name;
    unsigned bits;
};
// clang-format off
constexpr std::array<type_entry, 25> type_table{{
    {data_type::none, "", 0}, {data_type::pred, "pred", 1},
    {data_type::b8, "b8", 8}, {data_type::b16, "b16", 16}, {data_type::b32, "b32", 32},
    {data_type::b64, "b64", 64}, {data_type::b128, "b128", 128},
    {data_type::u8, "u8", 8}, {data_type::u16, "u16", 16}, {data_type::u32, "u32", 32},
    {data_type::u64, "u64", 64},
    {data_type::s8, "s8", 8}, {data_type::s16, "s16", 16}, {data_type::s32, "s32", 32},
    {data_type::s64, "s64", 64},
    {data_type::f16, "f16", 16}, {data_type::f16x2, "f16x2", 32}, {data_type::bf16, "bf16", 16},
    {data_type::bf16x2, "bf16x2", 32}, {data_type::tf32, "tf32", 32}, {data_type::f32, "f32", 32},
    {data_type::f64, "f64", 64},
    {data_type::texref, "texref", 0}, {data_type::surfref, "surfref", 0},
    {data_type::samplerref, "samplerref", 0},
}};
constexpr std::array<std::string_view, 9> space_names{
    "", "reg", "sreg", "const", "global", "local", "param", "shared", "tex"};
// clang-format on

} // namespace

data_type parse_type(std::string_view name)
{
    if (name.empty() || name.size() > 10)
        return data_type::none;
    for (const type_entry& e : type_table)
        if (e.t != data_type::none && name == e.name)
            return e.t;
    return data_type::none;
}

const char* type_name(data_type t)
{
    return type_table[static_cast<std::size_t>(t)].name.data();
}

unsigned type_bits(data_type t)
{
    return type_table[static_cast<std::size_t>(t)].bits;
}

state_space parse_space(std::string_view name)
{
    for (std::size_t i = 1; i < space_names.size(); ++i)
        if (name == space_names[i])
            return static_cast<state_space>(i);
    return state_space::none;
}

const char* space_name(state_space s)
{
    return space_names[static_cast<std::size_t>(s)].data();
}

std::uint64_t variable::elements() const
{
    std::uint64_t n = 1;
    for (std::size_t i = 0; i < dims.size(); ++i) {
        std::uint64_t d = dims[i];
        if (d == 0 && i == 0) {
            std::uint64_t inner = 1;
            for (std::size_t j = 1; j < dims.size(); ++j)
                inner *= dims[j];
            const std::uint64_t per = inner * vec;
            d = per == 0 ? 0 : (init.size() + per - 1) / per;
        }
        n *= d;
    }
    return n;
}

bool instruction::has(std::string_view m) const
{
    return std::find(mods.begin(), mods.end(), m) != mods.end();
}

int module::find_function(std::string_view name) const
{
    for (std::size_t i = 0; i < functions.size(); ++i)
        if (functions[i].name == name)
            return static_cast<int>(i);
    return -1;
}

int module::find_global(std::string_view name) const
{
    for (std::size_t i = 0; i < globals.size(); ++i)
        if (globals[i].name == name)
            return static_cast<int>(i);
    return -1;
}

std::string module::source_line(const instruction& ins) const
{
    if (ins.loc_line == 0)
        return "";
    auto name = [&](int index) {
        const auto it = files.find(index);
        return it == files.end() ? "file " + std::to_string(index) : it->second;
    };
    const std::string here = name(ins.loc_file) + ":" + std::to_string(ins.loc_line);
    if (ins.call_line == 0 || ins.call_file == ins.loc_file)
        return here;
    return name(ins.call_file) + ":" + std::to_string(ins.call_line) + " via " + here;
}

} // namespace vgpu::ptx
