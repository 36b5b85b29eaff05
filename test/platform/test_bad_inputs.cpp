// The catalogue of bad inputs: each gives one exact message and exit code 2, never a crash
// or a silent default. See docs/configuration.md.
#include "test/platform/cli_runner.h"

#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <chrono>
#include <string_view>

using vgpu::test::cli_runner;
using namespace std::literals;

namespace {
struct bad_input {
    const char* what;      ///< the mistake
    std::string_view yaml; ///< contents of bad.yaml ("" = no file; ""sv may hold NUL bytes)
    const char* args;      ///< command-line arguments
    const char* expected;  ///< first line of stderr
};

// clang-format off
const bad_input catalogue[] = {
    {"unknown section", "platfrom: {modules: 2}\n", "-c bad.yaml",
     "bad.yaml:1:1: error: platfrom: unknown key (did you mean 'platform'?)"},
    {"unknown key", "platform:\n  modles: 2\n", "-c bad.yaml",
     "bad.yaml:2:3: error: platform.modles: unknown key (did you mean 'modules'?)"},
    {"unknown key, nothing close", "platform:\n  zzzzzzzz: 2\n", "-c bad.yaml",
     "bad.yaml:2:3: error: platform.zzzzzzzz: unknown key"},
    {"wrong type", "platform:\n  modules: two\n", "-c bad.yaml",
     "bad.yaml:2:12: error: platform.modules: wrong type (expected an unsigned integer, got 'two')"},
    {"below range", "platform:\n  modules: 0\n", "-c bad.yaml",
     "bad.yaml:2:12: error: platform.modules: value out of range (expected 1..16, got 0)"},
    {"above range", "platform:\n  sms_per_cluster: 65\n", "-c bad.yaml",
     "bad.yaml:2:20: error: platform.sms_per_cluster: value out of range (expected 1..64, got 65)"},
    {"negative unsigned", "platform:\n  modules: -1\n", "-c bad.yaml",
     "bad.yaml:2:12: error: platform.modules: wrong type (expected an unsigned integer, got '-1')"},
    {"octal-looking number", "platform:\n  modules: 010\n", "-c bad.yaml",
     "bad.yaml:2:12: error: platform.modules: wrong type (expected an unsigned integer, got '010')"},
    {"float for integer", "traffic:\n  generators: 2.5\n", "-c bad.yaml",
     "bad.yaml:2:15: error: traffic.generators: wrong type (expected an unsigned integer, got '2.5')"},
    {"bad enum", "platform:\n  timing:\n    mode: fastt\n", "-c bad.yaml",
     "bad.yaml:3:11: error: platform.timing.mode: invalid choice (expected one of fast|accurate, got 'fastt'; did you mean 'fast'?)"},
    {"bad enum, nothing close", "log:\n  level: loud\n", "-c bad.yaml",
     "bad.yaml:2:10: error: log.level: invalid choice (expected one of error|warn|info|debug, got 'loud')"},
    {"time without unit", "platform:\n  clocks:\n    core: 5\n", "-c bad.yaml",
     "bad.yaml:3:11: error: platform.clocks.core: wrong type (expected a time with a unit (ps, ns, us, ms, s), e.g. \"1 ns\", got '5')"},
    {"time with unknown unit", "dram:\n  latency: 5 fortnights\n", "-c bad.yaml",
     "bad.yaml:2:12: error: dram.latency: wrong type (expected a time with a unit (ps, ns, us, ms, s), e.g. \"1 ns\", got '5 fortnights')"},
    {"negative time", "dram:\n  latency: -5 ns\n", "-c bad.yaml",
     "bad.yaml:2:12: error: dram.latency: wrong type (expected a time with a unit (ps, ns, us, ms, s), e.g. \"1 ns\", got '-5 ns')"},
    {"time out of range", "platform:\n  clocks:\n    core: 2 us\n", "-c bad.yaml",
     "bad.yaml:3:11: error: platform.clocks.core: value out of range (expected 0.001..1000 ns, got 2 us)"},
    {"zero time limit", "platform:\n  max_time: 0 ns\n", "-c bad.yaml",
     "bad.yaml:2:13: error: platform.max_time: value out of range (expected >= 1 ns, got 0 ns)"},
    {"size with decimal unit", "dram:\n  size: 1 GB\n", "-c bad.yaml",
     "bad.yaml:2:9: error: dram.size: wrong type (expected a size in bytes, optionally with a unit (B, KiB, MiB, GiB), got '1 GB')"},
    {"size not a power of two", "dram:\n  size: 3 MiB\n", "-c bad.yaml",
     "bad.yaml:2:9: error: dram.size: value out of range (expected 4096..1099511627776 B, power of two, got 3 MiB)"},
    {"boolean spelled yes", "dram:\n  dmi: yes\n", "-c bad.yaml",
     "bad.yaml:2:8: error: dram.dmi: wrong type (expected a boolean (true or false), got 'yes')"},
    {"ratio out of range", "traffic:\n  write_ratio: 1.5\n", "-c bad.yaml",
     "bad.yaml:2:16: error: traffic.write_ratio: value out of range (expected 0..1, got 1.5)"},
    {"number not a number", "traffic:\n  write_ratio: half\n", "-c bad.yaml",
     "bad.yaml:2:16: error: traffic.write_ratio: wrong type (expected a number, got 'half')"},
    {"section given a value", "platform: 3\n", "-c bad.yaml",
     "bad.yaml:1:11: error: platform: wrong type (expected a section of keys, got '3')"},
    {"value given a section", "platform:\n  modules: {a: 1}\n", "-c bad.yaml",
     "bad.yaml:2:12: error: platform.modules: wrong type (expected an unsigned integer, got a section)"},
    {"value given a list", "platform:\n  modules: [1, 2]\n", "-c bad.yaml",
     "bad.yaml:2:12: error: platform.modules: wrong type (expected an unsigned integer, got a list)"},
    {"value missing", "platform:\n  modules:\n", "-c bad.yaml",
     "bad.yaml:2:3: error: platform.modules: wrong type (expected an unsigned integer, got nothing)"},
    {"duplicate key", "platform:\n  modules: 2\n  modules: 3\n", "-c bad.yaml",
     "bad.yaml:3:3: error: platform.modules: duplicate key"},
    {"top level not a mapping", "- platform\n", "-c bad.yaml",
     "bad.yaml:1:1: error: the configuration must be a mapping of sections"},
    {"YAML syntax error", "platform: {modules: 2\n", "-c bad.yaml",
     "bad.yaml:2:1: error: YAML syntax error: end of map flow not found"},
    {"missing file", "", "-c nothere.yaml",
     "nothere.yaml: error: cannot open configuration file"},
    {"override: unknown key", "", "-s platform.modles=2",
     "-s platform.modles=2: error: platform.modles: unknown key (did you mean 'modules'?)"},
    {"override: no value", "", "-s platform.modules",
     "-s platform.modules: error: malformed override (expected key.path=value)"},
    {"override: bad path", "", "-s platform..modules=2",
     "-s platform..modules=2: error: platform..modules: malformed key path (expected names joined by '.')"},
    {"override: bad value", "", "-s platform.modules=lots",
     "-s platform.modules=lots: error: platform.modules: wrong type (expected an unsigned integer, got 'lots')"},
    {"override: section as value", "", "-s platform.timing=fast",
     "-s platform.timing=fast: error: platform.timing: wrong type (expected a section of keys, got 'fast')"},
    {"inconsistent: footprint vs access size", "traffic:\n  access_bytes: 64\n  footprint: 100\n", "-c bad.yaml",
     "bad.yaml:3:14: error: traffic.footprint: not a multiple of traffic.access_bytes (traffic.footprint is 100 B; traffic.access_bytes is 64, set at bad.yaml:2:17); set traffic.footprint to a multiple of 64 or traffic.access_bytes to a divisor of it"},
    {"inconsistent: regions beyond memory", "platform:\n  kind: traffic\ndram:\n  size: 1 MiB\ntraffic:\n  generators: 4\n  footprint: 1 MiB\n", "-c bad.yaml",
     "bad.yaml:7:14: error: traffic.footprint: the generators' regions do not fit in the memory (traffic.footprint is 1 MiB; traffic.generators is 4, set at bad.yaml:6:15; traffic.base is 0, the default; dram.size is 1 MiB, set at bad.yaml:4:9; platform.modules is 1, the default); make traffic.base + traffic.footprint x traffic.generators at most dram.size x platform.modules (1 MiB)"},
    {"YAML: a second document after ---", "platform:\n  modules: 2\n---\nplatform:\n  modules: 3\n", "-c bad.yaml",
     "bad.yaml:3:1: error: a second YAML document (after '---'); a file holds one document"},
    {"YAML: a NUL byte", "platform:\n  modules: 2\0\n"sv, "-c bad.yaml",
     "bad.yaml:2:13: error: a NUL character is not allowed in YAML text"},
    {"YAML: a byte that is not UTF-8 (yaml-cpp hung on some)", "platform:\n  modules: 2\xff\n", "-c bad.yaml",
     "bad.yaml:2:13: error: YAML text must be UTF-8 (a byte here is not)"},
    {"YAML: a tab in the indentation", "platform:\n\tmodules: 2\n", "-c bad.yaml",
     "bad.yaml:2:1: error: a tab character is not allowed in indentation (indent with spaces)"},
    {"YAML: nesting deeper than the limit", "platform:\n  modules: [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]\n", "-c bad.yaml",
     "bad.yaml:2:74: error: nesting deeper than 64 levels"},
    {"YAML: an alias inside its own anchor", "platform:\n  modules: &x [1, *x]\n", "-c bad.yaml",
     "bad.yaml:2:12: error: an alias inside the node its anchor names (a cycle)"},
    {"YAML: an alias bomb (\"billion laughs\") in a configuration", "a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]\ne: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d]\nf: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e]\ng: &g [*f, *f, *f, *f, *f, *f, *f, *f, *f]\nh: &h [*g, *g, *g, *g, *g, *g, *g, *g, *g]\ni: &i [*h, *h, *h, *h, *h, *h, *h, *h, *h]\n", "-c bad.yaml",
     "bad.yaml:7:8: error: aliases reach more than 1000000 nodes (the limit of nodes reached through aliases; write the values out)"},
    {"YAML: a NUL character from an escape", "workload:\n  file: \"w\\0.yaml\"\n", "-c bad.yaml",
     "bad.yaml:2:9: error: a NUL character (\"\\0\") is not allowed in a value"},
    {"hex float", "traffic:\n  write_ratio: 0x1p-1\n", "-c bad.yaml",
     "bad.yaml:2:16: error: traffic.write_ratio: wrong type (expected a number, got '0x1p-1')"},
    {"integer beyond 64 bits", "platform:\n  seed: 18446744073709551616\n", "-c bad.yaml",
     "bad.yaml:2:9: error: platform.seed: value out of range (expected 0..18446744073709551615, got 18446744073709551616)"},
    {"configuration file that is a folder", "", "-c .",
     ".: error: is a directory, not a configuration file"},
    {"configuration file without end", "", "-c /dev/zero",
     "/dev/zero: error: the configuration file is larger than 64 MiB (the limit of an input file)"},
    {"inconsistent: the key the user set is named", "", "-s l1.line_bytes=64",
     "-s l1.line_bytes=64: error: l1.line_bytes: the L1 and the LLC must have one line size (l1.line_bytes is 64; llc.line_bytes is 128, the default); set l1.line_bytes and llc.line_bytes to the same value"},
    {"inconsistent: the later of two layers is named", "l1:\n  line_bytes: 64\n", "-c bad.yaml -s llc.line_bytes=32",
     "-s llc.line_bytes=32: error: llc.line_bytes: the L1 and the LLC must have one line size (llc.line_bytes is 32; l1.line_bytes is 64, set at bad.yaml:2:15); set l1.line_bytes and llc.line_bytes to the same value"},
    {"seed below zero", "", "--seed -1",
     "--seed: wrong type (expected an unsigned integer, got '-1')"},
    {"seed past 2^64", "", "--seed 18446744073709551616",
     "--seed: value out of range (expected 0..18446744073709551615, got 18446744073709551616)"},
    {"seed with a leading zero (octal to CLI11)", "", "--seed 010",
     "--seed: wrong type (expected an unsigned integer, got '010')"},
    {"workload: a NUL byte in a program", "name: x\nbuffers:\n  - {name: a, type: u32, elements: 64}\nkernels:\n  - name: k\n    grid: 1\n    block: 64\n    program: |\n      # k\n      EX\0IT\n"sv, "-w bad.yaml",
     "bad.yaml:10:9: error: a NUL character is not allowed in YAML text"},
    {"workload: an alias bomb (\"billion laughs\"; once over 60 s)", "name: x\ndescription:\n  - &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n  - &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\n  - &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]\n  - &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]\n  - &e [*d, *d, *d, *d, *d, *d, *d, *d, *d]\n  - &f [*e, *e, *e, *e, *e, *e, *e, *e, *e]\n  - &g [*f, *f, *f, *f, *f, *f, *f, *f, *f]\n  - &h [*g, *g, *g, *g, *g, *g, *g, *g, *g]\n  - &i [*h, *h, *h, *h, *h, *h, *h, *h, *h]\n", "-w bad.yaml",
     "bad.yaml:9:9: error: aliases reach more than 1000000 nodes (the limit of nodes reached through aliases; write the values out)"},
    {"workload: a second document", "name: x\n---\nname: y\n", "-w bad.yaml",
     "bad.yaml:2:1: error: a second YAML document (after '---'); a file holds one document"},
    {"workload: a tab in the indentation", "name: x\nbuffers:\n\t- {name: a, type: u32, elements: 64}\n", "-w bad.yaml",
     "bad.yaml:3:1: error: a tab character is not allowed in indentation (indent with spaces)"},
    {"workload: hex float", "name: x\nbuffers:\n  - {name: a, type: f32, elements: 64, init: {fill: 0x1p4}}\nkernels:\n  - name: k\n    grid: 1\n    block: 64\n    program: |\n      # k\n      EXIT\n", "-w bad.yaml",
     "bad.yaml:3:53: error: buffers[0].init.fill: wrong type (expected a number, got '0x1p4')"},
    {"workload: f32 iota overflowing to inf", "name: x\nbuffers:\n  - {name: a, type: f32, elements: 64, init: {iota: {start: 1.0e38, step: 1.0e37}}}\nkernels:\n  - name: k\n    grid: 1\n    block: 64\n    program: |\n      # k\n      EXIT\n", "-w bad.yaml",
     "bad.yaml:3:75: error: buffers[0].init.iota.step: element 25 of buffer 'a' is 3.5e+38, which overflows f32 (largest 3.402823466e+38)"},
    {"workload: a kernel the schedule never runs", "name: x\nbuffers:\n  - {name: a, type: u32, elements: 64}\nkernels:\n  - {name: k, grid: 1, block: 64, program: EXIT}\n  - {name: k2, grid: 1, block: 64, program: EXIT}\nschedule: [[k]]\n", "-w bad.yaml",
     "bad.yaml:6:5: error: kernels[1]: kernel 'k2' is in no phase of the schedule, so it would never run"},
    {"workload: one-line quoted program", "name: x\nbuffers:\n  - {name: a, type: u32, elements: 64}\nkernels:\n  - name: k\n    grid: 1\n    block: 64\n    program: \"MOV R1, 1\\nFADDD R1, R2, R3\\nEXIT\"\n", "-w bad.yaml",
     "bad.yaml:8:26: error: kernels[0].program: unknown instruction 'FADDD' (did you mean 'FADD'?)"},
    {"workload file that is a folder", "", "-w .",
     ".: error: is a directory, not a workload file"},
    {"workload file without end", "", "-w /dev/zero",
     "/dev/zero: error: the workload file is larger than 64 MiB (the limit of an input file)"},
    {"inconsistent: L1 sector larger than the line", "l1:\n  sector_bytes: 256\n", "-c bad.yaml",
     "bad.yaml:2:17: error: l1.sector_bytes: a sector larger than the line (l1.sector_bytes is 256; l1.line_bytes is 128, the default); set l1.sector_bytes to at most 128 or l1.line_bytes to at least 256"},
    {"inconsistent: more than 64 sectors per line", "llc:\n  line_bytes: 4096\n  sector_bytes: 32\nl1:\n  line_bytes: 4096\n  sector_bytes: 64\n", "-c bad.yaml",
     "bad.yaml:3:17: error: llc.sector_bytes: more than 64 sectors per line (llc.sector_bytes is 32; llc.line_bytes is 4096, set at bad.yaml:2:15); set llc.sector_bytes to at least 64 or llc.line_bytes to at most 2048"},
    {"no write-back buffer", "llc:\n  wb_entries: 0\n", "-c bad.yaml",
     "bad.yaml:2:15: error: llc.wb_entries: value out of range (expected 1..4096, got 0)"},
    {"overflow: footprint x generators past 2^64", "platform:\n  kind: traffic\ntraffic:\n  generators: 2\n  footprint: 8589934592 GiB\n", "-c bad.yaml",
     "bad.yaml:5:14: error: traffic.footprint: the generators' regions end beyond the 64-bit address space (traffic.footprint is 8589934592 GiB; traffic.generators is 2, set at bad.yaml:4:15; traffic.base is 0, the default); make traffic.base + traffic.footprint x traffic.generators less than 2^64"},
    {"overflow: base + footprint past 2^64", "traffic:\n  base: 18446744073709547520\n  footprint: 1 MiB\n", "-c bad.yaml",
     "bad.yaml:3:14: error: traffic.footprint: the generators' regions end beyond the 64-bit address space (traffic.footprint is 1 MiB; traffic.generators is 1, the default; traffic.base is 18446744073709547520, set at bad.yaml:2:9); make traffic.base + traffic.footprint x traffic.generators less than 2^64"},
    {"quantum longer than the time limit", "platform:\n  max_time: 10 us\n  timing:\n    quantum_ns: 20000\n", "-c bad.yaml",
     "bad.yaml:4:17: error: platform.timing.quantum_ns: the quantum is longer than the time limit (platform.timing.quantum_ns is 20000; platform.max_time is 10 us, set at bad.yaml:2:13); set platform.timing.quantum_ns to at most 10000 or platform.max_time to at least 20 us"},
    {"time limit shorter than the default quantum", "platform:\n  max_time: 50 ns\n", "-c bad.yaml",
     "bad.yaml:2:13: error: platform.max_time: the quantum is longer than the time limit (platform.max_time is 50 ns; platform.timing.quantum_ns is 100, the default); set platform.timing.quantum_ns to at most 50 or platform.max_time to at least 100 ns"},
    {"unknown option", "", "--bogus",
     "The following argument was not expected: --bogus"},
    {"seed not a number", "", "--seed abc",
     "Could not convert: --seed = abc"},
    {"workload on the traffic platform", "", "-s platform.kind=traffic -w none.yaml",
     "vgpu-sim: error: the traffic platform takes no workload (-w); its stimulus is the `traffic` section"},
    {"workload: missing file", "", "-w none.yaml",
     "none.yaml: error: cannot open workload file"},
    {"workload: unknown instruction", "name: x\nbuffers:\n  - {name: a, type: u32, elements: 64}\nkernels:\n  - name: k\n    grid: 1\n    block: 64\n    program: |\n      # k\n      FADDD R1, R2, R3\n      EXIT\n", "-w bad.yaml",
     "bad.yaml:10:7: error: kernels[0].program: unknown instruction 'FADDD' (did you mean 'FADD'?)"},
    {"workload: CTA larger than an SM", "name: x\nbuffers:\n  - {name: a, type: u32, elements: 64}\nkernels:\n  - name: k\n    grid: 1\n    block: 64\n    program: |\n      # k\n      EXIT\n", "-w bad.yaml -s sm.warp_slots=1 -s sm.cta_slots=1",
     "bad.yaml:5:5: error: kernels[0].block: kernel 'k' has 2 warps per CTA but an SM has 1 warp slots"},
    {"workload: more registers than an SM gives a thread", "name: x\nbuffers:\n  - {name: a, type: u32, elements: 64}\nkernels:\n  - name: k\n    grid: 1\n    block: 64\n    program: |\n      # k\n      MOV R20, 1\n      EXIT\n", "-w bad.yaml -s sm.regs_per_thread=8",
     "bad.yaml:10:7: error: kernels[0].program: register R20 out of range (R0..R7) (sm.regs_per_thread is 8)"},
    {"workload: unknown variable", "name: x\nvars: {n: 64}\nbuffers:\n  - {name: a, type: u32, elements: \"${m}\"}\nkernels:\n  - name: k\n    grid: 1\n    block: 64\n    program: |\n      # k\n      EXIT\n", "-w bad.yaml",
     "bad.yaml:4:37: error: buffers[0].elements: unknown variable 'm' (did you mean 'n'?)"},
    {"workload: -D of an undeclared variable", "name: x\nvars: {n: 64}\nbuffers:\n  - {name: a, type: u32, elements: \"${n}\"}\nkernels:\n  - name: k\n    grid: 1\n    block: 64\n    program: |\n      # k\n      EXIT\n", "-w bad.yaml -D nn=3",
     "-D nn=3: error: workload.vars.nn: undeclared variable 'nn' (did you mean 'n'?)"},
    {"workload: -D of a variable the default workload does not declare", "", "-D n=5",
     "-D n=5: error: workload.vars.n: undeclared variable 'n' (declared: ctas, threads, items)"},
    {"workload: -D that is not a number", "", "-D threads=lots",
     "-D threads=lots: error: workload.vars.threads: wrong type (expected a number, got 'lots')"},
    {"workload: -D without a value", "", "-D threads",
     "-D threads: error: malformed variable (expected NAME=VALUE, NAME of letters, digits and '_')"},
    {"workload: -D on the traffic platform", "", "-s platform.kind=traffic -D n=1",
     "vgpu-sim: error: the traffic platform takes no workload variables (-D)"},
    {"workload: vars in a config file that are not a mapping", "workload:\n  vars: 5\n", "-c bad.yaml",
     "bad.yaml:2:9: error: workload.vars: wrong type (expected a mapping of names to values, got '5')"},
    {"gpu platform with too little memory for the workload", "dram:\n  size: 64 KiB\n", "-c bad.yaml",
     "testbenches/workloads/reduction.yaml (embedded):11:5: error: buffers[0]: buffer 'in' (131072 bytes) does not fit in GPU memory: module 0's DRAM (65536 bytes) is full (dram.size is 65536 bytes per module, 1 module(s))"},
    {"tlb: an xor index folding fewer than twice its index bits", "tlb:\n  model: timed\n  xor_bits: 6\n", "-c bad.yaml",
     "bad.yaml:3:13: error: tlb.xor_bits: the xor index of 16 sets (4 index bits) must fold at least 8 VPN bits so that every index bit combines two or more, but xor_bits is 6 (tlb.xor_bits is 6; tlb.l1.sets is 16, the default; tlb.index is xor, the default; tlb.model is timed, set at bad.yaml:2:10); set tlb.xor_bits to at least 8 (0: all), tlb.l1.sets to at most 8, tlb.index to modulo or tlb.model to ideal"},
    {"tlb: pages too large for the default L2 TLB's xor index, timed TLBs", "dram:\n  size: 16 MiB\nmemory:\n  page_bytes: 2 MiB\ntlb:\n  model: timed\n", "-c bad.yaml",
     "bad.yaml:4:15: error: memory.page_bytes: the xor index of 64 sets (6 index bits) must fold at least 12 VPN bits so that every index bit combines two or more, but a virtual page number has only 11 (memory.page_bytes is 2 MiB; tlb.l2.sets is 64, the default; tlb.index is xor, the default; tlb.model is timed, set at bad.yaml:6:10); set tlb.l2.sets to at most 32, memory.page_bytes to at most 1 MiB, tlb.index to modulo or tlb.model to ideal"},
    {"tlb: timed TLBs asked for after the page size was set", "memory:\n  page_bytes: 2 MiB\n", "-c bad.yaml -s tlb.model=timed",
     "-s tlb.model=timed: error: tlb.model: the xor index of 64 sets (6 index bits) must fold at least 12 VPN bits so that every index bit combines two or more, but a virtual page number has only 11 (tlb.model is timed; tlb.l2.sets is 64, the default; memory.page_bytes is 2 MiB, set at bad.yaml:2:15; tlb.index is xor, the default); set tlb.l2.sets to at most 32, memory.page_bytes to at most 1 MiB, tlb.index to modulo or tlb.model to ideal"},
    {"inconsistent: L1 and LLC lines of 4096 B against the default sectors (first of three)", "l1:\n  line_bytes: 4096\nllc:\n  line_bytes: 4096\n", "-c bad.yaml",
     "bad.yaml:2:15: error: l1.line_bytes: more than 64 sectors per line (l1.line_bytes is 4096; l1.sector_bytes is 32, the default); set l1.sector_bytes to at least 64 or l1.line_bytes to at most 2048"},
    {"inconsistent: shared L1s on 3 SMs per cluster", "", "-s platform.sms_per_cluster=3 -s l1.sharing=shared",
     "-s l1.sharing=shared: error: l1.sharing: shared L1s need a power-of-two number of SMs per cluster (l1.sharing is shared; platform.sms_per_cluster is 3, set at -s platform.sms_per_cluster=3); set platform.sms_per_cluster to a power of two or l1.sharing to another mode"},
    {"inconsistent: every LLC way for remote lines", "", "-s llc.remote_ways=8",
     "-s llc.remote_ways=8: error: llc.remote_ways: leaves no way of llc.ways for the module's own lines (llc.remote_ways is 8; llc.ways is 8, the default); set llc.remote_ways to at most 7 or llc.ways to at least 9"},
    {"inconsistent: more SMs than the platform allows", "", "-s platform.modules=16 -s platform.clusters_per_module=16 -s platform.sms_per_cluster=32",
     "-s platform.sms_per_cluster=32: error: platform.sms_per_cluster: 8192 SMs in total, more than 4096 (platform.sms_per_cluster is 32; platform.clusters_per_module is 16, set at -s platform.clusters_per_module=16; platform.modules is 16, set at -s platform.modules=16); make platform.modules x platform.clusters_per_module x platform.sms_per_cluster at most 4096"},
    {"inconsistent: a shader-trace write wider than a line", "", "-s shader_trace.write_bits=2048",
     "-s shader_trace.write_bits=2048: error: shader_trace.write_bits: one group write must fit in a line (shader_trace.write_bits is 2048; l1.line_bytes is 128, the default); set shader_trace.write_bits to at most 1024 or l1.line_bytes to at least 256"},
    {"inconsistent: a shader-trace region of part of a group", "", "-s shader_trace.region_bytes=100",
     "-s shader_trace.region_bytes=100: error: shader_trace.region_bytes: not a whole number of groups of shader_trace.write_bits / 8 = 64 bytes (shader_trace.region_bytes is 100 B; shader_trace.write_bits is 512, the default); set shader_trace.region_bytes to a multiple of 64 bytes"},
    {"inconsistent: an instruction cache of fewer lines than ways", "", "-s sm.icache_bytes=256",
     "-s sm.icache_bytes=256: error: sm.icache_bytes: the instruction cache holds fewer lines than it has ways (sm.icache_bytes is 256 B; sm.icache_ways is 4, the default; l1.line_bytes is 128, the default); set sm.icache_bytes to at least 512, sm.icache_ways to at most 2 or a smaller l1.line_bytes"},
    {"inconsistent: more CTA slots than warp slots, set on the command line", "", "-s sm.warp_slots=6",
     "-s sm.warp_slots=6: error: sm.warp_slots: more CTA slots than warp slots, and every CTA needs a warp (sm.warp_slots is 6; sm.cta_slots is 8, the default); set sm.cta_slots to at most 6 or sm.warp_slots to at least 8"},
    {"tlb: a set count that is not a power of two", "tlb:\n  l2:\n    sets: 48\n", "-c bad.yaml",
     "bad.yaml:3:11: error: tlb.l2.sets: sets must be a power of two (got 48)"},
    {"DRAM row shorter than a line", "dram:\n  row_bytes: 64\n", "-c bad.yaml",
     "bad.yaml:2:14: error: dram.row_bytes: a DRAM row shorter than a line (dram.row_bytes is 64; llc.line_bytes is 128, the default); set dram.row_bytes to at least 128 or llc.line_bytes to at most 64"},
    {"log.debug naming no instance", "log:\n  debug: gpu.m0.c0.sm0,gpu.m0.c0.sm9\n", "-c bad.yaml",
     "bad.yaml:2:10: error: log.debug: 'gpu.m0.c0.sm9' is the start of no instance path of this platform (they begin 'gpu.')"},
    {"log.debug naming an instance of the other platform", "", "-s platform.kind=traffic -s log.debug=gpu",
     "-s log.debug=gpu: error: log.debug: 'gpu' is the start of no instance path of this platform (they begin 'traffic.')"},
    {"output folder cannot be created", "", "-o /proc/vgpu_no_such_dir",
     "vgpu-sim: error: cannot create output folder '/proc/vgpu_no_such_dir'"},
    // Limits: work that would hang a host reference, what cannot fit the platform or finish
    // within its time limits, and configurations beyond the host's memory (docs/workloads.md,
    // "Limits"; docs/architecture.md, "Host limits").
    {"workload: a check argument that makes its reference run for minutes", "name: x\nbuffers:\n  - {name: in, type: u32, elements: 64}\n  - {name: out, type: u32, elements: 64}\nkernels:\n  - name: k\n    grid: 1\n    block: 64\n    program: |\n      # k\n      EXIT\nchecks:\n  - buffer: out\n    reference: strided_sum\n    args: {in: in, stride: 1, count: 4000000000}\n", "-w bad.yaml",
     "bad.yaml:15:38: error: checks[0].args.count: reference 'strided_sum' would do 256000000000 element operations, more than its limit of 4294975488 (2^32 + 64 per element of its 128 buffer elements)"},
    {"workload: a loop count typo in a check", "name: x\nbuffers:\n  - {name: in, type: u32, elements: 64}\n  - {name: out, type: u32, elements: 64}\nkernels:\n  - name: k\n    grid: 1\n    block: 64\n    program: |\n      # k\n      EXIT\nchecks:\n  - buffer: out\n    reference: compute_bound\n    args:\n      in: in\n      iterations: 4294967295\n", "-w bad.yaml",
     "bad.yaml:17:19: error: checks[0].args.iterations: reference 'compute_bound' would do 274877906880 element operations, more than its limit of 4294975488 (2^32 + 64 per element of its 128 buffer elements)"},
    {"workload: read_only that is not true or false", "name: x\nbuffers:\n  - {name: a, type: u32, elements: 64, read_only: maybe}\nkernels:\n  - name: k\n    grid: 1\n    block: 64\n    program: |\n      # k\n      EXIT\n", "-w bad.yaml",
     "bad.yaml:3:51: error: buffers[0].read_only: invalid choice (expected one of true|false, got 'maybe')"},
    {"workload: buffers that do not fit the DRAM", "name: x\nbuffers:\n  - {name: big, type: u32, elements: 4194304}\nkernels:\n  - name: k\n    grid: 1\n    block: 64\n    program: |\n      # k\n      EXIT\n", "-w bad.yaml -s dram.size=\"16 MiB\"",
     "bad.yaml:3:5: error: buffers[0]: buffer 'big' (16777216 bytes) does not fit in GPU memory: module 0's DRAM (16777216 bytes) is full (dram.size is 16777216 bytes per module, 1 module(s))"},
    {"workload: a phase with more kernels than CP queues", "name: x\nbuffers:\n  - {name: a, type: u32, elements: 64}\nkernels:\n  - name: k1\n    grid: 1\n    block: 64\n    sms: {first: 0, count: 4}\n    program: |\n      # k\n      EXIT\n  - name: k2\n    grid: 1\n    block: 64\n    sms: {first: 4, count: 4}\n    program: |\n      # k\n      EXIT\nschedule:\n  - [k1, k2]\n", "-w bad.yaml -s cp.queues=1",
     "bad.yaml:20:5: error: schedule[0]: the phase runs 2 kernels side by side but the CP has 1 queue(s) (cp.queues)"},
    {"workload: a loop with times out of range", "name: x\nbuffers:\n  - {name: f, type: u8, elements: 4}\nkernels:\n  - {name: k, grid: 1, block: 32, program: EXIT}\nschedule:\n  - {repeat: [k], times: 0}\n", "-w bad.yaml",
     "bad.yaml:7:26: error: schedule[0].times: value out of range (expected 1..1000000, got 0)"},
    {"workload: a loop with both times and until", "name: x\nbuffers:\n  - {name: f, type: u8, elements: 4}\nkernels:\n  - {name: k, grid: 1, block: 32, program: EXIT}\nschedule:\n  - {repeat: [k], times: 2, until: {buffer: f, index: 0, equals: 1}, max: 3}\n", "-w bad.yaml",
     "bad.yaml:7:36: error: schedule[0].until: a loop has either times or until, not both"},
    {"workload: a loop that waits for an undefined buffer", "name: x\nbuffers:\n  - {name: f, type: u8, elements: 4}\nkernels:\n  - {name: k, grid: 1, block: 32, program: EXIT}\nschedule:\n  - {repeat: [k], until: {buffer: g, index: 0, equals: 1}, max: 3}\n", "-w bad.yaml",
     "bad.yaml:7:35: error: schedule[0].until.buffer: undefined buffer 'g' (did you mean 'f'?)"},
    {"workload: a loop that waits for an element beyond its buffer", "name: x\nbuffers:\n  - {name: f, type: u8, elements: 4}\nkernels:\n  - {name: k, grid: 1, block: 32, program: EXIT}\nschedule:\n  - {repeat: [k], until: {buffer: f, index: 4, equals: 1}, max: 3}\n", "-w bad.yaml",
     "bad.yaml:7:45: error: schedule[0].until.index: value out of range (expected 0..3, got 4)"},
    {"workload: a loop that waits for a value its buffer cannot hold", "name: x\nbuffers:\n  - {name: f, type: u8, elements: 4}\nkernels:\n  - {name: k, grid: 1, block: 32, program: EXIT}\nschedule:\n  - {repeat: [k], until: {buffer: f, index: 0, equals: 256}, max: 3}\n", "-w bad.yaml",
     "bad.yaml:7:56: error: schedule[0].until.equals: value out of range (expected 0..255 for a u8 buffer, got 256)"},
    {"workload: loops that nest", "name: x\nbuffers:\n  - {name: f, type: u8, elements: 4}\nkernels:\n  - {name: k, grid: 1, block: 32, program: EXIT}\nschedule:\n  - {repeat: [{repeat: [k], times: 2}], times: 2}\n", "-w bad.yaml",
     "bad.yaml:7:15: error: schedule[0].repeat[0]: loops do not nest (a loop's body is a list of phases)"},
    {"workload: a grid that cannot finish within platform.max_time", "name: x\nbuffers:\n  - {name: a, type: u32, elements: 64}\nkernels:\n  - name: k\n    grid: [65535, 65535]\n    block: 1\n    program: |\n      # one instruction per CTA\n      EXIT\n", "-w bad.yaml",
     "bad.yaml:5:5: error: kernels[0].grid: 4294836225 CTAs of 1 warp(s) on 8 SMs take at least 5.37 s of simulated time (an SM starts one CTA per cp.cta_dispatch_interval = 10 cycles and issues one warp-instruction per cycle), more than platform.max_time (10 ms)"},
    {"workload: a grid that cannot finish within host.kernel_timeout", "name: x\nbuffers:\n  - {name: a, type: u32, elements: 64}\nkernels:\n  - name: k\n    grid: [65535, 65535]\n    block: 1\n    program: |\n      # one instruction per CTA\n      EXIT\n", "-w bad.yaml -s host.kernel_timeout=\"1 ms\"",
     "bad.yaml:5:5: error: kernels[0].grid: 4294836225 CTAs of 1 warp(s) on 8 SMs take at least 5.37 s of simulated time (an SM starts one CTA per cp.cta_dispatch_interval = 10 cycles and issues one warp-instruction per cycle), more than host.kernel_timeout (1 ms)"},
    {"caches beyond platform.max_host_memory", "l1:\n  sets: 65536\n  ways: 64\n", "-c bad.yaml",
     "bad.yaml:2:9: error: l1.sets: the configuration could need about 6.27 GiB of host memory, more than platform.max_host_memory (4 GiB, the default): the L1 data arrays take 6.25 GiB (8 L1s of 65536 sets x 64 ways x 128 B); lower l1.sets or raise platform.max_host_memory"},
    {"LLC slices beyond platform.max_host_memory", "llc:\n  sets: 1048576\n", "-c bad.yaml",
     "bad.yaml:2:9: error: llc.sets: the configuration could need about 6.27 GiB of host memory, more than platform.max_host_memory (4 GiB, the default): the LLC data arrays take 6.25 GiB (4 slices of 1048576 sets x 8 ways x 128 B); lower llc.sets or raise platform.max_host_memory"},
};
// clang-format on
} // namespace

