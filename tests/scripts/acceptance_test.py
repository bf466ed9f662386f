#!/usr/bin/env python3
"""Tests of scripts/acceptance check: verdicts from synthetic bench CSVs, and the exit status.

    acceptance_test.py PATH/TO/scripts/acceptance
"""

import importlib.machinery
import os
import subprocess
import sys
import tempfile
import unittest

SCRIPT = None  # set from argv

HEADER = ("kernel,types,ops,m,n,k,status,min_ms,median_ms,max_ms,samples,tflops,cublas_median_ms,"
          "pct_cublas,pct_peak,device,commit\n")


def row(kernel, types, n, tflops, pct, status="ok", ops="NN", shape=None):
    m, nn, k = shape or (n, n, n)
    return f'{kernel},{types},{ops},{m},{nn},{k},"{status}",1,1,1,20,{tflops},1,{pct},50,"NVIDIA H100",abc1234\n'


def line_of(out, what):
    """The output line of the criterion whose description starts with `what`."""
    lines = [ln for ln in out.splitlines() if ln.split("  ")[1:2] and ln[4:].startswith(what)]
    if len(lines) != 1:
        raise AssertionError(f"{len(lines)} lines for {what!r} in:\n{out}")
    return lines[0]


class Acceptance(unittest.TestCase):
    def check(self, *csv_texts, extra=()):
        with tempfile.TemporaryDirectory() as tmp:
            paths = []
            for i, text in enumerate(csv_texts):
                paths.append(os.path.join(tmp, f"bench{i}.csv"))
                with open(paths[-1], "w") as f:
                    f.write(HEADER + text)
            return subprocess.run([sys.executable, SCRIPT, "check", *paths, *extra], capture_output=True, text=True)

    def test_a_met_criterion_and_the_unmeasured_ones(self):
        proc = self.check(row("bf16.14_sized_tiles", "bf16", 4096, 795.0, 100.3))
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        self.assertTrue(line_of(proc.stdout, "BF16 step 14 4096^3").endswith("met"))
        self.assertIn("100.3", line_of(proc.stdout, "BF16 step 14 4096^3"))
        self.assertTrue(line_of(proc.stdout, "BF16 step 14 8192^3").endswith("not measured"))
        self.assertIn("1 of 20 criteria measured", proc.stdout)

    def test_every_run_must_meet_it(self):
        proc = self.check(row("tf32.09_sized_tiles", "tf32", 4096, 400.0, 100.4),
                          row("tf32.09_sized_tiles", "tf32", 4096, 395.0, 99.1))
        self.assertEqual(proc.returncode, 1)
        line = line_of(proc.stdout, "TF32 step 09 4096^3")
        self.assertIn("100.4, 99.1", line)
        self.assertTrue(line.endswith("NOT MET"))

    def test_a_failed_verification_is_reported_as_such(self):
        proc = self.check(row("f16.05_tuned_256x128x32_s4", "f16", 8192, 0, 0, status="FAILED: rel err 1"))
        self.assertEqual(proc.returncode, 1)
        self.assertTrue(line_of(proc.stdout, "FP16 step 05 8192^3").endswith("FAILED"))

    def test_only_nn_rows_of_the_kernels_own_types_count(self):
        proc = self.check(row("bf16.05_tuned_256x128x32_s4", "bf16->f32", 4096, 300.0, 40.0) +
                          row("bf16.05_tuned_256x128x32_s4", "bf16", 4096, 300.0, 40.0, ops="TN") +
                          row("bf16.05_tuned_256x128x32_s4", "bf16", 4096, 500.0, 63.0))
        self.assertEqual(proc.returncode, 0, proc.stdout)
        line = line_of(proc.stdout, "BF16 step 05 4096^3")
        self.assertIn("63.0", line)
        self.assertNotIn("40.0", line)

    def test_unaligned_size_against_the_aligned_one(self):
        near = row("bf16.14_sized_tiles", "bf16", 4096, 800.0, 100.0) + row("bf16.14_sized_tiles", "bf16", 4097, 700.0, 450.0)
        far = row("bf16.14_sized_tiles", "bf16", 4096, 800.0, 100.0) + row("bf16.14_sized_tiles", "bf16", 4097, 480.0, 350.0)
        proc = self.check(near)
        self.assertEqual(proc.returncode, 0, proc.stdout)
        self.assertIn("87.5", line_of(proc.stdout, "BF16 step 14 4097^3 TFLOP/s"))
        self.assertTrue(line_of(proc.stdout, "BF16 step 14 4097^3, % of cuBLAS").endswith("met"))
        proc = self.check(far)
        self.assertEqual(proc.returncode, 1)
        self.assertTrue(line_of(proc.stdout, "BF16 step 14 4097^3 TFLOP/s").endswith("NOT MET"))
        self.assertTrue(line_of(proc.stdout, "BF16 step 14 4097^3, % of cuBLAS").endswith("NOT MET"))

    def test_the_best_cuda_core_fp64_step_against_the_given_peak(self):
        csv_text = row("dgemm.05_edge_fast", "f64", 4096, 21.3, 36.0) + row("dgemm.06_async_ring", "f64", 4096, 24.0, 40.0)
        proc = self.check(csv_text)  # the H100's 33.5: 71.6%
        self.assertEqual(proc.returncode, 1)
        line = line_of(proc.stdout, "FP64 best CUDA-core step")
        self.assertIn("dgemm.06_async_ring", line)
        self.assertIn("71.6", line)
        self.assertTrue(line.endswith("NOT MET"))
        proc = self.check(csv_text, extra=("--fp64-cuda-peak", "29"))  # 82.8%
        self.assertEqual(proc.returncode, 0, proc.stdout)
        self.assertTrue(line_of(proc.stdout, "FP64 best CUDA-core step").endswith("met"))

    def test_report_rows_have_no_verdict_and_never_fail(self):
        proc = self.check(row("tf32.06_mma_256x128x16_s4", "tf32", 1024, 50.0, 41.0))
        self.assertEqual(proc.returncode, 0, proc.stdout)
        line = line_of(proc.stdout, "TF32 step 06 1024^3")
        self.assertTrue(line.rstrip().endswith("report"))
        self.assertIn("41.0", line)

    def test_run_benchmarks_every_kernel_and_shape_a_criterion_needs(self):
        acceptance = importlib.machinery.SourceFileLoader("acceptance", SCRIPT).load_module()
        measured = set()  # (kernel glob, shape as --mnk writes it)
        for _, kernels, mnk in acceptance.bench_sets(acceptance.CRITERIA):
            measured |= {(k, s) for k in kernels.split(",") for s in mnk.split(",")}
        for c in acceptance.CRITERIA:
            for prefix in c.kernels:
                for m, n, k in filter(None, (c.shape, c.base_shape)):
                    shape = str(m) if m == n == k else f"{m}x{n}x{k}"
                    self.assertIn((prefix + "*", shape), measured, c.what)

    def test_bad_arguments_and_unreadable_files(self):
        proc = subprocess.run([sys.executable, SCRIPT, "check", "/nonexistent/bench.csv"], capture_output=True, text=True)
        self.assertEqual(proc.returncode, 2)
        self.assertIn("cannot read", proc.stderr)
        proc = self.check(row("bf16.14_sized_tiles", "bf16", 4096, 795.0, 100.3), extra=("--fp64-cuda-peak", "0"))
        self.assertEqual(proc.returncode, 2)
        self.assertIn("--fp64-cuda-peak", proc.stderr)
        proc = subprocess.run([sys.executable, SCRIPT, "run", "--iters", "0"], capture_output=True, text=True)
        self.assertEqual(proc.returncode, 2)
        self.assertIn("--iters", proc.stderr)


if __name__ == "__main__":
    SCRIPT = sys.argv.pop(1)
    unittest.main()
