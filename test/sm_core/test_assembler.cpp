// Unit tests of the SIMT assembler: syntax accepted, fields produced, and the error catalogue.
// See docs/isa.md.
#include "models/sm/core/assembler.h"

#include <catch2/catch.hpp>

#include <cstring>

using namespace vgpu::sm;

namespace {

/// Errors of text placed at line 10, column 9 of w.yaml.
std::vector<std::string> errors_of(std::string_view text, const symbol_table& params = {},
                                   unsigned nregs = 64)
{
    return assemble(text, params, {"w.yaml", 10, 9}, nregs).errors;
}

/// The single error of text.
std::string error_of(std::string_view text, const symbol_table& params = {})
{
    const auto errors = errors_of(text, params);
    INFO(text);
    REQUIRE(errors.size() == 1);
    return errors.front();
}

program assemble_ok(std::string_view text, const symbol_table& params = {})
{
    const auto res = assemble(text, params, {"t.s", 1, 1});
    INFO(text);
    for (const auto& e : res.errors)
        UNSCOPED_INFO(e);
    REQUIRE(res.ok());
    return res.code;
}

std::uint32_t bits_of(float f)
{
    std::uint32_t b;
    std::memcpy(&b, &f, sizeof b);
    return b;
}

} // namespace

TEST_CASE("a program with labels, comments, guards and parameters assembles", "[assembler]")
{
    const char* text = R"(# sum 1..n per thread
        S2R R0, SR_GLOBAL_TID_X     // thread index
        LDP R1, n
        ISETP.GE P0, R0, R1
@P0     EXIT
        MOV R2, 0                   # sum
        LDP R3, 1
loop:   IADD R2, R2, R3
        IADD R3, R3, -1
        ISETP.GT P1, R3, 0
        @P1 BRA loop
done:
        ST [R4 + 0x10], R2
        EXIT
)";
    const auto res = assemble(text, {{"n", 0}, {"count", 1}}, {"w.yaml", 20, 7});
    REQUIRE(res.ok());
    const program& p = res.code;
    REQUIRE(p.size() == 12);
    CHECK(res.labels.at("loop") == 6);
    CHECK(res.labels.at("done") == 10);
    CHECK(res.lines.front() == 21);
    CHECK(res.lines.back() == 33);

    CHECK(p[0].op == opcode::S2R);
    CHECK(p[0].sreg == special_reg::GLOBAL_TID_X);
    CHECK(p[1].op == opcode::LDP);
    CHECK(p[1].src[0] == imm(0));
    CHECK(p[2].op == opcode::ISETP);
    CHECK(p[2].cond == cmp_op::GE);
    CHECK(p[2].dst == 0);
    CHECK(p[3].op == opcode::EXIT);
    CHECK(p[3].guard == 0);
    CHECK_FALSE(p[3].guard_neg);
    CHECK(p[5].src[0] == imm(1));
    CHECK(p[7].src[1] == imm(0xffffffffu));
    CHECK(p[9].op == opcode::BRA);
    CHECK(p[9].guard == 1);
    CHECK(p[9].src[0] == imm(6));
    CHECK(p[10].op == opcode::ST);
    CHECK(p[10].src[0] == reg(4));
    CHECK(p[10].src[1] == reg(2));
    CHECK(p[10].offset == 16);
}

TEST_CASE("immediates: decimal, negative, hex and fp literals", "[assembler]")
{
    const program p = assemble_ok(R"(
        FADD R1, R1, 2
        FADD R1, R1, 0x3f800000
        FMUL R1,R1,-1
        FMUL R1, R1, 1.5f
        FFMA R1, R1, 2.5e-3, -0.0
        IADD R1, R1, -5
        IADD R1, R1, -2147483648
        MOV R1, 1.5
        MOV R1, 4294967295
        USETP.LT P0, R1, 0xFFFFFFFF
        iadd r1, r2, rz
        @!pt nop
        EXIT
    )");
    CHECK(p[0].src[1] == imm(bits_of(2.0f)));
    CHECK(p[1].src[1] == imm(0x3f800000u));
    CHECK(p[2].src[1] == imm(bits_of(-1.0f)));
    CHECK(p[3].src[1] == imm(bits_of(1.5f)));
    CHECK(p[4].src[1] == imm(bits_of(2.5e-3f)));
    CHECK(p[4].src[2] == imm(0x80000000u));
    CHECK(p[5].src[1] == imm(0xfffffffbu));
    CHECK(p[6].src[1] == imm(0x80000000u));
    CHECK(p[7].src[0] == imm(bits_of(1.5f)));
    CHECK(p[8].src[0] == imm(0xffffffffu));
    CHECK(p[9].src[1] == imm(0xffffffffu));
    CHECK(p[10].op == opcode::IADD);
    CHECK(p[10].src[1] == reg(reg_zero));
    CHECK(p[11].guard == pred_true);
    CHECK(p[11].guard_neg);
}

