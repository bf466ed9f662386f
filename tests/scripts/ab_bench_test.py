#!/usr/bin/env python3
"""Tests of gemmkit-ab's argument checks, which need no GPU: every bad argument or library is an
error naming the option, exit status 2, before any CUDA call.

    ab_bench_test.py PATH/TO/gemmkit-ab
"""

import subprocess
import sys
import unittest

TOOL = None  # set from argv
GOOD = ["--kernel", "f16.05_tuned_256x128x32_s4", "--type", "f16", "--mnk", "64,7x33x129"]


def run(*args):
    return subprocess.run([TOOL, *args], capture_output=True, text=True, timeout=60)


class Arguments(unittest.TestCase):
    def assert_usage_error(self, result, *words):
        self.assertEqual(result.returncode, 2, result.stdout + result.stderr)
        self.assertEqual(result.stdout, "")  # nothing ran
        for word in words:
            self.assertIn(word, result.stderr)

    def test_both_libraries_are_required(self):
        self.assert_usage_error(run("--lib-a", "x.so", *GOOD), "--lib-a and --lib-b are required")

    def test_a_library_that_does_not_load_names_its_option_and_path(self):
        self.assert_usage_error(run("--lib-a", "/nonexistent/liba.so", "--lib-b", "/nonexistent/libb.so", *GOOD),
                                "--lib-a: cannot load /nonexistent/liba.so")

    def test_a_library_without_the_c_api_is_named(self):
        # The C library: it loads, but has no gemmkit_gemm_ex.
        result = run("--lib-a", "libc.so.6", "--lib-b", "libc.so.6", *GOOD)
        self.assert_usage_error(result, "--lib-a: libc.so.6 lacks gemmkit_gemm_ex")

    def test_bad_values_name_their_option(self):
        libs = ["--lib-a", "a.so", "--lib-b", "b.so"]
        cases = [
            (["--kernel", "k", "--type", "f8", "--mnk", "64"], "--type must be f16, bf16, tf32, f32 or f64, not 'f8'"),
            (["--kernel", "k", "--type", "f16", "--mnk", "64x0x3"], "--mnk: '64x0x3' is not N or MxNxK"),
            (["--kernel", "k", "--type", "f16", "--mnk", "12x"], "--mnk: '12x' is not N or MxNxK"),
            (["--kernel", "k", "--type", "f16", "--mnk", "64", "--iters", "0"], "--iters must be at least 1"),
            (["--type", "f16", "--mnk", "64"], "--kernel names at least one kernel"),
            (["--kernel", "k", "--type", "f16", "--mnk", "64", "--flush", "sometimes"], "unknown option or value"),
            (["--kernel", "k", "--type", "f16", "--mnk"], "--mnk needs a value"),
        ]
        for args, message in cases:
            with self.subTest(args=args):
                self.assert_usage_error(run(*libs, *args), message)


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit("usage: ab_bench_test.py PATH/TO/gemmkit-ab")
    TOOL = sys.argv.pop(1)
    unittest.main()
