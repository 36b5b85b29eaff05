// Unit tests of duration/size parsing and formatting. See models/common/units.h.
#include "models/common/units.h"

#include <catch2/catch.hpp>
#include <limits>

using namespace vgpu;

TEST_CASE("durations parse with units and reject bare or malformed numbers")
{
    CHECK(parse_duration("1 ns")->ps == 1000);
    CHECK(parse_duration("2.5ns")->ps == 2500);
    CHECK(parse_duration("500 ps")->ps == 500);
    CHECK(parse_duration("3 us")->ps == 3000000);
    CHECK(parse_duration("1 ms")->ps == 1000000000ull);
    CHECK(parse_duration("2 s")->ps == 2000000000000ull);
    CHECK_FALSE(parse_duration("5"));
    CHECK_FALSE(parse_duration("5 parsecs"));
    CHECK_FALSE(parse_duration("-1 ns"));
    CHECK_FALSE(parse_duration("0.0001 ps"));
    CHECK_FALSE(parse_duration("ns"));
    CHECK_FALSE(parse_duration("010 ns"));
}

TEST_CASE("sizes parse with binary units")
{
    CHECK(parse_byte_size("4096")->bytes == 4096);
    CHECK(parse_byte_size("64 KiB")->bytes == 65536);
    CHECK(parse_byte_size("64KiB")->bytes == 65536);
    CHECK(parse_byte_size("1 MiB")->bytes == 1048576);
    CHECK(parse_byte_size("2 GiB")->bytes == 2147483648ull);
    CHECK(parse_byte_size("128 B")->bytes == 128);
    CHECK(parse_byte_size("0x1000")->bytes == 4096);
    CHECK_FALSE(parse_byte_size("64 KB"));
    CHECK_FALSE(parse_byte_size("1.5 MiB"));
    CHECK_FALSE(parse_byte_size("-4"));
    CHECK_FALSE(parse_byte_size("99999999999999999999 GiB"));
}

TEST_CASE("integers reject leading zeros, signs where unsigned, and overflow")
{
    CHECK(parse_uint("0") == 0u);
    CHECK(parse_uint("42") == 42u);
    CHECK(parse_uint("0x2A") == 42u);
    CHECK(parse_uint("18446744073709551615") == 18446744073709551615ull);
    CHECK_FALSE(parse_uint("18446744073709551616"));
    CHECK_FALSE(parse_uint("010"));
    CHECK_FALSE(parse_uint("-1"));
    CHECK_FALSE(parse_uint("1.0"));
    CHECK_FALSE(parse_uint(""));
    CHECK(parse_int("-9223372036854775808") == INT64_MIN);
    CHECK_FALSE(parse_int("9223372036854775808"));
    CHECK(parse_double("0.5") == 0.5);
    CHECK(parse_double("-2e3") == -2000.0);
    CHECK_FALSE(parse_double("007.5"));
    CHECK_FALSE(parse_double("nan"));
    CHECK_FALSE(parse_double("1.5x"));
}

TEST_CASE("decimals are decimal: no hex floats, inf, nan or half-written exponents")
{
    CHECK(parse_double(".5") == 0.5);
    CHECK(parse_double("5.") == 5.0);
    CHECK(parse_double("+2.5") == 2.5);
    CHECK(parse_double("1E3") == 1000.0);
    CHECK(parse_double("-0") == 0.0);
    for (const char* bad : {"0x1p4", "0x10", "0X1.8P3", "inf", "-infinity", "NaN", "1e", "1e+", ".",
                            "-", "e5", "1.5.2", "1 5", "1e400", "1e-400", "-2.5e-330"})
        CHECK_FALSE(parse_double(bad));
    // Subnormal doubles are values like any other (an f64 buffer may hold them).
    CHECK(parse_double("1e-310") == 1e-310);
    CHECK(parse_double("-4.9406564584124654e-324") == -std::numeric_limits<double>::denorm_min());
    CHECK_FALSE(parse_duration("0x1p4 ns"));
}

TEST_CASE("formatting picks the largest exact unit and round-trips")
{
    CHECK(format(duration{1000}) == "1 ns");
    CHECK(format(duration{1500}) == "1500 ps");
    CHECK(format(duration{0}) == "0 ns");
    CHECK(format(duration{100000000000ull}) == "100 ms");
    CHECK(format(byte_size{65536}) == "64 KiB");
    CHECK(format(byte_size{100}) == "100 B");
    for (std::uint64_t ps : {1ull, 999ull, 1000ull, 123456789ull})
        CHECK(parse_duration(format(duration{ps}))->ps == ps);
    for (std::uint64_t b : {1ull, 1024ull, 1536ull, 1ull << 30})
        CHECK(parse_byte_size(format(byte_size{b}))->bytes == b);
}