TEST_CASE("memory, CDL, SEL and trace operands", "[assembler]")
{
    const program p = assemble_ok(R"(
        LD R1, [0x100]
        LD R2, [ R3 + 0x10 ]
        ST [R1-4], R2
        ST [R5], RZ
        CDL R8, R1, cbv[3]
        CDL R8, 128, CBV[ 1 ], 256
        SEL R1, R2, 7, P3
        TRACE 0x2a
        BAR
        BRA 0
    )");
    CHECK(p[0].src[0] == reg(reg_zero));
    CHECK(p[0].offset == 256);
    CHECK(p[1].src[0] == reg(3));
    CHECK(p[1].offset == 16);
    CHECK(p[2].offset == -4);
    CHECK(p[3].src[1] == reg(reg_zero));
    CHECK(p[3].offset == 0);
    CHECK(p[4].dst == 8);
    CHECK(p[4].src[0] == reg(1));
    CHECK(p[4].src[1] == imm(3));
    CHECK(p[4].src[2].kind == operand_kind::none);
    CHECK(p[5].src[0] == imm(128));
    CHECK(p[5].src[1] == imm(1));
    CHECK(p[5].src[2] == imm(256));
    CHECK(p[6].src[2] == pred(3));
    CHECK(p[7].src[0] == imm(42));
    CHECK(p[8].op == opcode::BAR);
    CHECK(p[9].src[0] == imm(0));
}

