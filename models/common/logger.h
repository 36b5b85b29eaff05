// Per-instance logger with levels from configuration; messages go to stderr with the
// simulated time. See docs/outputs.md.
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace vgpu {

/// Severity of a log message; a logger prints messages at or above its level.
enum class log_level { error = 0, warn = 1, info = 2, debug = 3 };

/// Named logger ("gpu.m0.sm3"); its level is fixed at construction from the global settings.
class logger {
public:
    explicit logger(std::string name);
    bool enabled(log_level l) const { return l <= m_level; }
    /// Prints one line; use the VGPU_* macros, which skip formatting when disabled.
    void log(log_level l, const char* fmt, ...) const __attribute__((format(printf, 3, 4)));
    const std::string& name() const { return m_name; }

    /// Sets the level of loggers created afterwards; `debug_prefixes` is a comma-separated
    /// list of instance-path prefixes that log at debug level.
    static void configure(log_level level, const std::string& debug_prefixes);
    /// The prefixes of the last configure() that no logger created since has matched (a
    /// log.debug entry naming no instance), in their order.
    static std::vector<std::string> unmatched_debug_prefixes();
    /// Supplies the current simulated time for the line prefix (set by the platform).
    static void set_time_source(std::function<std::string()> now);
    /// Number of warnings and errors printed so far.
    static unsigned long problems();

private:
    std::string m_name;
    log_level m_level;
};

} // namespace vgpu

#define VGPU_LOG_AT(lg, lvl, ...)                                                                  \
    do {                                                                                           \
        if ((lg).enabled(lvl))                                                                     \
            (lg).log(lvl, __VA_ARGS__);                                                            \
    } while (0)
#define VGPU_ERROR(lg, ...) VGPU_LOG_AT(lg, ::vgpu::log_level::error, __VA_ARGS__)
#define VGPU_WARN(lg, ...) VGPU_LOG_AT(lg, ::vgpu::log_level::warn, __VA_ARGS__)
#define VGPU_INFO(lg, ...) VGPU_LOG_AT(lg, ::vgpu::log_level::info, __VA_ARGS__)
#define VGPU_DEBUG(lg, ...) VGPU_LOG_AT(lg, ::vgpu::log_level::debug, __VA_ARGS__)