TEST_CASE("every bad input gives its exact message and exit code 2")
{
    cli_runner cli("bad");
    for (const auto& c : catalogue) {
        INFO("case: " << c.what);
        if (!c.yaml.empty())
            cli.write("bad.yaml", std::string(c.yaml));
        auto r = cli.run(c.args);
        CHECK(r.code == 2);
        std::string first = r.err.substr(0, r.err.find('\n'));
        CHECK(first == c.expected);
        CHECK(r.err.find("Segmentation") == std::string::npos);
        CHECK_FALSE(cli.exists("out/stats.json"));
    }
    REQUIRE(sizeof catalogue / sizeof catalogue[0] >= 30);
}

TEST_CASE("all errors of a run are reported together, then a count")
{
    cli_runner cli("many");
    cli.write("bad.yaml", "platform:\n  modules: 0\n  sms_per_cluster: x\n");
    auto r = cli.run("-c bad.yaml -s dram.dmi=maybe");
    CHECK(r.code == 2);
    CHECK(r.err ==
          "bad.yaml:2:12: error: platform.modules: value out of range (expected 1..16, got 0)\n"
          "bad.yaml:3:20: error: platform.sms_per_cluster: wrong type (expected an unsigned "
          "integer, got 'x')\n"
          "-s dram.dmi=maybe: error: dram.dmi: wrong type (expected a boolean (true or false), "
          "got 'maybe')\n"
          "vgpu-sim: 3 configuration error(s); nothing was simulated\n");
}

