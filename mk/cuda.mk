# mk/cuda.mk — the CUDA switch, the architectures, and the install's source id.
#
#   USE_CUDA=auto  (default) CUDA on when nvcc is found
#   USE_CUDA=1     CUDA required
#   USE_CUDA=0     CPU-only module
#   USE_CUDA=emu   the CUDA backend built with g++ against the SIMT emulator
#                  (cuda/emu/): kernels run on the CPU; for tests, see
#                  `make emu` (a copy of the sources built in build/emu)
#
#   CUDA_ARCHS=         (default, or auto) the architectures of the GPUs that
#                       `nvidia-smi --query-gpu=compute_cap` lists here; with
#                       none, 75 alone: sm_75 code and compute_75 PTX prove
#                       the code builds, and the PTX runs (JIT-compiled by the
#                       driver) on every newer GPU
#   CUDA_ARCHS=all      every real architecture from sm_75 up that
#                       `nvcc --list-gpu-arch` lists (CUDA 13.0: 12 of them):
#                       for packages that must run on any GPU
#   CUDA_ARCHS="80 90"  these (90, sm_90 and 9.0 are the same)
#
# Each architecture gets its own code (sm_XX), the newest also PTX
# (compute_XX); the oldest is the least compute capability the module
# accepts at run time (BS_MIN_CC).  The CUDA runtime is linked statically.
# ptxas's resource report goes to build/ptxas.log; a kernel that spills
# fails the build.

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

