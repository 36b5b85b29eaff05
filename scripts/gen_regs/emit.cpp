// Writers of the generated files. See scripts/gen_regs/emit.h.
#include "scripts/gen_regs/emit.h"

#include <cstdio>
#include <map>
#include <sstream>

namespace vgpu::gen_regs {
namespace {

constexpr std::size_t columns = 100; // .clang-format ColumnLimit

std::string hex(std::uint64_t v, int digits = 2)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "0x%0*llx", digits, static_cast<unsigned long long>(v));
    return buf;
}

std::string upper(std::string s)
{
    for (char& c : s)
        c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return s;
}

/// `text` as comment lines starting with `lead` (and `more` after the first), words wrapped
/// so that no line passes the column limit.
std::string comment(const std::string& lead, const std::string& text, const std::string& more)
{
    std::istringstream in(text);
    std::string word, line = lead, out;
    bool empty = true;
    while (in >> word) {
        if (!empty && line.size() + 1 + word.size() > columns) {
            out += line + "\n";
            line = more;
            empty = true;
        }
        line += (empty && line.back() == ' ' ? "" : " ") + word;
        empty = false;
    }
    return out + line + "\n";
}

/// `/// text`, wrapped.
std::string doc(const std::string& text)
{
    return comment("///", text, "///");
}

/// Offsets print with at least two hex digits.
std::string off(std::uint64_t v)
{
    return hex(v, 2);
}

std::string file_header_cpp(const std::string& source, const std::string& what)
{
    return "// generated from " + source + " by " + tool + "; do not edit\n" +
           comment("//", what, "//");
}

std::string array_range(const reg& r, const std::string& prefix)
{
    return prefix + r.name + "0.." + prefix + r.name + std::to_string(r.count - 1);
}

std::string cpp_reg_brief(const reg& r)
{
    std::string s = r.access + " " + r.brief;
    if (r.count > 1)
        s = r.access + " " + r.name + "0.." + r.name + std::to_string(r.count - 1) + " at " +
            r.const_name + " + 4 * i: " + r.brief;
    return s;
}

} // namespace

std::string cpp_header(const block& b)
{
    std::ostringstream o;
    o << file_header_cpp(b.source, "Register map of the " + b.summary +
                                       " See docs/registers.md (\"" + b.title + "\") and " +
                                       b.model + ".");
    o << "#pragma once\n\n#include <cstdint>\n\nnamespace " << b.cpp_namespace << " {\n\n";
    o << doc("Register offsets in the window (docs/registers.md, \"" + b.title + "\").");
    o << "namespace " << b.reg_namespace << " {\n";
    bool first = true;
    for (const group& g : b.groups) {
        if (!first)
            o << "\n";
        first = false;
        if (!g.title.empty())
            o << "// " << g.title << "\n";
        if (g.stride != 0) {
            o << doc("Bytes between the blocks of two " + g.function + "s.");
            o << "inline constexpr std::uint64_t " << g.stride_const << " = " << hex(g.stride)
              << ";\n";
        }
        if (!g.start_const.empty()) {
            o << doc("Start of the block.");
            o << "inline constexpr std::uint64_t " << g.start_const << " = " << off(g.start)
              << ";\n";
        }
        for (const reg& r : g.regs) {
            o << doc(cpp_reg_brief(r));
            o << "inline constexpr std::uint64_t " << r.const_name << " = " << off(r.offset)
              << ";\n";
        }
        if (g.stride != 0) {
            o << doc("Offset of register `off` of " + g.function + " `" + g.index + "`.");
            o << "constexpr std::uint64_t " << g.function << "(unsigned " << g.index
              << ", std::uint64_t off)\n{\n    return " << g.index << " * " << g.stride_const
              << " + off;\n}\n";
        }
    }
    if (b.window_bytes || !b.constants.empty())
        o << "\n";
    if (b.window_bytes) {
        o << doc("Size to map.");
        o << "inline constexpr std::uint64_t WINDOW_BYTES = " << hex(*b.window_bytes) << ";\n";
    }
    for (const constant& c : b.constants) {
        o << doc(c.brief);
        o << "inline constexpr " << c.type << " " << c.name << " = "
          << (c.type == "unsigned" ? std::to_string(c.value) : hex(c.value)) << ";\n";
    }
    o << "} // namespace " << b.reg_namespace << "\n";
    for (const group& g : b.groups)
        for (const reg& r : g.regs) {
            if (r.fields.empty())
                continue;
            o << "\n" << doc("Fields of " + b.prefix + r.name + " (masks and shifts).");
            o << "namespace " << r.cpp_fields << " {\n";
            for (const field& f : r.fields) {
                const std::string acc = f.access.empty() ? r.access : f.access;
                o << doc(acc + " " + f.brief);
                o << "inline constexpr std::uint32_t " << f.name << " = " << hex(f.mask()) << ";\n";
                o << "inline constexpr unsigned " << f.name << "_SHIFT = " << f.lsb << ";\n";
            }
            o << "} // namespace " << r.cpp_fields << "\n";
        }
    for (const enumeration& e : b.enums) {
        o << "\n" << doc(e.brief);
        o << "enum class " << e.name << " : std::uint32_t {\n";
        for (const enum_value& v : e.values) {
            o << comment("    ///", v.brief, "    ///");
            o << "    " << v.name << " = " << v.value << ",\n";
        }
        o << "};\n";
    }
    o << "\n} // namespace " << b.cpp_namespace << "\n";
    return o.str();
}

