"""scripts/coverage: merge and report the testbenches' functional coverage and the verilated
RTL's code coverage (docs/coverage.md). Standard library only.

  merge PATH... -o MERGED.json     PATH: a coverage.json of a testbench run (test/support/
                                   coverage.h), a merged file, a verilator coverage .dat file,
                                   or a folder holding any of them (not recursive)
  report PATH... [--html OUT.html] [--fail-on-holes]
                                   the holes (declared bins never hit) per block and point, the
                                   code coverage per RTL file; --fail-on-holes: exit 1 if any

Merging sums the hits of each (block, point, bin) over runs and keeps the seeds; a bin declared
by one run and not another is still a bin. Exit status: 0, 1 (holes with --fail-on-holes), 2 bad
input (a file that is neither, named with the problem).
"""
import argparse
import html
import json
import os
import re
import sys


class InputError(Exception):
    pass


def empty():
    return {"functional": {}, "code": {}}


def add_functional(merged, doc, path):
    try:
        block, points = doc["block"], doc["points"]
        seeds = doc.get("seeds", [doc.get("seed")])
    except (KeyError, TypeError):
        raise InputError(f"{path}: not a coverage.json (block, seed, points)")
    b = merged["functional"].setdefault(block, {"seeds": [], "points": {}})
    b["seeds"] = sorted(set(b["seeds"]) | {s for s in seeds if s is not None})
    for name, bins in points.items():
        p = b["points"].setdefault(name, [])
        index = {e["bin"]: e for e in p}
        for e in bins:
            if not isinstance(e, dict) or "bin" not in e or not isinstance(e.get("hits"), int):
                raise InputError(f"{path}: point '{name}': a bin is {{bin, hits}}")
            if e["bin"] in index:
                index[e["bin"]]["hits"] += e["hits"]
            else:
                p.append({"bin": e["bin"], "hits": e["hits"]})
                index[e["bin"]] = p[-1]


# A verilator coverage.dat line: C '<\x01key\x02value...>' count
DAT_LINE = re.compile(r"^C '(.*)' (\d+)$")


def add_dat(merged, path):
    with open(path, encoding="utf-8", errors="replace") as f:
        lines = f.read().splitlines()
    if not lines or not lines[0].startswith("# SystemC::Coverage"):
        raise InputError(f"{path}: not a verilator coverage file (no '# SystemC::Coverage' header)")
    for line in lines[1:]:
        m = DAT_LINE.match(line)
        if not m:
            continue
        fields = dict(kv.split("\x02", 1) for kv in m.group(1).split("\x01") if "\x02" in kv)
        file = os.path.basename(fields.get("f", "?"))
        kind = fields.get("page", "v_?").split("/")[0]
        key = f"{fields.get('l', '?')}:{fields.get('n', '')}:{fields.get('h', '')}:{fields.get('o', '')}"
        c = merged["code"].setdefault(file, {}).setdefault(kind, {})
        c[key] = c.get(key, 0) + int(m.group(2))


def load(paths):
    merged = empty()
    files = []
    for p in paths:
        if os.path.isdir(p):
            files += sorted(os.path.join(p, n) for n in os.listdir(p)
                            if n.endswith(".json") or n.endswith(".dat"))
        elif os.path.isfile(p):
            files.append(p)
        else:
            raise InputError(f"{p}: no such file or folder")
    for f in files:
        if f.endswith(".dat"):
            add_dat(merged, f)
            continue
        try:
            with open(f, encoding="utf-8") as fh:
                doc = json.load(fh)
        except ValueError as e:
            raise InputError(f"{f}: not JSON: {e}")
        if isinstance(doc, dict) and "functional" in doc:  # a merged file
            for block, b in doc["functional"].items():
                add_functional(merged, {"block": block, "seeds": b["seeds"], "points": b["points"]}, f)
            for file, kinds in doc.get("code", {}).items():
                for kind, keys in kinds.items():
                    c = merged["code"].setdefault(file, {}).setdefault(kind, {})
                    for k, n in keys.items():
                        c[k] = c.get(k, 0) + n
        else:
            add_functional(merged, doc, f)
    return merged


