#!/usr/bin/env bash
# Issue 39: why f16.05's cp_async kernel runs slower than at 9fe087a. 9fe087a's CLI carried; HEAD's built here.
cd "$(dirname "$0")"; R=$PWD; SECONDS=0
export PATH=/usr/local/cuda/bin:$PATH
mkdir -p /tmp/b9 && xz -dc .prebuilt9/libgemmkit.so.xz > /tmp/b9/libgemmkit.so && cp .prebuilt9/gemmkit /tmp/b9/gemmkit && chmod +x /tmp/b9/gemmkit
B="env LD_LIBRARY_PATH=/tmp/b9 /tmp/b9/gemmkit"
( cmake -S . -B build-device -G Ninja -DCMAKE_BUILD_TYPE=Release > /tmp/b.log 2>&1 && cmake --build build-device -j16 --target gemmkit >> /tmp/b.log 2>&1; echo "head build rc=$? ${SECONDS}s" ) &
( for v in b9 head; do xz -dc .sass/${v}_pipeline.cubin.xz > /tmp/$v.cubin; cuobjdump -sass /tmp/$v.cubin > /tmp/$v.sass; done
  P='cp_async_pipeline_kernelINS0_11PipelineCfgILi128ELi128ELi32ELi64ELi64ELi4ELb0ELb0EEENS_12GroupedOrderILi8EEE6__halfS6_Lb0ELb0E'
  for v in b9 head; do python3 .sass/loopdump.py /tmp/$v.sass "$P" > $OUT/sass-$v-cp-async-f16-nn.txt; done ) &
M='gpu__time_duration.sum,smsp__inst_executed.sum,launch__registers_per_thread,launch__grid_size,launch__shared_mem_per_block_dynamic,sm__cycles_elapsed.avg,smsp__warps_active.avg.per_cycle_active,dram__bytes_read.sum,lts__t_bytes.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum'
S=''; for r in long_scoreboard short_scoreboard barrier wait math_pipe_throttle mio_throttle lg_throttle no_instruction not_selected selected dispatch_stall imc_miss branch_resolving; do S="$S,smsp__average_warps_issue_stalled_${r}_per_issue_active.ratio"; done
prof() {  # prof LABEL BIN... : ncu of the pipeline kernels of one bench call per shape
  for s in 512x512x8192 1024 64; do
    echo "=== $1 $s"
    timeout 60 ncu -k regex:pipeline_kernel -c 2 --metrics "$M$S" "${@:2}" bench --kernels 'f16.05*' --mnk $s --iters 2 2>&1 | grep -E '^  [a-zA-Z_].*\(|^    [a-z]' | cut -c1-170
  done
}
prof before $B > $OUT/ncu-before.txt 2>&1
wait
echo "ncu before done ${SECONDS}s"
A=$R/build-device/gemmkit
prof after $A > $OUT/ncu-after.txt 2>&1
echo "ncu after done ${SECONDS}s"
K='f16.05*,bf16.05*,tf32.06*'; SH='64,1024,512x512x8192,4096'
for o in b a a b; do
  bin=$B; [ $o = a ] && bin=$A
  echo "=== $o" >> $OUT/bench.txt
  timeout $((590-SECONDS)) $bin bench --kernels "$K" --mnk $SH --iters 10 2>&1 | grep -E '^(f16|bf16|tf32|cublas)' >> $OUT/bench.txt
  echo "bench $o done ${SECONDS}s"
done
cat $OUT/bench.txt | head -80
