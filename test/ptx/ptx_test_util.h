// Helpers shared by the PTX front-end tests: files of test/ptx, opcode counts.
#pragma once

#include "models/sm/ptx/ast.h"

#include <fstream>
#include <map>
#include <sstream>
#include <string>

namespace vgpu::ptx::test {

/// Path of a file under test/ptx.
inline std::string path(const std::string& rel)
{
    return std::string(VGPU_PTX_TEST_DIR) + "/" + rel;
}

/// Contents of a file under test/ptx ("" when missing).
inline std::string read(const std::string& rel)
{
    std::ifstream in(path(rel));
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

/// Instruction counts of a function by "opcode.mod.mod" as written.
inline std::map<std::string, int> opcode_counts(const function& f)
{
    std::map<std::string, int> n;
    for (const instruction& ins : f.body) {
        std::string k = ins.opcode;
        for (const std::string& m : ins.mods)
            k += "." + m;
        ++n[k];
    }
    return n;
}

/// Instruction counts by opcode only.
inline std::map<std::string, int> base_counts(const function& f)
{
    std::map<std::string, int> n;
    for (const instruction& ins : f.body)
        ++n[ins.opcode];
    return n;
}

} // namespace vgpu::ptx::test
