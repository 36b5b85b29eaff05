// Physical quantities used in configuration: durations and byte sizes, with unit parsing.
// See docs/configuration.md.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace vgpu {

/// A span of simulated time in picoseconds (SystemC's default resolution).
struct duration {
    std::uint64_t ps = 0; ///< picoseconds
    double ns() const { return static_cast<double>(ps) / 1000.0; }
    bool operator==(const duration& o) const { return ps == o.ps; }
};

/// A size in bytes.
struct byte_size {
    std::uint64_t bytes = 0; ///< bytes
    bool operator==(const byte_size& o) const { return bytes == o.bytes; }
};

/// Parses "1 ns", "2.5ns", "500 ps", "1 us"; a bare number has no unit and is rejected.
std::optional<duration> parse_duration(std::string_view text);
/// Parses "4096", "64 KiB", "1 MiB", "2 GiB", "128 B".
std::optional<byte_size> parse_byte_size(std::string_view text);
/// Formats with the largest unit that keeps the value exact ("1 ns", "1500 ps").
std::string format(duration d);
/// Formats with the largest binary unit that keeps the value exact ("64 KiB", "100 B").
std::string format(byte_size s);

/// Parses a decimal or 0x-hex unsigned integer; rejects signs, blanks and leading zeros.
std::optional<std::uint64_t> parse_uint(std::string_view text);
/// Parses a decimal (optionally negative) integer; rejects leading zeros.
std::optional<std::int64_t> parse_int(std::string_view text);
/// Parses a finite decimal number ("2.5", ".5", "-1e-3"); rejects hex floats, inf, nan and
/// leading zeros.
std::optional<double> parse_double(std::string_view text);

} // namespace vgpu
