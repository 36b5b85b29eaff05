// Workload reader: kernels given as CUDA (`cuda:`) or PTX (`ptx:`) with `entry:`, compiled,
// parsed, checked and translated by the PTX front end (models/sm/ptx), their `params:` checked
// against the entry's parameters. See docs/workloads.md ("Kernels from CUDA or PTX") and
// docs/cuda.md ("Workload keys").
#include "models/host/workload_reader.h"

#include "models/sm/ptx/compile.h"
#include "models/sm/ptx/entry.h"
#include "models/sm/ptx/parser.h"
#include "models/sm/ptx/translate.h"

#include <cstring>
#include <filesystem>
#include <limits>

namespace vgpu::host {

namespace detail {

namespace {

/// "(kernel 'k' of w.yaml)" for messages that come from another file (PTX, the compiler).
std::string of_kernel(const kernel_decl& d, const std::string& file)
{
    return " (kernel '" + d.name + "' of " + file + ")";
}

/// The C++ type of parameter p for messages ("float*"), else its PTX type (".u64").
std::string param_text(const ptx::param_info& p)
{
    return p.cxx_type.empty() ? std::string(".") + ptx::type_name(p.type) : p.cxx_type;
}

/// 1: a signed integer parameter, -1: unsigned, 0: either (no C++ type, .b or .u PTX type).
int signedness(const ptx::param_info& p)
{
    std::string t = p.cxx_type;
    for (const char* q : {"const ", " const", "volatile ", " volatile"})
        for (auto pos = t.find(q); pos != std::string::npos; pos = t.find(q))
            t.erase(pos, std::strlen(q));
    if (t == "int" || t == "short" || t == "long" || t == "long long" || t == "signed char" ||
        t == "char")
        return 1;
    if (t.rfind("unsigned", 0) == 0 || t == "bool" || t == "char16_t" || t == "char32_t" ||
        t == "wchar_t")
        return -1;
    if (!t.empty())
        return 0; // an enum or a typedef the demangler spells by name
    const ptx::data_type x = p.type;
    return x == ptx::data_type::s8 || x == ptx::data_type::s16 || x == ptx::data_type::s32 ||
                   x == ptx::data_type::s64
               ? 1
               : 0;
}

/// Inserts "key.path: " after "error: " in a message of another component.
std::string with_path(std::string e, const std::string& path)
{
    const std::string tag = ": error: ";
    const auto pos = e.find(tag);
    if (pos != std::string::npos)
        e.insert(pos + tag.size(), path + ": ");
    return e;
}

/// The words of `constants:` value(s) `v` for a variable of PTX type `vt`, as element type
/// `et` ("f32", "i32", "u32"; "" for the variable's own type); false after an error.
bool constant_words(reader& r, const YAML::Node& v, const std::string& path, std::string et,
                    const ptx::const_var& var, std::vector<std::uint32_t>& out)
{
    using ptx::data_type;
    if (et.empty()) {
        const data_type t = var.type;
        et = t == data_type::f32                          ? "f32"
             : t == data_type::s32                        ? "i32"
             : t == data_type::u32 || t == data_type::b32 ? "u32"
                                                          : "";
        if (et.empty()) {
            r.error(r.where(v), path,
                    "'" + var.name + "' is declared ." + ptx::type_name(t) +
                        " in the PTX (clang declares every __constant__ so), so its element "
                        "type is unknown: give it as {f32: ...}, {i32: ...} or {u32: ...}");
            return false;
        }
    }
    std::vector<YAML::Node> items;
    if (v.IsSequence())
        for (std::size_t i = 0; i < v.size(); ++i)
            items.push_back(v[i]);
    else
        items.push_back(v);
    bool ok = true;
    for (std::size_t i = 0; i < items.size(); ++i) {
        const YAML::Node& x = items[i];
        const std::string ipath = v.IsSequence() ? at(path, i) : path;
        const std::string s = x.IsScalar() ? x.Scalar() : "";
        if (et == "f32") {
            const auto d = parse_double(s);
            if (d && std::fabs(*d) <= std::numeric_limits<float>::max()) {
                out.push_back(f32_bits(static_cast<float>(*d)));
                continue;
            }
        } else {
            const auto n = parse_int(s);
            const std::int64_t lo = et == "i32" ? INT32_MIN : 0;
            const std::int64_t hi = et == "i32" ? INT32_MAX : UINT32_MAX;
            if (n && *n >= lo && *n <= hi) {
                out.push_back(static_cast<std::uint32_t>(*n));
                continue;
            }
        }
        r.error(r.where(x), ipath,
                "expected " +
                    std::string(et == "f32"   ? "an f32 number"
                                : et == "i32" ? "an i32 integer (-2147483648..2147483647)"
                                              : "a u32 integer (0..4294967295)") +
                    ", got '" +
                    (x.IsScalar() ? s : std::string("a ") + (x.IsMap() ? "mapping" : "list")) +
                    "'");
        ok = false;
    }
    return ok;
}
} // namespace

std::string workload_reader::resolve(const std::string& rel) const
{
    const std::filesystem::path p(rel);
    if (p.is_absolute())
        return rel;
    const std::filesystem::path dir = std::filesystem::path(m_r.name()).parent_path();
    return dir.empty() ? rel : (dir / p).lexically_normal().string();
}

void workload_reader::read_defines(const field& f, ptx::compile_request& req)
{
    if (!m_r.is_map(f, "a mapping {NAME: value}"))
        return;
    for (auto entry = f.value.begin(); entry != f.value.end(); ++entry) {
        const field x{entry->first, entry->second, f.path + "." + entry->first.Scalar()};
        const std::string key = x.key.Scalar();
        const bool ok = !key.empty() && !std::isdigit(static_cast<unsigned char>(key[0])) &&
                        std::all_of(key.begin(), key.end(), [](char c) {
                            return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
                        });
        if (!ok) {
            m_r.error(m_r.where(x.key), x.path,
                      "invalid macro name '" + key +
                          "' (expected letters, digits and '_', not starting with a digit)");
            continue;
        }
        if (!x.value.IsScalar() && !x.value.IsNull()) {
            m_r.wrong_type(x, "a number or a word (the macro's value)");
            continue;
        }
        const std::string v = x.value.IsNull() ? "" : x.value.Scalar();
        if (v.find_first_of("\n\r") != std::string::npos) {
            m_r.error(m_r.where(x.value), x.path, "a macro value is one line");
            continue;
        }
        req.defines.emplace_back(key, v);
    }
}

void workload_reader::read_includes(const field& f, ptx::compile_request& req)
{
    if (!list(f))
        return;
    for (std::size_t i = 0; i < f.value.size(); ++i) {
        const field it = item(f, i);
        if (auto s = m_r.string(it)) {
            const std::string dir = resolve(*s);
            std::error_code ec;
            if (!std::filesystem::is_directory(dir, ec))
                m_r.error(m_r.where(it.value), it.path,
                          "no folder '" + dir + "' (paths are relative to the workload file)");
            else
                req.includes.push_back(dir);
        }
    }
}

void workload_reader::translate_kernel(const fields& k, const field& it, kernel_decl& d)
{
    const field* cuda = k.get("cuda");
    const field* ptx_key = k.get("ptx");
    const field* entry = k.get("entry");
    if (!entry) {
        m_r.error(m_r.where(it.value), it.path,
                  std::string("missing required key 'entry' (the __global__ function of the ") +
                      (ptx_key ? "PTX" : "CUDA") + " file)");
        return;
    }
    const auto name = m_r.string(*entry);
    std::optional<std::string> cuda_path, ptx_path;
    if (cuda)
        cuda_path = m_r.string(*cuda);
    if (ptx_key)
        ptx_path = m_r.string(*ptx_key);
    if (!name || (cuda && !cuda_path) || (ptx_key && !ptx_path))
        return;
    d.entry = *name;
    if (cuda_path)
        d.cuda = resolve(*cuda_path);
    if (ptx_path)
        d.ptx_file = resolve(*ptx_path);
    const field& src = ptx_key ? *ptx_key : *cuda;
    d.source_where = m_r.where(src.value);
    const std::size_t errors_before = m_r.error_count();

    ptx::compile_request req;
    req.source = d.cuda;
    req.kernel = d.name; // messages name the workload's kernel
    req.where = d.source_where;
    if (const field* x = k.get("defines"))
        read_defines(*x, req);
    if (const field* x = k.get("includes"))
        read_includes(*x, req);
    if (!cuda)
        for (const char* key : {"defines", "includes"})
            if (const field* x = k.get(key))
                m_r.error(m_r.where(x->key), x->path,
                          "is only used with 'cuda:' (the PTX of 'ptx:' is already compiled)");
    if (m_r.error_count() != errors_before)
        return;

    // The PTX: read from `ptx:` (beside `cuda:` it is a run's saved compilation and the
    // compiler is not run), else compiled from `cuda:`.
    std::string ptx_name;
    if (ptx_key) {
        config::errors errs;
        auto text = config::read_input_file(d.ptx_file, "PTX file", errs);
        if (!text) {
            for (const std::string& e : errs.messages())
                m_r.add_raw(d.source_where.str() + ": error: " + src.path + ": " +
                            e.substr(e.find(": error: ") + 9) + " '" + d.ptx_file + "'" +
                            of_kernel(d, m_r.name()));
            return;
        }
        d.ptx = std::move(*text);
        ptx_name = d.ptx_file;
    } else {
        ptx::compile_result c = ptx::compile_cuda(req);
        for (const std::string& e : c.errors)
            m_r.add_raw(e.rfind(d.source_where.str(), 0) == 0 ? with_path(e, src.path) : e);
        if (!c.ok())
            return;
        d.ptx = std::move(c.ptx);
        ptx_name = "kernels/" + d.name + ".ptx"; // where the run's folder keeps it
    }

    const ptx::parse_result p = ptx::parse(d.ptx, ptx_name);
    for (const std::string& e : p.errors)
        m_r.add_raw(e + of_kernel(d, m_r.name()));
    if (!p.ok())
        return;
    const ptx::entry_lookup found = ptx::find_entry(p.mod, d.entry, m_r.where(entry->value));
    for (const std::string& e : found.errors) {
        std::string msg = e;
        const std::string tag = ": error: entry: ";
        if (const auto pos = msg.find(tag); pos != std::string::npos)
            msg.replace(pos, tag.size(), ": error: " + entry->path + ": ");
        if (!ptx_key) // name the CUDA file the user wrote, not the PTX compiled from it
            if (const auto pos = msg.find(" in " + ptx_name); pos != std::string::npos)
                msg.replace(pos + 4, ptx_name.size(), d.cuda);
        m_r.add_raw(msg);
    }
    if (!found.ok())
        return;
    for (const std::string& e : ptx::check_entry(p.mod, found.index))
        m_r.add_raw(e + of_kernel(d, m_r.name()));
    if (m_r.error_count() != errors_before)
        return;
    check_params(k, it, ptx::entry_params(p.mod, found.index), d);
    if (m_r.error_count() != errors_before)
        return;

    ptx::translate_options opt;
    // The platform's register file when known (docs/cuda.md, "Spilling"): a kernel over
    // sm.regs_per_thread spills rather than failing the platform check.
    opt.max_registers = m_opts.regs_per_thread ? m_opts.regs_per_thread : sm::max_registers;
    if (m_opts.sm_registers)
        opt.sm_registers = m_opts.sm_registers;
    opt.const_slot = const_slot();
    opt.bulk_cdl = m_opts.bulk_cdl;
    const ptx::translation t = ptx::translate(p.mod, found.index, opt);
    for (const std::string& e : t.errors)
        m_r.add_raw(e + of_kernel(d, m_r.name()));
    if (!t.ok())
        return;
    if (const field* b = k.get("block")) { // __launch_bounds__ (docs/cuda.md)
        const std::string why = ptx::launch_bounds_problem(t, d.block_x, d.block_y, d.block_z);
        if (!why.empty()) {
            m_r.error(m_r.where(b->value), b->path, why + of_kernel(d, m_r.name()));
            return;
        }
    }
    read_constants(k.get("constants"), t, d);
    if (m_r.error_count() != errors_before)
        return;
    d.registers = t.registers;
    d.shared_bytes += t.shared_bytes; // static, after the dynamic `shared_bytes:`
    const std::uint64_t ctas = std::uint64_t{d.grid_x} * d.grid_y * d.grid_z;
    if (!t.printf_formats.empty() && !add_printf_buffer(d, t, src))
        return;
    if (t.local_bytes > 0 && !add_local_area(d, t.local_area_bytes(ctas, d.block_threads()), src))
        return;
    d.source = t.text;
    d.origin.file = d.name + ".vasm";
    d.origin.line = 1;
    d.origin.col = 1;
    auto res = sm::assemble(d.source, {}, d.origin, sm::max_registers);
    for (const std::string& e : res.errors) // a translator defect: say where it came from
        m_r.error(d.source_where, src.path,
                  "the translated program does not assemble: " + e + of_kernel(d, m_r.name()));
    if (!res.ok())
        return;
    d.code = std::move(res.code);
    d.lines_file = ptx_name;
    d.lines.clear();
    d.cuda_lines.clear();
    for (const ptx::pc_origin& o : t.pcs) {
        d.lines.push_back(o.ptx_line);
        d.cuda_lines.push_back(o.cuda);
    }
    // The run's record (OUTDIR/kernels): the PTX, which `ptx:` in the recorded workload names,
    // and the translated program with each instruction's PTX and CUDA line.
    const std::string stem = "kernels/" + d.name;
    m_wl.files[stem + ".ptx"] = d.ptx;
    // The translator's text has each instruction's PC, PTX line and CUDA line in a comment.
    const std::string local_note =
        t.local_bytes ? ", " + std::to_string(t.local_bytes) + " bytes of local memory" : "";
    const std::string vasm = "# kernel '" + d.name + "', entry '" + d.entry + "' of " + ptx_name +
                             ", translated by vgpu (" + std::to_string(t.registers) + " registers" +
                             local_note + " per thread)\n" + t.text;
    m_wl.files[stem + ".vasm"] = vasm;
    m_records.push_back({it.value, cuda ? cuda->value : YAML::Node(),
                         ptx_key ? ptx_key->value : YAML::Node(), ptx_key != nullptr,
                         cuda ? cuda->key : YAML::Node(), stem + ".ptx"});
}

bool workload_reader::add_local_area(kernel_decl& d, std::uint64_t bytes, const field& src)
{
    // The kernel's local memory (docs/cuda.md, "Local memory"): a buffer the driver places like
    // any other, its base passed as a hidden last parameter.
    if (d.params.size() >= max_kernel_params) {
        m_r.error(d.source_where, src.path,
                  "the kernel uses local memory, whose base takes a parameter, and already has " +
                      std::to_string(d.params.size()) + " (at most " +
                      std::to_string(max_kernel_params) + " in all)" + of_kernel(d, m_r.name()));
        return false;
    }
    buffer_decl b;
    b.name = d.name + ".local";
    b.elements = bytes / 4;
    b.where = d.source_where;
    m_wl.buffers.push_back(b);
    kernel_param p;
    p.name = "local";
    p.is_buffer = true;
    p.buffer = b.name;
    p.where = d.source_where;
    d.params.push_back(p);
    return true;
}

bool workload_reader::add_printf_buffer(kernel_decl& d, const ptx::translation& t, const field& src)
{
    // Kernel printf (docs/cuda.md, "Kernel printf"): the FIFO is a buffer the driver places
    // like any other, its address the hidden parameter after the entry's (before local's).
    if (d.params.size() >= max_kernel_params || t.printf_param != d.params.size()) {
        m_r.error(d.source_where, src.path,
                  "the kernel calls printf, whose FIFO takes a parameter, and already has " +
                      std::to_string(d.params.size()) + " (at most " +
                      std::to_string(max_kernel_params) + " in all)" + of_kernel(d, m_r.name()));
        return false;
    }
    buffer_decl b;
    b.name = d.name + ".printf";
    b.elements = (ptx::printf_header_bytes + m_opts.printf_buffer_bytes + 3) / 4;
    b.where = d.source_where;
    m_wl.buffers.push_back(b);
    kernel_param p;
    p.name = "printf";
    p.is_buffer = true;
    p.buffer = b.name;
    p.where = d.source_where;
    d.params.push_back(p);
    d.printf_formats = t.printf_formats;
    d.printf_buffer = b.name;
    return true;
}

void workload_reader::read_constants(const field* f, const ptx::translation& t, kernel_decl& d)
{
    // The bank's first contents: the initialisers, then `constants:` (cudaMemcpyToSymbol).
    std::vector<std::uint32_t> bank(t.const_bank.size() / 4, 0);
    for (std::size_t i = 0; i < t.const_bank.size(); ++i)
        bank[i / 4] |= std::uint32_t{t.const_bank[i]} << (8 * (i % 4));
    if (f && (t.const_vars.empty() || !m_r.is_map(*f, "a mapping {NAME: value, [values] or "
                                                      "{buffer: B}}"))) {
        if (t.const_vars.empty())
            m_r.error(m_r.where(f->key), f->path,
                      "entry '" + d.entry + "' has no __constant__ (.const) variables");
        return;
    }
    for (auto e = f ? f->value.begin() : YAML::const_iterator(); f && e != f->value.end(); ++e) {
        const field x{e->first, e->second, f->path + "." + e->first.Scalar()};
        const std::string name = x.key.Scalar();
        const ptx::const_var* var = nullptr;
        std::vector<std::string> names;
        for (const ptx::const_var& c : t.const_vars) {
            names.push_back(c.name);
            if (c.name == name)
                var = &c;
        }
        if (!var) {
            m_r.error(m_r.where(x.key), x.path,
                      "entry '" + d.entry + "' has no __constant__ variable '" + name + "'" +
                          hint_of(name, names) + " (it has " + join(names, ", ") + ")");
            continue;
        }
        std::vector<std::uint32_t> words;
        std::string what = "given";
        if (x.value.IsMap()) {
            const fields m = m_r.open(x.value, x.path, {"buffer", "f32", "i32", "u32"});
            if (m.found.size() != 1) {
                if (m.found.size() > 1 || m.entries.empty()) // unknown keys: reported by open
                    m_r.error(m_r.where(x.value), x.path,
                              "expected one key of buffer, f32, i32, u32 (got " +
                                  std::to_string(m.entries.size()) + ")");
                continue;
            }
            if (const field* b = m.get("buffer")) {
                const auto bn = m_r.identifier(*b);
                const int bi = bn ? m_wl.buffer_index(*bn) : -1;
                if (bn && bi < 0)
                    m_r.error(m_r.where(b->value), b->path,
                              "undefined buffer '" + *bn + "'" + hint_of(*bn, buffer_names()));
                if (bi < 0)
                    continue;
                words = initial_words(m_wl.buffers[static_cast<std::size_t>(bi)]);
                what = "in buffer '" + *bn + "'";
            } else {
                const field& v = m.found.begin()->second;
                if (!constant_words(m_r, v.value, v.path, v.key.Scalar(), *var, words))
                    continue;
            }
        } else if (!constant_words(m_r, x.value, x.path, "", *var, words)) {
            continue;
        }
        if (words.size() * 4 > var->bytes) {
            m_r.error(m_r.where(x.value), x.path,
                      "'" + name + "' has " + std::to_string(var->bytes) + " bytes (" +
                          std::to_string(var->bytes / 4) + " words) but " +
                          std::to_string(words.size()) + " words are " + what);
            continue;
        }
        for (std::size_t i = 0; i < words.size(); ++i)
            bank[var->offset / 4 + i] = words[i];
    }
    if (bank.empty())
        return;
    // A read-only buffer `<kernel>.const` (a name no workload buffer can have) bound to the
    // slot the translation's CDLs read.
    buffer_decl b;
    b.name = d.name + ".const";
    b.type = elem_type::u32;
    b.elements = bank.size();
    b.init.kind = init_kind::values;
    b.init.values.assign(bank.begin(), bank.end());
    b.read_only = true;
    b.where = d.source_where;
    cbv_binding c;
    c.slot = const_slot();
    c.buffer = b.name;
    c.where = d.source_where;
    d.cbvs.push_back(c);
    m_wl.buffers.push_back(std::move(b));
}

unsigned workload_reader::const_slot() const
{
    // One slot per kernel with a bank, from 0 in kernel order (the CBV table is the GPU's:
    // kernels that run side by side read their own slots).
    unsigned n = 0;
    for (const buffer_decl& b : m_wl.buffers)
        n += b.name.size() > 6 && b.name.compare(b.name.size() - 6, 6, ".const") == 0;
    return n;
}

void workload_reader::check_params(const fields& k, const field& it,
                                   const std::vector<ptx::param_info>& want, kernel_decl& d)
{
    std::string signature;
    for (std::size_t i = 0; i < want.size(); ++i)
        signature += (i ? ", " : "") + param_text(want[i]);
    const field* pf = k.get("params");
    const config::location at = pf ? m_r.where(pf->key) : m_r.where(it.value);
    const std::string path = pf ? pf->path : it.path + ".params";
    if (d.params.size() != want.size()) {
        m_r.error(at, path,
                  "entry '" + d.entry + "' takes " + std::to_string(want.size()) + " parameter" +
                      (want.size() == 1 ? "" : "s") + " (" + signature + ") but " +
                      std::to_string(d.params.size()) + (d.params.size() == 1 ? " is" : " are") +
                      " given");
        return;
    }
    std::vector<std::uint32_t> high(want.size(), 0); // high words of the 64-bit parameters
    for (std::size_t i = 0; i < want.size(); ++i) {
        kernel_param& p = d.params[i];
        const ptx::param_info& w = want[i];
        const std::string ppath = path + "[" + std::to_string(i) + "]";
        const std::string which =
            "parameter " + std::to_string(i) + " of '" + d.entry + "' (" + param_text(w) + ")";
        const unsigned bits = ptx::type_bits(w.type);
        const bool wide = w.bytes == 8 && bits == 64;
        const bool known_value = !w.cxx_type.empty() && !w.is_pointer;
        if (w.bytes > 8 || (w.bytes != bits / 8 && !w.is_pointer)) {
            m_r.error(p.where, ppath,
                      which + " is passed by value as " + std::to_string(w.bytes) +
                          " bytes (a struct): not supported");
            continue;
        }
        if (p.is_buffer) {
            if (w.is_pointer || (wide && !known_value))
                continue; // the buffer's address (LDP reads its 32 bits, docs/cuda.md)
            m_r.error(p.where, ppath, which + " is not a pointer: give a value, not a buffer");
            continue;
        }
        if (w.is_pointer) {
            m_r.error(p.where, ppath, which + " is a pointer: give a buffer, not a value");
            continue;
        }
        const std::string& s = p.text;
        if (s.empty())
            continue; // neither a value nor a buffer: reported where params are read
        const ptx::data_type t = w.type;
        if (t == ptx::data_type::f32) {
            if (auto dv = parse_double(s);
                dv && std::fabs(*dv) <= std::numeric_limits<float>::max()) {
                p.bits = f32_bits(static_cast<float>(*dv));
                p.number = *dv;
            } else {
                m_r.error(p.where, ppath, which + ": expected an f32 value, got '" + s + "'");
            }
            continue;
        }
        if (t == ptx::data_type::f64) { // two words (docs/cuda.md, "fp64 and 64-bit integers")
            if (auto dv = parse_double(s)) {
                std::uint64_t b;
                std::memcpy(&b, &*dv, sizeof b);
                p.bits = static_cast<std::uint32_t>(b);
                high[i] = static_cast<std::uint32_t>(b >> 32);
                p.number = *dv;
            } else {
                m_r.error(p.where, ppath, which + ": expected an f64 value, got '" + s + "'");
            }
            continue;
        }
        if (t == ptx::data_type::f16 || t == ptx::data_type::bf16 || t == ptx::data_type::pred) {
            m_r.error(p.where, ppath,
                      which + " has PTX type ." + ptx::type_name(t) +
                          ": not supported as a parameter yet (docs/cuda.md)");
            continue;
        }
        // Signedness: the C++ type's when known (clang gives an `int` a .u32 parameter),
        // else the PTX type's; .b and .u types without a C++ type take either (two's
        // complement). For 64-bit types the range is what a 64-bit register's low 32 bits
        // carry exactly (docs/cuda.md, "64-bit address arithmetic").
        const int sign = signedness(w);
        const unsigned b = std::min(bits, 32u);
        const std::int64_t lo = sign >= 0 ? (bits == 64 ? std::numeric_limits<std::int64_t>::min()
                                                        : -(std::int64_t{1} << (b - 1)))
                                          : 0;
        const std::int64_t hi = bits == 64 ? std::numeric_limits<std::int64_t>::max()
                                           : (std::int64_t{1} << (sign > 0 ? b - 1 : b)) - 1;
        std::optional<std::int64_t> v = parse_int(s);
        if (!v)
            if (auto dv = parse_double(s); dv && *dv == std::floor(*dv) && std::fabs(*dv) < 9e18)
                v = static_cast<std::int64_t>(*dv);
        if (!v) {
            m_r.error(p.where, ppath, which + ": expected an integer, got '" + s + "'");
            continue;
        }
        if (*v < lo || *v > hi) {
            m_r.error(p.where, ppath,
                      which + ": value out of range (expected " + std::to_string(lo) + ".." +
                          std::to_string(hi) + ", got " + s + ")");
            continue;
        }
        p.bits = static_cast<std::uint32_t>(static_cast<std::uint64_t>(*v));
        high[i] = static_cast<std::uint32_t>(static_cast<std::uint64_t>(*v) >> 32);
        p.number = static_cast<double>(*v);
    }
    // The high words of the 64-bit parameters follow all parameters, in order (a buffer's
    // address: 0), where the translator's LDP of a register pair reads them.
    for (std::size_t i = 0; i < want.size(); ++i)
        if (ptx::type_bits(want[i].type) == 64 && want[i].bytes == 8) {
            kernel_param h;
            h.name = d.params[i].name + ".high";
            h.bits = high[i];
            h.number = high[i];
            h.text = std::to_string(high[i]);
            h.where = d.params[i].where;
            d.params.push_back(h);
        }
}

std::optional<std::string> workload_reader::read_data_file(const field& f, const YAML::Node& map,
                                                           std::uint64_t elements, elem_type t,
                                                           const std::string& saved)
{
    const auto rel = m_r.string(f);
    if (!rel)
        return std::nullopt;
    const std::string path = resolve(*rel);
    config::errors errs;
    auto data = config::read_input_file(path, "data file", errs);
    if (!data) {
        for (const std::string& e : errs.messages())
            m_r.error(m_r.where(f.value), f.path,
                      e.substr(e.find(": error: ") + 9) + " '" + path +
                          "' (paths are relative to the workload file)");
        return std::nullopt;
    }
    const std::uint64_t want = elements * elem_bytes(t);
    if (data->size() != want) {
        m_r.error(m_r.where(f.value), f.path,
                  "'" + path + "' has " + std::to_string(data->size()) +
                      " bytes but the buffer's " + std::to_string(elements) + " elements take " +
                      std::to_string(want) + " (raw little-endian " + name(t) + " elements)");
        return std::nullopt;
    }
    m_path_records.push_back({f.value, map.Style() == YAML::EmitterStyle::Flow, saved});
    m_wl.files[saved] = *data;
    return data;
}

bool workload_reader::read_init_file(const field& f, const YAML::Node& map, buffer_decl& d)
{
    if (d.elements == 0)
        return false; // `elements` is wrong and reported
    auto data = read_data_file(f, map, d.elements, d.type, "inputs/" + d.name + ".bin");
    if (!data)
        return false;
    d.init.kind = init_kind::file;
    d.init.raw = std::move(*data);
    return true;
}

void workload_reader::read_expect_file(const field& f, const YAML::Node& map,
                                       const buffer_decl* buf, check_decl& d)
{
    if (!buf || buf->elements == 0)
        return;
    const auto data = read_data_file(f, map, buf->elements, buf->type,
                                     "expected/" + std::to_string(m_wl.checks.size()) + ".bin");
    if (data)
        d.expect = image_of_bytes(*data);
}

} // namespace detail

} // namespace vgpu::host
