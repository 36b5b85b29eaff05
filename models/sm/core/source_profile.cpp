// Source profile (models/sm/core/source_profile.h).
#include "models/sm/core/source_profile.h"

#include <sstream>
#include <tuple>

namespace vgpu::sm {

void source_profile::add_program(std::uint64_t va, std::size_t instructions)
{
    program& p = m_programs[va];
    p.instructions = instructions;
    for (auto& c : p.copies)
        c.resize(instructions);
}

pc_counters* source_profile::find(std::uint64_t va, unsigned copy)
{
    const auto it = m_programs.find(va);
    if (it == m_programs.end() || it->second.instructions == 0)
        return nullptr;
    program& p = it->second;
    if (copy >= p.copies.size())
        p.copies.resize(copy + 1);
    if (p.copies[copy].empty())
        p.copies[copy].resize(p.instructions);
    return p.copies[copy].data();
}

const std::vector<pc_counters>* source_profile::counters(std::uint64_t va) const
{
    const auto it = m_programs.find(va);
    if (it == m_programs.end())
        return nullptr;
    const program& p = it->second;
    p.sum.assign(p.instructions, pc_counters{});
    for (const auto& c : p.copies)
        for (std::size_t i = 0; i < c.size() && i < p.sum.size(); ++i) {
            p.sum[i].issued += c[i].issued;
            for (unsigned k = 0; k < stall_columns; ++k)
                p.sum[i].stall[k] += c[i].stall[k];
            p.sum[i].line_requests += c[i].line_requests;
            p.sum[i].l1_misses += c[i].l1_misses;
        }
    return &p.sum;
}

namespace {

/// "dir/file.cu:12" -> {"dir/file.cu", 12}; anything else -> {"", 0}.
std::pair<std::string, long> split_line(const std::string& at)
{
    const auto colon = at.rfind(':');
    if (colon == std::string::npos || colon + 1 >= at.size())
        return {"", 0};
    try {
        return {at.substr(0, colon), std::stol(at.substr(colon + 1))};
    } catch (...) {
        return {"", 0};
    }
}

/// A CSV field: quoted when it holds a comma, a quote or a line break.
std::string field(const std::string& s)
{
    if (s.find_first_of(",\"\n") == std::string::npos)
        return s;
    std::string q = "\"";
    for (char c : s)
        q += c == '"' ? std::string("\"\"") : std::string(1, c);
    return q + "\"";
}

} // namespace

std::string source_profile_csv(const std::vector<profiled_kernel>& kernels)
{
    std::ostringstream os;
    os << "kernel,file,line,warp_instructions,stall_scoreboard,stall_memory,stall_barrier,"
          "stall_structural,line_requests,l1_misses\n";
    for (const profiled_kernel& k : kernels) {
        if (!k.counters)
            continue;
        std::map<std::pair<std::string, long>, pc_counters> rows;
        for (std::size_t pc = 0; pc < k.counters->size(); ++pc) {
            const pc_counters& c = (*k.counters)[pc];
            const auto key = k.lines && pc < k.lines->size() ? split_line((*k.lines)[pc])
                                                             : std::pair<std::string, long>{"", 0};
            pc_counters& r = rows[key];
            r.issued += c.issued;
            for (unsigned s = 0; s < stall_columns; ++s)
                r.stall[s] += c.stall[s];
            r.line_requests += c.line_requests;
            r.l1_misses += c.l1_misses;
        }
        for (const auto& [key, r] : rows) {
            std::uint64_t stalls = 0;
            for (auto s : r.stall)
                stalls += s;
            if (key.first.empty() && r.issued == 0 && stalls == 0 && r.line_requests == 0)
                continue;
            os << field(k.name) << ',' << field(key.first) << ',' << key.second << ',' << r.issued;
            for (auto s : r.stall)
                os << ',' << s;
            os << ',' << r.line_requests << ',' << r.l1_misses << '\n';
        }
    }
    return os.str();
}

} // namespace vgpu::sm
