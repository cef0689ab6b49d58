# mk/hwy.mk — the Highway switch: Highway's vqsort as the CPU sorter that
# bitonic_sort.algorithm = auto uses (Debian package libhwy-dev).
#
#   USE_HWY=auto  (default) on when Highway's headers are found
#   USE_HWY=1     required
#   USE_HWY=0     without it: auto picks among our bitonic sorters

USE_HWY ?= auto
HWY_HEADER := $(wildcard /usr/include/hwy/contrib/sort/vqsort.h)

ifeq ($(USE_HWY),auto)
  BITONIC_HWY := $(if $(HWY_HEADER),1,0)
else ifeq ($(USE_HWY),1)
  ifeq ($(HWY_HEADER),)
    $(error USE_HWY=1 but Highway was not found; install libhwy-dev)
  endif
  BITONIC_HWY := 1
else ifeq ($(USE_HWY),0)
  BITONIC_HWY := 0
else
  $(error USE_HWY must be auto, 0 or 1, not '$(USE_HWY)')
endif

ifeq ($(BITONIC_HWY),1)
  CORE_OBJS += src/core/sort_vqsort.o
  PG_CPPFLAGS += -DBS_HAVE_VQSORT
  HWY_LIBS = -lhwy_contrib -lhwy -lstdc++
  SHLIB_LINK += $(HWY_LIBS)
endif

ifeq ($(MAKELEVEL),0)
  $(info bitonic_sort: USE_HWY=$(USE_HWY) -> vqsort $(if $(filter 1,$(BITONIC_HWY)),on,off (install libhwy-dev for the fastest CPU sort)))
endif