TEST_CASE("an -s key path of 20000 names is an error at once")
{
    cli_runner cli("deep_key");
    std::string path = "a";
    for (int i = 1; i < 20000; ++i)
        path += ".a";
    const auto start = std::chrono::steady_clock::now();
    auto r = cli.run("-s " + path + "=1");
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    CHECK(r.code == 2);
    CHECK(r.err.substr(0, r.err.find('\n')) ==
          "-s " + path + "=1: error: malformed key path (more than 64 names)");
    CHECK(seconds < 5);
}

TEST_CASE("a program longer than the SM's program limit is refused when the workload is read")
{
    // 65536 instructions (1 MiB) are the most an SM fetches (docs/workloads.md, "Limits").
    std::string text = "name: x\nbuffers:\n  - {name: a, type: u32, elements: 64}\nkernels:\n"
                       "  - name: k\n    grid: 1\n    block: 64\n    program: |\n      # k\n";
    for (int i = 0; i < 65536; ++i)
        text += "      NOP\n";
    text += "      EXIT\n";
    cli_runner cli("long_program");
    cli.write("bad.yaml", text);
    auto r = cli.run("-w bad.yaml");
    CHECK(r.code == 2);
    CHECK(r.err.substr(0, r.err.find('\n')) ==
          "bad.yaml:9:7: error: kernels[0].program: kernel 'k' has 65537 instructions but an SM "
          "loads programs of at most 65536 (1048576 bytes)");
    // One instruction fewer is accepted and runs.
    text.erase(text.rfind("      NOP\n"), 10);
    cli.write("ok.yaml", text);
    auto ok = cli.run("-w ok.yaml");
    INFO(ok.err);
    CHECK(ok.code == 0);
}

