"""scripts/coverage: merging runs of two seeds and a verilator coverage file, holes, HTML, errors."""
import json
import os
import subprocess
import tempfile
import unittest

ROOT = os.environ.get("VGPU_ROOT") or os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(ROOT, "scripts", "coverage")


def run(*args):
    return subprocess.run([SCRIPT, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def run_json(seed, reason_hits):
    return {"block": "demo", "seed": seed, "points": {
        "reason": [{"bin": "rotation", "hits": reason_hits[0]}, {"bin": "priority", "hits": reason_hits[1]},
                   {"bin": "age", "hits": 0}]}}


DAT = ("# SystemC::Coverage-3\n"
       "C '\x01f\x02/x/noc_arbiter.sv\x01l\x0212\x01n\x020\x01page\x02v_line/noc_arbiter\x01o\x02block\x01h\x02top' 5\n"
       "C '\x01f\x02/x/noc_arbiter.sv\x01l\x0220\x01n\x020\x01page\x02v_line/noc_arbiter\x01o\x02block\x01h\x02top' 0\n"
       "C '\x01f\x02/x/noc_arbiter.sv\x01l\x0220\x01n\x021\x01page\x02v_branch/noc_arbiter\x01o\x02if\x01h\x02top' 3\n")


class CoverageScriptTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.d = self.tmp.name
        for seed, hits in ((1, (4, 0)), (2, (0, 2))):
            with open(os.path.join(self.d, f"demo.{seed}.json"), "w") as f:
                json.dump(run_json(seed, hits), f)
        with open(os.path.join(self.d, "rtl.dat"), "w") as f:
            f.write(DAT)

    def tearDown(self):
        self.tmp.cleanup()

    def test_merge_sums_hits_over_seeds_and_reports_the_holes(self):
        merged = os.path.join(self.d, "merged.json")
        r = run("merge", self.d, "-o", merged)
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(merged) as f:
            m = json.load(f)
        self.assertEqual(m["functional"]["demo"]["seeds"], [1, 2])
        self.assertEqual(m["functional"]["demo"]["points"]["reason"],
                         [{"bin": "rotation", "hits": 4}, {"bin": "priority", "hits": 2}, {"bin": "age", "hits": 0}])
        html = os.path.join(self.d, "cov.html")
        r = run("report", merged, "--html", html)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("demo: 2 of 3 bins hit (66.7 %), 2 seed(s)", r.stdout)
        self.assertIn("reason: 2/3  holes: age", r.stdout)
        self.assertIn("noc_arbiter.sv line: 1/2 (50.0 %)", r.stdout)
        self.assertIn("noc_arbiter.sv branch: 1/1 (100.0 %)", r.stdout)
        with open(html) as f:
            page = f.read()
        self.assertIn('<span class="hole">age: 0</span>', page)
        self.assertEqual(run("report", merged, "--fail-on-holes").returncode, 1)
        # merging a merged file with one more run adds to it
        with open(os.path.join(self.d, "more.json"), "w") as f:
            json.dump(run_json(3, (0, 0)) | {"points": {"reason": [{"bin": "age", "hits": 1}]}}, f)
        r = run("report", merged, os.path.join(self.d, "more.json"), "--fail-on-holes")
        self.assertEqual(r.returncode, 0, r.stdout)
        self.assertIn("demo: 3 of 3 bins hit", r.stdout)

    def test_bad_input_is_named(self):
        bad = os.path.join(self.d, "bad.json")
        with open(bad, "w") as f:
            f.write("{not json")
        r = run("report", bad)
        self.assertEqual(r.returncode, 2)
        self.assertIn(f"{bad}: not JSON", r.stderr)
        with open(bad, "w") as f:
            json.dump({"points": {}}, f)
        self.assertIn("not a coverage.json", run("report", bad).stderr)
        r = run("report", os.path.join(self.d, "nope"))
        self.assertEqual(r.returncode, 2)
        self.assertIn("no such file or folder", r.stderr)
        dat = os.path.join(self.d, "x.dat")
        with open(dat, "w") as f:
            f.write("hello\n")
        self.assertIn("not a verilator coverage file", run("report", dat).stderr)


if __name__ == "__main__":
    unittest.main()
