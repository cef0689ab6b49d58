# bitonic_sort — PGXS build.
#
#   make                 build the module (USE_CUDA=auto|0|1|emu, see mk/cuda.mk)
#   make CUDA_ARCHS=all  GPU code for every architecture nvcc knows (for packages); default: the GPUs nvidia-smi finds, else sm_75 + PTX (see mk/cuda.mk)
#   make emu             the module built against the SIMT emulator, in build/emu
#   make demo            install what is missing, build, install, run the demo
#   make demo-sharded    a coordinator and two shards (postgres_fdw): the sharded ORDER BY's plans
#   make test            the same set-up, then pg_regress and the C unit tests
#   make unit            build and run the C unit tests only
#   make bench           benchmark scripts (timings, not tests)
#   make bench-orderby   ORDER BY: native Sort against BitonicSort (BENCH_SIZES, BENCH_REPS, BENCH_QUERIES)
#   make bench-prefetch  how far ahead the ORDER BY emit loop should prefetch
#   make bench-first-touch  what writing never-touched memory costs this machine
#   make bench-gpu       where a GPU is: CUDA unit tests on it, the sorters against CUB, SQL with device=gpu
#   make bench-nodes     sorts below other operators (window, DISTINCT, GROUP BY, merge join, INTERSECT): module on vs off (BENCH_SIZES, BENCH_REPS)
#   make bench-parallel  ORDER BY with 0, 1 and 2 parallel workers: native against ours (BENCH_SIZES, BENCH_REPS)
#   make bench-sharded   ORDER BY over two postgres_fdw shards against one cluster (BENCH_ROWS, BENCH_REPS)
#   make bench-cancel    how long an ORDER BY takes to stop after a cancel, at points over its run
#   make bench-duckdb    the ORDER BY and below-other-operators queries: native, ours and DuckDB (from npm) (BENCH_SIZES, BENCH_REPS, BENCH_QUERIES)
#   make bench-docs      docs/benchmarks.md (tables and chart) from the results kept in docs/bench/
#   make bench-tpch      the 22 TPC-H queries on data generated here: module off and on, alternated, results compared (BENCH_SF, BENCH_REPS, BENCH_QUERIES, BENCH_WORK_MEM)
#   make bench-external  ORDER BY, a window and DISTINCT past work_mem (4MB, 64MB, 256MB): native (serial, 2 workers) against the external sort and the sort in memory, and each side as a new session's first sort (BENCH_ROWS, BENCH_REPS, BENCH_MEMS)

EXTENSION = bitonic_sort
MODULE_big = bitonic_sort
DATA = sql/bitonic_sort--1.0.sql

CORE_OBJS = \
	src/core/cpu_features.o \
	src/core/key_ranges.o \
	src/core/malloc_keep.o \
	src/core/merge_sort.o \
	src/core/parallel.o \
	src/core/page_probe.o \
	src/core/part_sort.o \
	src/core/prefault.o \
	src/core/read_ahead.o \
	src/core/worker.o \
	src/core/sort_adaptive.o \
	src/core/sort_bitonic.o \
	src/core/sort_dispatch.o \
	src/core/threads.o \
	src/core/unmapper.o

OBJS = \
	src/bitonic_sort.o \
	src/guc.o \
	src/thread_budget.o \
	src/keys.o \
	src/sort_run.o \
	src/gpu_auto.o \
	src/pinned_pairs.o \
	src/sort_parts.o \
	src/large_alloc.o \
	src/array_sort.o \
	src/info.o \
	src/multikey.o \
	src/libc_text.o \
	src/scan/planner.o \
	src/scan/extension.o \
	src/scan/replace.o \
	src/scan/unique.o \
	src/scan/window.o \
	src/scan/window_exec.o \
	src/scan/input_names.o \
	src/scan/values.o \
	src/scan/hash_cost.o \
	src/scan/join_paths.o \
	src/scan/exec.o \
	src/scan/heap_read.o \
	src/scan/row_form.o \
	src/scan/store.o \
	src/scan/runs.o \
	src/scan/merge_tree.o \
	src/scan/merge_order.o \
	src/scan/merge_tie.o \
	src/scan/run_file.o \
	src/scan/run_ends.o \
	src/scan/explain.o \
	src/scan/slot.o \
	src/scan/place.o \
	src/scan/ingest.o \
	$(CORE_OBJS)

