// What the workload reader's tests share: the shipped workloads' folder, loading one, the errors
// of a text, and the valid base the bad-workload cases change. See docs/workloads.md.
#pragma once

#include "models/host/workload.h"

#include <catch2/catch.hpp>

#include <string>
#include <vector>

namespace vgpu::host::test {

/// The shipped workloads' folder (testbenches/workloads/).
inline const std::string dir = std::string(VGPU_SOURCE_DIR) + "/testbenches/workloads/";

/// The workload in `file`; the test stops (with its errors) when it does not parse.
inline workload load(const std::string& file)
{
    parse_result r = parse_workload(file);
    INFO(file);
    for (const auto& e : r.errors)
        UNSCOPED_INFO(e);
    REQUIRE(r.ok());
    return r.wl;
}

/// The errors of a workload text read as "w.yaml".
inline std::vector<std::string> errors_of(const std::string& text)
{
    return parse_workload_text(text, "w.yaml").errors;
}

const std::string base_head = R"(name: t
buffers:
  - {name: a, type: u32, elements: 4}
)";
const std::string base_kernel = R"(kernels:
  - name: k
    params:
      - {name: a, buffer: a}
    grid: [1, 1]
    block: [32, 1]
    program: |
      LDP R0, a
      EXIT
)";

} // namespace vgpu::host::test
