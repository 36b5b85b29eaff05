// Malformed PTX: each case's exact located message; deep nesting; random damage (seeded).
#include "models/sm/ptx/entry.h"
#include "models/sm/ptx/parser.h"
#include "test/seed.h"

#include <catch2/catch.hpp>

#include <fstream>
#include <iostream>
#include <random>
#include <sstream>

using namespace vgpu::ptx;

namespace {

struct bad_case {
    const char* text;  ///< a whole file
    const char* error; ///< its first error, exactly
};

const char* const H = ".version 7.0\n.target sm_70\n.address_size 64\n";

std::string with_body(const std::string& body)
{
    return std::string(H) +
           ".visible .entry k(.param .u64 p)\n{\n.reg .b32 %r<4>;\n.reg .pred %p<2>;\n" + body +
           "\nret;\n}\n";
}

} // namespace

TEST_CASE("malformed module-level PTX: exact located messages")
{
    const bad_case cases[] = {
        {"", "t.ptx:1:1: error: the file must start with .version"},
        {".target sm_70\n", "t.ptx:1:1: error: the file must start with .version"},
        {".version 5.0\n.target sm_70\n.address_size 64\n",
         "t.ptx:1:10: error: unsupported PTX ISA version 5.0 (vgpu reads 6.0 to 9.0)"},
        {".version 9.1\n.target sm_70\n.address_size 64\n",
         "t.ptx:1:10: error: unsupported PTX ISA version 9.1 (vgpu reads 6.0 to 9.0)"},
        {".version seven\n",
         "t.ptx:1:10: error: expected a version such as 6.0 after .version, found 'seven'"},
        {".version 7.0\n.target sm_70\n",
         "t.ptx:1:1: error: missing .address_size (vgpu reads 64-bit PTX: .address_size 64)"},
        {".version 7.0\n.address_size 64\n", "t.ptx:1:1: error: missing .target"},
        {".version 7.0\n.target sm_70\n.address_size 32\n",
         "t.ptx:3:15: error: unsupported .address_size 32 (vgpu reads 64-bit PTX)"},
        {".version 7.0\n.target sm_70, map_f64_to_f32\n.address_size 64\n",
         "t.ptx:2:1: error: unsupported .target option map_f64_to_f32"},
        {".version 7.0\n.target gfx90a\n.address_size 64\n",
         "t.ptx:2:1: error: unsupported .target gfx90a (expected sm_NN)"},
        {"\x01", "t.ptx:1:1: error: unexpected byte 0x01"},
        {".version 7.0\n/* never closed\n", "t.ptx:2:1: error: unterminated comment"},
        {".version 7.0\n.target sm_70\n.address_size 64\n.file 1 \"k.cu\n",
         "t.ptx:4:9: error: unterminated string"},
        {".version 7.0\n.target sm_70\n.address_size 64\n.global .f32 x = 0f3F80;\n",
         "t.ptx:4:18: error: 0f literal needs exactly 8 hex digits"},
        {".version 7.0\n.target sm_70\n.address_size 64\n.global .u32 x = 99999999999999999999;\n",
         "t.ptx:4:18: error: integer '99999999999999999999' does not fit in 64 bits"},
        {".version 7.0\n.target sm_70\n.address_size 64\nfoo\n",
         "t.ptx:4:1: error: expected a directive (.version, .entry, .func, a variable), found "
         "'foo'"},
        {".version 7.0\n.target sm_70\n.address_size 64\n.global x;\n",
         "t.ptx:4:9: error: expected a type (.u32, .f32, ...) in the declaration, found 'x'"},
        {".version 7.0\n.target sm_70\n.address_size 64\n.global .u32 .f32 x;\n",
         "t.ptx:4:14: error: a declaration has one type; '.u32' and '.f32'"},
        {".version 7.0\n.target sm_70\n.address_size 64\n.global .align 3 .u32 x;\n",
         "t.ptx:4:16: error: alignment 3 is not a power of two"},
        {".version 7.0\n.target sm_70\n.address_size 64\n.global .u32 x[0];\n",
         "t.ptx:4:16: error: array 'x' has size 0"},
        {".version 7.0\n.target sm_70\n.address_size 64\n.global .u32 x[];\n",
         "t.ptx:4:14: error: array 'x' has no size and no initialiser"},
        {".version 7.0\n.target sm_70\n.address_size 64\n.global .u32 x[2] = {1, 2, 3};\n",
         "t.ptx:4:19: error: initialiser of 'x' has 3 values for 2 elements"},
        {".version 7.0\n.target sm_70\n.address_size 64\n.global .u32 x = 1.5;\n",
         "t.ptx:4:18: error: floating-point value 1.5 for 'x' of type .u32"},
        {".version 7.0\n.target sm_70\n.address_size 64\n.global .u8 x = y;\n",
         "t.ptx:4:17: error: address of 'y' stored in 'x' of type .u8 (needs .u64 or .b64)"},
        {".version 7.0\n.target sm_70\n.address_size 64\n.global .u32 x;\n.global .u32 x;\n",
         "t.ptx:5:14: error: 'x' is declared twice"},
        {".version 7.0\n.target sm_70\n.address_size 64\n.shared::cluster .u32 x;\n",
         "t.ptx:4:1: error: unsupported .shared::cluster (thread-block clusters)"},
        {".version 7.0\n.target sm_70\n.address_size 64\n.entry k(.reg .u32 a) {}\n",
         "t.ptx:4:10: error: kernel parameters are .param, not .reg"},
        {".version 7.0\n.target sm_70\n.address_size 64\n.entry k(.param .u32 a, .param .u32 a) "
         "{}\n",
         "t.ptx:4:37: error: parameter 'a' is declared twice"},
        {".version 7.0\n.target sm_70\n.address_size 64\n.entry k() {\nret;\n",
         "t.ptx:4:12: error: the body of 'k' is not closed with '}'"},
        {".version 7.0\n.target sm_70\n.address_size 64\n.entry k() {ret;}\n.entry k() {ret;}\n",
         "t.ptx:5:8: error: 'k' is defined twice"},
        {".version 7.0\n.target sm_70\n.address_size 64\n.entry k() .explicitcluster {ret;}\n",
         "t.ptx:4:12: error: unsupported .explicitcluster (thread-block clusters)"},
        {".version 7.0\n.target sm_70\n.address_size 64\n.file 1 \"k.cu\"\n.entry k()\n{\n.loc 1 2 "
         "3, function_name x",
         "t.ptx:6:1: error: the body of 'k' is not closed with '}'"},
        {".version 7.0\n.target sm_70\n.address_size 64\n.entry k()\n{\n.loc 2 1 1\nret;\n}\n",
         "t.ptx:6:1: error: .loc names file 2, which no .file declares"},
    };
    for (const bad_case& c : cases) {
        const parse_result r = parse(c.text, "t.ptx");
        INFO("input: " << c.text);
        REQUIRE(!r.errors.empty());
        CHECK(r.errors[0] == c.error);
    }
}

