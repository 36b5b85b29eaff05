// Unit tests of the SIMT instruction set: encoding, decoding, disassembly round trips.
// See docs/isa.md.
#include "models/sm/core/assembler.h"
#include "models/sm/core/isa.h"

#include <catch2/catch.hpp>

#include <vector>

#include <cstring>
#include <random>

using namespace vgpu::sm;

namespace {

/// A register index R0..R254 or RZ.
std::uint8_t random_reg(std::mt19937& rng)
{
    return static_cast<std::uint8_t>(rng() % 256);
}

operand random_source(std::mt19937& rng)
{
    return rng() % 2 ? reg(random_reg(rng)) : imm(static_cast<std::uint32_t>(rng()));
}

/// A random well-formed instruction of opcode op; BRA targets are 0 or 1.
instruction random_instruction(opcode op, std::mt19937& rng)
{
    instruction i;
    i.op = op;
    i.guard = static_cast<std::uint8_t>(rng() % (num_predicates + 1));
    i.guard_neg = rng() % 2 != 0;
    switch (info(op).form) {
    case syntax::none:
        break;
    case syntax::r_sss:
        i.src[2] = random_source(rng);
        [[fallthrough]];
    case syntax::r_ss:
        i.src[1] = random_source(rng);
        [[fallthrough]];
    case syntax::r_s:
        i.src[0] = random_source(rng);
        i.dst = random_reg(rng);
        break;
    case syntax::s2r:
        i.dst = random_reg(rng);
        i.sreg = static_cast<special_reg>(rng() % num_special_regs);
        break;
    case syntax::ldp:
        i.dst = random_reg(rng);
        i.src[0] = imm(static_cast<std::uint32_t>(rng() % 64));
        break;
    case syntax::setp:
        i.dst = static_cast<std::uint8_t>(rng() % (num_predicates + 1));
        i.src[0] = random_source(rng);
        i.src[1] = random_source(rng);
        i.cond = static_cast<cmp_op>(rng() % num_cmp_ops);
        break;
    case syntax::sel:
        i.dst = random_reg(rng);
        i.src[0] = random_source(rng);
        i.src[1] = random_source(rng);
        i.src[2] = pred(rng() % (num_predicates + 1));
        break;
    case syntax::bra:
        i.src[0] = imm(rng() % 2);
        break;
    case syntax::ld:
        i.dst = random_reg(rng);
        i.src[0] = reg(random_reg(rng));
        i.offset = static_cast<std::int32_t>(rng());
        i.space = static_cast<mem_space>(rng() % num_mem_spaces);
        i.width = static_cast<mem_width>(rng() % (num_mem_widths - 1)); // B64: ATOM/CAS only
        break;
    case syntax::st: {
        i.src[0] = reg(random_reg(rng));
        i.src[1] = reg(random_reg(rng));
        i.offset = static_cast<std::int32_t>(rng());
        i.space = static_cast<mem_space>(rng() % num_mem_spaces);
        const mem_width widths[] = {mem_width::b32, mem_width::u8, mem_width::u16};
        i.width = widths[rng() % 3];
        break;
    }
    case syntax::cas:
        i.dst = random_reg(rng);
        i.src[0] = reg(random_reg(rng));
        i.src[1] = reg(random_reg(rng));
        i.src[2] = reg(random_reg(rng));
        i.space = static_cast<mem_space>(rng() % num_mem_spaces);
        i.width = rng() % 2 ? mem_width::b64 : mem_width::b32; // CAS.B64: register pairs
        break;
    case syntax::trace:
        i.src[0] = imm(static_cast<std::uint32_t>(rng()));
        break;
    case syntax::atom:
        i.dst = random_reg(rng);
        i.src[0] = reg(random_reg(rng));
        i.src[1] = reg(random_reg(rng));
        i.offset = static_cast<std::int32_t>(rng());
        i.space = static_cast<mem_space>(rng() % num_mem_spaces);
        i.aop = static_cast<atom_op>(rng() % num_atom_ops);
        if (atom_has64(i.aop) && rng() % 2)
            i.width = mem_width::b64; // ATOM.op.B64: register pairs
        break;
    case syntax::r_sssm:
        i.src[2] = random_source(rng);
        [[fallthrough]];
    case syntax::r_ssm:
        i.src[1] = random_source(rng);
        [[fallthrough]];
    case syntax::r_sm:
        i.src[0] = random_source(rng);
        i.dst = random_reg(rng);
        break;
    case syntax::setpm:
        i.dst = static_cast<std::uint8_t>(rng() % (num_predicates + 1));
        i.src[0] = random_source(rng);
        i.src[1] = random_source(rng);
        break;
    case syntax::vote:
    case syntax::ballot:
        i.dst = info(op).form == syntax::vote
                    ? static_cast<std::uint8_t>(rng() % (num_predicates + 1))
                    : random_reg(rng);
        i.src[0] = pred(rng() % (num_predicates + 1));
        i.src[1] = random_source(rng);
        break;
    case syntax::wsync:
        i.src[0] = random_source(rng);
        break;
    case syntax::cdl:
        i.dst = random_reg(rng);
        i.src[0] = random_source(rng);
        i.src[1] = imm(rng() % 16);
        if (rng() % 2) { // the bulk form: its registers must end at R254 (the assembler)
            i.dst = static_cast<std::uint8_t>(rng() % 128);
            i.src[2] = imm(1 + static_cast<std::uint32_t>(rng() % 4096));
        }
        break;
    }
    if (has_mod(op)) { // a random defined modifier
        std::vector<std::uint8_t> mods;
        for (unsigned m = 0; m < 128; ++m)
            if (mod_valid(op, m))
                mods.push_back(static_cast<std::uint8_t>(m));
        i.mod = mods[rng() % mods.size()];
    }
    // A register pair Rn:Rn+1 (fp64, 64-bit integers) ends at R254.
    const unsigned pairs = pair_mask(i);
    if ((pairs & 1) && i.dst != reg_zero && i.dst + 1u >= max_registers)
        i.dst = static_cast<std::uint8_t>(rng() % (max_registers - 1));
    for (unsigned k = 0; k < 3; ++k)
        if ((pairs >> (k + 1) & 1) && i.src[k].kind == operand_kind::reg &&
            i.src[k].value != reg_zero && i.src[k].value + 1 >= max_registers)
            i.src[k].value = rng() % (max_registers - 1);
    return i;
}

std::uint32_t bits_of(float f)
{
    std::uint32_t b;
    std::memcpy(&b, &f, sizeof b);
    return b;
}

} // namespace

