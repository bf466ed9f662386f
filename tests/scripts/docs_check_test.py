#!/usr/bin/env python3
"""Tests of scripts/docs-check: the results index names every file, code citations hold.

    docs_check_test.py PATH/TO/scripts/docs-check

The first test checks this repository itself: a file added under docs/results/ without an
entry, or a kernel edited so that a lesson's line range no longer holds its code, fails it.
"""

import os
import subprocess
import sys
import tempfile
import unittest

SCRIPT = None  # set from argv

INDEX = """# Evidence

## A family

- **[2026-01-01-study/](2026-01-01-study/)** *Question:* q. *Answer:* a. *Files:*
  `2026-01-01-h100-a.csv`, `2026-01-01-h100-trial-?.csv` (runs), `...-a.csv` names nothing.
"""

KERNEL = "\n".join(["// header", "// more header", "int kernel() {", "    return 42;", "}", ""])

PAGE = ("### Step 01\n- **Read:** [`x.cuh` lines 3-4](../../src/x.cuh#L3-L4)<!-- at: int kernel() { -->: the kernel.\n")


def write(root, path, text):
    full = os.path.join(root, path)
    os.makedirs(os.path.dirname(full), exist_ok=True)
    with open(full, "w") as f:
        f.write(text)


class DocsCheck(unittest.TestCase):
    def tree(self, tmp, index=INDEX, files=("2026-01-01-h100-a.csv", "2026-01-01-h100-trial-1.csv"),
             kernel=KERNEL, page=PAGE):
        write(tmp, "docs/results/README.md", index)
        for f in files:
            write(tmp, os.path.join("docs/results/2026-01-01-study", f), "x\n")
        write(tmp, "src/x.cuh", kernel)
        write(tmp, "docs/ladder/fp32.md", page)

    def run_script(self, root, *extra):
        return subprocess.run([sys.executable, SCRIPT, "--root", root, *extra], capture_output=True, text=True)

    def test_this_repository_passes(self):
        proc = subprocess.run([sys.executable, SCRIPT], capture_output=True, text=True)
        self.assertEqual(proc.returncode, 0, proc.stderr)

    def test_a_tree_that_holds_passes(self):
        with tempfile.TemporaryDirectory() as tmp:
            self.tree(tmp)
            proc = self.run_script(tmp)
            self.assertEqual(proc.returncode, 0, proc.stderr)

    def test_a_file_not_named_in_its_study_fails(self):
        with tempfile.TemporaryDirectory() as tmp:
            self.tree(tmp, files=("2026-01-01-h100-a.csv", "2026-01-01-h100-trial-1.csv", "2026-01-01-h100-b.txt"))
            proc = self.run_script(tmp)
            self.assertEqual(proc.returncode, 1)
            self.assertIn("2026-01-01-study/2026-01-01-h100-b.txt: not named", proc.stderr)

    def test_a_study_without_an_entry_and_a_loose_file_fail(self):
        with tempfile.TemporaryDirectory() as tmp:
            self.tree(tmp)
            write(tmp, "docs/results/2026-02-02-other/2026-02-02-h100-x.csv", "x\n")
            write(tmp, "docs/results/2026-02-02-h100-loose.csv", "x\n")
            proc = self.run_script(tmp)
            self.assertEqual(proc.returncode, 1)
            self.assertIn("2026-02-02-other/: no entry", proc.stderr)
            self.assertIn("2026-02-02-h100-loose.csv: not in a study folder", proc.stderr)

    def test_a_name_that_matches_no_file_fails(self):
        with tempfile.TemporaryDirectory() as tmp:
            self.tree(tmp, files=("2026-01-01-h100-a.csv",))  # the trial-? glob now matches nothing
            proc = self.run_script(tmp)
            self.assertEqual(proc.returncode, 1)
            self.assertIn("`2026-01-01-h100-trial-?.csv` (study 2026-01-01-study) matches no file", proc.stderr)

    def test_a_citation_whose_code_moved_fails_and_is_fixed(self):
        with tempfile.TemporaryDirectory() as tmp:
            self.tree(tmp, kernel="// a new line of header\n" + KERNEL)  # the kernel is now lines 4-5
            proc = self.run_script(tmp)
            self.assertEqual(proc.returncode, 1)
            self.assertIn("line 3 does not hold `int kernel() {`; `int kernel() {` is on line 4", proc.stderr)
            proc = self.run_script(tmp, "--fix-lines")
            self.assertEqual(proc.returncode, 0, proc.stderr)
            with open(os.path.join(tmp, "docs/ladder/fp32.md")) as f:
                page = f.read()
            self.assertIn("[`x.cuh` lines 4-5](../../src/x.cuh#L4-L5)<!-- at: int kernel() { -->", page)
            self.assertEqual(self.run_script(tmp).returncode, 0)

    def test_links_must_land_on_a_file_and_an_anchor(self):
        page = ('<a id="step-01"></a>\n### Step 01 · naive: one `thread`\n'
                "[ok](#step-01) [slug](#step-01--naive-one-thread) [other page](../results/README.md) "
                "[code](../../src/x.cuh#L3-L4)<!-- at: int kernel() { -->\n")
        with tempfile.TemporaryDirectory() as tmp:
            self.tree(tmp, page=page)
            proc = self.run_script(tmp)
            self.assertEqual(proc.returncode, 0, proc.stderr)
        with tempfile.TemporaryDirectory() as tmp:
            self.tree(tmp, page=page + "[gone](hopper.md#step-08) [typo](#step-1)\n")
            proc = self.run_script(tmp)
            self.assertEqual(proc.returncode, 1)
            self.assertIn("link to hopper.md#step-08: hopper.md does not exist", proc.stderr)
            self.assertIn("link to #step-1: no heading or anchor #step-1 there", proc.stderr)

    def test_a_citation_of_a_missing_file_or_text_fails_even_with_fix(self):
        with tempfile.TemporaryDirectory() as tmp:
            self.tree(tmp, kernel="int renamed() {\n}\n")
            proc = self.run_script(tmp, "--fix-lines")
            self.assertEqual(proc.returncode, 1)
            self.assertIn("no line holds `int kernel() {`", proc.stderr)
            with open(os.path.join(tmp, "docs/ladder/fp32.md")) as f:
                self.assertEqual(f.read(), PAGE)  # nothing rewritten
        with tempfile.TemporaryDirectory() as tmp:
            self.tree(tmp, page=PAGE.replace("src/x.cuh", "src/gone.cuh"))
            proc = self.run_script(tmp)
            self.assertEqual(proc.returncode, 1)
            self.assertIn("src/gone.cuh: no such file", proc.stderr)


if __name__ == "__main__":
    SCRIPT = sys.argv.pop(1)
    unittest.main()
