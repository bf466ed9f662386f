set -u
OUT=${OUT:-/tmp/o}; L=$OUT/logs; mkdir -p $L
xz -dc .prebuilt/gemmkit.xz > /tmp/gemmkit && chmod +x /tmp/gemmkit
export PATH=$PATH:/usr/local/cuda/bin
S="--section SpeedOfLight --section LaunchStats --section Occupancy --section WarpStateStats --section SchedulerStats --section MemoryWorkloadAnalysis"
run() { name=$1; shift; timeout 90 ncu $S --kernel-name regex:few_vectors --launch-count 1 /tmp/gemmkit bench --quiet --warmup 0 --iters 1 "$@" > $L/ncu-$name.txt 2>&1; echo "$name rc=$?" >> $OUT/summary.txt; }
run f32-tn --kernels sgemm.14_few_vectors --mnk 4096x16x4096 --ops TN
run f32-nn --kernels sgemm.14_few_vectors --mnk 4096x16x4096 --ops NN
run f16-tn --kernels f16.15_few_vectors --mnk 4096x16x4096 --ops TN
run f64-tn --kernels dgemm.10_few_vectors --mnk 4096x16x4096 --ops TN
tar czf $OUT/all-logs.tgz -C $OUT logs
cat $OUT/summary.txt
for f in $L/ncu-*.txt; do echo "== $f"; grep -E "Duration|DRAM Throughput|Memory Throughput|Achieved Occupancy|Registers Per|Stall|Issued Ipc|No Eligible|Theoretical Occupancy|L1/TEX Hit|L2 Hit|Warp Cycles Per Issued" $f | head -20; done