TEST_CASE("every opcode round-trips through encode/decode and disassemble/assemble", "[isa]")
{
    const unsigned seed = Catch::rngSeed() ? Catch::rngSeed() : 20240611u;
    CAPTURE(seed);
    std::mt19937 rng(seed);
    for (unsigned o = 0; o < num_opcodes; ++o) {
        const auto op = static_cast<opcode>(o);
        for (int n = 0; n < 200; ++n) {
            const instruction inst = random_instruction(op, rng);
            const std::string text = disassemble(inst);
            CAPTURE(text);
            REQUIRE_FALSE(check(inst));
            const auto back = decode(encode(inst));
            REQUIRE(back);
            REQUIRE(*back == inst);
            const auto res = assemble(text + "\nEXIT\n", {}, {"t.s", 1, 1}, max_registers);
            INFO((res.errors.empty() ? std::string() : res.errors.front()));
            REQUIRE(res.ok());
            REQUIRE(res.code.size() == 2);
            REQUIRE(res.code[0] == inst);
        }
    }
}

TEST_CASE("decoding random words never crashes and accepts only canonical encodings", "[isa]")
{
    const unsigned seed = Catch::rngSeed() ? Catch::rngSeed() : 7u;
    CAPTURE(seed);
    std::mt19937_64 rng(seed);
    unsigned accepted = 0;
    for (int n = 0; n < 200000; ++n) {
        instruction_words w{rng(), rng()};
        // Half the cases: a valid encoding with a few bits flipped, to reach the field checks.
        if (n % 2) {
            std::mt19937 r32(static_cast<unsigned>(rng()));
            w = encode(random_instruction(static_cast<opcode>(rng() % num_opcodes), r32));
            for (unsigned k = 0, flips = 1 + rng() % 3; k < flips; ++k)
                w[rng() % 2] ^= std::uint64_t{1} << (rng() % 64);
        }
        const auto inst = decode(w);
        if (!inst)
            continue;
        ++accepted;
        CAPTURE(n, w[0], w[1]);
        REQUIRE_FALSE(check(*inst));
        REQUIRE(encode(*inst) == w);
        REQUIRE_FALSE(disassemble(*inst).empty());
    }
    CHECK(accepted > 1000);
}

