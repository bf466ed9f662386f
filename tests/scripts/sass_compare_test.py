#!/usr/bin/env python3
"""Tests of scripts/sass-compare on small hand-written `cuobjdump` listings: the loop of a kernel
that grew, its parameter reloads, the registers read from -res-usage through a stand-in
cuobjdump, the --match filter, --all, and a missing input named by its argument.

    sass_compare_test.py PATH/TO/scripts/sass-compare
"""

import os
import subprocess
import sys
import tempfile
import unittest

SCRIPT = None  # set from argv

LOOP_KERNEL = "_ZN7gemmkit6tensor24cp_async_pipeline_kernelILi1EEEvv"
FLAT_KERNEL = "_ZN7gemmkit5sgemm12naive_kernelILb0EEEvv"
OTHER_KERNEL = "_ZN7gemmkit5dgemm11dmma_kernelILi2EEEvv"


def listing(functions):
    """cuobjdump -sass text for {name: [instruction, ...]}, addresses 16 bytes apart."""
    out = ["", "Fatbin elf code:", "================", "arch = sm_90a", ""]
    for name, body in functions.items():
        out.append(f"\tFunction : {name}")
        out.append('\t.headerflags\t@"EF_CUDA_SM90"')
        for i, text in enumerate(body):
            out.append(f"        /*{16 * i:04x}*/                   {text} ;   /* 0x000000000000 */")
            out.append("                                                   /* 0x000fe20000000f00 */")
        out.append("\t\t..........")
        out.append("")
    return "\n".join(out) + "\n"


def loop_body(extra):
    """A kernel: two set-up instructions, a k loop (back to 0x20: HMMA, a barrier's wait loop,
    extra), inside a loop back to 0x10 (not a main loop: it holds one), an exit."""
    body = ["MOV R1, c[0x0][0x28]", "S2R R0, SR_TID.X", "HMMA.16816.F32 R4, R8, R12, R4",
            "SYNCS.PHASECHK.TRANS64.TRYWAIT P2, [R3+URZ], R5", "@!P2 BRA 0x30"]
    body += extra
    body += ["ISETP.NE.AND P0, PT, R0, RZ, PT", "@P0 BRA 0x20", "@P1 BRA 0x10", "EXIT"]
    return body


OLD = {
    LOOP_KERNEL: loop_body(["IADD3 R2, R2, 0x1, RZ"]),
    FLAT_KERNEL: ["MOV R1, c[0x0][0x28]", "FFMA R2, R3, R4, R5", "EXIT"],
    # an epilogue's loop (math, and a store to global memory): not a main loop
    OTHER_KERNEL: ["MOV R1, c[0x0][0x28]", "FFMA R2, R3, R4, R5", "STG.E desc[UR4][R6.64], R2", "@P0 BRA 0x10", "EXIT"],
}
NEW = {
    # the loop grows by two instructions, one a parameter reload (LDC, not ULDC)
    LOOP_KERNEL: loop_body(["IADD3 R2, R2, 0x1, RZ", "LDC.64 R14, c[0x0][0x268]", "ULDC.64 UR4, c[0x0][0x210]"]),
    # one instruction more, no loop: a change only --all shows
    FLAT_KERNEL: ["MOV R1, c[0x0][0x28]", "FFMA R2, R3, R4, R5", "NOP", "EXIT"],
    OTHER_KERNEL: ["MOV R1, c[0x0][0x28]", "FFMA R2, R3, R4, R5", "STG.E desc[UR4][R6.64], R2", "@P0 BRA 0x10", "EXIT"],
}

# A stand-in cuobjdump: -sass prints $FAKE_SASS_<stem>, -res-usage one REG line a kernel.
FAKE_CUOBJDUMP = r'''#!/usr/bin/env bash
stem=$(basename "$2" .so)
if [[ $1 == -sass ]]; then cat "$FAKE_DIR/$stem.sass"
elif [[ $1 == -res-usage ]]; then cat "$FAKE_DIR/$stem.res"
else exit 3; fi
'''


def resources(regs):
    out = ["Resource usage:", " Common:", "  GLOBAL:0"]
    for name, r in regs.items():
        out.append(f" Function {name}:")
        out.append(f"  REG:{r} STACK:0 SHARED:0 LOCAL:0 CONSTANT[0]:696 TEXTURE:0 SURFACE:0 SAMPLER:0")
    return "\n".join(out) + "\n"