CUDA_SRCS := $(notdir $(wildcard cuda/*.cu))
CUDA_OBJS := $(patsubst %.cu,cuda/%.o,$(CUDA_SRCS))
CUDA_DEPS := $(wildcard cuda/*.h cuda/*.cuh cuda/emu/*.h) src/core/bs_sort.h

# The rules below must not become the default goal.
.DEFAULT_GOAL := all

# Objects depend on the chosen mode, so switching USE_CUDA or PG_CONFIG
# rebuilds them: build/mode.stamp (the CUDA mode and the server's headers,
# by their real place: a user's copy of PostgreSQL links the same ones) is
# rewritten (at parse time: PGXS makes every target .SECONDARY, so a
# missing stamp would not force a rebuild) when it changes.
BS_MODE_STAMP := build/mode.stamp
BS_MODE := $(BITONIC_CUDA) $(or $(realpath $(PG_SERVER_INCLUDES)),$(PG_SERVER_INCLUDES))
$(shell mkdir -p build; [ "$$(cat $(BS_MODE_STAMP) 2>/dev/null)" = "$(BS_MODE)" ] || echo "$(BS_MODE)" >$(BS_MODE_STAMP))

# The source id: a hash of the files the module is built from (the
# Makefile, mk/hwy.mk, mk/cuda.mk, the control file, the install scripts,
# src/ and cuda/) and the CUDA mode, e.g. "3f0c9a1e5b7d2c44 nvcc".  `make
# install` installs it as share/extension/bitonic_sort.source-id; the demo
# and test scripts compare the installed one with `make print-source-id` to
# know, without building, whether the installed module is this tree's.
BS_SOURCE_ID := $(shell { ls Makefile mk/hwy.mk mk/cuda.mk $(EXTENSION).control sql/$(EXTENSION)--*.sql; \
	find src cuda -type f \( -name '*.[ch]' -o -name '*.cc' -o -name '*.cpp' -o -name '*.inc' -o -name '*.cu' -o -name '*.cuh' \); } 2>/dev/null | \
	LC_ALL=C sort | xargs sha256sum | sha256sum | cut -c1-16) $(BITONIC_CUDA)
BS_SOURCE_ID_FILE := build/$(EXTENSION).source-id
$(shell { [ "$$(cat $(BS_SOURCE_ID_FILE))" = "$(BS_SOURCE_ID)" ] || echo "$(BS_SOURCE_ID)" >$(BS_SOURCE_ID_FILE); } 2>/dev/null)
DATA_built += $(BS_SOURCE_ID_FILE)
$(BS_SOURCE_ID_FILE):
	@mkdir -p build
	echo "$(BS_SOURCE_ID)" >$@

.PHONY: print-source-id
print-source-id:
	@echo $(BS_SOURCE_ID)

ifneq ($(BITONIC_CUDA),none)
  PG_CPPFLAGS += -DBS_HAVE_CUDA
endif

ifeq ($(BITONIC_CUDA),nvcc)
  # What nvcc can target from sm_75 up, e.g. "75 80 86 ... 121".
  CUDA_ARCHS_NVCC := $(shell $(NVCC) --list-gpu-arch 2>/dev/null | sed -n 's/^compute_//p' | sort -n | awk '$$1 >= 75')
  ifeq ($(filter-out auto,$(strip $(CUDA_ARCHS))),)
    # The GPUs here ("9.0" -> 90) that nvcc can target; none: 75.
    CUDA_ARCHS_GPUS := $(shell command -v nvidia-smi >/dev/null 2>&1 && \
	timeout 20 nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | \
	sed -n 's/^ *\([0-9][0-9]*\)\.\([0-9]\) *$$/\1\2/p' | sort -nu)
    CUDA_ARCHS_USED := $(sort $(filter $(CUDA_ARCHS_NVCC),$(CUDA_ARCHS_GPUS)))
    CUDA_ARCHS_WHY := $(if $(CUDA_ARCHS_USED),the GPUs here,no GPU here: PTX for newer GPUs)
    CUDA_ARCHS_USED := $(or $(CUDA_ARCHS_USED),75)
  else ifeq ($(strip $(CUDA_ARCHS)),all)
    CUDA_ARCHS_USED := $(CUDA_ARCHS_NVCC)
    CUDA_ARCHS_WHY := CUDA_ARCHS=all
  else
    CUDA_ARCHS_USED := $(subst .,,$(patsubst compute_%,%,$(patsubst sm_%,%,$(CUDA_ARCHS))))
    CUDA_ARCHS_WHY := CUDA_ARCHS
  endif
  # In ascending order (as numbers: 100 after 90).
  CUDA_ARCHS_USED := $(shell printf '%s\n' $(CUDA_ARCHS_USED) | sort -nu)
  ifeq ($(CUDA_ARCHS_USED),)
    $(error no CUDA architecture to build for (CUDA_ARCHS='$(CUDA_ARCHS)'; nvcc lists '$(CUDA_ARCHS_NVCC)'))
  endif
  CUDA_GENCODE = $(foreach a,$(CUDA_ARCHS_USED),-gencode arch=compute_$(a),code=sm_$(a)) \
	-gencode arch=compute_$(lastword $(CUDA_ARCHS_USED)),code=compute_$(lastword $(CUDA_ARCHS_USED))
  NVCC_FLAGS = -O3 -std=c++17 -Werror all-warnings -Xcompiler -fPIC,-Wall,-Wextra,-Werror \
	-Xptxas -v -DBS_MIN_CC=$(firstword $(CUDA_ARCHS_USED)) $(CUDA_GENCODE)
  OBJS += $(CUDA_OBJS)
  SHLIB_LINK += -L$(CUDA_HOME)/lib64 -lcudart_static -lrt -ldl -lpthread -lstdc++

  # A change of architectures rebuilds the CUDA objects (only them).
  BS_ARCHS_STAMP := build/cuda-archs.stamp
  $(shell { [ "$$(cat $(BS_ARCHS_STAMP))" = "$(CUDA_ARCHS_USED)" ] || echo "$(CUDA_ARCHS_USED)" >$(BS_ARCHS_STAMP); } 2>/dev/null)

# Compile one .cu; keep ptxas's report, refuse spills and local-memory arrays (a stack frame).
cuda/%.o: cuda/%.cu $(CUDA_DEPS) $(BS_MODE_STAMP) $(BS_ARCHS_STAMP)
	@mkdir -p cuda build/ptxas
	$(NVCC) $(NVCC_FLAGS) -c $< -o $@ 2>build/ptxas/$*.log || { cat build/ptxas/$*.log; exit 1; }
	@cat build/ptxas/*.log >build/ptxas.log
	@! grep -E '[1-9][0-9]* bytes (spill (stores|loads)|stack frame)' build/ptxas/$*.log || { echo "$<: a kernel spills registers or keeps an array in local memory (see build/ptxas.log)"; exit 1; }
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

ifeq ($(MAKELEVEL),0)
  $(info bitonic_sort: USE_CUDA=$(USE_CUDA) -> CUDA $(if $(filter nvcc,$(BITONIC_CUDA)),on ($(NVCC)) for $(patsubst %,sm_%,$(CUDA_ARCHS_USED)) + compute_$(lastword $(CUDA_ARCHS_USED)) PTX ($(CUDA_ARCHS_WHY)),$(if $(filter emu,$(BITONIC_CUDA)),emulated (cuda/emu),off)))
endif

# The CUDA architectures this build compiles for ("" without nvcc), for the scripts.
.PHONY: print-cuda-archs
print-cuda-archs:
	@echo $(CUDA_ARCHS_USED)

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
cuda-cost-model: test/bench/cuda_cost_model.cc cuda/cost_model.h cuda/bs_cuda_config.h
	@mkdir -p build
	$(CXX) -O2 -std=c++17 -Wall -Wextra -Werror -I. -o build/cuda_cost_model test/bench/cuda_cost_model.cc
	build/cuda_cost_model

# ptxas's registers, shared memory and spills per kernel for sm_80 and
# sm_90, and the occupancy they allow (nvcc needed, no GPU).
.PHONY: cuda-occupancy
cuda-occupancy:
	python3 test/bench/cuda_occupancy.py --nvcc $(NVCC)
