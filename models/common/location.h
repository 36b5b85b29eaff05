// Positions in input files (configuration, workloads, command line) and the errors reported at
// them. See docs/configuration.md.
#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

namespace vgpu::config {

/// Where a value came from; line and column are 1-based, 0 when there is no position.
struct location {
    std::string file; ///< file name, or a description such as "-s a.b=1"
    int line = 0;     ///< 1-based line, 0 if unknown
    int col = 0;      ///< 1-based column, 0 if unknown
    std::string str() const;
};

/// Collected input errors, each "file:line:col: error: key.path: problem".
class errors {
public:
    void add(const location& where, const std::string& path, const std::string& problem);
    void add_raw(std::string message) { m_messages.push_back(std::move(message)); }
    bool empty() const { return m_messages.empty(); }
    std::size_t size() const { return m_messages.size(); } ///< number of errors so far
    const std::vector<std::string>& messages() const { return m_messages; }

private:
    std::vector<std::string> m_messages;
};

} // namespace vgpu::config
