// Reader of the register descriptions. See scripts/gen_regs/reg_map.h.
#include "scripts/gen_regs/reg_map.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <set>

#include <yaml-cpp/yaml.h>

namespace vgpu::gen_regs {
namespace {

/// A node with its place (file and key path) for messages.
struct at {
    const YAML::Node& node;
    std::string where;
};

[[noreturn]] void fail(const std::string& where, const std::string& what)
{
    throw desc_error(where + ": " + what);
}

std::string place(const std::string& file, const YAML::Node& n, const std::string& key)
{
    const auto m = n.Mark();
    return file + ":" + std::to_string(m.line + 1) + ": " + key;
}

/// Rejects keys outside `known`.
void only(const YAML::Node& n, const std::string& file, const std::string& path,
          std::initializer_list<const char*> known)
{
    if (!n.IsMap())
        fail(place(file, n, path), "expected a map");
    for (const auto& kv : n) {
        const std::string k = kv.first.as<std::string>();
        if (std::none_of(known.begin(), known.end(), [&](const char* s) { return k == s; }))
            fail(place(file, kv.first, path + "." + k), "unknown key");
    }
}

/// A number as written: decimal or 0x hex; a leading zero in a decimal is refused.
std::optional<std::uint64_t> number(const std::string& s)
{
    if (s.empty())
        return std::nullopt;
    const bool hex = s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
    const std::size_t from = hex ? 2 : 0;
    for (std::size_t i = from; i < s.size(); ++i)
        if (!(hex ? std::isxdigit(static_cast<unsigned char>(s[i]))
                  : std::isdigit(static_cast<unsigned char>(s[i]))))
            return std::nullopt;
    if (!hex && s.size() > 1 && s[0] == '0')
        return std::nullopt;
    return std::strtoull(s.c_str(), nullptr, hex ? 16 : 10);
}

std::string text(const YAML::Node& n, const std::string& key, const std::string& file,
                 const std::string& path, bool required = true)
{
    const YAML::Node v = n[key];
    if (!v) {
        if (required)
            fail(place(file, n, path + "." + key), "missing");
        return {};
    }
    if (!v.IsScalar())
        fail(place(file, v, path + "." + key), "expected a scalar");
    std::string s = v.Scalar();
    while (!s.empty() && s.back() == '\n')
        s.pop_back();
    return s;
}

std::uint64_t num(const YAML::Node& n, const std::string& key, const std::string& file,
                  const std::string& path, std::optional<std::uint64_t> fallback = std::nullopt)
{
    const YAML::Node v = n[key];
    if (!v) {
        if (fallback)
            return *fallback;
        fail(place(file, n, path + "." + key), "missing");
    }
    const auto x = v.IsScalar() ? number(v.Scalar()) : std::nullopt;
    if (!x)
        fail(place(file, v, path + "." + key), "expected a number (decimal or 0x hex)");
    return *x;
}

std::string access(const YAML::Node& n, const std::string& file, const std::string& path,
                   bool required)
{
    const std::string a = text(n, "access", file, path, required);
    if (!a.empty() && a != "RW" && a != "RO" && a != "W1C" && a != "WO")
        fail(place(file, n["access"], path + ".access"), "expected RW, RO, W1C or WO");
    return a;
}

std::string hex(std::uint64_t v)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
    return buf;
}

field read_field(const YAML::Node& n, const std::string& file, const std::string& path)
{
    only(n, file, path, {"name", "bit", "width", "access", "brief"});
    field f;
    f.name = text(n, "name", file, path);
    f.lsb = static_cast<unsigned>(num(n, "bit", file, path));
    f.width = static_cast<unsigned>(num(n, "width", file, path, 1));
    f.access = access(n, file, path, false);
    f.brief = text(n, "brief", file, path);
    if (f.width == 0 || f.lsb + f.width > 32)
        fail(place(file, n, path), "bits outside 0..31");
    return f;
}

reg read_reg(const YAML::Node& n, const std::string& file, const std::string& path)
{
    only(n, file, path,
         {"name", "const", "offset", "access", "reset", "mask", "count", "brief", "doc",
          "cpp_fields", "fields"});
    reg r;
    r.name = text(n, "name", file, path);
    const std::string p = path + "(" + r.name + ")";
    r.offset = num(n, "offset", file, p);
    if (r.offset % 4 != 0)
        fail(place(file, n["offset"], p + ".offset"), "not 4-byte aligned");
    r.access = access(n, file, p, true);
    r.count = static_cast<unsigned>(num(n, "count", file, p, 1));
    r.const_name = text(n, "const", file, p, false);
    if (r.const_name.empty())
        r.const_name = r.count > 1 ? r.name + "0" : r.name;
    r.reset_text = text(n, "reset", file, p, false);
    if (r.reset_text.empty())
        r.reset_text = "0";
    if (const auto v = number(r.reset_text)) {
        r.reset = static_cast<std::uint32_t>(*v);
        r.reset_text = *v < 10 ? std::to_string(*v) : hex(*v);
    }
    const std::string m = text(n, "mask", file, p, false);
    if (m.empty())
        r.mask = r.access == "RO" ? std::nullopt : std::optional<std::uint32_t>(~0u);
    else if (const auto v = number(m))
        r.mask = static_cast<std::uint32_t>(*v);
    r.brief = text(n, "brief", file, p);
    r.doc = text(n, "doc", file, p, false);
    if (r.doc.empty())
        r.doc = r.brief;
    r.cpp_fields = text(n, "cpp_fields", file, p, false);
    if (const YAML::Node fs = n["fields"]) {
        if (r.cpp_fields.empty())
            fail(place(file, fs, p + ".fields"), "fields need cpp_fields (their C++ namespace)");
        std::uint32_t used = 0;
        for (std::size_t i = 0; i < fs.size(); ++i) {
            r.fields.push_back(read_field(fs[i], file, p + ".fields[" + std::to_string(i) + "]"));
            if (used & r.fields.back().mask())
                fail(place(file, fs[i], p + ".fields"), "fields overlap");
            used |= r.fields.back().mask();
        }
    }
    return r;
}

group read_group(const YAML::Node& n, const std::string& file, const std::string& path,
                 const std::string& prefix)
{
    only(n, file, path,
         {"title", "doc", "after", "stride", "stride_const", "function", "index", "start",
          "start_const", "bank_prefix", "doc_prefix", "registers"});
    group g;
    g.title = text(n, "title", file, path, false);
    g.doc = text(n, "doc", file, path, false);
    g.after = text(n, "after", file, path, false);
    g.stride = num(n, "stride", file, path, 0);
    if (g.stride != 0) {
        g.stride_const = text(n, "stride_const", file, path);
        g.function = text(n, "function", file, path);
        g.index = text(n, "index", file, path);
    }
    g.start_const = text(n, "start_const", file, path, false);
    if (!g.start_const.empty())
        g.start = num(n, "start", file, path);
    g.bank_prefix = n["bank_prefix"] ? text(n, "bank_prefix", file, path) : prefix;
    g.doc_prefix = n["doc_prefix"] ? text(n, "doc_prefix", file, path) : prefix;
    const YAML::Node rs = n["registers"];
    if (!rs || !rs.IsSequence())
        fail(place(file, n, path + ".registers"), "expected a list of registers");
    for (std::size_t i = 0; i < rs.size(); ++i)
        g.regs.push_back(read_reg(rs[i], file, path + ".registers[" + std::to_string(i) + "]"));
    for (std::size_t i = 1; i < g.regs.size(); ++i) {
        const reg& a = g.regs[i - 1];
        if (g.regs[i].offset < a.offset + 4 * a.count)
            fail(place(file, rs[i], path + ".registers"),
                 g.regs[i].name + " overlaps or comes before " + a.name + " (list by offset)");
    }
    if (g.stride != 0 && !g.regs.empty() &&
        g.regs.back().offset + 4 * g.regs.back().count > g.stride)
        fail(place(file, n, path), "registers past the stride");
    return g;
}

YAML::Node load(const std::string& root, const std::string& path)
{
    try {
        return YAML::LoadFile(root + "/" + path);
    } catch (const YAML::Exception& e) {
        throw desc_error(path + ": " + e.what());
    }
}

} // namespace