REGRESS = gpu_sort_basic gpu_sort_types gpu_sort_adaptive gpu_sort_auto gpu_sort_generic gpu_sort_array_sort gpu_sort_errors bitonic_sort_info gpu_sort_cuda order_by_scan heap_read order_by_differential sort_nodes sort_nodes_differential order_by_parallel order_by_locking order_by_cancel settings_superuser order_by_external planner_unsortable_keys group_by_estimates planner_ordered_paths gpu_sort_cancel extension_scope

PG_CONFIG ?= pg_config

# The majors this source builds against; an older or newer one stops here.
PG_MAJOR := $(shell $(PG_CONFIG) --version 2>/dev/null | sed -E 's/^PostgreSQL ([0-9]+).*/\1/')
ifneq ($(PG_MAJOR),)
ifeq ($(filter 15 16 17 18,$(PG_MAJOR)),)
$(error bitonic_sort builds against PostgreSQL 15, 16, 17 and 18; $(PG_CONFIG) is PostgreSQL $(PG_MAJOR))
endif
endif
# The server whose headers the objects are built against (a change rebuilds them).
PG_SERVER_INCLUDES := $(shell $(PG_CONFIG) --includedir-server 2>/dev/null)
PG_CPPFLAGS = -I$(srcdir)/src -I$(srcdir)
# -Wno-sign-compare: PostgreSQL 15's array.h macros trip it.
PG_CFLAGS = -Wall -Wextra -Werror -Wno-unused-parameter -Wno-missing-field-initializers -Wno-sign-compare
SHLIB_LINK += -lpthread

PG_CXXFLAGS = -Wall -Wextra -Werror -Wno-unused-parameter

include mk/hwy.mk
include mk/cuda.mk
$(OBJS): $(BS_MODE_STAMP)

# The sorter core has hot loops: let the compiler vectorise them.
# the loser tree's masked swaps stay scalar (src/scan/merge_tree.h)
src/scan/runs.o src/scan/merge_order.o: override CFLAGS += -fno-tree-slp-vectorize
$(CORE_OBJS): override CFLAGS += -O3
$(CORE_OBJS): override CXXFLAGS += -O3

# Rebuild objects when a header they include changes.
override autodepend = yes

# No LLVM bitcode for JIT inlining: the sort loops gain nothing from it.
override with_llvm = no

PGXS := $(shell $(PG_CONFIG) --pgxs)
include $(PGXS)

include mk/unit.mk

.PHONY: demo demo-sharded test bench bench-orderby bench-gpu bench-cancel bench-nodes bench-parallel bench-sharded bench-duckdb bench-tpch bench-external bench-docs
demo:
	test/scripts/demo.sh
demo-sharded:
	test/scripts/demo-sharded.sh
test:
	test/scripts/run-tests.sh
bench: bench-sorters bench-prefetch bench-first-touch
	test/scripts/bench.sh
	test/scripts/bench-orderby.sh
bench-orderby:
	test/scripts/bench-orderby.sh
bench-gpu:
	test/scripts/bench-gpu.sh
bench-cancel:
	test/scripts/bench-cancel.sh
bench-nodes:
	test/scripts/bench-nodes.sh
bench-parallel:
	test/scripts/bench-parallel.sh
bench-sharded:
	test/scripts/bench-sharded.sh
bench-duckdb:
	test/scripts/bench-duckdb.sh
bench-tpch:
	test/scripts/bench-tpch.sh
bench-external:
	test/scripts/bench-external.sh
bench-docs:
	test/scripts/bench-render.py

# The pg_regress test names, for the test driver's count.
.PHONY: print-regress
print-regress:
	@echo $(REGRESS)
