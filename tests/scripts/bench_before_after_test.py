#!/usr/bin/env python3
"""Tests of scripts/bench-before-after: the summary's arithmetic from synthetic bench CSVs, the
jobs it plans, the ABBA order of its calls (fake gemmkit binaries), and the exit status.

    bench_before_after_test.py PATH/TO/scripts/bench-before-after
"""

import importlib.machinery
import importlib.util
import os
import subprocess
import sys
import tempfile
import unittest

SCRIPT = None  # set from argv
sys.dont_write_bytecode = True  # loading the script leaves no __pycache__ in scripts/

HEADER = ("kernel,types,ops,m,n,k,status,min_ms,median_ms,max_ms,samples,tflops,cublas_median_ms,"
          "pct_cublas,pct_peak,device,commit\n")

# A gemmkit stand-in: appends its name and arguments to calls.txt beside it, and writes one row
# per --kernels glob, type group and --mnk shape at 1 ms against cuBLAS's 1 ms.
FAKE_GEMMKIT = r'''#!/usr/bin/env python3
import os, sys
here = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(here, "calls.txt"), "a") as f:
    f.write(os.path.basename(sys.argv[0]) + " " + " ".join(sys.argv[1:]) + "\n")
a = sys.argv[1:]
opt = {a[i]: a[i + 1] for i in range(1, len(a) - 1) if a[i] in ("--kernels", "--mnk", "--csv")}
family = {"sgemm": "f32", "tf32": "tf32", "f16": "f16", "bf16": "bf16", "dgemm": "f64"}
groups = {}
for g in opt["--kernels"].split(","):
    if g != "auto":
        groups.setdefault(family[g.split(".")[0]], []).append(g.rstrip("*"))
if "auto" in opt["--kernels"].split(","):
    groups = groups or {"f32": []}
    for v in groups.values():
        v.append("auto=row")
with open(opt["--csv"], "w") as f:
    f.write("''' + HEADER.strip() + r'''\n")
    for s in opt["--mnk"].split(","):
        m, n, k = s.split("x") if "x" in s else (s, s, s)
        for t, kernels in groups.items():
            for kernel in kernels:
                f.write(f'{kernel},{t},NN,{m},{n},{k},"ok",1,1,1,20,1,1,100,1,"FAKE",fake\n')
'''


def load():
    loader = importlib.machinery.SourceFileLoader("bench_before_after", SCRIPT)
    spec = importlib.util.spec_from_loader("bench_before_after", loader)
    module = importlib.util.module_from_spec(spec)
    sys.modules["bench_before_after"] = module
    loader.exec_module(module)
    return module


def row(kernel, shape, median, cublas, status="ok", types="f16", commit="abc1234"):
    m, n, k = shape
    return f'{kernel},{types},NN,{m},{n},{k},"{status}",1,{median},1,20,1,{cublas},1,1,"NVIDIA H100",{commit}\n'


def run(*args):
    return subprocess.run([sys.executable, SCRIPT, *args], capture_output=True, text=True)


def table_line(out, *words):
    lines = [ln for ln in out.splitlines() if ln.split()[:len(words)] == list(words)]
    if len(lines) != 1:
        raise AssertionError(f"{len(lines)} lines for {words} in:\n{out}")
    return lines[0].split()


