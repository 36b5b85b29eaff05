"""A sweep spec: loading with line:column marks, validation, and its points.

A spec (YAML) names the sweep, the -c files, the workloads and the axes (docs/sweeps.md):

    name: l1-size
    configs: [platforms/default.yaml]
    workloads: [{file: testbenches/cuda/gemv.yaml, vars: {n: 512}}]
    grid: {l1.sets: [32, 64], vars.ctas: [16, 32]}   # cartesian product
    zip: {l1.ways: [2, 4], l1.mshrs: [8, 16]}        # advanced together
    points: [{sm.warps: 16}, {sm.warps: 32}]         # explicit points
    seeds: [1, 2]
    limits: {time_s: 600, memory_mb: 4096}
    metrics: [gpu.l1.*, gpu.dram_bw_util]

The points are grid x zip rows x points x workloads x seeds, in that nesting (the last varies
fastest). Keys and values are checked by vgpu-sim itself: key paths against --list-params,
values against --dump-config (configuration keys) and --check (workload variables), never
against a second copy of the schema. Every problem is reported as SPEC:LINE:COL: error: ...
"""
import difflib
import hashlib
import itertools
import json
import math
import os
import re

import yaml

TOP_KEYS = ("name", "description", "configs", "workloads", "grid", "zip", "points", "seeds",
            "limits", "metrics")
LIMIT_KEYS = ("time_s", "memory_mb")
MAX_POINTS_WITHOUT_YES = 10000


class SpecError(Exception):
    """Problems of a spec, each already located; str() is the report."""

    def __init__(self, messages):
        super().__init__("\n".join(messages))
        self.messages = messages


class _Errors:
    def __init__(self, path):
        self.path = path
        self.messages = []

    def add(self, node, key, problem):
        m = node.start_mark if node is not None else None
        where = f"{self.path}:{m.line + 1}:{m.column + 1}" if m else self.path
        self.messages.append(f"{where}: error: {key}: {problem}" if key else f"{where}: error: {problem}")

    def raise_if_any(self):
        if self.messages:
            raise SpecError(self.messages)


def did_you_mean(word, choices):
    close = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.6)
    return f" (did you mean '{close[0]}'?)" if close else ""


def _value(node):
    return yaml.SafeLoader("").construct_object(node, deep=True)


def _mapping(node):
    """(key string, key node, value node) of a mapping node, in order."""
    return [(str(_value(k)), k, v) for k, v in node.value]


def option_text(key, text):
    """How vgpu-sim names a setting in its messages: -D NAME=VALUE or -s KEY=VALUE."""
    return f"-D {key[5:]}={text}" if key.startswith("vars.") else f"-s {key}={text}"