TEST_CASE("log.debug naming instances turns on their debug lines and no others")
{
    cli_runner cli("log_debug");
    // "gpu.cp" is a prefix of the CP's path only; a later entry of the list counts too.
    auto r = cli.run("-s log.debug=gpu.cp,gpu.m0.c1.sm7");
    CHECK(r.code == 0);
    CHECK(r.err.find(" debug gpu.cp: ") != std::string::npos);
    CHECK(r.err.find(" debug gpu.m0.c0") == std::string::npos);
    // Without it the same run prints no debug line.
    auto quiet = cli.run("");
    CHECK(quiet.code == 0);
    CHECK(quiet.err.find(" debug ") == std::string::npos);
}

TEST_CASE("extreme clock ratios run to the right result in both timing modes")
{
    cli_runner cli("clocks");
    // The ends of the clock ranges against each other (ratios of 10^6). A slow NoC under fast
    // SMs makes a CTA wait 10^6 core cycles per NoC cycle, so the CTA watchdog (core cycles)
    // is raised for it.
    const char* cases[] = {
        "-s platform.clocks.core=\"1 ps\" -s platform.clocks.noc=\"1000 ns\" "
        "-s sm.max_cta_cycles=1000000000000",
        "-s platform.clocks.core=\"1000 ns\" -s platform.clocks.noc=\"1 ps\" "
        "-s platform.clocks.dram=\"1 ps\"",
        "-s platform.clocks.core=\"1 ps\" -s platform.clocks.noc=\"1 ps\" "
        "-s platform.clocks.dram=\"1000 ns\" -s sm.max_cta_cycles=1000000000000",
    };
    for (const char* clocks : cases)
        for (const char* mode : {"fast", "accurate"}) {
            INFO(clocks << " in " << mode << " mode");
            auto r = cli.run(std::string(clocks) + " -s platform.timing.mode=" + mode);
            INFO(r.err);
            CHECK(r.code == 0);
            CHECK(r.out.find("verdict: pass") != std::string::npos);
        }
    // With the default watchdog the first ratio stops for the real reason, named.
    auto r = cli.run("-s platform.clocks.core=\"1 ps\" -s platform.clocks.noc=\"1000 ns\"");
    CHECK(r.code == 1);
    CHECK(r.err.find("CTA ran more than 50000000 cycles (sm.max_cta_cycles)") != std::string::npos);
    CHECK(r.err.find("deadlock") == std::string::npos);
}