std::string map_header(const mmio_map& m)
{
    std::ostringstream o;
    o << file_header_cpp(m.source,
                         "The GPU's register windows on the MMIO bus. See docs/registers.md "
                         "(\"MMIO map\").");
    o << "#pragma once\n\n#include \"tlm_bus/router.h\"\n\n#include <cstdint>\n#include "
         "<vector>\n\n";
    const std::size_t last = m.cpp_namespace.rfind("::");
    const std::string outer = m.cpp_namespace.substr(0, last);
    const std::string inner = m.cpp_namespace.substr(last + 2);
    o << "namespace " << outer << " {\n\n";
    o << doc("Base addresses of the register windows (docs/registers.md, \"MMIO map\").");
    o << "namespace " << inner << " {\n";
    for (const window& w : m.windows) {
        o << doc(w.brief + " (" + w.regs + ")");
        o << "inline constexpr std::uint64_t " << upper(w.name) << "_BASE = " << hex(w.base, 8)
          << ";\n";
    }
    o << "} // namespace " << inner << "\n\n";
    o << doc("Every window by the name its block binds it with (tlm_bus::router::bind).");
    o << "inline const std::vector<tlm_bus::window_base>& mmio_windows()\n{\n";
    o << "    static const std::vector<tlm_bus::window_base> windows = {\n";
    for (const window& w : m.windows)
        o << "        {\"" << w.bind << "\", " << inner << "::" << upper(w.name) << "_BASE},\n";
    o << "    };\n    return windows;\n}\n\n} // namespace " << outer << "\n";
    return o.str();
}

