// Per-instance logger with levels from configuration. See docs/outputs.md.
#include "models/common/logger.h"

#include <cstdarg>
#include <cstdio>
#include <sstream>
#include <vector>

namespace vgpu {
namespace {
struct settings {
    log_level level = log_level::warn;
    std::vector<std::string> debug_prefixes;
    std::vector<bool> matched; // per debug prefix: a logger was created under it
    std::function<std::string()> now;
    unsigned long problems = 0;
};
settings& global()
{
    static settings s;
    return s;
}
} // namespace

logger::logger(std::string name) : m_name(std::move(name)), m_level(global().level)
{
    const auto& prefixes = global().debug_prefixes;
    for (std::size_t i = 0; i < prefixes.size(); ++i)
        if (m_name.compare(0, prefixes[i].size(), prefixes[i]) == 0) {
            m_level = log_level::debug;
            global().matched[i] = true;
        }
}

void logger::log(log_level l, const char* fmt, ...) const
{
    static const char* names[] = {"error", "warn", "info", "debug"};
    if (l <= log_level::warn)
        ++global().problems;
    char buf[1024];
    va_list args;
    va_start(args, fmt);
    std::vsnprintf(buf, sizeof buf, fmt, args);
    va_end(args);
    std::string now = global().now ? global().now() : std::string("-");
    std::fprintf(stderr, "[%s] %-5s %s: %s\n", now.c_str(), names[static_cast<int>(l)],
                 m_name.c_str(), buf);
}

void logger::configure(log_level level, const std::string& debug_prefixes)
{
    global().level = level;
    global().debug_prefixes.clear();
    std::stringstream ss(debug_prefixes);
    for (std::string p; std::getline(ss, p, ',');)
        if (!p.empty())
            global().debug_prefixes.push_back(p);
    global().matched.assign(global().debug_prefixes.size(), false);
}

std::vector<std::string> logger::unmatched_debug_prefixes()
{
    std::vector<std::string> out;
    for (std::size_t i = 0; i < global().debug_prefixes.size(); ++i)
        if (!global().matched[i])
            out.push_back(global().debug_prefixes[i]);
    return out;
}

void logger::set_time_source(std::function<std::string()> now)
{
    global().now = std::move(now);
}

unsigned long logger::problems()
{
    return global().problems;
}

} // namespace vgpu