TEST_CASE("the encoding matches the documented bit layout", "[isa]")
{
    instruction i;
    i.op = opcode::IADD;
    i.dst = 1;
    i.guard = 3;
    i.guard_neg = true;
    i.src[0] = reg(2);
    i.src[1] = imm(5);
    const auto w = encode(i);
    const std::uint64_t w0 = 4u | (1u << 6) | (3u << 14) | (1u << 18) | (1u << 26) | (2u << 28) |
                             (std::uint64_t{2} << 32);
    CHECK(w[0] == w0);
    CHECK(w[1] == 5u);

    instruction st;
    st.op = opcode::ST;
    st.src[0] = reg(4);
    st.src[1] = reg(7);
    st.offset = -8;
    const auto ws = encode(st);
    CHECK(ws[0] == (35u | (8u << 14) | (1u << 26) | (1u << 28) | (std::uint64_t{4} << 32)));
    CHECK(ws[1] == (7u | (std::uint64_t{0xfffffff8u} << 32)));

    instruction s2r;
    s2r.op = opcode::S2R;
    s2r.dst = 9;
    s2r.sreg = special_reg::GLOBAL_TID_X;
    CHECK(encode(s2r)[0] == (2u | (9u << 6) | (8u << 14) | (11u << 22)));

    instruction setp;
    setp.op = opcode::ISETP;
    setp.dst = 2;
    setp.cond = cmp_op::GE;
    setp.src[0] = reg(1);
    setp.src[1] = imm(0);
    CHECK(encode(setp)[0] == (29u | (2u << 6) | (8u << 14) | (5u << 19) | (1u << 26) | (2u << 28) |
                              (std::uint64_t{1} << 32)));
}

TEST_CASE("decode rejects bad opcodes and fields", "[isa]")
{
    instruction nop;
    const auto good = encode(nop);
    REQUIRE(decode(good));
    auto with = [&](std::uint64_t w0, std::uint64_t w1 = 0) {
        return decode(instruction_words{w0, w1});
    };
    CHECK_FALSE(with((good[0] & ~0x3full) | num_opcodes)); // INVALID is not an encoding
    CHECK_FALSE(with((good[0] & ~0x3full) | 63));
    CHECK_FALSE(with((good[0] & ~(0xfull << 14)) | (9ull << 14))); // guard P9
    CHECK_FALSE(with(good[0] | (1ull << 6)));                      // NOP has no dst
    CHECK_FALSE(with(good[0] | (1ull << 19)));                     // NOP has no cond
    CHECK_FALSE(with(good[0], 1));                                 // unused src1 value
    CHECK_FALSE(with(good[0] | (1ull << 26)));                     // NOP has no source
    instruction setp;
    setp.op = opcode::FSETP;
    setp.dst = 0;
    setp.src[0] = reg(0);
    setp.src[1] = reg(1);
    const auto ws = encode(setp);
    CHECK(decode(ws));
    CHECK_FALSE(with(ws[0] | (6ull << 19), ws[1])); // comparison 6 does not exist
    CHECK_FALSE(with(ws[0] | (9ull << 6), ws[1]));  // destination predicate 9
    instruction s2r;
    s2r.op = opcode::S2R;
    s2r.dst = 0;
    // Every value of the 4-bit field names a special register: 15 is the last, SR_NCTAID_Z.
    static_assert(num_special_regs == 16);
    const auto sr15 = with(encode(s2r)[0] | (15ull << 22));
    REQUIRE(sr15);
    CHECK(sr15->sreg == special_reg::NCTAID_Z);
    instruction ld;
    ld.op = opcode::LD;
    ld.dst = 0;
    ld.src[0] = reg(1);
    const auto wl = encode(ld);
    CHECK_FALSE(with((wl[0] & ~(3ull << 26)) | (2ull << 26), wl[1])); // LD address immediate
    CHECK_FALSE(with(wl[0] | (std::uint64_t{256} << 32), wl[1]));     // register 257
}