std::string c_header(const mmio_map& m)
{
    std::ostringstream o;
    o << "/* generated from " << m.source << " by " << tool << "; do not edit */\n";
    std::string sources;
    for (const block& b : m.blocks)
        sources += (sources.empty() ? "" : ", ") + b.source;
    o << comment("/*",
                 "The firmware's view of the GPU's register windows (docs/registers.md), "
                 "from the descriptions the map names: " +
                     sources + ". */",
                 "  ");
    o << "#ifndef VGPU_FW_GPU_REGS_H\n#define VGPU_FW_GPU_REGS_H\n\n";
    o << "/* Register windows on the MMIO bus (docs/registers.md, \"MMIO map\"). */\n";
    for (std::size_t i = 0; i < m.windows.size(); ++i) {
        const block& b = m.blocks[i];
        o << "#define " << b.c_prefix << "_WINDOW " << hex(m.windows[i].base, 8) << "u\n";
        if (b.window_bytes)
            o << "#define " << b.c_prefix << "_WINDOW_BYTES " << hex(*b.window_bytes) << "u\n";
    }
    for (const block& b : m.blocks) {
        const std::string p = b.c_prefix + "_";
        o << "\n/* " << b.title << " (" << b.source << "). */\n";
        for (const group& g : b.groups) {
            if (g.stride != 0)
                o << "#define " << p << g.stride_const << " " << hex(g.stride) << "u\n";
            if (!g.start_const.empty())
                o << "#define " << p << g.start_const << " " << off(g.start) << "u\n";
            for (const reg& r : g.regs)
                o << "#define " << p << r.const_name << " " << off(r.offset) << "u\n";
        }
        for (const constant& c : b.constants)
            o << "#define " << p << c.name << " "
              << (c.type == "unsigned" ? std::to_string(c.value) : hex(c.value)) << "u\n";
        for (const group& g : b.groups)
            for (const reg& r : g.regs)
                for (const field& f : r.fields) {
                    o << "#define " << p << r.name << "_" << f.name << " " << hex(f.mask())
                      << "u\n";
                    o << "#define " << p << r.name << "_" << f.name << "_SHIFT " << f.lsb << "u\n";
                }
        for (const enumeration& e : b.enums)
            for (const enum_value& v : e.values)
                o << "#define " << p << e.c_name << "_" << upper(v.name) << " " << v.value << "u\n";
    }
    o << "\n#endif\n";
    return o.str();
}

namespace {

const std::string end_marker = "<!-- end of generated section -->";

std::string marker(const std::string& source)
{
    return "<!-- generated from " + source + " by " + tool + "; do not edit -->";
}

/// A markdown paragraph (or nothing) followed by an empty line.
std::string para(const std::string& text)
{
    return text.empty() ? "" : text + "\n\n";
}

std::string cell(std::string s)
{
    for (std::size_t i = 0; (i = s.find('|', i)) != std::string::npos; i += 2)
        s.replace(i, 1, "\\|");
    return s;
}

std::string bits(const field& f)
{
    return f.width == 1 ? std::to_string(f.lsb)
                        : std::to_string(f.lsb) + ".." + std::to_string(f.lsb + f.width - 1);
}

std::string reg_table(const block& b, const group& g)
{
    std::ostringstream o;
    o << "| offset | name | access | reset | meaning |\n";
    o << "|--------|------|--------|-------|---------|\n";
    std::uint64_t next = g.regs.empty() ? 0 : g.regs.front().offset;
    for (const reg& r : g.regs) {
        if (r.offset > next)
            o << "| " << off(next) << ".." << off(r.offset - 1)
              << " | - | hole | | address error |\n";
        const std::string reset = r.access == "WO" ? "-" : r.reset_text;
        if (r.count > 1)
            o << "| " << off(r.offset) << ".." << off(r.offset + 4 * (r.count - 1)) << " | "
              << array_range(r, g.doc_prefix) << " | " << r.access << " | " << cell(reset) << " | "
              << cell(r.doc) << " (" << g.doc_prefix << r.name << "n at " << off(r.offset)
              << " + 4n) |\n";
        else
            o << "| " << off(r.offset) << " | " << g.doc_prefix << r.name << " | " << r.access
              << " | " << cell(reset) << " | " << cell(r.doc) << " |\n";
        next = r.offset + 4 * r.count;
    }
    for (const reg& r : g.regs) {
        if (r.fields.empty())
            continue;
        o << "\nFields of " << g.doc_prefix << r.name << " (`" << b.cpp_namespace
          << "::" << r.cpp_fields << "`):\n\n";
        o << "| bits | name | access | meaning |\n";
        o << "|------|------|--------|---------|\n";
        for (const field& f : r.fields)
            o << "| " << bits(f) << " | " << f.name << " | "
              << (f.access.empty() ? r.access : f.access) << " | " << cell(f.brief) << " |\n";
    }
    return o.str();
}

std::string block_section(const block& b, const window& w)
{
    std::ostringstream o;
    o << marker(b.source) << "\n";
    o << "## " << b.title << " (`" << b.instance << "`, `" << b.model << "`)\n";
    o << "Window at `" << hex(w.base, 8) << "` on the MMIO bus, " << w.size
      << " bytes. Offsets in `" << b.cpp_namespace << "::" << b.reg_namespace << "` (`" << b.header
      << "`), generated from `" << b.source << "`.\n\n";
    o << para(b.doc);
    for (const group& g : b.groups) {
        if (!g.title.empty())
            o << "### " << g.title << "\n";
        o << para(g.doc);
        o << reg_table(b, g) << "\n";
        o << para(g.after);
    }
    for (const enumeration& e : b.enums) {
        o << e.brief << " (`" << b.cpp_namespace << "::" << e.name << "`): ";
        for (std::size_t i = 0; i < e.values.size(); ++i)
            o << (i ? ", " : "") << e.values[i].value << " " << e.values[i].name;
        o << ".\n\n";
    }
    o << para(b.after);
    std::string s = o.str();
    while (s.size() > 1 && s[s.size() - 1] == '\n' && s[s.size() - 2] == '\n')
        s.pop_back();
    return s + end_marker + "\n";
}

std::string map_section(const mmio_map& m)
{
    std::ostringstream o;
    o << marker(m.source) << "\n";
    o << "## MMIO map\n";
    o << para(m.doc);
    o << "| window | base | bytes | registers | what |\n";
    o << "|--------|------|-------|-----------|------|\n";
    for (const window& w : m.windows)
        o << "| " << w.name << " | " << hex(w.base, 8) << " | " << w.size << " | `" << w.regs
          << "` | " << cell(w.brief) << " |\n";
    o << "\n" << para(m.after);
    std::string s = o.str();
    while (s.size() > 1 && s[s.size() - 1] == '\n' && s[s.size() - 2] == '\n')
        s.pop_back();
    return s + end_marker + "\n";
}

} // namespace

