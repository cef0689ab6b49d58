# mk/unit.mk — the unit tests: each test/unit/test_*.c links the sorting
# core directly (no PostgreSQL), one binary per file; each test_*.cc also
# links the CUDA backend built against the SIMT emulator (see below).

UNIT_SRCS = $(wildcard test/unit/test_*.c)
UNIT_BINS = $(patsubst test/unit/%.c,test/unit/bin/%,$(UNIT_SRCS))
CORE_SRCS = $(CORE_OBJS:.o=.c)
UNIT_CFLAGS = -O3 -g -Wall -Wextra -Werror -Isrc/core -Itest/unit

test/unit/bin/%: test/unit/%.c $(CORE_SRCS) $(wildcard src/core/*.h src/core/*.inc test/unit/*.h)
	@mkdir -p test/unit/bin
	$(CC) $(UNIT_CFLAGS) -o $@ $< $(CORE_SRCS) -lpthread -lm

# The CUDA unit tests (test_*.cc): C++ compiled with g++ against the SIMT
# emulator, linked with the .cu files compiled the same way and the core
# (compiled with the CUDA backend in its dispatch).  No GPU, no nvcc needed.
UNIT_CU_SRCS = $(wildcard test/unit/test_*.cc)
UNIT_CU_BINS = $(patsubst test/unit/%.cc,test/unit/bin/%,$(UNIT_CU_SRCS))
UNIT_EMU_DIR = test/unit/bin/emu
UNIT_EMU_OBJS = $(patsubst cuda/%.cu,$(UNIT_EMU_DIR)/%.o,$(wildcard cuda/*.cu)) \
	$(UNIT_EMU_DIR)/cuda_emu.o \
	$(patsubst src/core/%.c,$(UNIT_EMU_DIR)/core_%.o,$(CORE_SRCS))
UNIT_EMU_DEPS = $(wildcard cuda/*.h cuda/*.cuh cuda/emu/*.h src/core/*.h src/core/*.inc test/unit/*.h)
# Small staging buffers, so the tests drive the double-buffered copies.
UNIT_CXXFLAGS = -O2 -g -std=c++17 -Wall -Wextra -Werror -U_FORTIFY_SOURCE \
	-DBS_CUDA_EMU -DBS_CUDA_STAGE_BYTES=65536 -I. -Isrc/core -Itest/unit

$(UNIT_EMU_DIR)/%.o: cuda/%.cu $(UNIT_EMU_DEPS)
	@mkdir -p $(UNIT_EMU_DIR)
	$(CXX) $(UNIT_CXXFLAGS) -x c++ -c $< -o $@
$(UNIT_EMU_DIR)/cuda_emu.o: cuda/emu/cuda_emu.cc $(UNIT_EMU_DEPS)
	@mkdir -p $(UNIT_EMU_DIR)
	$(CXX) $(UNIT_CXXFLAGS) -c $< -o $@
$(UNIT_EMU_DIR)/core_%.o: src/core/%.c $(UNIT_EMU_DEPS)
	@mkdir -p $(UNIT_EMU_DIR)
	$(CC) $(UNIT_CFLAGS) -DBS_HAVE_CUDA -I. -c $< -o $@
test/unit/bin/%: test/unit/%.cc $(UNIT_EMU_OBJS) $(UNIT_EMU_DEPS)
	$(CXX) $(UNIT_CXXFLAGS) -o $@ $< $(UNIT_EMU_OBJS) -lpthread -lm

.PHONY: unit unit-build
unit-build: $(UNIT_BINS) $(UNIT_CU_BINS)
unit: unit-build
	test/scripts/run-unit.sh $(UNIT_BINS) $(UNIT_CU_BINS)

clean: clean-unit
clean-unit:
	rm -rf test/unit/bin