class Summary(unittest.TestCase):
    def summarize(self, files, *extra):
        with tempfile.TemporaryDirectory() as tmp:
            for name, text in files.items():
                with open(os.path.join(tmp, name), "w") as f:
                    f.write(HEADER + text)
            with open(os.path.join(tmp, "other.csv"), "w") as f:
                f.write("not a run's CSV\n")
            proc = run("--summarize-only", tmp, *extra)
            summary = ""
            if proc.returncode != 2:
                with open(os.path.join(tmp, "summary.csv")) as f:
                    summary = f.read()
        return proc, summary

    def test_medians_over_runs_of_time_over_cublas(self):
        s = (4096, 4096, 4096)
        proc, summary = self.summarize({
            "r1-before-auto-f16.csv": row("f16.14_sized_tiles", s, 1.00, 1.00) + row("cublas", s, 1, 1),
            "r2-before-auto-f16.csv": row("f16.14_sized_tiles", s, 2.04, 2.00),  # cuBLAS ran slower too
            "r1-after-auto-f16.csv": row("f16.14_sized_tiles", s, 1.04, 1.00),
            "r2-after-auto-f16.csv": row("f16.14_sized_tiles", s, 1.00, 1.00),
        })
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        # before: 1.00 and 1.02, median 1.01; after: 1.04 and 1.00, median 1.02: +0.99%.
        cols = table_line(proc.stdout, "f16", "f16.14_sized_tiles")
        self.assertEqual(cols[3:9], ["4096x4096x4096", "99.0", "98.0", "+0.99", "4.0", "2+2"])
        self.assertIn("WITHIN NOISE: 0 of 1 compared rows", proc.stdout)
        self.assertNotIn("cublas", proc.stdout.split("\n", 2)[2])
        self.assertIn("f16,f16.14_sized_tiles,NN,4096,4096,4096,2,2,1.01,1.02,", summary)

    def test_a_row_over_the_threshold_fails(self):
        s = (1000, 1000, 1000)
        files = {"r1-before-auto-bf16.csv": row("auto=bf16.14_sized_tiles", s, 1.00, 1.00, types="bf16"),
                 "r1-after-auto-bf16.csv": row("auto=bf16.14_sized_tiles", s, 1.03, 1.00, types="bf16")}
        proc, summary = self.summarize(files)
        self.assertEqual(proc.returncode, 1, proc.stdout)
        self.assertIn("SLOWER", table_line(proc.stdout, "bf16", "auto"))
        self.assertIn("1 of 1 compared rows slower by more than 2%: bf16 auto 1000x1000x1000 (+3.0%)", proc.stdout)
        self.assertIn(",1,bf16.14_sized_tiles,bf16.14_sized_tiles,", summary)
        proc, _ = self.summarize(files, "--threshold", "5")
        self.assertEqual(proc.returncode, 0, proc.stdout)

    def test_a_row_failed_or_missing_after_fails(self):
        s, t = (7, 33, 129), (64, 64, 64)
        proc, _ = self.summarize({
            "r1-before-auto-f64.csv": row("dgemm.09_sized_tiles", s, 1, 1, types="f64") +
                                      row("dgemm.09_sized_tiles", t, 1, 1, types="f64"),
            "r1-after-auto-f64.csv": row("dgemm.09_sized_tiles", s, 0, 0, status="FAILED: rel err 1", types="f64"),
        })
        self.assertEqual(proc.returncode, 1, proc.stdout)
        self.assertIn("after: FAILED: rel err 1", " ".join(table_line(proc.stdout, "f64", "dgemm.09_sized_tiles", "NN",
                                                                      "7x33x129")))
        self.assertIn("after: not measured", " ".join(table_line(proc.stdout, "f64", "dgemm.09_sized_tiles", "NN",
                                                                 "64x64x64")))
        self.assertIn("2 row(s) timed before but not after", proc.stdout)

    def test_skipped_by_both_is_no_failure_and_auto_choices_are_named(self):
        s = (8192, 8192, 8192)
        proc, _ = self.summarize({
            "r1-before-auto-f32.csv": row("auto=sgemm.12_a", s, 1.0, 1.0, types="f32") +
                                      row("auto=none", (1, 1, 1), 0, 0, status="skipped: no", types="f32"),
            "r1-after-auto-f32.csv": row("auto=sgemm.13_b", s, 0.99, 1.0, types="f32") +
                                     row("auto=none", (1, 1, 1), 0, 0, status="skipped: no", types="f32"),
        })
        self.assertEqual(proc.returncode, 0, proc.stdout)
        self.assertIn("auto ran sgemm.12_a before, sgemm.13_b after", proc.stdout)
        self.assertIn("both: skipped: no", proc.stdout)

    def test_no_run_csv_is_exit_2(self):
        proc, _ = self.summarize({})
        self.assertEqual(proc.returncode, 2)
        self.assertIn("no r<round>-<before|after>-<job>.csv", proc.stderr)


