// The link seam of a platform: checkers' names, the active binder, the check that every link is
// bound through it. See docs/protocol-checker.md ("In the platform").
#include "tlm_bus/link_binder.h"

namespace vgpu::tlm_bus {

namespace {
link_binder* g_active = nullptr;

/// `path` relative to `parent` ("" for the top), dots made underscores: a module's base name.
std::string relative_name(const std::string& path, const std::string& parent)
{
    std::string rel = path;
    if (!parent.empty() && rel.size() > parent.size() &&
        rel.compare(0, parent.size(), parent) == 0 && rel[parent.size()] == '.')
        rel.erase(0, parent.size() + 1);
    for (char& c : rel)
        if (c == '.' || c == ' ')
            c = '_';
    return rel;
}

using fw_port = sc_core::sc_port_b<tlm::tlm_fw_transport_if<>>;

void find_unchecked(const std::vector<sc_core::sc_object*>& objects, std::vector<std::string>& out)
{
    for (sc_core::sc_object* o : objects) {
        if (dynamic_cast<const protocol_checker*>(o) != nullptr)
            continue; // a checker's `out` leads to the link's target: it is the link
        if (auto* port = dynamic_cast<fw_port*>(o)) {
            for (int i = 0; i < port->size(); ++i)
                if (dynamic_cast<const protocol_checker*>((*port)[i]) == nullptr) {
                    out.emplace_back(port->name());
                    break;
                }
        }
        find_unchecked(o->get_child_objects(), out);
    }
}
} // namespace

link_binder::~link_binder()
{
    if (g_active == this)
        g_active = nullptr;
}

link_binder::scope::scope(link_binder& binder) : m_previous(g_active)
{
    g_active = &binder;
}

link_binder::scope::~scope()
{
    g_active = m_previous;
}

link_binder* link_binder::active()
{
    return g_active;
}

protocol_checker& link_binder::add(const std::string& from, const std::string& to,
                                   const protocol_checker_config& options)
{
    const sc_core::sc_object* parent = sc_core::sc_get_current_object();
    const std::string prefix = parent != nullptr ? parent->name() : "";
    const std::string base = relative_name(from, prefix) + "_to_" + relative_name(to, prefix);
    // Two links of one name would only be told apart by SystemC's renaming (and a warning).
    std::string name = base;
    for (unsigned n = 2;
         sc_core::sc_find_object((prefix.empty() ? name : prefix + "." + name).c_str()); ++n)
        name = base + "_" + std::to_string(n);
    protocol_checker_config cfg = options;
    cfg.mode = m_mode;
    m_checkers.push_back(std::make_unique<protocol_checker>(name.c_str(), cfg));
    return *m_checkers.back();
}

std::uint64_t link_binder::calls() const
{
    std::uint64_t n = 0;
    for (const auto& c : m_checkers)
        n += c->calls();
    return n;
}

std::uint64_t link_binder::violations() const
{
    std::uint64_t n = 0;
    for (const auto& c : m_checkers)
        n += c->violations();
    return n;
}

std::vector<std::string> link_binder::unchecked_links() const
{
    std::vector<std::string> out;
    if (m_check)
        find_unchecked(sc_core::sc_get_top_level_objects(), out);
    return out;
}

} // namespace vgpu::tlm_bus