class SassCompare(unittest.TestCase):
    def setUp(self):
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        self.dir = tmp.name

    def write(self, name, text, mode=0o644):
        path = os.path.join(self.dir, name)
        with open(path, "w") as f:
            f.write(text)
        os.chmod(path, mode)
        return path

    def run_script(self, *args, env=None):
        return subprocess.run([sys.executable, SCRIPT, *args], capture_output=True, text=True, timeout=60, env=env)

    def test_a_grown_loop_and_its_parameter_reload_are_reported(self):
        old = self.write("old.sass", listing(OLD))
        new = self.write("new.sass", listing(NEW))
        r = self.run_script(old, new)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("kernels: 3 old, 3 new, 3 in both", r.stdout)
        # k loop: HMMA, the wait loop (2), IADD3, ISETP, BRA = 6 old; + LDC + ULDC = 8 new
        self.assertIn("tensor::cp_async_pipeline_kernel: 1, 10 -> 12, 6 -> 8", r.stdout)
        self.assertIn("dgemm::dmma_kernel: 1, 5 -> 5, 0 -> 0", r.stdout)  # an epilogue loop: no main loop
        self.assertIn(f"{LOOP_KERNEL}\n  old: 10 instr, loops 6, ldc 0, regs ?\n  new: 12 instr, loops 8, ldc 1, regs ?",
                      r.stdout)
        self.assertIn("changed kernels (1;", r.stdout)
        self.assertNotIn(f"{FLAT_KERNEL}\n", r.stdout)  # an instruction more, nothing else
        self.assertNotIn(f"{OTHER_KERNEL}\n", r.stdout)

    def test_all_lists_an_instruction_count_change_too(self):
        old = self.write("old.sass", listing(OLD))
        new = self.write("new.sass", listing(NEW))
        r = self.run_script("--all", old, new)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn(f"{FLAT_KERNEL}\n  old: 3 instr, loops -, ldc 0, regs ?\n  new: 4 instr", r.stdout)
        self.assertNotIn(f"{OTHER_KERNEL}\n", r.stdout)

    def test_match_keeps_only_the_kernels_named(self):
        old = self.write("old.sass", listing(OLD))
        new = self.write("new.sass", listing(NEW))
        r = self.run_script("--match", "sgemm", old, new)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("kernels: 1 old, 1 new, 1 in both", r.stdout)
        self.assertNotIn("cp_async", r.stdout)

    def binary(self, stem, functions, registers):
        """A stand-in binary STEM.so: the stand-in cuobjdump prints STEM.sass and STEM.res for it."""
        self.write(f"{stem}.sass", listing(functions))
        self.write(f"{stem}.res", resources(registers))
        return self.write(f"{stem}.so", "\0binary")

    def run_with_stand_in(self, *args):
        tool = self.write("cuobjdump", FAKE_CUOBJDUMP, 0o755)
        return self.run_script("--cuobjdump", tool, *args, env=dict(os.environ, FAKE_DIR=self.dir))

    def test_binaries_go_through_cuobjdump_with_registers(self):
        old = self.binary("old", OLD, {LOOP_KERNEL: 232, FLAT_KERNEL: 40, OTHER_KERNEL: 64})
        new = self.binary("new", NEW, {LOOP_KERNEL: 238, FLAT_KERNEL: 40, OTHER_KERNEL: 64})
        r = self.run_with_stand_in(old, new)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("  old: 10 instr, loops 6, ldc 0, regs 232\n  new: 12 instr, loops 8, ldc 1, regs 238", r.stdout)

    def test_registers_known_on_one_side_only_change_nothing(self):
        old = self.write("old.sass", listing(OLD))  # a listing: no registers
        same = self.binary("same", OLD, {LOOP_KERNEL: 238, FLAT_KERNEL: 40, OTHER_KERNEL: 64})
        r = self.run_with_stand_in(old, same)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("changed kernels (0;", r.stdout)

    def test_a_missing_input_is_named(self):
        new = self.write("new.sass", listing(NEW))
        r = self.run_script(os.path.join(self.dir, "absent.sass"), new)
        self.assertEqual(r.returncode, 2)
        self.assertIn("OLD: no such file", r.stderr)
        self.assertEqual(r.stdout, "")


if __name__ == "__main__":
    SCRIPT = sys.argv.pop(1)
    unittest.main()