TEST_CASE("assembler error catalogue", "[assembler]")
{
    CHECK(error_of("IADD R1, R2, R3\nFADDD R1, R2, R3\nEXIT") ==
          "w.yaml:11:9: error: unknown instruction 'FADDD' (did you mean 'FADD'?)");
    CHECK(error_of("XYZZY R1\nEXIT") == "w.yaml:10:9: error: unknown instruction 'XYZZY'");
    CHECK(error_of("MOV R70, 1\nEXIT") ==
          "w.yaml:10:13: error: register R70 out of range (R0..R63)");
    CHECK(error_of("MOV R1, R99999999999\nEXIT") ==
          "w.yaml:10:17: error: register R99999999999 out of range (R0..R63)");
    CHECK(error_of("loop:\n  IADD R1, R1, 1\n  BRA lop\nEXIT") ==
          "w.yaml:12:15: error: undefined label 'lop' (did you mean 'loop'?)");
    CHECK(error_of("BRA nowhere\nEXIT") == "w.yaml:10:13: error: undefined label 'nowhere'");
    CHECK(error_of("LDP R1, alpha\nEXIT", {{"beta", 0}}) ==
          "w.yaml:10:17: error: undefined parameter 'alpha'");
    CHECK(error_of("LDP R1, alhpa\nEXIT", {{"alpha", 0}}) ==
          "w.yaml:10:17: error: undefined parameter 'alhpa' (did you mean 'alpha'?)");
    CHECK(error_of("IADD R1, R2\nEXIT") ==
          "w.yaml:10:9: error: wrong operand count for IADD (expected 3, got 2)");
    CHECK(error_of("EXIT R1") == "w.yaml:10:9: error: wrong operand count for EXIT (expected 0, "
                                 "got 1)");
    CHECK(error_of("CDL R1, 0\nEXIT") ==
          "w.yaml:10:9: error: wrong operand count for CDL (expected 3 or 4, got 2)");
    CHECK(error_of("a:\nNOP\na: EXIT") ==
          "w.yaml:12:9: error: duplicate label 'a' (first defined on line 10)");
    CHECK(error_of("MOV R1, 0x1g\nEXIT") == "w.yaml:10:17: error: bad immediate '0x1g'");
    CHECK(error_of("MOV R1, 4294967296\nEXIT") ==
          "w.yaml:10:17: error: bad immediate '4294967296'");
    CHECK(error_of("MOV R1, -2147483649\nEXIT") ==
          "w.yaml:10:17: error: bad immediate '-2147483649'");
    CHECK(error_of("FADD R1, R1, 1e39\nEXIT") == "w.yaml:10:22: error: bad immediate '1e39'");
    CHECK(error_of("FADD R1, R1, 1.2.3\nEXIT") == "w.yaml:10:22: error: bad immediate '1.2.3'");
    CHECK(error_of("TRACE -1\nEXIT") == "w.yaml:10:15: error: bad immediate '-1'");
    CHECK(error_of("IADD R1, R2, 1.5\nEXIT") ==
          "w.yaml:10:22: error: floating-point immediate '1.5' not allowed for IADD");
    CHECK(error_of("@P9 EXIT") ==
          "w.yaml:10:10: error: bad predicate 'P9' (expected P0..P7 or PT)");
    CHECK(error_of("ISETP.EQ Q1, R1, R2\nEXIT") ==
          "w.yaml:10:18: error: bad predicate 'Q1' (expected P0..P7 or PT)");
    CHECK(error_of("SEL R1, R2, R3, R4\nEXIT") ==
          "w.yaml:10:25: error: bad predicate 'R4' (expected P0..P7 or PT)");
    CHECK(error_of("S2R R0, SR_TID_W\nEXIT") ==
          "w.yaml:10:17: error: unknown special register 'SR_TID_W' (did you mean 'SR_TID_X'?)");
    CHECK(error_of("S2R R0, R1\nEXIT") == "w.yaml:10:17: error: unknown special register 'R1'");
    CHECK(error_of("ISETP P0, R1, R2\nEXIT") ==
          "w.yaml:10:9: error: ISETP needs a comparison suffix (ISETP.EQ, .NE, .LT, .LE, .GT or "
          ".GE)");
    CHECK(error_of("ISETP.xx P0, R1, R2\nEXIT") ==
          "w.yaml:10:15: error: unknown comparison 'xx' for ISETP (expected EQ, NE, LT, LE, GT "
          "or GE)");
    CHECK(error_of("IADD.LT R1, R2, R3\nEXIT") ==
          "w.yaml:10:9: error: unexpected suffix '.LT' on IADD");
    CHECK(error_of("LD R1, [R2 * 4]\nEXIT") ==
          "w.yaml:10:16: error: bad memory operand '[R2 * 4]' (expected [Rn], [Rn + offset], "
          "[Rn - offset] or [address])");
    CHECK(error_of("LD R1, R2\nEXIT") ==
          "w.yaml:10:16: error: bad memory operand 'R2' (expected [Rn], [Rn + offset], "
          "[Rn - offset] or [address])");
    CHECK(error_of("LD R1, [R2 + 4294967295]\nEXIT") ==
          "w.yaml:10:20: error: memory offset + 4294967295 out of range");
    CHECK(error_of("LD R1, [R64]\nEXIT") ==
          "w.yaml:10:17: error: register R64 out of range (R0..R63)");
    CHECK(error_of("MOV 5, R1\nEXIT") == "w.yaml:10:13: error: expected a register, got '5'");
    CHECK(error_of("IADD R1, foo, 1\nEXIT") ==
          "w.yaml:10:18: error: expected a register or an immediate, got 'foo'");
    CHECK(error_of("IADD R1, , R2\nEXIT") == "w.yaml:10:18: error: missing operand");
    CHECK(error_of("") == "w.yaml:10:9: error: program is empty");
    CHECK(error_of("# nothing here\n\n  // nor here\n") == "w.yaml:10:9: error: program is empty");
    CHECK(error_of("IADD R1, R2, R3") ==
          "w.yaml:10:9: error: program must end with an unconditional EXIT or BRA");
    CHECK(error_of("NOP\n@P0 EXIT") ==
          "w.yaml:11:13: error: program must end with an unconditional EXIT or BRA");
    CHECK(error_of("BRA 5\nEXIT") ==
          "w.yaml:10:13: error: branch target 5 outside the program (0..1)");
    CHECK(error_of("BRA end\nEXIT\nend:") ==
          "w.yaml:10:13: error: label 'end' is past the last instruction");
    CHECK(error_of("BRA 1x\nEXIT") == "w.yaml:10:13: error: bad immediate '1x'");
    CHECK(error_of("BRA [R1]\nEXIT") == "w.yaml:10:13: error: bad branch target '[R1]'");
    CHECK(error_of("CDL R1, 0, cbv[0], 0\nEXIT") ==
          "w.yaml:10:28: error: CDL data amount must be at least 1 dword");
    CHECK(error_of("CDL R1, 0, cb[0]\nEXIT") ==
          "w.yaml:10:20: error: expected cbv[index], got 'cb[0]'");
    CHECK(error_of("@P0\nEXIT") == "w.yaml:10:9: error: expected an instruction after the guard");
}

TEST_CASE("the assembler reports every error, in source order", "[assembler]")
{
    const auto res = assemble("  BRA nowhere\n  FADDD R1, R2, R3\n  MOV R99, 1\n  IADD R1, R2", {},
                              {"k.yaml", 3, 5});
    CHECK_FALSE(res.ok());
    CHECK(res.code.empty());
    REQUIRE(res.errors.size() == 5);
    CHECK(res.errors[0] == "k.yaml:3:11: error: undefined label 'nowhere'");
    CHECK(res.errors[1] == "k.yaml:4:7: error: unknown instruction 'FADDD' (did you mean 'FADD'?)");
    CHECK(res.errors[2] == "k.yaml:5:11: error: register R99 out of range (R0..R63)");
    CHECK(res.errors[3] == "k.yaml:6:7: error: wrong operand count for IADD (expected 3, got 2)");
    CHECK(res.errors[4] == "k.yaml:6:7: error: program must end with an unconditional EXIT or BRA");
}