std::string docs_page(const mmio_map& m, const std::string& page)
{
    std::map<std::string, std::string> sections; // start marker -> section
    sections[marker(m.source)] = map_section(m);
    for (std::size_t i = 0; i < m.blocks.size(); ++i)
        sections[marker(m.blocks[i].source)] = block_section(m.blocks[i], m.windows[i]);
    std::istringstream in(page);
    std::string line, out;
    std::map<std::string, bool> seen;
    while (std::getline(in, line)) {
        if (line.rfind("<!-- generated from ", 0) != 0) {
            out += line + "\n";
            continue;
        }
        auto it = sections.find(line);
        if (it == sections.end())
            throw desc_error(m.docs + ": a generated section no description makes: " + line);
        if (seen[line])
            throw desc_error(m.docs + ": two sections " + line);
        seen[line] = true;
        out += it->second;
        while (std::getline(in, line) && line != end_marker) {
        }
        if (line != end_marker)
            throw desc_error(m.docs + ": no '" + end_marker + "' after " + it->first);
    }
    for (const auto& [start, text] : sections)
        if (!seen[start])
            throw desc_error(m.docs + ": no section for " + start + " (add that line and '" +
                             end_marker + "' where it belongs)");
    return out;
}

std::vector<std::pair<std::string, std::string>> generate(const mmio_map& m,
                                                          const std::string& page)
{
    std::vector<std::pair<std::string, std::string>> files;
    for (const block& b : m.blocks)
        files.emplace_back(b.header, cpp_header(b));
    files.emplace_back(m.header, map_header(m));
    files.emplace_back(m.firmware_header, c_header(m));
    files.emplace_back(m.docs, docs_page(m, page));
    return files;
}

} // namespace vgpu::gen_regs
