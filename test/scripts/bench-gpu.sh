#!/usr/bin/env bash
# test/scripts/bench-gpu.sh — what `make bench-gpu` runs, where a GPU is:
# the CUDA unit tests built with nvcc for the device (test_cuda_kernels,
# test_cuda_sort), the CUDA sorters against CUB's DeviceRadixSort::SortPairs
# (test/bench/cuda_sort_bench.cu; the table goes to tmp/bench/cuda_sort.md),
# then the SQL benchmark with bitonic_sort.device = gpu
# (test/scripts/bench-gpu-sql.sh; it installs the module and starts a
# throwaway cluster; BENCH_GPU_SQL=0 leaves it out).  Without a GPU it says
# so and exits 0.  Not a test of this machine's build: see `make unit`.
#   BENCH_GPU_LOG2="20 26"  smallest and largest n, as powers of two
#   BENCH_GPU_REPS=5        runs per measurement, best kept
set -u
source "$(dirname "$0")/common.sh"
cd "$TOP" || exit 1

if ! command -v nvidia-smi >/dev/null 2>&1 || [ -z "$(nvidia-smi -L 2>/dev/null)" ]; then
	echo "bench-gpu: no NVIDIA GPU here (nvidia-smi lists none): nothing to run"
	exit 0
fi
nvidia-smi -L
# the device's architecture, e.g. 9.0 -> 90
arch=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -1 | tr -d '. ')
mkdir -p tmp/bench
echo "== building the CUDA unit tests and the benchmark for sm_$arch"
make -s -j2 bench-gpu-build GPU_ARCH="$arch" >tmp/build-gpu.log 2>&1 || { cat tmp/build-gpu.log; exit 1; }
echo "== CUDA unit tests on the GPU"
test/scripts/run-unit.sh test/unit/bin/gpu/test_cuda_kernels test/unit/bin/gpu/test_cuda_sort || exit 1
echo "== CUDA sorters against CUB (ms)"
# shellcheck disable=SC2086
test/unit/bin/gpu/cuda_sort_bench ${BENCH_GPU_LOG2:-20 26} "${BENCH_GPU_REPS:-5}" | tee tmp/bench/cuda_sort.md
[ "${PIPESTATUS[0]}" -eq 0 ] || exit 1
[ "${BENCH_GPU_SQL:-1}" = 0 ] && exit 0
test/scripts/bench-gpu-sql.sh