TEST_CASE("disassembly spells instructions as documented", "[isa]")
{
    instruction i;
    i.op = opcode::FFMA;
    i.dst = 3;
    i.src = {reg(1), fimm(1.5f), reg(reg_zero)};
    CHECK(disassemble(i) == "FFMA R3, R1, 1.5, RZ");
    i.src[1] = fimm(-0.0f);
    CHECK(disassemble(i) == "FFMA R3, R1, -0.0, RZ");
    i.src[1] = fimm(2.0f);
    CHECK(disassemble(i) == "FFMA R3, R1, 2.0, RZ");
    i.src[1] = imm(0x7fc00000u);
    CHECK(disassemble(i) == "FFMA R3, R1, 0x7fc00000, RZ");

    instruction g;
    g.op = opcode::BRA;
    g.guard = 1;
    g.guard_neg = true;
    g.src[0] = imm(7);
    CHECK(disassemble(g) == "@!P1 BRA 7");

    instruction s;
    s.op = opcode::ISETP;
    s.cond = cmp_op::LT;
    s.dst = 0;
    s.src = {reg(4), imm(static_cast<std::uint32_t>(-5)), {}};
    CHECK(disassemble(s) == "ISETP.LT P0, R4, -5");
    s.src[1] = imm(0x12345678);
    CHECK(disassemble(s) == "ISETP.LT P0, R4, 0x12345678");

    instruction ld;
    ld.op = opcode::LD;
    ld.dst = 2;
    ld.src[0] = reg(5);
    ld.offset = 16;
    CHECK(disassemble(ld) == "LD R2, [R5 + 16]");
    ld.offset = -4;
    CHECK(disassemble(ld) == "LD R2, [R5 - 4]");
    ld.offset = 0;
    CHECK(disassemble(ld) == "LD R2, [R5]");

    instruction st;
    st.op = opcode::ST;
    st.src[0] = reg(6);
    st.src[1] = reg(7);
    st.offset = 4;
    CHECK(disassemble(st) == "ST [R6 + 4], R7");

    instruction sel;
    sel.op = opcode::SEL;
    sel.dst = 1;
    sel.src = {reg(2), imm(3), pred(pred_true)};
    CHECK(disassemble(sel) == "SEL R1, R2, 3, PT");

    instruction s2r;
    s2r.op = opcode::S2R;
    s2r.dst = 0;
    s2r.sreg = special_reg::CTAID_Y;
    CHECK(disassemble(s2r) == "S2R R0, SR_CTAID_Y");

    instruction cdl;
    cdl.op = opcode::CDL;
    cdl.dst = 8;
    cdl.src = {reg(1), imm(2), {}};
    CHECK(disassemble(cdl) == "CDL R8, R1, cbv[2]");
    cdl.src[0] = imm(64);
    cdl.src[2] = imm(256);
    CHECK(disassemble(cdl) == "CDL R8, 64, cbv[2], 256");

    instruction ldp;
    ldp.op = opcode::LDP;
    ldp.dst = 4;
    ldp.src[0] = imm(3);
    CHECK(disassemble(ldp) == "LDP R4, 3");

    instruction tr;
    tr.op = opcode::TRACE;
    tr.src[0] = imm(42);
    CHECK(disassemble(tr) == "TRACE 42");

    CHECK(disassemble(instruction{}) == "NOP");
    instruction bad;
    bad.op = opcode::INVALID;
    CHECK(disassemble(bad) == "<invalid>");
}

