// Unit tests of the workload reader's CUDA/PTX kernels (`cuda:`, `ptx:`, `entry:`): the
// translated program and its files, parameter conversion to the entry's PTX types, and the
// record text that names the saved PTX (block and flow style), read back without compiling.
// Needs clang-14 (as test_ptx does). See docs/workloads.md, "Kernels from CUDA or PTX".
#include "models/host/reference.h"
#include "models/host/workload.h"

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <unistd.h>

using namespace vgpu;
using namespace vgpu::host;
namespace fs = std::filesystem;

namespace {

std::string kernel_source(const std::string& name)
{
    return fs::canonical(std::string(VGPU_SOURCE_DIR) + "/test/ptx/kernels/" + name + ".cu")
        .string();
}

/// A scratch folder holding w.yaml with `text`.
fs::path write_workload(const std::string& tag, const std::string& text)
{
    const fs::path dir = fs::temp_directory_path() /
                         ("vgpu_workload_cuda_" + tag + "_" + std::to_string(::getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir);
    std::ofstream(dir / "w.yaml") << text;
    return dir;
}

/// Writes wl's record (text and files) into dir, as vgpu-sim does into OUTDIR.
void write_record(const workload& wl, const fs::path& dir)
{
    fs::create_directories(dir / "kernels");
    std::ofstream(dir / "workload.yaml") << wl.text;
    for (const auto& [rel, text] : wl.files)
        std::ofstream(dir / rel) << text;
}

} // namespace

TEST_CASE("a cuda: kernel is translated, and its record names the saved PTX and reads it back")
{
    const std::string text = "buffers:\n"
                             "  - {name: d, type: f32, elements: 256}\n"
                             "kernels:\n"
                             "  - name: chain\n"
                             "    cuda: " +
                             kernel_source("ffma_chain") +
                             "   # a comment stays\n"
                             "    entry: ffma_chain\n"
                             "    params:\n"
                             "      - {buffer: d}\n"
                             "      - {value: 1}\n"
                             "      - {value: -0.5}\n"
                             "      - {name: iters, value: -3}\n"
                             "    grid: 1\n"
                             "    block: 256\n";
    const fs::path dir = write_workload("block", text);
    const parse_result p = parse_workload((dir / "w.yaml").string());
    for (const auto& e : p.errors)
        UNSCOPED_INFO(e);
    REQUIRE(p.ok());
    const kernel_decl& k = p.wl.kernels.at(0);
    CHECK(k.translated());
    CHECK(k.registers > 0);
    CHECK(!k.code.empty());
    CHECK(k.lines.size() == k.code.size());
    CHECK(k.lines_file == "kernels/chain.ptx");
    // Values converted to the parameters' types: float a = 1 -> 1.0f, int iters = -3.
    CHECK(k.params.at(1).bits == f32_bits(1.0f));
    CHECK(k.params.at(2).bits == f32_bits(-0.5f));
    CHECK(k.params.at(3).bits == 0xfffffffdu);
    REQUIRE(p.wl.files.count("kernels/chain.ptx") == 1);
    REQUIRE(p.wl.files.count("kernels/chain.vasm") == 1);
    CHECK(p.wl.files.at("kernels/chain.ptx") == k.ptx);
    CHECK(p.wl.text.find("   # a comment stays\n    ptx: kernels/chain.ptx") != std::string::npos);

    // The record with its `cuda:` path changed to a file that does not exist, so a compile
    // would fail: it reads the PTX and gives the same program.
    const fs::path rec = dir / "record";
    write_record(p.wl, rec);
    const std::string moved =
        std::string(p.wl.text).replace(p.wl.text.find(kernel_source("ffma_chain")),
                                       kernel_source("ffma_chain").size(), "gone/ffma_chain.cu");
    std::ofstream(rec / "workload.yaml") << moved;
    const parse_result again = parse_workload((rec / "workload.yaml").string());
    for (const auto& e : again.errors)
        UNSCOPED_INFO(e);
    REQUIRE(again.ok());
    CHECK(again.wl.kernels.at(0).code == k.code);
    CHECK(again.wl.kernels.at(0).source == k.source);
    CHECK(again.wl.kernels.at(0).ptx_file ==
          (rec / "kernels/chain.ptx").lexically_normal().string());
    // Its own record names the same file (rewritten in place, not added twice).
    CHECK(again.wl.text == moved);
    fs::remove_all(dir);
}

TEST_CASE("a flow-style kernel's record gets ', ptx: ...' after its cuda: value")
{
    const std::string text =
        "buffers: [{name: a, type: f32, elements: 64}]\n"
        "kernels:\n"
        "  - {name: va, cuda: \"" +
        kernel_source("vector_add") +
        "\", entry: vector_add, params: [{buffer: a}, {buffer: a}, {buffer: a}, {value: 64}], "
        "grid: 1, block: 64}\n";
    const fs::path dir = write_workload("flow", text);
    const parse_result p = parse_workload((dir / "w.yaml").string());
    for (const auto& e : p.errors)
        UNSCOPED_INFO(e);
    REQUIRE(p.ok());
    CHECK(p.wl.text.find(kernel_source("vector_add") + "\", ptx: kernels/va.ptx, entry:") !=
          std::string::npos);
    write_record(p.wl, dir / "record");
    const parse_result again = parse_workload((dir / "record" / "workload.yaml").string());
    for (const auto& e : again.errors)
        UNSCOPED_INFO(e);
    REQUIRE(again.ok());
    CHECK(again.wl.kernels.at(0).code == p.wl.kernels.at(0).code);
    fs::remove_all(dir);
}

TEST_CASE("ptx: alone is read, copied into the record and renamed there")
{
    const fs::path dir = write_workload("ptx", "");
    {
        const std::string text =
            "buffers: [{name: a, type: f32, elements: 64}]\n"
            "kernels:\n"
            "  - name: va\n"
            "    cuda: " +
            kernel_source("vector_add") +
            "\n"
            "    entry: vector_add\n"
            "    params: [{buffer: a}, {buffer: a}, {buffer: a}, {value: 64}]\n"
            "    grid: 1\n"
            "    block: 64\n";
        std::ofstream(dir / "w.yaml") << text;
        const parse_result p = parse_workload((dir / "w.yaml").string());
        REQUIRE(p.ok());
        fs::create_directories(dir / "ptx");
        std::ofstream(dir / "ptx" / "va.ptx") << p.wl.files.at("kernels/va.ptx");
    }
    const std::string text = "buffers: [{name: a, type: f32, elements: 64}]\n"
                             "kernels:\n"
                             "  - name: other\n"
                             "    ptx: 'ptx/va.ptx'\n"
                             "    entry: _Z10vector_addPKfS0_Pfi\n"
                             "    params: [{buffer: a}, {buffer: a}, {buffer: a}, {value: 64}]\n"
                             "    grid: 1\n"
                             "    block: 64\n";
    std::ofstream(dir / "w.yaml") << text;
    const parse_result p = parse_workload((dir / "w.yaml").string());
    for (const auto& e : p.errors)
        UNSCOPED_INFO(e);
    REQUIRE(p.ok());
    CHECK(p.wl.kernels.at(0).lines_file == (dir / "ptx/va.ptx").string());
    CHECK(p.wl.text.find("    ptx: kernels/other.ptx\n") != std::string::npos);
    CHECK(p.wl.files.count("kernels/other.ptx") == 1);
    fs::remove_all(dir);
}

TEST_CASE("a ptx: kernel's empty parameter value and bad shared_bytes are one located error each")
{
    const fs::path dir = write_workload("empty_value", "");
    std::ofstream(dir / "k.ptx") << ".version 7.0\n"
                                    ".target sm_70\n"
                                    ".address_size 64\n"
                                    ".visible .entry k(.param .u64 k_p0, .param .u32 k_p1)\n"
                                    "{\n"
                                    "    ret;\n"
                                    "}\n";
    const std::string text = "buffers: [{name: out, type: u32, elements: 32}]\n"
                             "kernels:\n"
                             "  - name: k\n"
                             "    ptx: k.ptx\n"
                             "    entry: k\n"
                             "    params: [{buffer: out}, {value: ''}]\n"
                             "    grid: 1\n"
                             "    block: 32\n"
                             "    shared_bytes: 99999999\n";
    std::ofstream(dir / "w.yaml") << text;
    const parse_result p = parse_workload((dir / "w.yaml").string());
    for (const auto& e : p.errors)
        UNSCOPED_INFO(e);
    REQUIRE(p.errors.size() == 2);
    const std::string w = (dir / "w.yaml").string();
    CHECK(p.errors[0].rfind(w + ":6:", 0) == 0);
    CHECK(p.errors[0].find("expected a value") != std::string::npos);
    CHECK(p.errors[1].rfind(w + ":9:", 0) == 0);
    CHECK(p.errors[1].find("shared_bytes") != std::string::npos);
    fs::remove_all(dir);
}
