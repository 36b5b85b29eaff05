// Functional units: opcode classes, occupancy, per-sub-core booking. See models/sm/README.md.
#include "models/sm/core/function_units.h"
#include "models/sm/core/scoreboard.h"

#include <catch2/catch.hpp>

#include <stdexcept>

using namespace vgpu::sm;

namespace {
std::array<unit_timing, num_unit_classes> timing(unsigned fp32_lanes, unsigned mul_lanes)
{
    std::array<unit_timing, num_unit_classes> t{};
    t[static_cast<unsigned>(unit_class::fp32)] = {fp32_lanes, 4};
    t[static_cast<unsigned>(unit_class::mul)] = {mul_lanes, 6};
    return t;
}
} // namespace

TEST_CASE("every opcode belongs to the unit class the docs name")
{
    CHECK(unit_of(opcode::IADD) == unit_class::int_alu);
    CHECK(unit_of(opcode::SEL) == unit_class::int_alu);
    CHECK(unit_of(opcode::ISETP) == unit_class::int_alu);
    CHECK(unit_of(opcode::MOV) == unit_class::int_alu);
    CHECK(unit_of(opcode::IMUL) == unit_class::mul);
    CHECK(unit_of(opcode::IMAD) == unit_class::mul);
    CHECK(unit_of(opcode::FFMA) == unit_class::fp32);
    CHECK(unit_of(opcode::FABS) == unit_class::fp32);
    CHECK(unit_of(opcode::FSETP) == unit_class::fp32);
    CHECK(unit_of(opcode::I2F) == unit_class::sfu);
    CHECK(unit_of(opcode::F2I) == unit_class::sfu);
    CHECK(unit_of(opcode::LD) == unit_class::lsu);
    CHECK(unit_of(opcode::ST) == unit_class::lsu);
    CHECK(unit_of(opcode::CDL) == unit_class::lsu);
    CHECK(unit_of(opcode::BRA) == unit_class::branch);
    CHECK(unit_of(opcode::BAR) == unit_class::branch);
    CHECK(unit_of(opcode::EXIT) == unit_class::branch);
    // Division, SFU functions, conversions, compares, warp and bit operations.
    for (const opcode op : {opcode::FDIV, opcode::IDIV, opcode::MUFU, opcode::CVT})
        CHECK(unit_of(op) == unit_class::sfu);
    CHECK(unit_of(opcode::FSETPX) == unit_class::fp32);
    CHECK(unit_of(opcode::IMADX) == unit_class::mul);
    for (const opcode op : {opcode::SHFL, opcode::VOTE, opcode::BALLOT, opcode::WARPSYNC,
                            opcode::BITS, opcode::BFX, opcode::PRMT})
        CHECK(unit_of(op) == unit_class::int_alu);
    CHECK(std::string(name(unit_class::int_alu)) == "int");
    CHECK(std::string(name(unit_class::branch)) == "branch");
}

TEST_CASE("a warp-instruction holds its unit ceil(32 / lanes) cycles, per sub-core")
{
    function_units u(4, timing(16, 7));
    CHECK(u.occupancy(unit_class::fp32) == 2);
    CHECK(u.occupancy(unit_class::mul) == 5); // ceil(32 / 7)
    CHECK(u.occupancy(unit_class::int_alu) == 1);
    CHECK(u.latency(unit_class::mul) == 6);
    u.issue(1, unit_class::fp32, 100);
    CHECK(u.free_at(1, unit_class::fp32) == 102);
    // Other sub-cores and other classes of the same sub-core are untouched.
    CHECK(u.free_at(0, unit_class::fp32) == 0);
    CHECK(u.free_at(2, unit_class::fp32) == 0);
    CHECK(u.free_at(1, unit_class::mul) == 0);
}

TEST_CASE("function_units refuses zero sub-cores, zero or too many lanes, zero latency")
{
    CHECK_THROWS_AS(function_units(0, timing(32, 32)), std::invalid_argument);
    CHECK_THROWS_AS(function_units(1, timing(0, 32)), std::invalid_argument);
    CHECK_THROWS_AS(function_units(1, timing(33, 32)), std::invalid_argument);
    auto t = timing(32, 32);
    t[0].latency = 0;
    CHECK_THROWS_WITH(function_units(1, t), Catch::Contains("int"));
}

TEST_CASE("scoreboard: results readable after their class's latency, hold_until delays issue")
{
    scoreboard b(16, {3, 9, 5, 7, 1, 1});
    CHECK(b.latency(opcode::IADD) == 3);
    CHECK(b.latency(opcode::IMAD) == 9);
    CHECK(b.latency(opcode::FFMA) == 5);
    CHECK(b.latency(opcode::I2F) == 7);
    instruction mul{};
    mul.op = opcode::IMUL;
    mul.dst = 2;
    mul.src = {reg(0), reg(1), operand{}};
    b.write_alu(mul, 10);
    instruction use{};
    use.op = opcode::IADD;
    use.dst = 3;
    use.src = {reg(2), reg(0), operand{}};
    CHECK(b.next_issue(&use, true, false).cycle == 19);
    instruction other{};
    other.op = opcode::IADD;
    other.dst = 4;
    other.src = {reg(0), reg(1), operand{}};
    CHECK(b.next_issue(&other, true, false).cycle == 0);
    b.hold_until(12);
    CHECK(b.next_issue(&other, true, false).cycle == 12);
    b.reset();
    CHECK(b.next_issue(&other, true, false).cycle == 0);
}
