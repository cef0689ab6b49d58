# mk/cuda.mk — the CUDA switch.
#
#   USE_CUDA=auto  (default) CUDA on when nvcc is found
#   USE_CUDA=1     CUDA required
#   USE_CUDA=0     CPU-only module
#   USE_CUDA=emu   the CUDA backend built with g++ against the SIMT emulator
#                  (cuda/emu/): kernels run on the CPU; for tests, see
#                  `make emu` (a copy of the sources built in build/emu)
#
# With nvcc, cuda/*.cu are compiled for every real architecture from sm_75
# up that `nvcc --list-gpu-arch` lists, plus PTX for the newest (override
# CUDA_ARCHS="90" for a quick local build), and the CUDA runtime is linked
# statically.  ptxas's resource report goes to build/ptxas.log; a kernel
# that spills fails the build.

USE_CUDA ?= auto
NVCC ?= $(firstword $(shell command -v nvcc 2>/dev/null) $(wildcard /usr/local/cuda/bin/nvcc))
CUDA_HOME ?= $(patsubst %/bin/nvcc,%,$(NVCC))

ifeq ($(USE_CUDA),auto)
  BITONIC_CUDA := $(if $(NVCC),nvcc,none)
else ifeq ($(USE_CUDA),1)
  ifeq ($(NVCC),)
    $(error USE_CUDA=1 but nvcc was not found; install the CUDA toolkit or set NVCC)
  endif
  BITONIC_CUDA := nvcc
else ifeq ($(USE_CUDA),0)
  BITONIC_CUDA := none
else ifeq ($(USE_CUDA),emu)
  BITONIC_CUDA := emu
else
  $(error USE_CUDA must be auto, 0, 1 or emu, not '$(USE_CUDA)')
endif

ifeq ($(MAKELEVEL),0)
  $(info bitonic_sort: USE_CUDA=$(USE_CUDA) -> CUDA $(if $(filter nvcc,$(BITONIC_CUDA)),on ($(NVCC)),$(if $(filter emu,$(BITONIC_CUDA)),emulated (cuda/emu),off)))
endif

CUDA_SRCS := $(notdir $(wildcard cuda/*.cu))
CUDA_OBJS := $(patsubst %.cu,cuda/%.o,$(CUDA_SRCS))
CUDA_DEPS := $(wildcard cuda/*.h cuda/*.cuh cuda/emu/*.h) src/core/bs_sort.h

# The rules below must not become the default goal.
.DEFAULT_GOAL := all

# Objects depend on the chosen mode, so switching USE_CUDA or PG_CONFIG
# rebuilds them: build/mode.stamp (the CUDA mode and the server's headers)
# is rewritten (at parse time: PGXS makes every target .SECONDARY, so a
# missing stamp would not force a rebuild) when it changes.
BS_MODE_STAMP := build/mode.stamp
$(shell mkdir -p build; [ "$$(cat $(BS_MODE_STAMP) 2>/dev/null)" = "$(BITONIC_CUDA) $(PG_SERVER_INCLUDES)" ] || echo "$(BITONIC_CUDA) $(PG_SERVER_INCLUDES)" >$(BS_MODE_STAMP))

ifneq ($(BITONIC_CUDA),none)
  PG_CPPFLAGS += -DBS_HAVE_CUDA
endif

ifeq ($(BITONIC_CUDA),nvcc)
  CUDA_ARCHS ?= $(shell $(NVCC) --list-gpu-arch 2>/dev/null | sed -n 's/^compute_//p' | sort -n | awk '$$1 >= 75')
  CUDA_GENCODE = $(foreach a,$(CUDA_ARCHS),-gencode arch=compute_$(a),code=sm_$(a)) \
	-gencode arch=compute_$(lastword $(CUDA_ARCHS)),code=compute_$(lastword $(CUDA_ARCHS))
  NVCC_FLAGS = -O3 -std=c++17 -Werror all-warnings -Xcompiler -fPIC,-Wall,-Wextra,-Werror \
	-Xptxas -v $(CUDA_GENCODE)
  OBJS += $(CUDA_OBJS)
  SHLIB_LINK += -L$(CUDA_HOME)/lib64 -lcudart_static -lrt -ldl -lpthread -lstdc++

# Compile one .cu; keep ptxas's report, refuse spills.
cuda/%.o: cuda/%.cu $(CUDA_DEPS) $(BS_MODE_STAMP)
	@mkdir -p cuda build/ptxas
	$(NVCC) $(NVCC_FLAGS) -c $< -o $@ 2>build/ptxas/$*.log || { cat build/ptxas/$*.log; exit 1; }
	@cat build/ptxas/*.log >build/ptxas.log
	@! grep -E '[1-9][0-9]* bytes spill (stores|loads)' build/ptxas/$*.log || { echo "$<: a kernel spills registers (see build/ptxas.log)"; exit 1; }
endif

ifeq ($(BITONIC_CUDA),emu)
  EMU_CXXFLAGS = -O2 -g -fPIC -std=c++17 -Wall -Wextra -Werror -U_FORTIFY_SOURCE -DBS_CUDA_EMU -Icuda
  OBJS += $(CUDA_OBJS) $(patsubst %.cc,%.o,$(wildcard cuda/emu/*.cc))
  PG_CPPFLAGS += -DBS_CUDA_EMU
  SHLIB_LINK += -lstdc++ -ldl

# Compile one .cu with g++ against the emulator.  Not with the access checks
# of the unit tests (mk/unit.mk): they would make the emulated pg_regress
# run several times slower; barriers, schedule, fences and copies are checked.
cuda/%.o: cuda/%.cu $(CUDA_DEPS) $(BS_MODE_STAMP)
	@mkdir -p cuda
	$(CXX) $(EMU_CXXFLAGS) -x c++ -c $< -o $@

# The emulator's runtime.
cuda/emu/%.o: cuda/emu/%.cc $(CUDA_DEPS) $(BS_MODE_STAMP)
	@mkdir -p cuda/emu
	$(CXX) $(EMU_CXXFLAGS) -c $< -o $@
endif

# The whole extension built against the emulator, in a copy of the sources
# under build/emu (so its objects never mix with this tree's).
EMU_COPY = Makefile bitonic_sort.control mk src cuda sql expected
EMU_MAKE = $(MAKE) -C build/emu USE_CUDA=emu

.PHONY: emu emu-install
emu:
	@mkdir -p build/emu
	@tar -cf - --exclude='*.o' --exclude='*.so' --exclude='*.bc' $(EMU_COPY) | tar -xf - -C build/emu
	$(EMU_MAKE) all
emu-install: emu
	$(EMU_MAKE) install
EXTRA_CLEAN += build cuda/*.o cuda/emu/*.o

# The cost model of the CUDA sorters (no GPU needed).
.PHONY: cuda-cost-model
cuda-cost-model:
	python3 test/bench/cuda_cost_model.py

# ptxas's registers, shared memory and spills per kernel for sm_80 and
# sm_90, and the occupancy they allow (nvcc needed, no GPU).
.PHONY: cuda-occupancy
cuda-occupancy:
	python3 test/bench/cuda_occupancy.py --nvcc $(NVCC)
