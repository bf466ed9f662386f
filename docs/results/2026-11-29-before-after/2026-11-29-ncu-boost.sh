#!/usr/bin/env bash
# Issue 39: where b's extra time at 64^3/1024^3 lies: kernel duration at boost clocks (ncu --clock-control none,
# the ab tool's own L2 flush) for 9fe087a's and HEAD's libraries, and the SASS of the cp.async kernel of both.
cd "$(dirname "$0")"; R=$PWD; SECONDS=0
export PATH=/usr/local/cuda/bin:$PATH
mkdir -p /tmp/b9 && xz -dc .prebuilt9/libgemmkit.so.xz > /tmp/b9/libgemmkit.so &
cmake -S . -B build-device -G Ninja -DCMAKE_BUILD_TYPE=Release > /tmp/b.log 2>&1 && cmake --build build-device -j16 >> /tmp/b.log 2>&1; echo "build rc=$? ${SECONDS}s"; tail -2 /tmp/b.log
wait
P='cp_async_pipeline_kernelINS0_11PipelineCfgILi128ELi128ELi32ELi64ELi64ELi4ELb0ELb0EEENS_12GroupedOrderILi8EEE6__halfS6_Lb0ELb0E'
( for v in b9:/tmp/b9 head:$R/build-device; do n=${v%%:*}; d=${v#*:}
    cuobjdump -sass $d/libgemmkit.so | python3 -c "
import re,sys
t=sys.stdin.read()
for f in re.split(r'\n\s*Function : ', t)[1:]:
    if re.search(sys.argv[1], f.split('\n',1)[0]): print('Function : '+f); break" "$P" > $OUT/sass-$n-cp-async-128-f16-nn.txt
  done; echo "sass done ${SECONDS}s" ) &
M='gpu__time_duration.sum,sm__cycles_elapsed.max,smsp__inst_executed.sum,launch__registers_per_thread,dram__bytes_read.sum,dram__bytes_write.sum'
S=''; for r in long_scoreboard short_scoreboard barrier wait no_instruction membar drain imc_miss lg_throttle; do S="$S,smsp__average_warps_issue_stalled_${r}_per_issue_active.ratio"; done
for lib in $R/build-device/libgemmkit.so; do
  for spec in "f16.05_tuned_256x128x32_s4 f16 64,1024,512x512x8192" "tf32.06_mma_256x128x16_s4 tf32 64,4096" "sgemm.10_warp_tiling f32 4096"; do
    set -- $spec
    echo "=== $lib $1 $3"
    timeout 120 ncu --clock-control none --cache-control none --metrics "$M$S" \
      $R/build-device/gemmkit-ab --lib-a $lib --lib-b $lib --kernel $1 --type $2 --mnk $3 --iters 2 2>&1 |
      grep -E '^  [a-zA-Z_].*\(|^    [a-z]|b/a|^[a-z0-9.]+_' | cut -c1-150
  done
done > $OUT/ncu.txt 2>&1
echo "ncu done ${SECONDS}s"
wait
python3 - $OUT/ncu.txt <<'PY'
import re,sys
cur=None; rows={}
for line in open(sys.argv[1]):
    if line.startswith('==='): cur=line.split()[1].split('/')[2]+' '+line.split()[2]; continue
    m=re.match(r'\s+(\S+)\s+\S*\s+([\d.,]+)$', line)
    if m: rows.setdefault(cur,[]).append((m.group(1),m.group(2)))
for k,v in rows.items():
    t=[x[1] for x in v if x[0].startswith('gpu__time')]
    print(k, len(t), ' '.join(t))
PY
echo "end ${SECONDS}s"
