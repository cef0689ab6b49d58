# mk/cuda.mk — the CUDA switch.
#
#   USE_CUDA=auto  (default) CUDA on when nvcc is found
#   USE_CUDA=1     CUDA required
#   USE_CUDA=0     CPU-only module
#
# The CUDA backend's sources plug in here; until they exist the switch only
# records the choice (and bitonic_sort_info() reports no GPU backend).

USE_CUDA ?= auto
NVCC ?= $(firstword $(shell command -v nvcc 2>/dev/null) $(wildcard /usr/local/cuda/bin/nvcc))

ifeq ($(USE_CUDA),auto)
  ifneq ($(NVCC),)
    BITONIC_CUDA := 1
  else
    BITONIC_CUDA := 0
  endif
else ifeq ($(USE_CUDA),1)
  ifeq ($(NVCC),)
    $(error USE_CUDA=1 but nvcc was not found; install the CUDA toolkit or set NVCC)
  endif
  BITONIC_CUDA := 1
else ifeq ($(USE_CUDA),0)
  BITONIC_CUDA := 0
else
  $(error USE_CUDA must be auto, 0 or 1, not '$(USE_CUDA)')
endif

ifeq ($(MAKELEVEL),0)
  $(info bitonic_sort: USE_CUDA=$(USE_CUDA) -> CUDA $(if $(filter 1,$(BITONIC_CUDA)),on ($(NVCC)),off))
endif
