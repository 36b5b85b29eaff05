// Unit tests of buffers of every element type (u8 i8 u16 i16 u32 i32 u64 i64 f32 f64): sizes,
// every initialiser, `init: {file:}`, `expect`/`expect_file` checks and tolerances, and the
// errors of values that do not fit. The expected images are built here with the C++ type of
// each element (memcpy into little-endian bytes), independently of the reader's packing. See
// docs/workloads.md ("Buffers").
#include "test/host/workload_cases.h"

#include <catch2/catch.hpp>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

using namespace vgpu;
using namespace vgpu::host;
using namespace vgpu::host::test;

namespace {

/// The bytes of a packed image (little-endian host, as the driver writes it).
std::vector<std::uint8_t> bytes_of(const std::vector<std::uint32_t>& image, std::size_t n)
{
    std::vector<std::uint8_t> b(image.size() * 4);
    std::memcpy(b.data(), image.data(), b.size());
    REQUIRE(b.size() >= n);
    for (std::size_t i = n; i < b.size(); ++i)
        CHECK(b[i] == 0); // the padding past the last element is zero
    b.resize(n);
    return b;
}

/// The little-endian bytes of C++ values.
template <class T> std::vector<std::uint8_t> native(const std::vector<T>& v)
{
    std::vector<std::uint8_t> b(v.size() * sizeof(T));
    std::memcpy(b.data(), v.data(), b.size());
    return b;
}

/// The reader's workload of a buffer list (one trivial kernel), stopping on errors.
workload read(const std::string& buffers, const std::string& checks = "")
{
    const auto r = parse_workload_text("buffers:\n" + buffers +
                                           "kernels:\n  - {name: k, grid: 1, block: 32, program: "
                                           "EXIT}\n" +
                                           checks,
                                       "t.yaml");
    for (const auto& e : r.errors)
        UNSCOPED_INFO(e);
    REQUIRE(r.ok());
    return r.wl;
}

/// splitmix64, written again here (the reader's generator is not exported).
std::uint64_t next(std::uint64_t& s)
{
    std::uint64_t z = (s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

} // namespace

TEST_CASE("element types: size in bytes of each type", "[workload][types]")
{
    const workload wl = read(R"(  - {name: a, type: u8, elements: 5}
  - {name: b, type: i8, elements: 5}
  - {name: c, type: u16, elements: 3}
  - {name: d, type: i16, elements: 3}
  - {name: e, type: u32, elements: 3}
  - {name: f, type: i32, elements: 3}
  - {name: g, type: u64, elements: 3}
  - {name: h, type: i64, elements: 3}
  - {name: i, type: f32, elements: 3}
  - {name: j, type: f64, elements: 3}
)");
    const std::vector<std::uint64_t> bytes = {5, 5, 6, 6, 12, 12, 24, 24, 12, 24};
    REQUIRE(wl.buffers.size() == bytes.size());
    for (std::size_t i = 0; i < bytes.size(); ++i) {
        INFO(wl.buffers[i].name);
        CHECK(wl.buffers[i].bytes() == bytes[i]);
        CHECK(initial_words(wl.buffers[i]).size() == (bytes[i] + 3) / 4);
    }
}

TEST_CASE("element types: iota (start, step, integers wrap) of every type", "[workload][types]")
{
    const workload wl =
        read(R"(  - {name: a, type: u8, elements: 7, init: {iota: {start: 250, step: 2}}}
  - {name: b, type: i8, elements: 5, init: {iota: {start: -128, step: -1}}}
  - {name: c, type: u16, elements: 3, init: {iota: {start: 65534, step: 1}}}
  - {name: d, type: i16, elements: 3, init: {iota: {start: -2, step: 3}}}
  - {name: e, type: u32, elements: 3, init: {iota: {start: 7, step: -1}}}
  - {name: f, type: i32, elements: 3, init: {iota: {start: -1, step: 2}}}
  - {name: g, type: u64, elements: 3, init: {iota: {start: 18446744073709551614, step: 1}}}
  - {name: h, type: i64, elements: 3, init: {iota: {start: -9223372036854775807, step: -1}}}
  - {name: i, type: f32, elements: 3, init: {iota: {start: 0.5, step: 0.25}}}
  - {name: j, type: f64, elements: 3, init: {iota: {start: 0.1, step: 0.2}}}
  - {name: k, type: u64, elements: 2, init: iota}
)");
    const auto& b = wl.buffers;
    const auto img = [&](std::size_t i) { return bytes_of(initial_words(b[i]), b[i].bytes()); };
    CHECK(img(0) == native<std::uint8_t>({250, 252, 254, 0, 2, 4, 6}));
    CHECK(img(1) == native<std::int8_t>({-128, 127, 126, 125, 124}));
    CHECK(img(2) == native<std::uint16_t>({65534, 65535, 0}));
    CHECK(img(3) == native<std::int16_t>({-2, 1, 4}));
    CHECK(img(4) == native<std::uint32_t>({7, 6, 5}));
    CHECK(img(5) == native<std::int32_t>({-1, 1, 3}));
    CHECK(img(6) == native<std::uint64_t>({18446744073709551614ull, 18446744073709551615ull, 0}));
    CHECK(img(7) ==
          native<std::int64_t>({-9223372036854775807ll, std::numeric_limits<std::int64_t>::min(),
                                std::numeric_limits<std::int64_t>::max()}));
    CHECK(img(8) == native<float>({0.5f, 0.75f, 1.0f}));
    CHECK(img(9) == native<double>({0.1, 0.1 + 0.2, 0.1 + 0.2 * 2}));
    CHECK(img(10) == native<std::uint64_t>({0, 1}));
}

TEST_CASE("element types: fill and values, extremes exact", "[workload][types]")
{
    const workload wl = read(R"(  - {name: a, type: u8, elements: 3, init: {fill: 255}}
  - {name: b, type: i8, elements: 3, init: {values: [-128, 0, 127]}}
  - {name: c, type: u16, elements: 3, init: {values: [0, 0xffff, 4660]}}
  - {name: d, type: i16, elements: 2, init: {fill: -32768}}
  - {name: e, type: u64, elements: 3, init: {values: [18446744073709551615, 9007199254740993, 0x123456789abcdef0]}}
  - {name: f, type: i64, elements: 2, init: {values: [-9223372036854775808, 9223372036854775807]}}
  - {name: g, type: u64, elements: 2, init: {fill: 9007199254740993}}
  - {name: h, type: f64, elements: 3, init: {values: [0.1, -2.5e300, 1e-300]}}
  - {name: i, type: f64, elements: 2, init: {fill: 3.141592653589793}}
)");
    const auto& b = wl.buffers;
    const auto img = [&](std::size_t i) { return bytes_of(initial_words(b[i]), b[i].bytes()); };
    CHECK(img(0) == native<std::uint8_t>({255, 255, 255}));
    CHECK(img(1) == native<std::int8_t>({-128, 0, 127}));
    CHECK(img(2) == native<std::uint16_t>({0, 0xffff, 0x1234}));
    CHECK(img(3) == native<std::int16_t>({-32768, -32768}));
    // 2^53 + 1 is no double: read as text, not through a double.
    CHECK(img(4) == native<std::uint64_t>({~0ull, 9007199254740993ull, 0x123456789abcdef0ull}));
    CHECK(img(5) == native<std::int64_t>({std::numeric_limits<std::int64_t>::min(),
                                          std::numeric_limits<std::int64_t>::max()}));
    CHECK(img(6) == native<std::uint64_t>({9007199254740993ull, 9007199254740993ull}));
    CHECK(img(7) == native<double>({0.1, -2.5e300, 1e-300}));
    CHECK(img(8) == native<double>({3.141592653589793, 3.141592653589793}));
}

TEST_CASE("element types: random of every type (splitmix64, bounds inclusive)", "[workload][types]")
{
    const workload wl =
        read(R"(  - {name: a, type: u8, elements: 301, init: {random: {seed: 9, min: 10, max: 12}}}
  - {name: b, type: i8, elements: 300, init: {random: {seed: 9, min: -128, max: 127}}}
  - {name: c, type: u16, elements: 300, init: {random: {seed: 3, min: 0, max: 65535}}}
  - {name: d, type: i16, elements: 300, init: {random: {seed: 3, min: -5, max: 5}}}
  - {name: e, type: u64, elements: 300, init: {random: {seed: 4, min: 0, max: 18446744073709551615}}}
  - {name: f, type: i64, elements: 300, init: {random: {seed: 4, min: -3, max: 3}}}
  - {name: g, type: f64, elements: 300, init: {random: {seed: 4, min: -1, max: 1}}}
)");
    const auto& b = wl.buffers;
    const auto img = [&](std::size_t i) { return bytes_of(initial_words(b[i]), b[i].bytes()); };
    // Element i is min + z_i mod (max - min + 1), z_i the i-th splitmix64 output of the seed.
    const auto ints = [](std::uint64_t seed, std::int64_t lo, std::uint64_t span, std::size_t n) {
        std::vector<std::uint64_t> v;
        for (std::size_t i = 0; i < n; ++i)
            v.push_back(static_cast<std::uint64_t>(lo) + (span ? next(seed) % span : next(seed)));
        return v;
    };
    const auto cut = [](const std::vector<std::uint64_t>& v, auto type_tag) {
        std::vector<decltype(type_tag)> out;
        for (auto x : v)
            out.push_back(static_cast<decltype(type_tag)>(x));
        return native(out);
    };
    CHECK(img(0) == cut(ints(9, 10, 3, 301), std::uint8_t{}));
    CHECK(img(1) == cut(ints(9, -128, 256, 300), std::int8_t{}));
    CHECK(img(2) == cut(ints(3, 0, 65536, 300), std::uint16_t{}));
    CHECK(img(3) == cut(ints(3, -5, 11, 300), std::int16_t{}));
    CHECK(img(4) == cut(ints(4, 0, 0, 300), std::uint64_t{}));
    CHECK(img(5) == cut(ints(4, -3, 7, 300), std::int64_t{}));
    std::uint64_t s = 4;
    std::vector<double> g;
    for (int i = 0; i < 300; ++i)
        g.push_back(-1.0 + 2.0 * static_cast<double>(next(s) >> 11) / 9007199254740992.0);
    CHECK(img(6) == native(g));
    for (double x : g) {
        CHECK(x >= -1.0);
        CHECK(x < 1.0);
    }
}

TEST_CASE("element types: init file is the raw little-endian bytes of the type",
          "[workload][types]")
{
    const auto dir = std::filesystem::temp_directory_path() / "vgpu_test_types";
    std::filesystem::create_directories(dir);
    const std::vector<std::uint16_t> v16 = {1, 0xfffe, 0x8000};
    const std::vector<double> v64 = {1.5, -0.1};
    std::ofstream(dir / "a.bin", std::ios::binary)
        .write(reinterpret_cast<const char*>(v16.data()), 6);
    std::ofstream(dir / "b.bin", std::ios::binary)
        .write(reinterpret_cast<const char*>(v64.data()), 16);
    std::ofstream(dir / "w.yaml") << R"(buffers:
  - {name: a, type: u16, elements: 3, init: {file: a.bin}}
  - {name: b, type: f64, elements: 2, init: {file: b.bin}}
  - {name: c, type: u8, elements: 4, init: {file: a.bin}}
kernels:
  - {name: k, grid: 1, block: 32, program: EXIT}
checks:
  - {buffer: a, expect_file: a.bin}
  - {buffer: b, expect_file: b.bin, tolerance: 1e-9}
)";
    const parse_result bad = parse_workload((dir / "w.yaml").string());
    REQUIRE(bad.errors.size() == 1);
    CHECK(bad.errors[0] == (dir / "w.yaml").string() + ":4:51: error: buffers[2].init.file: '" +
                               (dir / "a.bin").string() +
                               "' has 6 bytes but the buffer's 4 elements take 4 (raw "
                               "little-endian u8 elements)");
    std::string text;
    {
        std::ifstream in(dir / "w.yaml");
        text.assign(std::istreambuf_iterator<char>(in), {});
    }
    text.replace(text.find("elements: 4"), 11, "elements: 6");
    std::ofstream(dir / "w.yaml") << text;
    const workload wl = load((dir / "w.yaml").string());
    CHECK(bytes_of(initial_words(wl.buffers[0]), 6) == native(v16));
    CHECK(bytes_of(initial_words(wl.buffers[1]), 16) == native(v64));
    CHECK(bytes_of(initial_words(wl.buffers[2]), 6) == native(v16));
    REQUIRE(wl.checks.size() == 2);
    CHECK(expected_contents(wl, wl.checks[0]).words == initial_words(wl.buffers[0]));
    CHECK(expected_contents(wl, wl.checks[1]).words == initial_words(wl.buffers[1]));
    CHECK(wl.checks[1].tol.relative == 1e-9);
    std::filesystem::remove_all(dir);
}

TEST_CASE("element types: expect checks compare element by element in their type",
          "[workload][types]")
{
    const workload wl = read(R"(  - {name: a, type: u8, elements: 5}
  - {name: b, type: i16, elements: 3}
  - {name: c, type: u64, elements: 2}
  - {name: d, type: f64, elements: 2}
  - {name: e, type: i8, elements: 3}
)",
                             R"(checks:
  - {buffer: a, expect: [1, 2, 255, 4, 5]}
  - {buffer: b, expect: [-1, 300, -32768]}
  - {buffer: c, expect: [18446744073709551615, 9007199254740993]}
  - {buffer: d, expect: [1.0, 2.0], tolerance: {relative: 1e-6}}
  - {buffer: e, expect: [-1, 0, 1]}
)");
    REQUIRE(wl.checks.size() == 5);
    const auto exp = [&](std::size_t i) {
        return bytes_of(wl.checks[i].expect, wl.buffers[i].bytes());
    };
    CHECK(exp(0) == native<std::uint8_t>({1, 2, 255, 4, 5}));
    CHECK(exp(1) == native<std::int16_t>({-1, 300, -32768}));
    CHECK(exp(2) == native<std::uint64_t>({~0ull, 9007199254740993ull}));
    CHECK(exp(3) == native<double>({1.0, 2.0}));
    // A result that differs in one u8 element (byte 2 of word 0): one mismatch, its index
    // and both values in the type.
    std::vector<std::uint32_t> got = wl.checks[0].expect;
    got[0] ^= 0x00ff0000u; // element 2: 255 -> 0
    comparison c = compare(wl.checks[0].expect, got, elem_type::u8, {});
    CHECK(c.mismatches == 1);
    REQUIRE(c.first.size() == 1);
    CHECK(c.first[0].index == 2);
    CHECK(c.first[0].expected == "255");
    CHECK(c.first[0].got == "0");
    // i16: the sign is shown; u64: all 64 bits.
    got = wl.checks[1].expect;
    got[1] ^= 1u; // element 2 (bytes 4, 5): -32768 -> -32767
    c = compare(wl.checks[1].expect, got, elem_type::i16, {});
    REQUIRE(c.first.size() == 1);
    CHECK(c.first[0].index == 2);
    CHECK(c.first[0].expected == "-32768");
    CHECK(c.first[0].got == "-32767");
    got = wl.checks[2].expect;
    got[3] ^= 0x80000000u; // element 1, top bit
    c = compare(wl.checks[2].expect, got, elem_type::u64, {});
    REQUIRE(c.first.size() == 1);
    CHECK(c.first[0].expected == "9007199254740993");
    CHECK(c.first[0].got == "9232379236109516801"); // 2^63 + 2^53 + 1
    // f64 with a relative tolerance of 1e-6: 1.0000005 passes, 1.00001 fails.
    const auto f64_image = [](double x, double y) {
        std::vector<std::uint32_t> w(4);
        std::memcpy(w.data(), &x, 8);
        std::memcpy(w.data() + 2, &y, 8);
        return w;
    };
    CHECK(compare(wl.checks[3].expect, f64_image(1.0000005, 2.0), elem_type::f64, wl.checks[3].tol)
              .ok());
    c = compare(wl.checks[3].expect, f64_image(1.0, 2.00001), elem_type::f64, wl.checks[3].tol);
    CHECK(c.mismatches == 1);
    REQUIRE(c.first.size() == 1);
    CHECK(c.first[0].index == 1);
    CHECK(c.first[0].expected == "2");
    CHECK(c.first[0].got == "2.0000100000000001");
    // Without a tolerance, an f64 differing in its last bit fails.
    std::vector<std::uint32_t> ulp = wl.checks[3].expect;
    ulp[0] ^= 1u;
    CHECK(compare(wl.checks[3].expect, ulp, elem_type::f64, {}).mismatches == 1);
    // i8 -1 is the byte 0xff.
    CHECK(exp(4) == native<std::int8_t>({-1, 0, 1}));
    CHECK((wl.checks[4].expect[0] & 0xffu) == 0xffu);
}

