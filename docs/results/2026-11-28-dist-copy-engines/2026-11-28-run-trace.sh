# One device call: timelines of gemmkit_dist with every overlap on the copy engines at P = 4
# and 2, and NCCL's INFO log of the P = 4 run. Runs a CLI built elsewhere and sent along:
#   xz -c build/gemmkit > .prebuilt/gemmkit.xz   (carry .prebuilt; NCCL from the device's wheel)
set -u
OUT=${OUT:-/tmp/o}; mkdir -p $OUT
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
xz -dc .prebuilt/gemmkit.xz > /tmp/gemmkit && chmod +x /tmp/gemmkit
d=$(python3 -c "import nvidia.nccl as m, os; print(os.path.join(list(m.__path__)[0], 'lib'))")
export LD_LIBRARY_PATH=$d:${LD_LIBRARY_PATH:-}
nvidia-smi -L; echo "commit $(git rev-parse --short HEAD) $(git diff --quiet HEAD || echo with local changes)"
G=$(nvidia-smi -L | wc -l)
for P in 4 2; do
  ((P > G)) && continue
  GEMMKIT_DIST_COPY_ENGINES=all GEMMKIT_DIST_TRACE=1 timeout 60 /tmp/gemmkit dist-bench --gpus $P --m 8192 --warmup 1 --iters 2 > $OUT/trace-p$P.log 2>&1; echo "trace P=$P rc=$? ${SECONDS}s"
  grep -E "trace|^(AllGather|GEMM-Reduce)" $OUT/trace-p$P.log | grep -A1 "rank 0\|^All\|^GEMM" | sed 's/;/;\n   /g' | tail -40
done
GEMMKIT_DIST_COPY_ENGINES=all NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=ALL timeout 60 /tmp/gemmkit dist-bench --gpus 4 --m 8192 --warmup 1 --iters 1 > $OUT/nccl-info-p4.log 2>&1; echo "info rc=$? ${SECONDS}s"
grep -iE " CE|copy engine|symmetric|AlltoAll|ceColl|Init CE" $OUT/nccl-info-p4.log | sed 's/^[^ ]* [^ ]* //' | sort | uniq -c | sort -rn | head -30
xz -T8 $OUT/nccl-info-p4.log