TEST_CASE("fp immediates survive disassembly for every float class", "[isa]")
{
    const float values[] = {0.0f,   -0.0f, 1.0f,           -1.5f,           3.14159274f, 1e-45f,
                            1e-40f, 1e38f, 3.40282347e38f, 1.17549435e-38f, 16777216.f,  123456.f};
    for (float v : values) {
        instruction i;
        i.op = opcode::FMUL;
        i.dst = 0;
        i.src = {reg(1), fimm(v), {}};
        const auto res = assemble(disassemble(i) + "\nEXIT", {}, {"t.s", 1, 1});
        CAPTURE(disassemble(i));
        REQUIRE(res.ok());
        CHECK(res.code[0].src[1].value == bits_of(v));
    }
}

TEST_CASE("check reports registers beyond the register count", "[isa]")
{
    instruction i;
    i.op = opcode::IADD;
    i.dst = 70;
    i.src = {reg(1), reg(2), {}};
    CHECK_FALSE(check(i));
    REQUIRE(check(i, 64));
    CHECK(*check(i, 64) == "register R70 out of range (R0..R63)");
    i.dst = reg_zero;
    CHECK_FALSE(check(i, 64));
    instruction bad;
    bad.op = opcode::INVALID;
    REQUIRE(check(bad));
    CHECK(*check(bad) == "illegal instruction (undecodable instruction word)");
}

TEST_CASE("a program image is 16 little-endian bytes per instruction", "[isa]")
{
    const auto res = assemble("MOV R1, 0x11223344\nIADD R2, R1, R1\nEXIT", {}, {"t.s", 1, 1});
    REQUIRE(res.ok());
    auto bytes = encode_program(res.code);
    REQUIRE(bytes.size() == 48);
    CHECK(bytes[0] == static_cast<std::uint8_t>(opcode::MOV) + (1u << 6));
    CHECK(bytes[4] == 0x44);
    CHECK(bytes[7] == 0x11);
    CHECK(decode_program(bytes.data(), bytes.size()) == res.code);

    bytes[16] &= 0xc0; // NOP with IADD's destination and sources does not decode (every
                       // 6-bit opcode exists since the fp64 opcodes)
    bytes.resize(bytes.size() + 5);
    const program p = decode_program(bytes.data(), bytes.size());
    REQUIRE(p.size() == 4);
    CHECK(p[0] == res.code[0]);
    CHECK(p[1].op == opcode::INVALID);
    CHECK(p[2] == res.code[2]);
    CHECK(p[3].op == opcode::INVALID); // the trailing partial slot
}

TEST_CASE("ATOM.ADD is encoded, decoded and spelled as documented", "[isa]")
{
    instruction a;
    a.op = opcode::ATOM;
    a.dst = 5;
    a.src = {reg(2), reg(7), {}};
    a.offset = -8;
    CHECK(disassemble(a) == "ATOM.ADD R5, [R2 - 8], R7");
    const instruction_words w = encode(a);
    CHECK((w[0] & 0x3f) == 41);
    CHECK((w[0] >> 6 & 0xff) == 5);
    CHECK((w[0] >> 26 & 3) == 1); // a: register
    CHECK((w[0] >> 28 & 3) == 1); // b: register
    CHECK((w[0] >> 30 & 3) == 0); // c: none (its value slot is the offset)
    CHECK((w[0] >> 32) == 2);
    CHECK((w[1] & 0xffffffffu) == 7);
    CHECK((w[1] >> 32) == 0xfffffff8u);
    REQUIRE(decode(w));
    CHECK(*decode(w) == a);
    CHECK(writes_register(info(opcode::ATOM).form));
    a.src[1] = imm(1); // the addend is a register
    CHECK(check(a));
}

