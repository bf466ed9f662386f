#!/usr/bin/env python3
"""Tests of scripts/ladder-table: which table each kernel lands in, and what is left alone.

    ladder_table_test.py PATH/TO/scripts/ladder-table
"""

import os
import subprocess
import sys
import tempfile
import unittest

SCRIPT = None  # set from argv

HEADER = ("kernel,types,ops,m,n,k,status,min_ms,median_ms,max_ms,samples,tflops,cublas_median_ms,"
          "pct_cublas,pct_peak,device,commit\n")

DOC = """# Doc
<!-- ladder-table:begin -->
FP32 TABLE UNTOUCHED
<!-- ladder-table:end -->
text between
<!-- tensor-table:begin -->
TENSOR TABLE OLD
<!-- tensor-table:end -->
more text
<!-- hopper-table:begin -->
HOPPER TABLE OLD
<!-- hopper-table:end -->
tf32 on Hopper
<!-- hopper-tf32-table:begin -->
HOPPER TF32 TABLE OLD
<!-- hopper-tf32-table:end -->
the end
"""


def row(kernel, types, m, n, k, tflops, pct):
    return f'{kernel},{types},NN,{m},{n},{k},"ok",1,1,1,10,{tflops},1,{pct},50,"NVIDIA H200",abc1234\n'


def between(text, name):
    begin, end = f"<!-- {name}:begin -->", f"<!-- {name}:end -->"
    return text[text.index(begin) + len(begin):text.index(end)]


