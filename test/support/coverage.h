// Functional coverage of a testbench: cover points with declared bins, crosses of two points,
// written as coverage.json for scripts/coverage (merge across seeds, holes, HTML table).
// docs/coverage.md.
//
//   vgpu::test::coverage cov("noc_arbiter", seed);
//   cov.point("reason", {"rotation", "priority", "age"});
//   cov.point("barrier", {"0", "1", "2-3", "4+"});
//   cov.cross("reason", "barrier");
//   ... cov.hit("reason", "priority"); cov.hit("barrier", "2-3");
//       cov.hit_cross("reason", "priority", "barrier", "2-3");
//   cov.write();   // $VGPU_COVERAGE_DIR/noc_arbiter.<seed>.json, when the variable is set
//
// A bin that is not declared is an error (std::logic_error): a testbench cannot count what its
// plan did not name, and every declared bin with no hits is a hole in the report.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace vgpu::test {

class coverage {
public:
    /// Coverage of `block`'s testbench run with `seed`.
    coverage(std::string block, std::uint64_t seed) : m_block(std::move(block)), m_seed(seed) {}

    /// Declares cover point `name` with its bins, in report order.
    void point(const std::string& name, const std::vector<std::string>& bins)
    {
        auto& p = m_points[name];
        p.order = bins;
        for (const auto& b : bins)
            p.hits.emplace(b, 0);
    }
    /// Declares the cross of two declared points: a bin per pair, named "a_bin x b_bin".
    void cross(const std::string& a, const std::string& b)
    {
        std::vector<std::string> bins;
        for (const auto& x : get(a).order)
            for (const auto& y : get(b).order)
                bins.push_back(x + " x " + y);
        point(a + " x " + b, bins);
    }
    /// Counts one hit of `bin` of point `name`.
    void hit(const std::string& name, const std::string& bin, std::uint64_t n = 1)
    {
        auto& p = get(name);
        auto it = p.hits.find(bin);
        if (it == p.hits.end())
            throw std::logic_error("coverage " + m_block + ": point '" + name + "' has no bin '" +
                                   bin + "'");
        it->second += n;
    }
    /// Counts one hit of the cross of points a and b at (a_bin, b_bin).
    void hit_cross(const std::string& a, const std::string& a_bin, const std::string& b,
                   const std::string& b_bin)
    {
        hit(a + " x " + b, a_bin + " x " + b_bin);
    }
    /// Hits of `bin` of point `name` so far.
    std::uint64_t hits(const std::string& name, const std::string& bin) const
    {
        const auto& p = m_points.at(name);
        return p.hits.at(bin);
    }

    /// The coverage as coverage.json holds it.
    nlohmann::json to_json() const
    {
        nlohmann::json points = nlohmann::json::object();
        for (const auto& [name, p] : m_points) {
            nlohmann::json bins = nlohmann::json::array();
            for (const auto& b : p.order)
                bins.push_back({{"bin", b}, {"hits", p.hits.at(b)}});
            points[name] = bins;
        }
        return {{"block", m_block}, {"seed", m_seed}, {"points", points}};
    }
    /// Writes $VGPU_COVERAGE_DIR/<block>.<seed>.json (creating the folder) when
    /// VGPU_COVERAGE_DIR is set; the path written, or "" when the variable is not set. Throws
    /// when the file cannot be written.
    std::string write() const
    {
        const char* dir = std::getenv("VGPU_COVERAGE_DIR");
        if (!dir || !*dir)
            return "";
        std::error_code ec;
        std::filesystem::create_directories(dir, ec);
        const std::string path =
            std::string(dir) + "/" + m_block + "." + std::to_string(m_seed) + ".json";
        std::ofstream out(path);
        out << to_json().dump(1) << "\n";
        out.flush();
        if (!out)
            throw std::runtime_error("coverage: cannot write " + path);
        return path;
    }

private:
    struct cover_point {
        std::vector<std::string> order;
        std::map<std::string, std::uint64_t> hits;
    };
    cover_point& get(const std::string& name)
    {
        auto it = m_points.find(name);
        if (it == m_points.end())
            throw std::logic_error("coverage " + m_block + ": no cover point '" + name + "'");
        return it->second;
    }

    std::string m_block;
    std::uint64_t m_seed;
    std::map<std::string, cover_point> m_points;
};

} // namespace vgpu::test
