# mk/unit.mk — the unit tests: each test/unit/test_*.c links the sorting
# core directly (no PostgreSQL), one binary per file; each test_*.cc also
# links the CUDA backend built against the SIMT emulator (see below).  The
# core is compiled here with comparison counting on, into test/unit/bin/.

UNIT_SRCS = $(wildcard test/unit/test_*.c)
UNIT_BINS = $(patsubst test/unit/%.c,test/unit/bin/%,$(UNIT_SRCS))
UNIT_CORE_OBJS = $(patsubst src/core/%.o,test/unit/bin/obj/%.o,$(CORE_OBJS))
UNIT_FLAGS = -O3 -g -Wall -Wextra -Werror -DBS_COUNT_COMPARISONS \
	$(if $(filter 1,$(BITONIC_HWY)),-DBS_HAVE_VQSORT) -Isrc/core -Itest/unit
UNIT_DEPS = $(wildcard src/core/*.h src/core/*.inc test/unit/*.h)

test/unit/bin/obj/%.o: src/core/%.c $(UNIT_DEPS)
	@mkdir -p test/unit/bin/obj
	$(CC) $(UNIT_FLAGS) -c -o $@ $<

test/unit/bin/obj/%.o: src/core/%.cpp $(UNIT_DEPS)
	@mkdir -p test/unit/bin/obj
	$(CXX) $(UNIT_FLAGS) -c -o $@ $<

test/unit/bin/%: test/unit/%.c $(UNIT_CORE_OBJS) $(UNIT_DEPS)
	$(CC) $(UNIT_FLAGS) -c -o $@.o $<
	$(CXX) -o $@ $@.o $(UNIT_CORE_OBJS) $(HWY_LIBS) -lpthread -lm
	@rm -f $@.o

# The CUDA unit tests (test_*.cc): C++ compiled with g++ against the SIMT
# emulator, linked with the .cu files compiled the same way and the core
# (compiled with the CUDA backend in its dispatch).  No GPU, no nvcc needed.
# The kernels (the .cu files and the tests that hold kernels) are compiled
# with the emulator's access checks: -fsanitize=thread makes g++ call
# __tsan_read/__tsan_write hooks on every access, which the emulator
# provides (cuda/emu/emu_check.cc); the programs are linked without libtsan.
UNIT_CU_SRCS = $(wildcard test/unit/test_*.cc)
UNIT_CU_BINS = $(patsubst test/unit/%.cc,test/unit/bin/%,$(UNIT_CU_SRCS))
UNIT_EMU_DIR = test/unit/bin/emu
UNIT_EMU_CORE_OBJS = $(patsubst src/core/%.o,$(UNIT_EMU_DIR)/core_%.o,$(CORE_OBJS))
UNIT_EMU_OBJS = $(patsubst cuda/%.cu,$(UNIT_EMU_DIR)/%.o,$(wildcard cuda/*.cu)) \
	$(patsubst cuda/emu/%.cc,$(UNIT_EMU_DIR)/%.o,$(wildcard cuda/emu/*.cc)) $(UNIT_EMU_CORE_OBJS)
UNIT_EMU_DEPS = $(wildcard cuda/*.h cuda/*.cuh cuda/emu/*.h) $(UNIT_DEPS)
# Small staging buffers, so the tests drive the double-buffered copies.
UNIT_CXXFLAGS = -O2 -g -std=c++17 -Wall -Wextra -Werror -U_FORTIFY_SOURCE \
	-DBS_CUDA_EMU -DBS_CUDA_STAGE_BYTES=65536 -I. -Isrc/core -Itest/unit
UNIT_CHECK_FLAGS = -fsanitize=thread --param tsan-instrument-func-entry-exit=0

$(UNIT_EMU_DIR)/%.o: cuda/%.cu $(UNIT_EMU_DEPS)
	@mkdir -p $(UNIT_EMU_DIR)
	$(CXX) $(UNIT_CXXFLAGS) $(UNIT_CHECK_FLAGS) -x c++ -c $< -o $@
$(UNIT_EMU_DIR)/%.o: cuda/emu/%.cc $(UNIT_EMU_DEPS)
	@mkdir -p $(UNIT_EMU_DIR)
	$(CXX) $(UNIT_CXXFLAGS) -c $< -o $@
$(UNIT_EMU_DIR)/core_%.o: src/core/%.c $(UNIT_EMU_DEPS)
	@mkdir -p $(UNIT_EMU_DIR)
	$(CC) $(UNIT_FLAGS) -DBS_HAVE_CUDA -I. -c $< -o $@
$(UNIT_EMU_DIR)/core_%.o: src/core/%.cpp $(UNIT_EMU_DEPS)
	@mkdir -p $(UNIT_EMU_DIR)
	$(CXX) $(UNIT_FLAGS) -DBS_HAVE_CUDA -I. -c $< -o $@
test/unit/bin/%: test/unit/%.cc $(UNIT_EMU_OBJS) $(UNIT_EMU_DEPS)
	$(CXX) $(UNIT_CXXFLAGS) $(UNIT_CHECK_FLAGS) -c $< -o $@.o
	$(CXX) -o $@ $@.o $(UNIT_EMU_OBJS) $(HWY_LIBS) -ldl -lpthread -lm
	@rm -f $@.o

# The CUDA unit tests that hold no emulator-only check, and the CUDA
# benchmark (test/bench/cuda_sort_bench.cu, against CUB), built with nvcc
# for a real GPU of architecture sm_$(GPU_ARCH): make bench-gpu runs them
# (test/scripts/bench-gpu.sh); make bench-gpu-build only builds them, which
# works without a GPU.
GPU_ARCH ?= 90
GPU_DIR = test/unit/bin/gpu
GPU_NVCC_FLAGS = -O3 -std=c++17 -arch=sm_$(GPU_ARCH) -Werror all-warnings \
	-Xcompiler -Wall,-Wextra,-Werror -I. -Isrc/core -Itest/unit
GPU_CU_OBJS = $(patsubst cuda/%.cu,$(GPU_DIR)/%.o,$(wildcard cuda/*.cu))
GPU_BINS = $(GPU_DIR)/test_cuda_kernels $(GPU_DIR)/test_cuda_sort $(GPU_DIR)/cuda_sort_bench
GPU_DEPS = $(wildcard cuda/*.h cuda/*.cuh) $(UNIT_DEPS)

$(GPU_DIR)/%.o: cuda/%.cu $(GPU_DEPS)
	@mkdir -p $(GPU_DIR)
	$(NVCC) $(GPU_NVCC_FLAGS) -c $< -o $@
$(GPU_DIR)/test_%: test/unit/test_%.cc $(GPU_CU_OBJS) $(UNIT_EMU_CORE_OBJS) $(GPU_DEPS)
	$(NVCC) $(GPU_NVCC_FLAGS) -x cu -c $< -o $@.o
	$(NVCC) $(GPU_NVCC_FLAGS) -o $@ $@.o $(GPU_CU_OBJS) $(UNIT_EMU_CORE_OBJS) $(HWY_LIBS) -lpthread -lm
	@rm -f $@.o
$(GPU_DIR)/cuda_sort_bench: test/bench/cuda_sort_bench.cu $(GPU_CU_OBJS) $(UNIT_EMU_CORE_OBJS) $(GPU_DEPS)
	$(NVCC) $(GPU_NVCC_FLAGS) -o $@ $< $(GPU_CU_OBJS) $(UNIT_EMU_CORE_OBJS) $(HWY_LIBS) -lpthread -lm

.PHONY: bench-gpu-build
bench-gpu-build: $(GPU_BINS)

.PHONY: unit unit-build
unit-build: $(UNIT_BINS) $(UNIT_CU_BINS)
unit: unit-build
	test/scripts/run-unit.sh $(UNIT_BINS) $(UNIT_CU_BINS)

clean: clean-unit
clean-unit:
	rm -rf test/unit/bin

# The sorter micro-benchmark (not a test): test/bench/sorter_bench.c,
# built with comparison counting (it costs the adaptive sort about 3%).
test/unit/bin/sorter_bench: test/bench/sorter_bench.c $(UNIT_CORE_OBJS) $(UNIT_DEPS)
	$(CC) $(UNIT_FLAGS) -c -o $@.o $<
	$(CXX) -o $@ $@.o $(UNIT_CORE_OBJS) $(HWY_LIBS) -lpthread -lm
	@rm -f $@.o

# How far ahead the ORDER BY emit loop should prefetch (not a test):
# test/bench/prefetch_bench.c, plain C.
test/unit/bin/prefetch_bench: test/bench/prefetch_bench.c test/unit/mono_clock.h
	@mkdir -p $(dir $@)
	$(CC) -O2 -Wall -Wextra -Werror -o $@ $<

# What writing never-touched memory costs this machine (not a test):
# test/bench/first_touch_bench.c, plain C.
test/unit/bin/first_touch_bench: test/bench/first_touch_bench.c test/unit/mono_clock.h
	@mkdir -p $(dir $@)
	$(CC) -O2 -Wall -Wextra -Werror -pthread -o $@ $<

.PHONY: bench-first-touch
bench-first-touch: test/unit/bin/first_touch_bench
	@grep -H . /sys/module/page_reporting/parameters/page_reporting_order 2>/dev/null || \
		echo "no free page reporting in this kernel"
	@# as root, with a 1.2 GB pool of 2 MB huge pages, given back on exit
	bash -c 'source test/scripts/common.sh && reserve_huge_pages 600 && \
		trap restore_huge_pages EXIT && test/unit/bin/first_touch_bench 1024 3 5'

.PHONY: bench-prefetch
bench-prefetch: test/unit/bin/prefetch_bench
	test/unit/bin/prefetch_bench 10000000 136 3

.PHONY: bench-sorters
bench-sorters: test/unit/bin/sorter_bench
	test/unit/bin/sorter_bench 10 24 1
	test/unit/bin/sorter_bench 16 24 $(shell nproc)
