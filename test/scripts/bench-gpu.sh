#!/usr/bin/env bash
# test/scripts/bench-gpu.sh — what `make bench-gpu` runs, where a GPU is:
# the CUDA unit tests built with nvcc for the device (test_cuda_kernels,
# test_cuda_sort), compute-sanitizer's memcheck, racecheck and synccheck
# over test_cuda_kernels where the toolkit has it, the CUDA sorters against
# CUB's DeviceRadixSort::SortPairs (test/bench/cuda_sort_bench.cu; the
# table goes to tmp/bench/cuda_sort.md),
# then the SQL benchmark with bitonic_sort.device = gpu
# (test/scripts/bench-gpu-sql.sh; it installs the module and starts a
# throwaway cluster; BENCH_GPU_SQL=0 leaves it out).  Without a GPU it says
# so and exits 0.  Not a test of this machine's build: see `make unit`.
#   BENCH_GPU_LOG2="20 26"  smallest and largest n, as powers of two
#   BENCH_GPU_REPS=5        runs per measurement, best kept
#   BENCH_GPU_SANITIZE_S=180  seconds each compute-sanitizer tool may take
#                           over test_cuda_kernels (0: none run)
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
# compute-sanitizer over the kernel tests, where the toolkit has it: each
# tool's errors fail the run; a tool still running after BENCH_GPU_SANITIZE_S
# seconds (default 180; 0 skips them all) is reported and left
sanitizer=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
limit=${BENCH_GPU_SANITIZE_S:-180}
if [ "$limit" -gt 0 ] && [ -x "$sanitizer" ]; then
	for tool in memcheck racecheck synccheck; do
		echo "== compute-sanitizer --tool $tool test_cuda_kernels"
		timeout "$limit" "$sanitizer" --tool "$tool" --error-exitcode 1 test/unit/bin/gpu/test_cuda_kernels \
			>"tmp/sanitize-$tool.log" 2>&1
		rc=$?
		tail -3 "tmp/sanitize-$tool.log"
		case $rc in
			0) echo "ok - compute-sanitizer $tool: no error" ;;
			124) echo "compute-sanitizer $tool: not done within $limit s (tmp/sanitize-$tool.log)" ;;
			*) echo "not ok - compute-sanitizer $tool (tmp/sanitize-$tool.log)"; exit 1 ;;
		esac
	done
elif [ "$limit" -gt 0 ]; then
	echo "== no compute-sanitizer in PATH or /usr/local/cuda/bin: the kernels are not sanitized"
fi
echo "== CUDA sorters against CUB (ms)"
# shellcheck disable=SC2086
test/unit/bin/gpu/cuda_sort_bench ${BENCH_GPU_LOG2:-20 26} "${BENCH_GPU_REPS:-5}" | tee tmp/bench/cuda_sort.md
[ "${PIPESTATUS[0]}" -eq 0 ] || exit 1
[ "${BENCH_GPU_SQL:-1}" = 0 ] && exit 0
test/scripts/bench-gpu-sql.sh