def summary(merged):
    """[(block, point, hit bins, bins, holes)] and [(file, kind, hit, total)]."""
    func = []
    for block in sorted(merged["functional"]):
        for name, bins in sorted(merged["functional"][block]["points"].items()):
            holes = [e["bin"] for e in bins if e["hits"] == 0]
            func.append((block, name, len(bins) - len(holes), len(bins), holes))
    code = []
    for file in sorted(merged["code"]):
        for kind, keys in sorted(merged["code"][file].items()):
            code.append((file, kind, sum(1 for n in keys.values() if n), len(keys)))
    return func, code


def report_text(merged):
    func, code = summary(merged)
    out = []
    for block in sorted(merged["functional"]):
        rows = [r for r in func if r[0] == block]
        hit, total = sum(r[2] for r in rows), sum(r[3] for r in rows)
        seeds = merged["functional"][block]["seeds"]
        out.append(f"{block}: {hit} of {total} bins hit ({100 * hit / total if total else 100:.1f} %), "
                   f"{len(seeds)} seed(s)")
        for _, name, h, t, holes in rows:
            line = f"  {name}: {h}/{t}"
            if holes:
                line += "  holes: " + ", ".join(holes)
            out.append(line)
    if code:
        out.append("RTL code coverage (verilator --coverage):")
        for file, kind, h, t in code:
            out.append(f"  {file} {kind[2:] if kind.startswith('v_') else kind}: {h}/{t} "
                       f"({100 * h / t if t else 100:.1f} %)")
    holes = sum(len(r[4]) for r in func)
    out.append(f"coverage: {holes} hole(s) in {len(func)} cover point(s)")
    return "\n".join(out) + "\n", holes


def report_html(merged):
    func, code = summary(merged)
    esc = html.escape
    rows = []
    for block, name, h, t, holes in func:
        bins = merged["functional"][block]["points"][name]
        cells = " ".join(f'<span class="{"hole" if e["hits"] == 0 else "hit"}">{esc(e["bin"])}: '
                         f'{e["hits"]}</span>' for e in bins)
        rows.append(f"<tr><td>{esc(block)}</td><td>{esc(name)}</td><td>{h}/{t}</td><td>{cells}</td></tr>")
    code_rows = "".join(f"<tr><td>{esc(f)}</td><td>{esc(k)}</td><td>{h}/{t}</td></tr>" for f, k, h, t in code)
    return f"""<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>vgpu coverage</title>
<style>body{{font-family:sans-serif}} td,th{{border:1px solid #ccc;padding:2px 6px}}
table{{border-collapse:collapse}} .hole{{background:#f8c0c0}} .hit{{background:#c8f0c8}}
span{{display:inline-block;margin:1px;padding:0 3px}}</style></head><body>
<h1>Functional coverage</h1>
<table id="functional"><tr><th>block</th><th>point</th><th>bins hit</th><th>bins (hits)</th></tr>
{"".join(rows)}</table>
<h1>RTL code coverage</h1>
<table id="code"><tr><th>file</th><th>kind</th><th>points hit</th></tr>{code_rows}</table>
</body></html>
"""


def main(argv=None):
    ap = argparse.ArgumentParser(prog="scripts/coverage", description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="command", required=True)
    m = sub.add_parser("merge")
    m.add_argument("paths", nargs="+")
    m.add_argument("-o", "--output", required=True)
    r = sub.add_parser("report")
    r.add_argument("paths", nargs="+")
    r.add_argument("--html")
    r.add_argument("--fail-on-holes", action="store_true")
    a = ap.parse_args(argv)
    try:
        merged = load(a.paths)
    except InputError as e:
        print(f"coverage: error: {e}", file=sys.stderr)
        return 2
    try:
        if a.command == "merge":
            with open(a.output, "w", encoding="utf-8") as f:
                json.dump(merged, f, indent=1, sort_keys=True)
            func, _ = summary(merged)
            print(f"coverage: {a.output}: {len(merged['functional'])} block(s), {len(func)} cover "
                  f"point(s), {len(merged['code'])} RTL file(s)")
            return 0
        text, holes = report_text(merged)
        sys.stdout.write(text)
        if a.html:
            with open(a.html, "w", encoding="utf-8") as f:
                f.write(report_html(merged))
        return 1 if holes and a.fail_on_holes else 0
    except OSError as e:
        print(f"coverage: error: cannot write {e.filename}: {e.strerror}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