TEST_CASE("malformed instructions and names: exact located messages")
{
    // the body starts on line 8
    const bad_case cases[] = {
        {"movv.u32 %r1, 1;", "t.ptx:8:1: error: unknown instruction 'movv'; did you mean 'mov'?"},
        {"frobnicate;", "t.ptx:8:1: error: unknown instruction 'frobnicate'"},
        {"mov.u32 %r1, 1",
         "t.ptx:9:1: error: expected ';' at the end of the instruction, found 'ret'"},
        {"mov.u32 %r9, 1;",
         "t.ptx:8:9: error: register %r9 is outside its declaration %r<4> (%r0 to %r3)"},
        {"mov.u32 %q1, 1;", "t.ptx:8:9: error: register %q1 is not declared in 'k'"},
        {"@%p5 bra L;",
         "t.ptx:8:2: error: register %p5 is outside its declaration %p<2> (%p0 to %p1)"},
        {"@ 3 bra L;", "t.ptx:8:3: error: expected a predicate register after '@', found '3'"},
        {"bra LBB0_9;", "t.ptx:8:5: error: label 'LBB0_9' is not defined in 'k'"},
        {"bra LBB0_9;\nLBB0_3:",
         "t.ptx:8:5: error: label 'LBB0_9' is not defined in 'k'; did you mean 'LBB0_3'?"},
        {"L:\nL:", "t.ptx:9:1: error: label 'L' is defined twice"},
        {"ld.global.u32 %r1, [q];", "t.ptx:8:20: error: 'q' is not declared; did you mean 'p'?"},
        {"ld.global.u32 %r1, [%r1+];", "t.ptx:8:25: error: expected an address offset, found ']'"},
        {"ld.global.u32 %r1, [;",
         "t.ptx:8:21: error: expected a register, a variable or an address inside [ ], found ';'"},
        {"mov.u32 %r1, %tid;", "t.ptx:8:18: error: %tid needs a component .x, .y or .z"},
        {"mov.u32 %r1, ,;", "t.ptx:8:14: error: expected an operand, found ','"},
        {"ld.global.v2.u32 {%r1, %r2, [%r0];",
         "t.ptx:8:34: error: expected '}' after the vector elements, found ';'"},
        {"call.uni nowhere, (%r1);", "t.ptx:8:1: error: call to 'nowhere', which is not declared"},
        {"call.uni (%r1 nowhere;",
         "t.ptx:8:15: error: expected ')' after the call's return values, found 'nowhere'"},
        {".reg .b32 %r<4>;", "t.ptx:8:11: error: '%r' is declared twice"},
        {".reg .b32 %x<0>;", "t.ptx:8:14: error: register range %x<0> declares no register"},
        {".global .u32 g;", "t.ptx:8:1: error: .global variables are declared outside functions"},
        {".maxntid 4;", "t.ptx:8:1: error: unexpected .maxntid in the body of 'k'"},
        {"mov.u32 %r1, !3;",
         "t.ptx:8:15: error: expected a predicate register after '!', found '3'"},
        {".reg .b32 r = 1;", "t.ptx:8:13: error: 'r' cannot have an initialiser"},
        {".local .u32 a[1][];",
         "t.ptx:8:18: error: only the first array dimension may be left out"},
        {".shared .u32 s<4>;", "t.ptx:8:16: error: only registers are declared as a range 's<N>'"},
    };
    for (const bad_case& c : cases) {
        const std::string text = with_body(c.text);
        const parse_result r = parse(text, "t.ptx");
        INFO("input: " << text);
        REQUIRE(!r.errors.empty());
        CHECK(r.errors[0] == c.error);
    }
}

