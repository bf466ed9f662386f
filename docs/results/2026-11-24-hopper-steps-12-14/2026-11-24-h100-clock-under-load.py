# Steady-state SM clock and power of one kernel launched back to back: ours (libgemmkit) against
# cuBLAS (torch.matmul), FP16 n^3, sampled by nvidia-smi every 20 ms. Run from the repository root
# on the GPU machine: python3 docs/results/2026-11-24-hopper-steps-12-14/2026-11-24-h100-clock-under-load.py 4096
import ctypes, subprocess, sys, time, torch
lib = ctypes.CDLL("build/libgemmkit.so")
lib.gemmkit_gemm_ex.restype = ctypes.c_int
lib.gemmkit_gemm_ex.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_int, ctypes.c_int64, ctypes.c_int64,
                                ctypes.c_int64, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int, ctypes.c_int64,
                                ctypes.c_void_p, ctypes.c_int, ctypes.c_int64, ctypes.c_void_p, ctypes.c_void_p,
                                ctypes.c_int, ctypes.c_int64, ctypes.c_int, ctypes.c_char_p]
n = int(sys.argv[1]) if len(sys.argv) > 1 else 4096
dt, code = torch.float16, 2
A = torch.randn(n, n, device="cuda", dtype=dt); B = torch.randn(n, n, device="cuda", dtype=dt)
C = torch.empty(n, n, device="cuda", dtype=dt)
alpha, beta = ctypes.c_float(1.0), ctypes.c_float(0.0)
stream = torch.cuda.current_stream().cuda_stream
def ours():
    s = lib.gemmkit_gemm_ex(stream, 0, 0, n, n, n, ctypes.byref(alpha), A.data_ptr(), code, n, B.data_ptr(), code, n,
                            ctypes.byref(beta), C.data_ptr(), code, n, 0, b"f16.14_sized_tiles")
    assert s == 0, s
def cublas():
    torch.matmul(A, B, out=C)
def run(name, f, seconds=3.0):
    for _ in range(20): f()
    torch.cuda.synchronize()
    smi = subprocess.Popen(["nvidia-smi", "--query-gpu=clocks.sm,power.draw", "--format=csv,noheader,nounits",
                            "-lms", "20"], stdout=subprocess.PIPE, text=True)
    time.sleep(0.3)
    e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    calls, t0 = 0, time.time()
    e0.record()
    while time.time() - t0 < seconds:
        for _ in range(200): f()
        calls += 200
        torch.cuda.synchronize()
    e1.record(); torch.cuda.synchronize()
    smi.terminate(); out = smi.communicate()[0]
    rows = [l.split(",") for l in out.strip().splitlines() if l.strip()]
    rows = rows[len(rows) // 5:]  # skip the ramp
    clk = sorted(float(r[0]) for r in rows); pw = sorted(float(r[1]) for r in rows)
    ms = e0.elapsed_time(e1) / calls
    print(f"{name}: {ms * 1e3:.1f} us/call, {2 * n**3 / ms / 1e9:.0f} TFLOP/s, SM clock median {clk[len(clk)//2]:.0f} MHz"
          f" (p10 {clk[len(clk)//10]:.0f}, p90 {clk[9*len(clk)//10]:.0f}), power median {pw[len(pw)//2]:.0f} W, {len(rows)} samples")
for rnd in range(2):
    run("gemmkit f16.14", ours); time.sleep(1); run("cuBLAS (torch)", cublas); time.sleep(1)