class Plan(unittest.TestCase):
    def test_every_acceptance_kernel_and_shape_is_benched(self):
        bba = load()
        acc = bba.load_acceptance()
        jobs = bba.plan_jobs("default", False, list(bba.TYPES), bba.CORPUS, 20)
        benched = {(g, s) for j in jobs for g in j.kernels for s in j.shapes}
        served = {row.split("_")[0] + "_": row for row in bba.SERVED.values() if row}
        for c in acc.CRITERIA:
            for prefix in c.kernels:
                glob = served.get(prefix, prefix + "*")
                for s in filter(None, (c.shape, c.base_shape)):
                    self.assertIn((glob, s), benched, c.what)
                    if prefix in served:
                        self.assertIn(("auto", s), benched, c.what)

    def test_auto_jobs_take_the_corpus_nn_shapes_and_f32_runs_auto_alone(self):
        bba = load()
        corpus = bba.corpus_shapes(bba.CORPUS)
        self.assertIn((7, 33, 129), corpus["f16"])
        self.assertGreater(len(corpus["f16"]), 35)
        jobs = bba.plan_jobs("corpus", False, list(bba.TYPES), bba.CORPUS, 20)
        self.assertIn(bba.Job("auto-f32", ["auto"], corpus["f32"], mergeable=False), jobs)
        for t in ("tf32", "f16", "bf16", "f64"):
            job = next(j for j in jobs if bba.SERVED[t] in j.kernels)
            self.assertIn("auto", job.kernels)
            self.assertTrue(set(corpus[t]) <= set(job.shapes), t)
        quick = bba.plan_jobs("default", True, ["f16"], bba.CORPUS, 20)
        self.assertLess(len(quick[0].shapes), 20)
        self.assertLess(bba.estimate_s(quick, 2, 20), bba.estimate_s(bba.plan_jobs("default", False, ["f16"],
                                                                                   bba.CORPUS, 20), 2, 20))


    def test_recheck_times_the_rows_marked_slower_and_nothing_else(self):
        bba = load()
        fields = "types,kernel,ops,m,n,k,slower\n"
        rows = ["f16,auto,NN,1000,1000,1000,1", "f16,f16.14_sized_tiles,NN,4096,4096,4096,1",
                "f32,auto,NN,2049,2049,2049,1", "f64,dgemm.08_dmma_stream_k,NN,4096,4096,4096,1",
                "tf32,auto,NN,64,64,64,0"]
        with tempfile.TemporaryDirectory() as tmp:
            summary = os.path.join(tmp, "summary.csv")
            with open(summary, "w") as f:
                f.write(fields + "\n".join(rows) + "\n")
            jobs = bba.recheck_jobs(summary, list(bba.TYPES), 20)
            only_f64 = bba.recheck_jobs(summary, ["f64"], 20)
            proc = run("--recheck", tmp, "--quick", "--dry-run")
        benched = {(g, s) for j in jobs for g in j.kernels for s in j.shapes}
        for pair in [("auto", (1000, 1000, 1000)), ("f16.14_sized_tiles", (1000, 1000, 1000)),
                     ("auto", (4096, 4096, 4096)), ("dgemm.08_dmma_stream_k", (4096, 4096, 4096))]:
            self.assertIn(pair, benched)
        self.assertIn(bba.Job("auto-f32", ["auto"], [(2049, 2049, 2049)], mergeable=False), jobs)
        self.assertFalse(any("tf32" in g for j in jobs for g in j.kernels))
        self.assertNotIn(("auto", (64, 64, 64)), benched)
        self.assertEqual([j.kernels for j in only_f64], [["dgemm.08_dmma_stream_k"]])
        self.assertEqual(proc.returncode, 2)
        self.assertIn("--recheck takes its rows from DIR/summary.csv", proc.stderr)


class Run(unittest.TestCase):
    def test_abba_order_and_the_summary_of_its_own_csvs(self):
        with tempfile.TemporaryDirectory() as tmp:
            for name in ("old", "new"):
                path = os.path.join(tmp, name)
                with open(path, "w") as f:
                    f.write(FAKE_GEMMKIT)
                os.chmod(path, 0o755)
            out = os.path.join(tmp, "out")
            proc = run("--before", os.path.join(tmp, "old"), "--after", os.path.join(tmp, "new"), "--out", out,
                       "--types", "f32", "--shapes", "64,7x33x129", "--rounds", "3", "--iters", "5")
            self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
            with open(os.path.join(tmp, "calls.txt")) as f:
                calls = f.read().splitlines()
            self.assertEqual([c.split()[0] for c in calls], ["old", "new", "new", "old", "old", "new"])
            self.assertIn("bench --kernels auto --mnk 64,7x33x129 --iters 5 --csv", calls[0])
            self.assertIn("WITHIN NOISE: 0 of 2 compared rows", proc.stdout)
            self.assertEqual(table_line(proc.stdout, "f32", "auto", "NN", "7x33x129")[8], "3+3")
            self.assertTrue(os.path.exists(os.path.join(out, "r2-after-auto-f32.csv")))

    def test_bad_arguments(self):
        self.assertEqual(run("--dry-run", "--rounds", "0").returncode, 2)
        self.assertEqual(run("--dry-run", "--types", "f8").returncode, 2)
        self.assertEqual(run("--dry-run", "--shapes", "4096x0x1").returncode, 2)
        self.assertEqual(run("--shapes", "64").returncode, 2)  # no --before/--after
        proc = run("--before", "/nonexistent/gemmkit", "--after", "/nonexistent/gemmkit", "--shapes", "64")
        self.assertEqual(proc.returncode, 2)
        self.assertIn("not an executable file", proc.stderr)
        proc = run("--dry-run", "--quick")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertIn("estimated device time", proc.stdout)


if __name__ == "__main__":
    SCRIPT = sys.argv.pop(1)
    unittest.main()