block read_block(const std::string& root, const std::string& path)
{
    const YAML::Node n = load(root, path);
    only(n, path, "",
         {"title", "summary", "instance", "model", "namespace", "reg_namespace", "c_prefix",
          "prefix", "window_bytes", "window", "doc", "after", "groups", "constants", "enums"});
    block b;
    b.source = path;
    const std::size_t dot = path.rfind('.');
    b.header = path.substr(0, dot) + ".h";
    b.title = text(n, "title", path, "");
    b.summary = text(n, "summary", path, "");
    b.instance = text(n, "instance", path, "");
    b.model = text(n, "model", path, "");
    b.cpp_namespace = text(n, "namespace", path, "");
    b.reg_namespace = text(n, "reg_namespace", path, "");
    b.c_prefix = text(n, "c_prefix", path, "");
    b.prefix = text(n, "prefix", path, "", false);
    if (n["window_bytes"])
        b.window_bytes = num(n, "window_bytes", path, "");
    b.doc = text(n, "doc", path, "", false);
    b.after = text(n, "after", path, "", false);
    if (const YAML::Node w = n["window"]) {
        only(w, path, "window", {"name", "bind", "base", "size", "brief"});
        window mw;
        mw.name = text(w, "name", path, "window");
        mw.bind = text(w, "bind", path, "window");
        mw.base = num(w, "base", path, "window");
        mw.regs = path;
        mw.size = text(w, "size", path, "window", false);
        mw.brief = text(w, "brief", path, "window");
        if (mw.size.empty()) {
            if (!b.window_bytes)
                fail(place(path, w, "window.size"), "needed: there is no window_bytes");
            mw.size = hex(*b.window_bytes);
        }
        b.mmio = mw;
    }
    const YAML::Node gs = n["groups"];
    if (!gs || !gs.IsSequence())
        fail(place(path, n, "groups"), "expected a list of register groups");
    for (std::size_t i = 0; i < gs.size(); ++i)
        b.groups.push_back(read_group(gs[i], path, "groups[" + std::to_string(i) + "]", b.prefix));
    if (const YAML::Node cs = n["constants"])
        for (std::size_t i = 0; i < cs.size(); ++i) {
            const std::string p = "constants[" + std::to_string(i) + "]";
            only(cs[i], path, p, {"name", "type", "value", "brief"});
            constant c;
            c.name = text(cs[i], "name", path, p);
            c.type = text(cs[i], "type", path, p);
            if (c.type != "std::uint64_t" && c.type != "std::uint32_t" && c.type != "unsigned")
                fail(place(path, cs[i], p + ".type"),
                     "expected std::uint64_t, std::uint32_t or unsigned");
            c.value = num(cs[i], "value", path, p);
            c.brief = text(cs[i], "brief", path, p);
            b.constants.push_back(c);
        }
    if (const YAML::Node es = n["enums"])
        for (std::size_t i = 0; i < es.size(); ++i) {
            const std::string p = "enums[" + std::to_string(i) + "]";
            only(es[i], path, p, {"name", "c_name", "brief", "values"});
            enumeration e;
            e.name = text(es[i], "name", path, p);
            e.c_name = text(es[i], "c_name", path, p);
            e.brief = text(es[i], "brief", path, p);
            const YAML::Node vs = es[i]["values"];
            for (std::size_t j = 0; vs && j < vs.size(); ++j) {
                const std::string q = p + ".values[" + std::to_string(j) + "]";
                only(vs[j], path, q, {"name", "value", "brief"});
                e.values.push_back({text(vs[j], "name", path, q),
                                    static_cast<std::uint32_t>(num(vs[j], "value", path, q)),
                                    text(vs[j], "brief", path, q)});
            }
            b.enums.push_back(e);
        }
    // Names must be unique across the block's constants (they share one namespace).
    std::set<std::string> names;
    auto unique = [&](const std::string& name) {
        if (!names.insert(name).second)
            fail(path, "the constant " + name + " is defined twice");
    };
    for (const group& g : b.groups) {
        if (!g.stride_const.empty())
            unique(g.stride_const);
        if (!g.start_const.empty())
            unique(g.start_const);
        for (const reg& r : g.regs)
            unique(r.const_name);
    }
    for (const constant& c : b.constants)
        unique(c.name);
    if (b.window_bytes)
        unique("WINDOW_BYTES");
    return b;
}

