#!/usr/bin/env python3
"""Tests of scripts/plot: small CSVs in a temporary folder in, the SVGs out, no display.

    plot_test.py PATH/TO/scripts/plot

Where matplotlib is not installed the drawing tests are skipped and only the argument checks
run; the program then exits 77 (ctest's SKIP_RETURN_CODE for it), so the run shows as skipped,
not passed. Any failure exits 1.
"""

import os
import subprocess
import sys
import tempfile
import unittest

SCRIPT = None  # set from argv

HEADER = ("kernel,types,ops,m,n,k,status,min_ms,median_ms,max_ms,samples,tflops,cublas_median_ms,"
          "pct_cublas,pct_peak,device,commit\n")


def row(kernel, types, m, n, k, tflops, pct, pct_peak=50.0):
    return f'{kernel},{types},NN,{m},{n},{k},"ok",1,1,1,10,{tflops},1,{pct},{pct_peak},"NVIDIA Test GPU",abc1234def\n'


FP32 = (row("sgemm.01_naive", "f32", 4096, 4096, 4096, 0.5, 1.0) +
        row("sgemm.07_bank_conflict_free", "f32", 4096, 4096, 4096, 37.4, 72.6) +
        row("sgemm.12_async_256x128x16_s3", "f32", 4096, 4096, 4096, 51.4, 100.1) +
        row("sgemm.12_async_128x64x16_s3", "f32", 4096, 4096, 4096, 46.3, 90.9) +
        row("sgemm.07_bank_conflict_free", "f32", 8192, 8192, 1024, 36.7, 72.8) +  # not the shape drawn
        row("cublas", "f32", 4096, 4096, 4096, 51.0, 100.0, 76.3))
TENSOR = (row("f16.03_mma_ldmatrix", "f16", 4096, 4096, 4096, 173, 22.0) +
          row("bf16.05_tuned_256x128x32_s4", "bf16", 4096, 4096, 4096, 496, 63.0) +
          row("f16.05_tuned_256x128x32_s4", "f16->f32", 4096, 4096, 4096, 400, 60.0) +  # C in FP32: not drawn
          row("tf32.06_mma_256x128x16_s4", "tf32", 4096, 4096, 4096, 210, 53.0) +
          row("cublas", "bf16", 4096, 4096, 4096, 790, 100.0, 73.8))
HOPPER = (row("f16.08_warp_specialized", "f16", 4096, 4096, 4096, 710, 90.8) +
          row("bf16.11_tma_store", "bf16", 4096, 4096, 4096, 802, 99.6) +
          row("tf32.07_wgmma_tma", "tf32", 4096, 4096, 4096, 403, 99.0) +
          row("cublas", "tf32", 4096, 4096, 4096, 406, 100.0, 75.9))
FP64 = (row("dgemm.06_async_ring", "f64", 4096, 4096, 4096, 24.1, 40.5) +
        row("dgemm.07_dmma_warp_ring", "f64", 4096, 4096, 4096, 55.8, 94.7) +
        row("cublas", "f64", 4096, 4096, 4096, 59.6, 100.0, 89.1))
SWEEP = "".join(row("auto=sgemm.12_async_256x128x16_s3", "f32", s, s, 1024, 40 + s / 1000, 95) +
                row("cublas", "f32", s, s, 1024, 45 + s / 1000, 100) for s in (128, 1024, 16384))
ROWMEAN = """gemmkit rowmean-matvec — NVIDIA Test GPU, sm_90, 132 SMs, 1980 MHz, driver 13.0, runtime 13.0
DRAM 4814 GB/s theoretical; CPU reference: 16 OpenMP threads, double accumulation; seed 2024; commit a4e98fc

L = 512, M = 512, N = 1024: X 1.000 GiB, minimum traffic 1.003 GiB (X, W and Y once each)
version  median ms    vs cpu   vs prev      GB/s  %DRAM  verification
cpu        41.4855         -         -      26.0      -  the reference
v1        623.6050     0.07x     0.07x       1.7    0.0  {1,2} exact
v5          0.2827    146.7x     1.20x    3809.0   79.1  {1,2} exact
"""
ROWMEAN_CSV = ("version,L,M,N,status,verification,min_ms,median_ms,max_ms,samples,speedup_cpu,speedup_prev,gbps,"
               "pct_dram,device,commit\n"
               'v2,512,512,1024,"ok","exact",2.8,2.8,2.9,20,14.8,221.9,383.1,8.0,"NVIDIA Test GPU",abc\n'
               'v5,512,512,1024,"ok","exact",0.28,0.28,0.29,20,146.7,1.2,3809.0,79.1,"NVIDIA Test GPU",abc\n')


def has_matplotlib():
    return subprocess.run([sys.executable, "-c", "import matplotlib"], capture_output=True).returncode == 0