TEST_CASE("the register limit is the caller's", "[assembler]")
{
    CHECK(errors_of("MOV R200, 1\nEXIT", {}, 255).empty());
    CHECK(errors_of("MOV R16, 1\nEXIT", {}, 16) ==
          std::vector<std::string>{"w.yaml:10:13: error: register R16 out of range (R0..R15)"});
    CHECK_THROWS_AS(assemble("EXIT", {}, {}, 0), std::invalid_argument);
    CHECK_THROWS_AS(assemble("EXIT", {}, {}, 256), std::invalid_argument);
}

TEST_CASE("windows line endings and several labels on one line", "[assembler]")
{
    const auto res = assemble("a: b:\r\n  NOP\r\n c: EXIT\r\n", {}, {"t.s", 1, 1});
    REQUIRE(res.ok());
    CHECK(res.labels.at("a") == 0);
    CHECK(res.labels.at("b") == 0);
    CHECK(res.labels.at("c") == 1);
}

TEST_CASE("ATOM.ADD operands and errors", "[assembler]")
{
    const program p = assemble_ok("atom.add R1, [R2 + 16], R3\nEXIT");
    CHECK(p[0].op == opcode::ATOM);
    CHECK(p[0].dst == 1);
    CHECK(p[0].src[0] == reg(2));
    CHECK(p[0].src[1] == reg(3));
    CHECK(p[0].offset == 16);
    CHECK(error_of("ATOM R1, [R2], R3\nEXIT") ==
          "w.yaml:10:9: error: ATOM needs an operation suffix (ATOM.ADD, expected one of ADD, "
          "FADD, MIN, MAX, UMIN, UMAX, EXCH, AND, OR, XOR, INC, DEC)");
    CHECK(error_of("ATOM.MUL R1, [R2], R3\nEXIT") ==
          "w.yaml:10:9: error: unknown atomic operation 'MUL' (expected ADD, FADD, MIN, MAX, "
          "UMIN, UMAX, EXCH, AND, OR, XOR, INC, DEC)");
    CHECK(error_of("LD.U32 R1, [R2]\nEXIT") ==
          "w.yaml:10:9: error: unexpected suffix '.U32' on LD (expected "
          "[.U8|.S8|.U16|.S16][.SHARED])");
    CHECK(error_of("ST.S8 [R2], R1\nEXIT") ==
          "w.yaml:10:9: error: unexpected suffix '.S8' on ST (expected [.U8|.U16][.SHARED])");
    CHECK(error_of("LD.SHARED.U8 R1, [R2]\nEXIT") ==
          "w.yaml:10:9: error: unexpected suffix '.U8' on LD (expected "
          "[.U8|.S8|.U16|.S16][.SHARED])");
    CHECK(error_of("CAS R1, [R2 + 4], R3, R4\nEXIT") ==
          "w.yaml:10:17: error: CAS takes no address offset (expected [Rn])");
    CHECK(error_of("CAS.U8 R1, [R2], R3, R4\nEXIT") ==
          "w.yaml:10:9: error: unexpected suffix '.U8' on CAS (expected [.B64][.SHARED])");
    const program q =
        assemble_ok("ld.s16.shared R1, [R2 + 2]\nST.U8 [R2], R1\n"
                    "ATOM.EXCH.SHARED RZ, [R2], R3\nCAS.SHARED R1, [R2], R3, R4\nEXIT");
    CHECK(q[0].width == mem_width::s16);
    CHECK(q[0].space == mem_space::shared);
    CHECK(q[1].width == mem_width::u8);
    CHECK(q[1].space == mem_space::global);
    CHECK(q[2].aop == atom_op::EXCH);
    CHECK(q[2].space == mem_space::shared);
    CHECK(q[3].op == opcode::CAS);
    CHECK(q[3].src[2] == reg(4));
    CHECK(disassemble(q[0]) == "LD.S16.SHARED R1, [R2 + 2]");
    CHECK(disassemble(q[2]) == "ATOM.EXCH.SHARED RZ, [R2], R3");
    CHECK(disassemble(q[3]) == "CAS.SHARED R1, [R2], R3, R4");
    CHECK(error_of("ATOM.ADD R1, [R2], 5\nEXIT") ==
          "w.yaml:10:28: error: expected a register, got '5'");
    CHECK(error_of("ATOM.ADD R1, [R2]\nEXIT") ==
          "w.yaml:10:9: error: wrong operand count for ATOM (expected 3, got 2)");
}