TEST_CASE("errors are collected up to a limit and parsing goes on after each")
{
    std::string body;
    for (int i = 0; i < 80; ++i)
        body += "bogus %r1;\n";
    const parse_result r = parse(with_body(body), "t.ptx");
    CHECK(r.errors.size() == max_errors);
    CHECK(r.errors[1] == "t.ptx:9:1: error: unknown instruction 'bogus'");
}

TEST_CASE("deeply nested operands and initialisers are errors, not a stack overflow")
{
    const std::string deep(100000, '{');
    parse_result r = parse(with_body("mov.u32 %r1, " + deep), "t.ptx");
    REQUIRE(!r.errors.empty());
    CHECK(r.errors[0] == "t.ptx:8:30: error: operand nested too deeply");
    r = parse(std::string(H) + ".global .u32 x[1] = " + deep, "t.ptx");
    REQUIRE(!r.errors.empty());
    CHECK(r.errors[0] == "t.ptx:4:37: error: initialiser nested too deeply");
}

TEST_CASE("randomly damaged PTX never crashes and every error is located")
{
    // a seeded mutation of a real compiler output: bytes replaced, deleted, duplicated
    const std::uint64_t seed = vgpu::test::seed_or(36);
    std::cout << "ptx damage random test: seed " << seed << " (set VGPU_TEST_SEED to change)\n";
    INFO("seed " << seed);
    std::mt19937_64 rng(seed);
    std::ifstream in(std::string(VGPU_PTX_TEST_DIR) + "/data/matmul_tiled.nvcc13.ptx");
    std::stringstream ss;
    ss << in.rdbuf();
    const std::string base = ss.str();
    REQUIRE(parse(base, "m.ptx").ok());
    const std::string alphabet = "{}[]();,.%@!<>+-_|=0123456789abcdefxyz \n\"/*";
    for (int round = 0; round < 300; ++round) {
        std::string text = base;
        const int edits = 1 + static_cast<int>(rng() % 8);
        for (int e = 0; e < edits && !text.empty(); ++e) {
            const std::size_t at = rng() % text.size();
            switch (rng() % 3) {
            case 0:
                text[at] = alphabet[rng() % alphabet.size()];
                break;
            case 1:
                text.erase(at, 1 + rng() % 16);
                break;
            default:
                text.insert(at, text.substr(at, 1 + rng() % 32));
                break;
            }
        }
        const parse_result r = parse(text, "m.ptx");
        for (const std::string& msg : r.errors) {
            INFO(msg);
            CHECK(msg.rfind("m.ptx:", 0) == 0);
            CHECK(msg.find(": error: ") != std::string::npos);
        }
        if (r.ok())
            for (std::size_t i = 0; i < r.mod.functions.size(); ++i)
                if (r.mod.functions[i].is_entry)
                    (void)check_entry(r.mod, static_cast<int>(i));
    }
}