class Plot(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = self.tmp.name
        self.inputs = {}
        for name, text in (("fp32", HEADER + FP32), ("tensor", HEADER + TENSOR), ("hopper", HEADER + HOPPER),
                           ("fp64", HEADER + FP64), ("sweep", HEADER + SWEEP), ("rowmean", ROWMEAN)):
            path = os.path.join(self.dir, name + (".txt" if name == "rowmean" else ".csv"))
            with open(path, "w") as f:
                f.write(text)
            self.inputs[name] = path
        self.out = os.path.join(self.dir, "img")

    def tearDown(self):
        self.tmp.cleanup()

    def run_script(self, *extra, **inputs):
        given = dict(self.inputs, **inputs)
        args = [sys.executable, SCRIPT, "--out", self.out]
        for name, path in given.items():
            args += [f"--{name}", path]
        return subprocess.run(args + list(extra), capture_output=True, text=True)

    def assertIn(self, member, container, msg=None):  # noqa: N802 (unittest's name)
        if len(container) > 500:
            self.assertTrue(member in container, msg or f"{member!r} not in the SVG")
        else:
            super().assertIn(member, container, msg)

    def assertNotIn(self, member, container, msg=None):  # noqa: N802
        self.assertTrue(member not in container, msg or f"{member!r} unexpectedly in the output")

    def svg(self, name):
        with open(os.path.join(self.out, name)) as f:
            return f.read()

    @unittest.skipUnless(has_matplotlib(), "matplotlib is not installed")
    def test_all_charts_render_and_say_what_they_show(self):
        proc = self.run_script()
        self.assertEqual(proc.returncode, 0, proc.stderr)
        for name in ("fp32-ladder", "tensor-cores-ladder", "hopper-ladder", "fp64-ladder", "size-sweep", "roofline",
                     "rowmean"):
            text = self.svg(name + ".svg")
            self.assertTrue(text.lstrip().startswith("<?xml") and "<svg" in text, name)
            self.assertIn("NVIDIA Test GPU", text, name)
        fp32 = self.svg("fp32-ladder.svg")
        self.assertIn("07 bank conflict free", fp32)
        self.assertIn("12 async", fp32)
        self.assertIn("% of cuBLAS", fp32)
        self.assertIn(">100<", fp32)   # step 12's bar label: the better of its two configurations
        self.assertNotIn(">91<", fp32)
        tensor = self.svg("tensor-cores-ladder.svg")
        self.assertIn("BF16", tensor)
        self.assertIn("TF32", tensor)
        self.assertIn("06 mma", tensor)
        hopper = self.svg("hopper-ladder.svg")
        self.assertIn("TF32 07 wgmma tma", hopper)  # TF32's step 07 is not the f16/bf16 step 07
        self.assertIn("11 tma store", hopper)
        sweep = self.svg("size-sweep.svg")
        self.assertIn("cuBLAS", sweep)
        self.assertIn("auto (sgemm.12)", sweep)
        self.assertIn("K = 1024", sweep)
        self.assertIn("16384", sweep)
        roof = self.svg("roofline.svg")
        self.assertIn("DRAM 3.35 TB/s", roof)
        self.assertIn("L2 5.50 TB/s", roof)
        self.assertIn("FP32, FP64 peak 67 TFLOP/s", roof)  # 51.0 at 76.3% and 59.6 at 89.1%: one roof
        self.assertIn("FLOP per byte", roof)
        rowmean = self.svg("rowmean.svg")
        self.assertIn("DRAM roof 4814 GB/s", rowmean)
        self.assertIn("v5", rowmean)
        self.assertIn("3809", rowmean)

    @unittest.skipUnless(has_matplotlib(), "matplotlib is not installed")
    def test_rowmean_from_its_csv_and_one_chart_alone(self):
        path = os.path.join(self.dir, "rowmean.csv")
        with open(path, "w") as f:
            f.write(ROWMEAN_CSV)
        proc = self.run_script("--only", "rowmean", rowmean=path)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertEqual(os.listdir(self.out), ["rowmean.svg"])
        self.assertIn("DRAM roof 4815 GB/s", self.svg("rowmean.svg"))  # 3809.0 GB/s is 79.1%

    @unittest.skipUnless(has_matplotlib(), "matplotlib is not installed")
    def test_a_csv_without_the_shape_fails_naming_its_argument(self):
        path = os.path.join(self.dir, "other.csv")
        with open(path, "w") as f:
            f.write(HEADER + row("sgemm.07_bank_conflict_free", "f32", 1024, 1024, 1024, 30, 70))
        proc = self.run_script("--only", "fp32", fp32=path)
        self.assertEqual(proc.returncode, 1)
        self.assertIn("--fp32", proc.stderr)
        self.assertIn("4096x4096x4096", proc.stderr)

    def test_bad_arguments_name_themselves(self):
        proc = self.run_script("--only", "fp32", fp32=os.path.join(self.dir, "missing.csv"))
        if has_matplotlib():  # without it the script stops at the import, before reading
            self.assertEqual(proc.returncode, 1)
            self.assertIn("--fp32", proc.stderr)
            self.assertIn("missing.csv", proc.stderr)
        proc = self.run_script("--shape", "4096")
        self.assertEqual(proc.returncode, 1)
        self.assertIn("--shape 4096", proc.stderr)
        proc = self.run_script("--only", "pie")
        self.assertEqual(proc.returncode, 1)
        self.assertIn("--only pie", proc.stderr)


if __name__ == "__main__":
    SCRIPT = sys.argv.pop(1)
    result = unittest.main(exit=False).result
    if not result.wasSuccessful():
        sys.exit(1)
    sys.exit(77 if result.skipped else 0)
