// Workload reader: YAML -> buffers, kernels, schedule and checks, with every error collected
// as file:line:col; the top level and the sections in order (each section in workload_*.cpp).
// See docs/workloads.md.
#include "models/host/workload_reader.h"

#include <sstream>

namespace vgpu::host {

namespace detail {

std::string number_text(double v)
{
    std::ostringstream os;
    os.precision(10);
    os << v;
    return os.str();
}

std::string at(const std::string& path, std::size_t i)
{
    return path + "[" + std::to_string(i) + "]";
}

std::string hint_of(const std::string& word, const std::vector<std::string>& names)
{
    return config::did_you_mean(word, names);
}

void workload_reader::read(const YAML::Node& root)
{
    if (!root.IsDefined() || root.IsNull()) {
        m_r.error(config::location{m_r.name()}, "", "the workload is empty");
        return;
    }
    if (!root.IsMap()) {
        m_r.error(root, "", "the workload must be a mapping of keys");
        return;
    }
    const fields top = m_r.open(root, "",
                                {"name", "description", "vars", "generators", "buffers", "kernels",
                                 "schedule", "checks", "evict"});
    const std::size_t errors_before = m_r.error_count();
    read_vars(top.get("vars"));
    for (const auto& [key, f] : top.found)
        if (key != "vars")
            expand_tree(f.value, f.path);
    if (m_r.error_count() != errors_before)
        return; // with a variable wrong, later messages would only repeat it
    m_has_name = top.get("name") != nullptr;
    if (const field* f = top.get("name"))
        if (auto s = m_r.string(*f))
            m_wl.name = *s;
    if (const field* f = top.get("description"))
        if (auto s = m_r.string(*f))
            m_wl.description = *s;
    if (const field* f = top.get("generators")) // before the buffers that take their parts
        read_generators(*f);
    if (m_r.require(top, root, "", "buffers"))
        read_buffers(*top.get("buffers"));
    if (m_r.require(top, root, "", "kernels"))
        read_kernels(*top.get("kernels"));
    if (const field* f = top.get("schedule")) {
        const std::size_t before = m_r.error_count();
        read_schedule(*f);
        if (m_kernels_ok && m_r.error_count() == before)
            check_all_scheduled();
    } else if (m_kernels_ok)
        for (std::size_t i = 0; i < m_wl.kernels.size(); ++i)
            m_wl.schedule.push_back({i});
    if (const field* f = top.get("checks"))
        read_checks(*f);
    if (const field* f = top.get("evict"))
        read_evictions(*f);
}

std::string workload_reader::record_text(const YAML::Node& root)
{
    struct cut {
        std::size_t off, len;
        std::string with;
    };
    std::vector<cut> cuts;
    const std::string& t = m_r.doc().text();
    for (const auto& [name, value] : m_overridden) {
        const YAML::Node& n = m_var_nodes.at(name);
        const std::size_t off = m_r.doc().offset(n);
        std::size_t end = std::string::npos;
        if (off < t.size() && (t[off] == '"' || t[off] == '\'')) {
            const char q = t[off];
            for (std::size_t j = off + 1; j < t.size(); ++j) {
                if (q == '"' && t[j] == '\\') {
                    ++j;
                } else if (q == '\'' && t[j] == q && j + 1 < t.size() && t[j + 1] == q) {
                    ++j;
                } else if (t[j] == q) {
                    end = j + 1;
                    break;
                }
            }
        } else if (t.compare(off, n.Scalar().size(), n.Scalar()) == 0) {
            end = off + n.Scalar().size();
        }
        if (end == std::string::npos) {
            m_r.error(n, "vars." + name,
                      "cannot record the value given to this variable in the workload copy "
                      "(write its declared value on one line)");
            continue;
        }
        cuts.push_back({off, end - off, value});
    }
    if (!m_has_name && root.IsMap()) {
        const std::size_t off = m_r.doc().offset(root);
        if (off < t.size() && t[off] != '{') {
            std::string quoted = "\"";
            for (char c : m_wl.name)
                quoted += (c == '"' || c == '\\' ? "\\" : "") + std::string(1, c);
            const std::size_t col = static_cast<std::size_t>(root.Mark().column);
            cuts.push_back({off - col, 0,
                            std::string(col, ' ') + "name: " + quoted + "\"   # default name\n"});
        }
    }
    // A translated kernel's record names its PTX in the run's folder (kernels/<name>.ptx,
    // written beside the record): `ptx:` is rewritten, or added after `cuda:`, which is kept as
    // the note of where the PTX came from (the compiler is not run when both are given).
    for (const translated_record& k : m_records) {
        const bool flow = k.kernel.Style() == YAML::EmitterStyle::Flow;
        const YAML::Node& v = k.has_ptx ? k.ptx : k.cuda;
        const std::size_t off = m_r.doc().offset(v);
        const std::size_t end = scalar_end(off, flow);
        if (k.has_ptx) {
            cuts.push_back({off, end - off, k.saved});
        } else if (flow) {
            cuts.push_back({end, 0, ", ptx: " + k.saved});
        } else {
            std::size_t eol = t.find('\n', end);
            if (eol == std::string::npos)
                eol = t.size();
            const std::size_t col = static_cast<std::size_t>(k.cuda_key.Mark().column);
            cuts.push_back({eol, 0,
                            "\n" + std::string(col, ' ') + "ptx: " + k.saved +
                                "   # the PTX compiled from cuda: (a run's record)"});
        }
    }
    for (const path_record& p : m_path_records) { // data files, copied beside the record
        const std::size_t off = m_r.doc().offset(p.value);
        cuts.push_back({off, scalar_end(off, p.flow) - off, p.saved});
    }
    std::sort(cuts.begin(), cuts.end(), [](const cut& a, const cut& b) { return a.off > b.off; });
    std::string out = t;
    for (const auto& c : cuts)
        out.replace(c.off, c.len, c.with);
    return out;
}

std::size_t workload_reader::scalar_end(std::size_t off, bool flow) const
{
    const std::string& t = m_r.doc().text();
    if (off >= t.size())
        return t.size();
    if (t[off] == '"' || t[off] == '\'') {
        const char q = t[off];
        for (std::size_t j = off + 1; j < t.size(); ++j) {
            if (q == '"' && t[j] == '\\')
                ++j;
            else if (q == '\'' && t[j] == q && j + 1 < t.size() && t[j + 1] == q)
                ++j;
            else if (t[j] == q)
                return j + 1;
        }
        return t.size();
    }
    std::size_t j = off;
    while (j < t.size() && t[j] != '\n' && !(flow && (t[j] == ',' || t[j] == '}')) &&
           !(t[j] == '#' && j > off && (t[j - 1] == ' ' || t[j - 1] == '\t')))
        ++j;
    while (j > off && (t[j - 1] == ' ' || t[j - 1] == '\t' || t[j - 1] == '\r'))
        --j;
    return j;
}

bool workload_reader::list(const field& f)
{
    if (f.value.IsSequence() && f.value.size() > 0)
        return true;
    if (f.value.IsSequence())
        m_r.error(m_r.where(f), f.path, "the list is empty");
    else
        m_r.wrong_type(f, "a list");
    return false;
}

field workload_reader::item(const field& f, std::size_t i)
{
    YAML::Node v;
    v.reset(f.value[i]);
    return {f.key, v, at(f.path, i)};
}

std::vector<std::string> workload_reader::buffer_names() const
{
    // The buffers the driver adds for a translated kernel (`<kernel>.local`, `<kernel>.const`)
    // have names no workload can write: they are never offered as a correction.
    std::vector<std::string> n;
    for (const auto& b : m_wl.buffers)
        if (b.name.find('.') == std::string::npos)
            n.push_back(b.name);
    return n;
}

std::vector<std::string> workload_reader::kernel_names() const
{
    std::vector<std::string> n;
    for (const auto& k : m_wl.kernels)
        n.push_back(k.name);
    return n;
}

} // namespace detail

using detail::reader;
using detail::workload_reader;

parse_result parse_workload_text(const std::string& text, const std::string& name,
                                 const workload_options& opts)
{
    parse_result res;
    res.wl.file = name;
    config::errors errs;
    const config::yaml_document doc(text, name, errs);
    if (doc.ok()) {
        reader r(doc, errs);
        workload_reader w(r, res.wl, opts);
        w.read(doc.root());
        if (res.wl.name.empty()) {
            std::string stem = name.substr(name.find_last_of('/') + 1);
            res.wl.name = stem.substr(0, stem.rfind('.'));
        }
        if (errs.empty())
            res.wl.text = w.record_text(doc.root());
    }
    res.errors = errs.messages();
    return res;
}

parse_result parse_workload(const std::string& path, const workload_options& opts)
{
    config::errors errs;
    if (auto text = config::read_input_file(path, "workload file", errs))
        return parse_workload_text(*text, path, opts);
    parse_result res;
    res.wl.file = path;
    res.errors = errs.messages();
    return res;
}

} // namespace vgpu::host