TEST_CASE("a kernel cut off by platform.max_time records no end and no kernel time")
{
    // Once printed and recorded as 1.84467e+16 ns (an unsigned wrap of end - start).
    cli_runner cli("cut_off");
    cli.write("spin.yaml", "name: spin\nbuffers:\n  - {name: a, type: u32, elements: 64}\n"
                           "kernels:\n  - name: spin\n    grid: 4\n    block: 32\n"
                           "    program: |\n      top: BRA top\n");
    auto r = cli.run("-w spin.yaml -s \"platform.max_time=5 us\"");
    CHECK(r.code == 1);
    CHECK(r.out.find("kernel spin (phase 0, queue 0, 8 SMs): did not complete") !=
          std::string::npos);
    CHECK(r.out.find("kernel time 0.0 ns") != std::string::npos);
    CHECK(r.out.find("e+") == std::string::npos);
    const auto j = nlohmann::json::parse(cli.read("out/stats.json"));
    const auto& k = j["kernels"][0];
    CHECK(k["completed"] == false);
    CHECK(k["end_ns"].is_null());
    CHECK(j["stats"]["gpu.host.kernel_time.spin.samples"] == 0);
    CHECK(j["stats"]["gpu.kernel_time"] == 0);
}

TEST_CASE("an alias bomb is refused at once, many values written out and anchors reused are read")
{
    cli_runner cli("alias_bomb");
    // 2^41 nodes through aliases under a key the workload reader substitutes variables in.
    std::string bomb = "name: x\ndescription:\n  - &l0 [lol, lol]\n";
    for (int i = 1; i <= 40; ++i)
        bomb += "  - &l" + std::to_string(i) + " [*l" + std::to_string(i - 1) + ", *l" +
                std::to_string(i - 1) + "]\n";
    cli.write("bomb.yaml", bomb);
    for (const char* option : {"-w", "-c"}) {
        INFO(option);
        const auto start = std::chrono::steady_clock::now();
        auto r = cli.run(std::string(option) + " bomb.yaml");
        const double seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        CHECK(r.code == 2);
        // Level 17's second alias passes 10^6 nodes (see test_yaml_input.cpp).
        CHECK(r.err.substr(0, r.err.find('\n')) ==
              "bomb.yaml:20:17: error: aliases reach more than 1000000 nodes (the limit of nodes "
              "reached through aliases; write the values out)");
        CHECK(seconds < 1.0);
    }
    // 100,000 values written out, and one program and one size named by both kernels.
    std::string ok = "name: many\nbuffers:\n  - name: a\n    type: u32\n    elements: &n 100000\n"
                     "    init:\n      values: [";
    for (int i = 0; i < 100000; ++i)
        ok += (i ? ", " : "") + std::to_string(i);
    ok += "]\n  - {name: b, type: u32, elements: *n}\nkernels:\n"
          "  - name: k1\n    grid: 1\n    block: 64\n    program: &p |\n      # k\n      EXIT\n"
          "  - name: k2\n    grid: 1\n    block: 64\n    program: *p\n"
          "schedule: [[k1], [k2]]\n";
    cli.write("many.yaml", ok);
    auto r = cli.run("-w many.yaml");
    INFO(r.err);
    CHECK(r.code == 0);
}

