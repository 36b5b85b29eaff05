// Statistics: counters, averages, histograms and derived formulas, named by module path,
// dumped once, sorted, to stats.json and stats.txt. See docs/outputs.md.
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace vgpu::stats {

/// One dumped value: "gpu.m0.c1.sm3.l1.hits" -> 42.
struct entry {
    std::string name;     ///< full hierarchical name
    nlohmann::json value; ///< number, or array for histograms
    std::string unit;     ///< e.g. "count", "ns", "bytes"
    std::string desc;     ///< one-line meaning
};

/// One numeric value, without unit or description: what a window's marks keep.
struct number {
    std::string name;
    double value;
};

class group;

/// Receives a statistic's numeric entries: each one's name after the statistic's own ("" for
/// that one, ".samples", ...) and its value.
class number_sink {
public:
    virtual void add(const char* suffix, double value) = 0;

protected:
    ~number_sink() = default;
};

/// Base of every statistic: registered in its group on construction.
class stat {
public:
    stat(group& g, std::string name, std::string unit, std::string desc);
    virtual ~stat() = default;
    stat(const stat&) = delete;
    stat& operator=(const stat&) = delete;
    /// Appends this statistic's entries under `prefix`.
    virtual void collect(const std::string& prefix, std::vector<entry>& out) const = 0;
    /// Passes the numeric ones of those entries to `out`, always in the same order (a
    /// histogram's bucket array is not a number).
    virtual void numbers(number_sink& out) const = 0;
    const std::string& name() const { return m_name; }

protected:
    std::string m_name, m_unit, m_desc;
};

/// A monotonically increasing count.
class counter : public stat {
public:
    using stat::stat;
    counter& operator++()
    {
        ++m_value;
        return *this;
    }
    counter& operator+=(std::uint64_t n)
    {
        m_value += n;
        return *this;
    }
    std::uint64_t value() const { return m_value; }
    void collect(const std::string& prefix, std::vector<entry>& out) const override;
    void numbers(number_sink& out) const override;

private:
    std::uint64_t m_value = 0;
};

/// Mean, count and maximum of samples.
class average : public stat {
public:
    using stat::stat;
    void sample(double v)
    {
        ++m_count;
        m_sum += v;
        if (v > m_max)
            m_max = v;
    }
    std::uint64_t count() const { return m_count; }
    double mean() const { return m_count ? m_sum / static_cast<double>(m_count) : 0.0; }
    void collect(const std::string& prefix, std::vector<entry>& out) const override;
    void numbers(number_sink& out) const override;

private:
    std::uint64_t m_count = 0;
    double m_sum = 0, m_max = 0;
};

/// Samples counted in equal-width buckets; the last bucket takes everything above.
class histogram : public stat {
public:
    histogram(group& g, std::string name, std::string unit, std::string desc, double bucket_width,
              unsigned buckets);
    void sample(double v);
    void collect(const std::string& prefix, std::vector<entry>& out) const override;
    void numbers(number_sink& out) const override;

private:
    double m_width;
    std::vector<std::uint64_t> m_buckets;
    std::uint64_t m_count = 0;
    double m_sum = 0;
};

/// A value derived from other statistics, computed at dump time (never on the hot path).
class formula : public stat {
public:
    formula(group& g, std::string name, std::string unit, std::string desc,
            std::function<double()> f);
    double value() const { return m_f(); } ///< computed now
    void collect(const std::string& prefix, std::vector<entry>& out) const override;
    void numbers(number_sink& out) const override;

private:
    std::function<double()> m_f;
};

/// The statistics of one module instance, named by its path ("gpu.m0.c1.sm3.l1").
class group {
public:
    explicit group(std::string path);
    ~group();
    group(const group&) = delete;
    group& operator=(const group&) = delete;
    const std::string& path() const { return m_path; }
    void add(const stat* s);
    void collect(std::vector<entry>& out) const;
    void numbers(std::vector<number>& out) const;
    void values(std::vector<double>& out) const; ///< the values of numbers(), in its order

private:
    std::string m_path;
    std::vector<const stat*> m_stats;
};

/// Every live group of the process (like SystemC's object hierarchy, there is one simulation
/// per process). Dumps are sorted by name.
std::vector<entry> collect_all();
/// The numeric entries of collect_all(), in no particular order: a cheap snapshot (no units,
/// descriptions or sorting; a platform has tens of thousands of entries).
std::vector<number> collect_numbers();
/// The values of collect_numbers(), in the same order, without building their names: while
/// layout_version() stays the same, [i] is the value of the same statistic every time.
std::vector<double> collect_values();
/// Changes whenever a group or a statistic is created or destroyed.
std::uint64_t layout_version();
/// {"name": value, ...} sorted by name.
nlohmann::json to_json(const std::vector<entry>& entries);
/// {"name": unit, ...}, one key per entry.
nlohmann::json units_json(const std::vector<entry>& entries);
/// to_json(entries) (units: units_json(entries)) as nlohmann's dump(2) writes it as a member
/// of a document's top-level object, from its opening brace to its closing one, without
/// building the object: the stats of a large platform are written this way (tens of thousands
/// of entries). Entries of one name: the last wins, as in to_json.
std::string json_member_text(const std::vector<entry>& entries, bool units);
/// "name  value  # unit: description" lines, aligned, in natural order, values rounded.
std::string to_text(const std::vector<entry>& entries);
/// Natural order: runs of digits compare as numbers ("sm9" < "sm10"), the rest by character.
bool natural_less(const std::string& a, const std::string& b);
/// Appends to `key` a sort key of `name`: natural_less(a, b) is exactly (key(a), a) <
/// (key(b), b) in std::string's plain order, and much cheaper to sort by. Each run of digits
/// becomes '0', its length without leading zeros in two bytes (big endian), then those digits.
/// False (the key incomplete) for a run of more than 65535 digits.
bool natural_key(const std::string& name, std::string& key);
/// A value as stats.txt prints it: integers exactly, other numbers to 6 significant digits
/// (at least the integer part), arrays as JSON.
std::string format_value(const nlohmann::json& v);

} // namespace vgpu::stats
