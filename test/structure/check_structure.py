#!/usr/bin/env python3
# The repository's structure rules (docs/architecture.md, "Structure rules"), checked on every
# test run: file sizes, include arrows between folders, and block code kept in its folder.
# Usage: check_structure.py REPO_ROOT   (exit 1 naming every broken rule)
import os
import re
import sys

ROOT = sys.argv[1] if len(sys.argv) > 1 else os.getcwd()
SOURCE_TREES = ("models", "platforms", "tlm_bus")
MAX_LINES = 1000
INCLUDE = re.compile(r'^\s*#\s*include\s+([<"])([^">]+)[">]', re.M)
problems = []


def sources():
    for tree in SOURCE_TREES:
        for folder, _, files in os.walk(os.path.join(ROOT, tree)):
            for f in sorted(files):
                if f.endswith((".h", ".cpp")):
                    path = os.path.join(folder, f)
                    yield os.path.relpath(path, ROOT), open(path, encoding="utf-8").read()


def unit_of(path):
    """The folder an include arrow is drawn between: a block's shell (models/<b>), a block's
    core (models/<b>/core, a library of its own), tlm_bus or platforms."""
    parts = path.split("/")
    if parts[0] != "models":
        return parts[0]
    return "/".join(parts[:3]) if len(parts) > 3 and parts[2] == "core" else "/".join(parts[:2])


graph = {}
# Components: a header and its .cpp are one; arrows between components must not loop either.
components = {}
for path, text in sources():
    comp = os.path.splitext(path)[0]
    for kind, inc in INCLUDE.findall(text):
        if kind == '"' and inc.split("/")[0] in SOURCE_TREES:
            dst = os.path.splitext(inc)[0]
            if dst != comp:
                components.setdefault(comp, {}).setdefault(dst, path)
for path, text in sources():
    lines = text.count("\n")
    if lines > MAX_LINES:
        problems.append(f"{path}: {lines} lines, more than {MAX_LINES}")
    src = unit_of(path)
    is_core = "/core/" in path
    for kind, inc in INCLUDE.findall(text):
        if kind == "<":
            if is_core and inc.split("/")[0] in ("systemc", "tlm", "tlm_utils", "systemc.h"):
                problems.append(f"{path}: a core includes SystemC (<{inc}>)")
            continue
        top = inc.split("/")[0]
        if top not in ("models", "platforms", "tlm_bus", "test"):
            continue  # a header beside the file
        if top == "test" or (top == "platforms" and src != "platforms"):
            problems.append(f"{path}: includes {inc} (nothing depends on {top}/)")
        if src == "tlm_bus" and top != "tlm_bus":
            problems.append(f"{path}: includes {inc} (tlm_bus/ depends on nothing above it)")
        if is_core and top == "models":
            dst_parts = inc.split("/")
            if not (dst_parts[1] == "common" or inc.startswith(os.path.dirname(path) + "/")
                    or (len(dst_parts) > 3 and dst_parts[2] == "core")):
                problems.append(f"{path}: a core includes a shell ({inc})")
        dst = unit_of(inc)
        if dst != src:
            graph.setdefault(src, {}).setdefault(dst, path)

# Loops: any cycle in the block-level or the component-level include graph.
def find_loops(g, what):
    state = {}

    def visit(node, stack):
        state[node] = 1
        for nxt in sorted(g.get(node, {})):
            if state.get(nxt) == 1:
                cycle = stack[stack.index(nxt):] + [nxt]
                hops = ", ".join(f"{a} -> {b} ({g[a][b]})" for a, b in zip(cycle, cycle[1:]))
                problems.append(f"{what} loop: {hops}")
            elif nxt not in state:
                visit(nxt, stack + [nxt])
        state[node] = 2

    for n in sorted(g):
        if n not in state:
            visit(n, [n])


find_loops(graph, "folder")
find_loops(components, "component")


def read(rel):
    with open(os.path.join(ROOT, rel), encoding="utf-8") as f:
        return f.read()


def shell_files(folder):
    d = os.path.join(ROOT, folder)
    return sorted(f"{folder}/{f}" for f in os.listdir(d) if f.endswith((".h", ".cpp")))


# Block code stays in its folder (issue 33's targets).
cdl_lines = [(p, i + 1) for p in shell_files("models/sm")
             for i, l in enumerate(read(p).split("\n")) if "cdl" in l.lower()]
if len(cdl_lines) > 12:
    where = ", ".join(f"{p}:{n}" for p, n in cdl_lines[:5])
    problems.append(f"models/sm mentions CDL on {len(cdl_lines)} lines, at most 12 "
                    f"(the hand-off to the unit seam): {where} ...")
for p in shell_files("models/l1"):
    if p.endswith(".cpp") and re.search(r"adaptive|borrow", read(p), re.I):
        problems.append(f"{p}: adaptive L1 sharing belongs in models/l1_share/")
if "llc_org" in read("platforms/gpu_platform.cpp"):
    problems.append("platforms/gpu_platform.cpp: an LLC route (llc_org) belongs in models/llc/")
# The hosts name no block (issue 33: a block joins through at most 5 files outside its folder):
# the platform's structure (gpu_platform.*, gpu_units.*), the SM and the CP reach the blocks
# through their seams only; the blocks are named by the block table (platforms/attach/).
BLOCK_NAMES = {
    "tlb": r"models/tlb/|\btlb::|cluster_tlb|tlb_stage|cfg\.tlb\b",
    "cdl": r"models/cdl/|\bcdl::|cbv_table|cfg\.cdl\b",
    "shader_trace": r"models/shader_trace/|\bshader_trace::|trace_unit|trace_port|cfg\.shader_trace\b",
    "l1_share": r"models/l1_share/|\bl1_share::|l1_sharing|\.sharing\b",
    "llc switcher": r"llc_switch|switch_reg|private_route",
}
hosts = ["platforms/gpu_platform.cpp", "platforms/gpu_platform.h", "platforms/gpu_units.cpp",
         "platforms/gpu_units.h"] + shell_files("models/sm") + shell_files("models/cp")
for p in hosts:
    code = re.sub(r"//[^\n]*", "", read(p))  # comments may point at a block's docs
    for block, pattern in BLOCK_NAMES.items():
        m = re.search(pattern, code)
        if m:
            problems.append(f"{p}: names the {block} block ('{m.group(0)}'); reach it through "
                            "a seam, or join it in platforms/attach/")
sm_lines = read("models/sm/sm.cpp").count("\n")
if sm_lines > 900:
    problems.append(f"models/sm/sm.cpp: {sm_lines} lines, at most 900")

for p in problems:
    print(p)
print(f"structure: {len(problems)} problem(s)")
sys.exit(1 if problems else 0)
