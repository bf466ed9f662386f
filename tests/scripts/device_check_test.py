#!/usr/bin/env python3
"""Tests of scripts/device-check's sanitizer stage with stand-ins for the GPU machine's tools
(nvidia-smi, compute-sanitizer, cuobjdump) and a prebuilt tree of fake binaries: on a host of
several GPUs each kernel family runs in a sanitizer process of its own, spread over the GPUs; on
one GPU the families' processes share it; a family that fails fails its stage; the grouped and
FP8 rows' own GPU cases run under memcheck after the paths, and fail their stage if they fail.

    device_check_test.py PATH/TO/scripts/device-check
"""

import os
import subprocess
import sys
import tempfile
import unittest

SCRIPT = None  # set from argv

FAKE_NVIDIA_SMI = r'''#!/usr/bin/env bash
if [[ $1 == -L ]]; then
    for ((i = 0; i < ${FAKE_GPUS:-1}; i++)); do echo "GPU $i: FAKE GPU (UUID: GPU-$i)"; done
elif [[ $1 == --query-gpu* ]]; then
    echo "FAKE GPU, 0, 0 MHz, 0 MHz"
fi
'''

# Runs the command after its options; logs "tool GPU kernels" to $FAKE_LOG (kernels: the --kernels
# glob, or the test binary's --gtest_filter); a glob starting with "bad", or a filter equal to
# $FAKE_FAILING_FILTER, fails with one error.
FAKE_SANITIZER = r'''#!/usr/bin/env bash
tool=""
while [[ $1 == --* ]]; do
    [[ $1 == --tool ]] && tool=$2
    shift 2
done
kernels=""
for ((i = 1; i <= $#; i++)); do
    [[ ${!i} == --kernels ]] && { j=$((i + 1)); kernels=${!j}; }
    [[ ${!i} == --gtest_filter=* ]] && kernels=${!i#--gtest_filter=}
done
echo "$tool ${CUDA_VISIBLE_DEVICES:-unset} $kernels" >>"$FAKE_LOG"
"$@"
if [[ $kernels == bad* || $kernels == "${FAKE_FAILING_FILTER:-none}" ]]; then
    echo "========= ERROR SUMMARY: 1 error"; exit 1
fi
if [[ $tool == racecheck ]]; then
    echo "========= RACECHECK SUMMARY: 0 hazards displayed (0 errors, 0 warnings)"
else
    echo "========= ERROR SUMMARY: 0 errors"
fi
'''

FAKE_CUOBJDUMP = r'''#!/usr/bin/env bash
echo " Function fake_kernel:"
echo "  REG:32 STACK:0 SHARED:0 LOCAL:0"
'''

# The prebuilt gemmkit: `list` names kernels of the families in $FAKE_FAMILIES; the rest passes.
FAKE_GEMMKIT = r'''#!/usr/bin/env bash
case $1 in
list)
    echo "kernel   step  types"
    for f in ${FAKE_FAMILIES:-sgemm dgemm f16}; do echo "$f.01_first   1  x"; echo "                 full speed: any"; done ;;
verify) echo "verify: 1 passed, 0 failed" ;;
bench)
    while [[ $# -gt 0 ]]; do [[ $1 == --csv ]] && echo "kernel,status" >"$2"; shift; done
    echo "bench: fake" ;;
esac
'''

FAKE_TESTS = '#!/usr/bin/env bash\necho "[  PASSED  ] 3 tests."\n'

OWN_CASES = "*Grouped*:*Fp8*:*Quantize*"  # the GPU cases of what gemmkit verify cannot feed