def arg_text(value):
    """A spec value as vgpu-sim's -s / -D take it."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (list, dict)):
        return json.dumps(value)
    return str(value)


class Spec:
    """A loaded, structurally checked spec. Paths are resolved against root."""

    def __init__(self, path, root):
        self.path = path
        self.root = root
        self.errors = _Errors(path)
        try:
            with open(path, encoding="utf-8") as f:
                self.text = f.read()
        except OSError as e:
            raise SpecError([f"{path}: error: cannot read the spec: {e.strerror}"])
        try:
            doc = yaml.compose(self.text, Loader=yaml.SafeLoader)
        except yaml.YAMLError as e:
            m = getattr(e, "problem_mark", None)
            where = f"{path}:{m.line + 1}:{m.column + 1}" if m else path
            raise SpecError([f"{where}: error: not valid YAML: {getattr(e, 'problem', e)}"])
        if not isinstance(doc, yaml.MappingNode):
            raise SpecError([f"{path}:1:1: error: a spec is a mapping (name, configs, workloads, "
                             "grid, zip, points, seeds, limits, metrics)"])
        self.doc = doc
        self._read(doc)
        self.errors.raise_if_any()

    # ---- structure -----------------------------------------------------------------------------
    def _read(self, doc):
        err = self.errors
        self.name, self.configs, self.workloads = None, [], []
        self.grid, self.zip, self.points = [], [], []   # [(KEY, key node, [(value, node)])]
        self.point_rows = []                           # [[(KEY, key node, value, value node)]]
        self.seeds, self.limits, self.metrics = [None], {}, []
        seen = {}
        self.sections = {}                             # top-level key -> its key node
        for key, knode, vnode in _mapping(doc):
            if key not in TOP_KEYS:
                err.add(knode, key, "unknown spec key" + did_you_mean(key, TOP_KEYS) +
                        f"; a spec has {', '.join(TOP_KEYS)}")
                continue
            if key in seen:
                err.add(knode, key, "given twice")
            seen[key] = vnode
            self.sections[key] = knode
            getattr(self, "_read_" + key)(key, vnode)
        if "name" not in seen:
            err.add(doc, "name", "missing: every spec has a name")
        if "workloads" not in seen:
            err.add(doc, "workloads", "missing: a spec runs at least one workload")
        self._check_axis_keys_unique()

    def _read_name(self, key, node):
        v = _value(node)
        if not isinstance(v, str) or not v.strip():
            self.errors.add(node, key, "a non-empty string")
        self.name = v

    def _read_description(self, key, node):
        pass

    def _file(self, node, key, what):
        v = _value(node)
        if not isinstance(v, str) or not v:
            self.errors.add(node, key, f"a {what} file path")
            return None
        p = v if os.path.isabs(v) else os.path.join(self.root, v)
        if not os.path.isfile(p):
            self.errors.add(node, key, f"no {what} file '{v}' (paths are relative to {self.root})")
            return None
        return v, os.path.abspath(p)

    def _list(self, key, node, nonempty=True):
        if not isinstance(node, yaml.SequenceNode):
            self.errors.add(node, key, "a list")
            return []
        if nonempty and not node.value:
            self.errors.add(node, key, "an empty list (leave the key out instead)")
        return node.value

    def _read_configs(self, key, node):
        for i, item in enumerate(self._list(key, node)):
            f = self._file(item, f"{key}[{i}]", "configuration")
            if f:
                self.configs.append(f[1])

    def _read_workloads(self, key, node):
        for i, item in enumerate(self._list(key, node)):
            where = f"{key}[{i}]"
            if isinstance(item, yaml.ScalarNode):
                entry = [("file", item, item)]
            elif isinstance(item, yaml.MappingNode):
                entry = _mapping(item)
            else:
                self.errors.add(item, where, "a workload file or {file: FILE, vars: {NAME: value}}")
                continue
            wl = {"node": item, "vars": []}
            for k, kn, vn in entry:
                if k == "file":
                    f = self._file(vn, f"{where}.file", "workload")
                    if f:
                        wl["file"], wl["path"] = f
                elif k == "vars":
                    if not isinstance(vn, yaml.MappingNode):
                        self.errors.add(vn, f"{where}.vars", "a mapping NAME: value")
                        continue
                    wl["vars"] = [(n, nk, _value(nv), nv) for n, nk, nv in _mapping(vn)]
                else:
                    self.errors.add(kn, f"{where}.{k}", "unknown key" + did_you_mean(k, ("file", "vars")) +
                                    "; a workload entry has file and vars")
            if "file" not in wl and not any(k == "file" for k, _, _ in entry):
                self.errors.add(item, where, "missing: file")
            if "path" in wl:
                self.workloads.append(wl)

    def _axis(self, key, node):
        if not isinstance(node, yaml.MappingNode):
            self.errors.add(node, key, "a mapping KEY: [values]")
            return []
        axes = []
        for k, kn, vn in _mapping(node):
            values = self._list(f"{key}.{k}", vn)
            axes.append((k, kn, [(_value(v), v) for v in values]))
        return axes

    def _read_grid(self, key, node):
        self.grid = self._axis(key, node)

    def _read_zip(self, key, node):
        self.zip = self._axis(key, node)
        lengths = {len(vs) for _, _, vs in self.zip}
        if len(lengths) > 1:
            self.errors.add(node, key, "lists of different lengths (" + ", ".join(
                f"{k}: {len(vs)}" for k, _, vs in self.zip) + "); zip advances them together")

    def _read_points(self, key, node):
        for i, item in enumerate(self._list(key, node)):
            if not isinstance(item, yaml.MappingNode) or not item.value:
                self.errors.add(item, f"{key}[{i}]", "a non-empty mapping KEY: value")
                continue
            self.point_rows.append([(k, kn, _value(vn), vn) for k, kn, vn in _mapping(item)])

    def _read_seeds(self, key, node):
        self.seeds = []
        for i, item in enumerate(self._list(key, node)):
            v = _value(item)
            if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v < 2 ** 64:
                self.errors.add(item, f"{key}[{i}]", "a seed is an integer in 0..2^64-1")
            else:
                self.seeds.append(v)

    def _read_limits(self, key, node):
        if not isinstance(node, yaml.MappingNode):
            self.errors.add(node, key, "a mapping {time_s, memory_mb}")
            return
        for k, kn, vn in _mapping(node):
            v = _value(vn)
            if k not in LIMIT_KEYS:
                self.errors.add(kn, f"{key}.{k}", "unknown limit" + did_you_mean(k, LIMIT_KEYS) +
                                "; limits are time_s and memory_mb")
            elif isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or v <= 0:
                self.errors.add(vn, f"{key}.{k}", "a positive number")
            elif k == "memory_mb" and v < 64:
                self.errors.add(vn, f"{key}.{k}", "at least 64 (MB): vgpu-sim needs that much to start")
            else:
                self.limits[k] = v

    def _read_metrics(self, key, node):
        for i, item in enumerate(self._list(key, node)):
            v = _value(item)
            if not isinstance(v, str) or not v:
                self.errors.add(item, f"{key}[{i}]", "a statistic's name or a glob (gpu.l1.*)")
            else:
                self.metrics.append(v)

    def _check_axis_keys_unique(self):
        where = {}
        for section, axes in (("grid", self.grid), ("zip", self.zip)):
            for k, kn, _ in axes:
                if k in where:
                    self.errors.add(kn, f"{section}.{k}", f"also an axis of {where[k]}: a key is one axis")
                where[k] = section
        for row in self.point_rows:
            for k, kn, _, _ in row:
                if where.get(k, "points") != "points":
                    self.errors.add(kn, f"points.{k}", f"also an axis of {where[k]}: a key is one axis")

    # ---- what the spec sweeps ------------------------------------------------------------------
    def axis_keys(self):
        """Every axis KEY, in spec order (grid, zip, then points' keys as first seen)."""
        keys = [k for k, _, _ in self.grid] + [k for k, _, _ in self.zip]
        for row in self.point_rows:
            keys += [k for k, _, _, _ in row if k not in keys]
        return keys

    def check_count(self, yes):
        """SpecError when the spec makes more than MAX_POINTS_WITHOUT_YES points without yes."""
        n = self.count()
        if n > MAX_POINTS_WITHOUT_YES and not yes:
            section = next((s for s in ("grid", "zip", "points", "seeds", "workloads")
                            if s in self.sections), None)
            self.errors.add(self.sections.get(section), section,
                            f"the spec makes {n} points (grid x zip x points x workloads x seeds), "
                            f"more than {MAX_POINTS_WITHOUT_YES}: pass --yes to run them all")
            self.errors.raise_if_any()

    def count(self):
        n = 1
        for _, _, vs in self.grid:
            n *= len(vs)
        if self.zip:
            n *= len(self.zip[0][2])
        return n * max(1, len(self.point_rows)) * len(self.workloads) * len(self.seeds)

    def settings(self):
        """Each combination of the axes: [(KEY, value)], in the points' order, workloads and
        seeds aside."""
        grid = [[(k, v) for v, _ in vs] for k, _, vs in self.grid]
        zip_rows = [list(zip(*[[(k, v) for v, _ in vs] for k, _, vs in self.zip]))] if self.zip else [[()]]
        rows = [[(k, v) for k, _, v, _ in r] for r in self.point_rows] or [[]]
        for g in itertools.product(*grid):
            for z in zip_rows[0]:
                for r in rows:
                    yield list(g) + list(z) + r

    def all_values(self):
        """(KEY, key node, value, value node) of every axis value, for validation."""
        for k, kn, vs in self.grid + self.zip:
            for v, vn in vs:
                yield k, kn, v, vn
        for row in self.point_rows:
            yield from row


def config_keys(sim_tool):
    """The configuration key paths vgpu-sim declares (its --list-params tables)."""
    out = sim_tool.output(["--list-params"])
    return set(re.findall(r"^\| `([a-z0-9_.]+)` \|", out, flags=re.M))


def validate(spec, sim_tool, jobs):
    """Checks every key path, variable and value of spec with vgpu-sim; raises SpecError."""
    err = spec.errors
    keys = config_keys(sim_tool)
    base = [a for c in spec.configs for a in ("-c", c)]
    # Key paths: a configuration key vgpu-sim lists, or vars.NAME of a variable every workload
    # declares (their declarations come from vgpu-sim --check of each workload at its defaults).
    declared = {}
    plain = sim_tool.run_many([base + ["-w", wl["path"], "--check"] for wl in spec.workloads], jobs)
    for wl, (rc, out, errtext) in zip(spec.workloads, plain):
        if rc != 0:
            err.add(wl["node"], wl["file"], "vgpu-sim refuses this workload:\n  " +
                    "\n  ".join(errtext.strip().splitlines()[-8:]))
            continue
        declared[wl["path"]] = set(json.loads(out.strip().splitlines()[-1])["vars"])
        for n, nk, _, _ in wl["vars"]:
            if n not in declared[wl["path"]]:
                err.add(nk, f"vars.{n}", f"'{wl['file']}' declares no variable '{n}'" +
                        did_you_mean(n, declared[wl["path"]]))
    bad_keys = set()
    for k, kn, _, _ in spec.all_values():
        if k in bad_keys:
            continue
        if k.startswith("vars."):
            name = k[5:]
            for wl in spec.workloads:
                if wl["path"] in declared and name not in declared[wl["path"]]:
                    bad_keys.add(k)
                    err.add(kn, k, f"'{wl['file']}' declares no variable '{name}'" +
                            did_you_mean(name, declared[wl["path"]]))
                    break
        elif k not in keys:
            bad_keys.add(k)
            err.add(kn, k, "unknown configuration key" + did_you_mean(k, keys) +
                    " (vgpu-sim --list-params lists them)")
    err.raise_if_any()


def workload_digest(path):
    """sha256 of a workload file and of every file its strings name beside it (a CUDA source)."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        text = f.read()
    h.update(text)
    folder = os.path.dirname(path)
    for s in sorted(set(re.findall(r"[A-Za-z0-9_./-]+\.[A-Za-z0-9]+", text.decode("utf-8", "replace")))):
        p = os.path.normpath(os.path.join(folder, s))
        if p != path and os.path.isfile(p):
            h.update(s.encode() + b"\0")
            with open(p, "rb") as f:
                h.update(hashlib.sha256(f.read()).digest())
    return h.hexdigest()


def expand(spec, sim_tool, jobs):
    """The points of a validated spec, as manifest entries (docs/sweeps.md), ids included.

    Every point's configuration is checked with vgpu-sim --dump-config and its workload with its
    variables with --check (once per distinct set of variables). A value that no point can use
    is a located error (SpecError); a point refused while its values work in other points (a
    combination vgpu-sim refuses) stays in the sweep, runs, and fails with exit 2 like any
    failing point.
    """
    base = [a for c in spec.configs for a in ("-c", c)]
    version = sim_tool.output(["--version"]).strip()
    digests = {wl["path"]: workload_digest(wl["path"]) for wl in spec.workloads}
    keys = spec.axis_keys()
    # (KEY, value text) -> the node of a grid or zip value, for locating a value no point can
    # use; the values of explicit points are not judged alone (each point runs as written).
    nodes = {}
    for k, _, vs in spec.grid + spec.zip:
        for v, vn in vs:
            nodes.setdefault((k, arg_text(v)), vn)
    points, uses = [], []
    for setting in spec.settings():
        for wl in spec.workloads:
            for seed in spec.seeds:
                args = base + ["-w", wl["path"]]
                vars_ = {n: arg_text(v) for n, _, v, _ in wl["vars"]}
                used = [(f"vars.{n}", vn, arg_text(v))
                        for n, _, v, vn in wl["vars"]]
                for k, v in setting:
                    if (k, arg_text(v)) in nodes:
                        used.append((k, nodes[(k, arg_text(v))], arg_text(v)))
                    if k.startswith("vars."):
                        vars_[k[5:]] = arg_text(v)
                    else:
                        args += ["-s", f"{k}={arg_text(v)}"]
                args += [a for n, v in vars_.items() for a in ("-D", f"{n}={v}")]
                if seed is not None:
                    args += ["--seed", str(seed)]
                given = dict(setting)
                points.append({"index": len(points), "workload": wl["file"],
                               "axes": {k: given.get(k) for k in keys}, "vars": vars_, "seed": seed,
                               "args": args, "time_s": spec.limits.get("time_s"),
                               "memory_mb": spec.limits.get("memory_mb")})
                uses.append((wl["path"], used))
    dumps = sim_tool.run_many([p["args"] + ["--dump-config"] for p in points], jobs)
    var_sets = sorted({(path, tuple(sorted(p["vars"].items())))
                       for p, (path, _) in zip(points, uses)})
    var_checks = dict(zip(var_sets, sim_tool.run_many(
        [base + ["-w", path] + [a for n, v in vs for a in ("-D", f"{n}={v}")] + ["--check"]
         for path, vs in var_sets], jobs)))
    # A value is refused when every point that uses it is refused.
    refusals = {}  # value node id -> (node, KEY, first refusal) while no point accepts it
    accepted = set()
    root = spec.root.rstrip("/") + "/"
    for p, (path, used), (rc, out, errtext) in zip(points, uses, dumps):
        # The id: a hash of the effective configuration (paths under the project root taken
        # relative to it), the workload's files, its variables, the seed and the simulator's
        # version; a refused configuration hashes its arguments instead.
        effective = out.replace(root, "") if rc == 0 else json.dumps(p["args"]).replace(root, "")
        h = hashlib.sha256()
        for part in (effective, digests[path], json.dumps(p["vars"], sort_keys=True),
                     str(p["seed"]), version):
            h.update(part.encode() + b"\0")
        p["id"] = h.hexdigest()[:16]
        vrc, _, verr = var_checks[(path, tuple(sorted(p["vars"].items())))]
        if rc == 0 and vrc == 0:
            accepted.update(id(vn) for _, vn, _ in used)
            continue
        # vgpu-sim names the -s or -D it refuses; a refusal that names none (a problem in the
        # workload file) falls on every value of the point.
        why = errtext if rc != 0 else verr
        blamed = [u for u in used if option_text(u[0], u[2]) + ":" in why] or used
        for k, vn, _ in blamed:
            refusals.setdefault(id(vn), (vn, k, why))
    for key, (vn, k, errtext) in sorted(refusals.items(), key=lambda r: (r[1][0].start_mark.line,
                                                                         r[1][0].start_mark.column)):
        if key not in accepted:
            lines = [l for l in errtext.strip().splitlines() if "nothing was simulated" not in l]
            spec.errors.add(vn, k, "vgpu-sim refuses this value in every point that uses it: " +
                            " / ".join(lines[-4:]))
    spec.errors.raise_if_any()
    ids = {}
    for p in points:
        if p["id"] in ids:
            raise SpecError([f"{spec.path}: error: points {ids[p['id']]} and {p['index']} are the "
                             f"same run ({p['workload']}, {json.dumps(p['axes'])}): a sweep runs "
                             "each configuration once"])
        ids[p["id"]] = p["index"]
    return points