class LadderTable(unittest.TestCase):
    def run_script(self, doc, csv_text):
        with tempfile.TemporaryDirectory() as tmp:
            doc_path, csv_path = os.path.join(tmp, "ladder.md"), os.path.join(tmp, "bench.csv")
            with open(doc_path, "w") as f:
                f.write(doc)
            with open(csv_path, "w") as f:
                f.write(HEADER + csv_text)
            proc = subprocess.run([sys.executable, SCRIPT, csv_path, "--out", doc_path, "--date", "2026-11-22"],
                                  capture_output=True, text=True)
            with open(doc_path) as f:
                return proc, f.read()

    def test_hopper_steps_go_to_the_hopper_table_and_mma_sync_steps_to_the_tensor_table(self):
        csv_text = (row("bf16.11_tma_store", "bf16", 4096, 4096, 4096, 782.2, 98.5) +
                    row("bf16.05_tuned_256x128x32_s4", "bf16", 4096, 4096, 4096, 416.0, 52.0) +
                    row("tf32.06_mma_256x128x16_s4", "tf32", 4096, 4096, 4096, 144.0, 35.4) +
                    row("cublas", "bf16", 4096, 4096, 4096, 794.0, 100) +
                    row("cublas", "tf32", 4096, 4096, 4096, 407.0, 100))
        proc, out = self.run_script(DOC, csv_text)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        hopper, tensor = between(out, "hopper-table"), between(out, "tensor-table")
        self.assertIn("`bf16.11_tma_store`", hopper)
        self.assertIn("782 (98.5%)", hopper)
        self.assertNotIn("bf16.05", hopper)
        self.assertNotIn("tf32.06", hopper)
        self.assertIn("`bf16.05_tuned_256x128x32_s4`", tensor)
        self.assertIn("`tf32.06_mma_256x128x16_s4`", tensor)
        self.assertNotIn("bf16.11", tensor)
        self.assertIn("FP32 TABLE UNTOUCHED", between(out, "ladder-table"))  # no sgemm rows measured
        self.assertTrue(out.endswith("the end\n"))

    def test_tf32_step_07_goes_to_the_hopper_tf32_table_only(self):
        csv_text = (row("tf32.07_wgmma_tma", "tf32", 4096, 4096, 4096, 382.6, 96.8) +
                    row("tf32.06_mma_256x128x16_s4", "tf32", 4096, 4096, 4096, 144.0, 35.4) +
                    row("cublas", "tf32", 4096, 4096, 4096, 399.0, 100))
        proc, out = self.run_script(DOC, csv_text)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        hopper_tf32, tensor = between(out, "hopper-tf32-table"), between(out, "tensor-table")
        self.assertIn("`tf32.07_wgmma_tma`", hopper_tf32)
        self.assertIn("383 (96.8%)", hopper_tf32)
        self.assertIn("cuBLAS TF32", hopper_tf32)
        self.assertNotIn("tf32.06", hopper_tf32)
        self.assertIn("`tf32.06_mma_256x128x16_s4`", tensor)
        self.assertNotIn("tf32.07", tensor)
        self.assertIn("HOPPER TABLE OLD", between(out, "hopper-table"))  # no f16/bf16 Hopper rows measured

    def test_a_csv_without_hopper_kernels_leaves_the_hopper_table_alone(self):
        csv_text = (row("bf16.05_tuned_256x128x32_s4", "bf16", 4096, 4096, 4096, 416.0, 52.0) +
                    row("cublas", "bf16", 4096, 4096, 4096, 794.0, 100))
        proc, out = self.run_script(DOC, csv_text)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertIn("HOPPER TABLE OLD", between(out, "hopper-table"))
        self.assertNotIn("TENSOR TABLE OLD", between(out, "tensor-table"))

    def test_missing_hopper_markers_skip_that_table_only(self):
        doc = DOC.replace("<!-- hopper-table:begin -->\nHOPPER TABLE OLD\n<!-- hopper-table:end -->\n", "")
        csv_text = (row("bf16.11_tma_store", "bf16", 4096, 4096, 4096, 782.2, 98.5) +
                    row("bf16.05_tuned_256x128x32_s4", "bf16", 4096, 4096, 4096, 416.0, 52.0) +
                    row("cublas", "bf16", 4096, 4096, 4096, 794.0, 100))
        proc, out = self.run_script(doc, csv_text)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertIn("hopper", proc.stderr.lower())
        self.assertNotIn("hopper-table", out)
        self.assertIn("`bf16.05_tuned_256x128x32_s4`", between(out, "tensor-table"))

    def test_each_table_goes_to_the_page_with_its_markers(self):
        # The ladder pages: FP32 in one document, the tensor-core and Hopper tables in others.
        pages = {"fp32.md": "# FP32\n<!-- ladder-table:begin -->\nOLD\n<!-- ladder-table:end -->\nend\n",
                 "tensor.md": "# Tensor\n<!-- tensor-table:begin -->\nOLD\n<!-- tensor-table:end -->\nend\n",
                 "hopper.md": "# Hopper\n<!-- hopper-table:begin -->\nOLD\n<!-- hopper-table:end -->\n"
                              "<!-- hopper-tf32-table:begin -->\nOLD\n<!-- hopper-tf32-table:end -->\nend\n"}
        csv_text = (row("bf16.11_tma_store", "bf16", 4096, 4096, 4096, 782.2, 98.5) +
                    row("cublas", "bf16", 4096, 4096, 4096, 794.0, 100))
        with tempfile.TemporaryDirectory() as tmp:
            for name, text in pages.items():
                with open(os.path.join(tmp, name), "w") as f:
                    f.write(text)
            csv_path = os.path.join(tmp, "bench.csv")
            with open(csv_path, "w") as f:
                f.write(HEADER + csv_text)
            outs = [arg for name in pages for arg in ("--out", os.path.join(tmp, name))]
            proc = subprocess.run([sys.executable, SCRIPT, csv_path, *outs, "--date", "2026-11-22"],
                                  capture_output=True, text=True)
            got = {}
            for name in pages:
                with open(os.path.join(tmp, name)) as f:
                    got[name] = f.read()
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertIn("782 (98.5%)", between(got["hopper.md"], "hopper-table"))
        self.assertIn("OLD", between(got["hopper.md"], "hopper-tf32-table"))  # no tf32 rows measured
        self.assertEqual(got["fp32.md"], pages["fp32.md"])
        self.assertEqual(got["tensor.md"], pages["tensor.md"])
        self.assertIn("hopper.md", proc.stdout)

    def test_nothing_measured_fails_and_writes_nothing(self):
        csv_text = row("cublas", "bf16", 4096, 4096, 4096, 794.0, 100)
        proc, out = self.run_script(DOC, csv_text)
        self.assertEqual(proc.returncode, 1)
        self.assertEqual(out, DOC)


if __name__ == "__main__":
    SCRIPT = sys.argv.pop(1)
    unittest.main()