TEST_CASE("element types: values that do not fit the type are located errors", "[workload][types]")
{
    const std::string k = "kernels:\n  - {name: k, grid: 1, block: 32, program: EXIT}\n";
    CHECK(errors_of("buffers:\n  - {name: a, type: u8, elements: 2, init: {values: [0, 256]}}\n" +
                    k) ==
          std::vector<std::string>{"w.yaml:2:57: error: buffers[0].init.values[1]: value out of "
                                   "range (expected 0..255 for a u8 buffer, got 256)"});
    CHECK(errors_of("buffers:\n  - {name: a, type: i8, elements: 1, init: {fill: -129}}\n" + k) ==
          std::vector<std::string>{"w.yaml:2:51: error: buffers[0].init.fill: value out of range "
                                   "(expected -128..127 for a i8 buffer, got -129)"});
    CHECK(errors_of("buffers:\n  - {name: a, type: u64, elements: 1, init: {fill: -1}}\n" + k) ==
          std::vector<std::string>{"w.yaml:2:52: error: buffers[0].init.fill: value out of range "
                                   "(expected 0..18446744073709551615 for a u64 buffer, got -1)"});
    CHECK(errors_of("buffers:\n  - {name: a, type: i64, elements: 1, init: {fill: "
                    "9223372036854775808}}\n" +
                    k) ==
          std::vector<std::string>{
              "w.yaml:2:52: error: buffers[0].init.fill: value out of range (expected "
              "-9223372036854775808..9223372036854775807 for a i64 buffer, got "
              "9223372036854775808)"});
    CHECK(errors_of("buffers:\n  - {name: a, type: u16, elements: 1, init: {fill: 1.5}}\n" + k) ==
          std::vector<std::string>{"w.yaml:2:52: error: buffers[0].init.fill: wrong type "
                                   "(expected an integer for a u16 buffer, got 1.5)"});
    CHECK(errors_of("buffers:\n  - {name: a, type: u64, elements: 2, init: {random: {min: "
                    "18446744073709551615, max: 18446744073709551614}}}\n" +
                    k) ==
          std::vector<std::string>{"w.yaml:2:87: error: buffers[0].init.random.max: max "
                                   "(18446744073709551614) is below min (18446744073709551615)"});
    CHECK(errors_of("buffers:\n  - {name: a, type: f64, elements: 4, init: {iota: {start: 1e308, "
                    "step: 1e308}}}\n" +
                    k) ==
          std::vector<std::string>{"w.yaml:2:73: error: buffers[0].init.iota.step: element 1 of "
                                   "buffer 'a' is inf, which overflows f64 (largest "
                                   "1.797693135e+308)"});
    CHECK(errors_of("buffers:\n  - {name: a, type: u8, elements: 2}\n" + k +
                    "checks:\n  - {buffer: a, expect: [1, -1]}\n") ==
          std::vector<std::string>{"w.yaml:6:29: error: checks[0].expect[1]: value out of range "
                                   "(expected 0..255 for a u8 buffer, got -1)"});
    // A reference computes 32-bit elements only: another type is refused where it is named.
    CHECK(errors_of("buffers:\n  - {name: a, type: u8, elements: 4}\n  - {name: b, type: f32, "
                    "elements: 4}\n" +
                    k + "checks:\n  - {buffer: b, reference: vector_add, args: {a: a, b: b}}\n") ==
          std::vector<std::string>{"w.yaml:7:50: error: checks[0].args.a: buffer 'a' is u8 "
                                   "(expected f32)"});
}