mmio_map read_map(const std::string& root, const std::string& map_path)
{
    const YAML::Node n = load(root, map_path);
    only(n, map_path, "", {"header", "namespace", "firmware_header", "docs", "doc", "after"});
    mmio_map m;
    m.source = map_path;
    m.header = text(n, "header", map_path, "");
    m.cpp_namespace = text(n, "namespace", map_path, "");
    m.firmware_header = text(n, "firmware_header", map_path, "");
    m.docs = text(n, "docs", map_path, "");
    m.doc = text(n, "doc", map_path, "", false);
    m.after = text(n, "after", map_path, "", false);
    // The windows are the blocks' own: every models/<block>/*_regs.yaml and its `window:`, in
    // the order of their bases.
    std::vector<std::string> paths;
    for (const auto& dir : std::filesystem::directory_iterator(root + "/models")) {
        if (!dir.is_directory())
            continue;
        for (const auto& f : std::filesystem::directory_iterator(dir.path())) {
            const std::string name = f.path().filename().string();
            const std::string suffix = "_regs.yaml";
            if (name.size() > suffix.size() &&
                name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0)
                paths.push_back("models/" + dir.path().filename().string() + "/" + name);
        }
    }
    std::sort(paths.begin(), paths.end());
    std::vector<std::pair<std::uint64_t, block>> blocks; // by base
    for (const std::string& p : paths) {
        block b = read_block(root, p);
        if (!b.mmio)
            fail(p + ": window", "missing: a register map needs its window on the MMIO bus");
        const std::uint64_t base = b.mmio->base;
        blocks.emplace_back(base, std::move(b));
    }
    std::stable_sort(blocks.begin(), blocks.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    for (auto& [base, b] : blocks) {
        m.windows.push_back(*b.mmio);
        m.blocks.push_back(std::move(b));
    }
    if (m.windows.empty())
        fail(map_path, "no models/<block>/*_regs.yaml found");
    return m;
}

} // namespace vgpu::gen_regs