class SanitizerStage(unittest.TestCase):
    def run_check(self, gpus, families="sgemm dgemm f16 bf16 tf32", failing_filter="none"):
        # In the working directory (ctest's: the build tree).
        tmp = tempfile.TemporaryDirectory(dir=os.getcwd())
        self.addCleanup(tmp.cleanup)
        root = tmp.name
        bin_dir, build = os.path.join(root, "bin"), os.path.join(root, "build")
        os.makedirs(bin_dir)
        os.makedirs(os.path.join(build, "tests"))
        files = {
            os.path.join(bin_dir, "nvidia-smi"): FAKE_NVIDIA_SMI,
            os.path.join(bin_dir, "compute-sanitizer"): FAKE_SANITIZER,
            os.path.join(bin_dir, "cuobjdump"): FAKE_CUOBJDUMP,
            os.path.join(build, "gemmkit"): FAKE_GEMMKIT,
            os.path.join(build, "tests", "gemmkit_host_tests"): FAKE_TESTS,
            os.path.join(build, "tests", "gemmkit_gpu_tests"): FAKE_TESTS,
            os.path.join(build, "libgemmkit.so"): "",
        }
        for path, text in files.items():
            with open(path, "w") as f:
                f.write(text)
            os.chmod(path, 0o755)
        log = os.path.join(root, "sanitizer-calls.txt")
        env = dict(os.environ, PATH=bin_dir + os.pathsep + os.environ["PATH"], OUT=os.path.join(root, "out"),
                   DEVICE_CHECK_PREBUILT="build", DEVICE_CHECK_BUDGET="200", FAKE_GPUS=str(gpus),
                   FAKE_FAMILIES=families, FAKE_LOG=log, FAKE_FAILING_FILTER=failing_filter)
        # The outer device-check's own settings (it runs this test) must not reach the inner one: with
        # its DEVICE_CHECK_STAGES=host,gpu the inner check skipped the sanitizers (2026-11-29, H200).
        for name in ("CUDA_VISIBLE_DEVICES", "DEVICE_CHECK_SHARD", "DEVICE_CHECK_STAGES"):
            env.pop(name, None)
        result = subprocess.run(["bash", SCRIPT, "--mnk", "64"], cwd=root, env=env, capture_output=True, text=True,
                                timeout=120)
        with open(log) as f:
            calls = [line.split() for line in f]
        with open(os.path.join(root, "out", "sanitizer-memcheck.log")) as f:
            memcheck_log = f.read()
        return result, calls, memcheck_log

    def test_families_spread_over_four_gpus(self):
        result, calls, memcheck_log = self.run_check(gpus=4)
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        # The stages run one after the other, a stage's processes at once (in any order).
        memcheck, racecheck, paths, own = calls[:5], calls[5:10], calls[10:14], calls[14:]
        for stage, tool in ((memcheck, "memcheck"), (racecheck, "racecheck")):
            self.assertEqual({c[0] for c in stage}, {tool})
            self.assertEqual(sorted(c[2] for c in stage), ["bf16.*", "dgemm.*", "f16.*", "sgemm.*", "tf32.*"])
            self.assertEqual(sorted(c[1] for c in stage), ["0", "0", "1", "2", "3"])  # five families, four GPUs
        self.assertEqual(sorted((c[0], c[2]) for c in paths),
                         [("memcheck", "bf16.14*"), ("memcheck", "dgemm.09*"), ("memcheck", "f16.14*"),
                          ("memcheck", "tf32.09*")])
        self.assertEqual(own, [["memcheck", "unset", OWN_CASES]])  # one process, all its GPUs
        self.assertIn("memcheck:   ERROR SUMMARY: 0 errors (x5)", result.stdout)
        self.assertIn("memcheck on the grouped, FP8 and quantize cases: ERROR SUMMARY: 0 errors\n", result.stdout)
        self.assertIn("racecheck:  RACECHECK SUMMARY: 0 hazards displayed (0 errors, 0 warnings) (x5)", result.stdout)
        self.assertIn("---- --kernels tf32.* (GPU 0) ----", memcheck_log)  # each process's output, in turn
        self.assertIn("all stages passed", result.stdout)

    def test_the_fp8_family_runs_through_its_own_cases_only(self):
        result, calls, _ = self.run_check(gpus=1, families="sgemm fp8 f16")
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        # verify checks no FP8 row: a process for each other family, in any order
        self.assertEqual(sorted(c[2] for c in calls[0:2] if c[0] == "memcheck"), ["f16.*", "sgemm.*"])
        self.assertEqual(sorted(c[2] for c in calls[2:4] if c[0] == "racecheck"), ["f16.*", "sgemm.*"])
        self.assertEqual(calls[-1], ["memcheck", "unset", OWN_CASES])

    def test_one_gpu_shares_it_among_a_process_a_family(self):
        # The sanitizers' time is mostly the CPU's: on one GPU the families still run at once,
        # each process leaving CUDA_VISIBLE_DEVICES as it found it.
        result, calls, memcheck_log = self.run_check(gpus=1)
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        memcheck, racecheck, paths, own = calls[:5], calls[5:10], calls[10:14], calls[14:]
        families = ["bf16.*", "dgemm.*", "f16.*", "sgemm.*", "tf32.*"]
        for stage, tool in ((memcheck, "memcheck"), (racecheck, "racecheck")):
            self.assertEqual(sorted((c[0], c[1], c[2]) for c in stage), [(tool, "unset", f) for f in families])
        self.assertEqual(sorted(c[2] for c in paths), ["bf16.14*", "dgemm.09*", "f16.14*", "tf32.09*"])
        self.assertEqual(own, [["memcheck", "unset", OWN_CASES]])
        self.assertIn("memcheck:   ERROR SUMMARY: 0 errors (x5)", result.stdout)
        self.assertIn("---- --kernels tf32.* (GPU 0) ----", memcheck_log)

    def test_a_failing_family_fails_its_stages(self):
        result, _, memcheck_log = self.run_check(gpus=2, families="sgemm bad")
        self.assertEqual(result.returncode, 1)
        self.assertIn("ERROR SUMMARY: 1 error", memcheck_log)
        self.assertIn("FAILED stages: memcheck racecheck", result.stdout)

    def test_failing_own_cases_fail_their_stage(self):
        result, _, _ = self.run_check(gpus=2, failing_filter=OWN_CASES)
        self.assertEqual(result.returncode, 1)
        self.assertIn("memcheck on the grouped, FP8 and quantize cases: ERROR SUMMARY: 1 error (exit 1)", result.stdout)
        self.assertIn("FAILED stages: memcheck-own-cases", result.stdout)


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit("usage: device_check_test.py PATH/TO/scripts/device-check")
    SCRIPT = os.path.abspath(sys.argv.pop(1))
    unittest.main()