TEST_CASE("cross-field checks: a geometry that only timed TLBs use runs with ideal ones")
{
    cli_runner cli("ideal_tlb");
    // 2 MiB pages leave 11 VPN bits, fewer than the default L2 TLB's xor index folds (12); the
    // default tlb.model ideal uses no TLB geometry, so the run simply runs.
    cli.write("pages.yaml", "dram:\n  size: 16 MiB\nmemory:\n  page_bytes: 2 MiB\n");
    auto r = cli.run("-c pages.yaml");
    INFO(r.err);
    CHECK(r.code == 0);
    CHECK(r.out.find("verdict: pass") != std::string::npos);
    // Set counts are still checked: a power of two whatever the model.
    auto bad = cli.run("-c pages.yaml -s tlb.l1.sets=3");
    CHECK(bad.code == 2);
    CHECK(bad.err.substr(0, bad.err.find('\n')) ==
          "-s tlb.l1.sets=3: error: tlb.l1.sets: sets must be a power of two (got 3)");
}

TEST_CASE("cross-field checks name the keys the user set, never the defaults' place")
{
    cli_runner cli("cross_field");
    cli.write("lines.yaml", "l1:\n  line_bytes: 4096\nllc:\n  line_bytes: 4096\n");
    auto r = cli.run("-c lines.yaml");
    CHECK(r.code == 2);
    CHECK(r.err ==
          "lines.yaml:2:15: error: l1.line_bytes: more than 64 sectors per line (l1.line_bytes is "
          "4096; l1.sector_bytes is 32, the default); set l1.sector_bytes to at least 64 or "
          "l1.line_bytes to at most 2048\n"
          "lines.yaml:4:15: error: llc.line_bytes: more than 64 sectors per line (llc.line_bytes "
          "is 4096; llc.sector_bytes is 32, the default); set llc.sector_bytes to at least 64 or "
          "llc.line_bytes to at most 2048\n"
          "lines.yaml:4:15: error: llc.line_bytes: a DRAM row shorter than a line (llc.line_bytes "
          "is 4096; dram.row_bytes is 1024, the default); set dram.row_bytes to at least 4096 or "
          "llc.line_bytes to at most 1024\n"
          "vgpu-sim: 3 configuration error(s); nothing was simulated\n");
    CHECK(r.err.find("(default configuration)") == std::string::npos);
    // Resolved as the messages say, the same lines run.
    auto ok = cli.run("-c lines.yaml -s l1.sector_bytes=64 -s llc.sector_bytes=64 "
                      "-s dram.row_bytes=4096");
    INFO(ok.err);
    CHECK(ok.code == 0);
}