TEST_CASE("ATOM.B64 and CAS.B64: bit 25 of word 0, register pairs, spelled as documented", "[isa]")
{
    instruction a;
    a.op = opcode::ATOM;
    a.aop = atom_op::FADD;
    a.width = mem_width::b64;
    a.space = mem_space::shared;
    a.dst = 4;
    a.src = {reg(2), reg(6), {}};
    a.offset = 16;
    CHECK(disassemble(a) == "ATOM.FADD.B64.SHARED R4, [R2 + 16], R6");
    CHECK(pair_mask(a) == (1u | 4u)); // the old value and the operand; the address is one word
    instruction_words w = encode(a);
    CHECK((w[0] >> 19 & 3) == 1);  // shared
    CHECK((w[0] >> 21 & 15) == 1); // FADD
    CHECK((w[0] >> 25 & 1) == 1);  // B64
    REQUIRE(decode(w));
    CHECK(*decode(w) == a);
    a.width = mem_width::b32; // the same words without bit 25: the 32-bit form
    CHECK(decode(instruction_words{w[0] & ~(std::uint64_t{1} << 25), w[1]}) == a);
    a.width = mem_width::b64;
    a.aop = atom_op::INC; // no 64-bit INC or DEC
    CHECK(check(a) == std::string("bad atomic operation on ATOM"));
    CHECK_FALSE(decode(instruction_words{(w[0] & ~(std::uint64_t{15} << 21)) | 10u << 21, w[1]}));
    a.aop = atom_op::ADD;
    a.dst = 254; // R254:R255 does not exist
    CHECK(check(a));

    instruction c;
    c.op = opcode::CAS;
    c.width = mem_width::b64;
    c.dst = 0;
    c.src = {reg(8), reg(2), reg(4)};
    CHECK(disassemble(c) == "CAS.B64 R0, [R8], R2, R4");
    CHECK(pair_mask(c) == (1u | 4u | 8u));
    w = encode(c);
    CHECK((w[0] >> 21 & 31) == 16);
    CHECK(decode(w) == c);
    CHECK_FALSE(decode(instruction_words{w[0] | 1u << 21, w[1]})); // CAS has no operation
    // LD and ST have no B64 width: 64-bit loads are two LDs (docs/isa.md).
    instruction l;
    l.op = opcode::LD;
    l.dst = 1;
    l.src[0] = reg(2);
    l.width = mem_width::b64;
    CHECK(check(l) == std::string("bad access width on LD"));
    const auto bad = assemble("LD.B64 R1, [R2]\nATOM.INC.B64 R1, [R2], R4\n"
                              "ATOM.ADD.B64 R253, [R2], R4\nEXIT\n",
                              {}, {"t.s", 1, 1}, 254);
    REQUIRE(bad.errors.size() == 3);
    CHECK(bad.errors[0] ==
          "t.s:1:1: error: unexpected suffix '.B64' on LD (expected [.U8|.S8|.U16|.S16][.SHARED])");
    CHECK(bad.errors[1] == "t.s:2:1: error: ATOM.INC has no .B64 form");
    CHECK(bad.errors[2] == "t.s:3:1: error: register pair R253:R254 out of range (R0..R253)");
    const auto good = assemble("ATOM.UMAX.B64 RZ, [R2 - 8], R4\nCAS.B64.SHARED R6, [R2], R4, "
                               "R8\nEXIT\n",
                               {}, {"t.s", 1, 1}, 16);
    REQUIRE(good.ok());
    CHECK(disassemble(good.code[0]) == "ATOM.UMAX.B64 RZ, [R2 - 8], R4");
    CHECK(disassemble(good.code[1]) == "CAS.B64.SHARED R6, [R2], R4, R8");
}
