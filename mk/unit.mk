# mk/unit.mk — the C unit tests: each test/unit/test_*.c links the sorting
# core directly (no PostgreSQL), one binary per file.  The core is compiled
# here with comparison counting on, into test/unit/bin/obj/.

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

.PHONY: unit unit-build
unit-build: $(UNIT_BINS)
unit: unit-build
	test/scripts/run-unit.sh $(UNIT_BINS)

clean: clean-unit
clean-unit:
	rm -rf test/unit/bin

# The sorter micro-benchmark (not a test): test/bench/sorter_bench.c,
# built with comparison counting (it costs the adaptive sort about 3%).
test/unit/bin/sorter_bench: test/bench/sorter_bench.c $(UNIT_CORE_OBJS) $(UNIT_DEPS)
	$(CC) $(UNIT_FLAGS) -c -o $@.o $<
	$(CXX) -o $@ $@.o $(UNIT_CORE_OBJS) $(HWY_LIBS) -lpthread -lm
	@rm -f $@.o

.PHONY: bench-sorters
bench-sorters: test/unit/bin/sorter_bench
	test/unit/bin/sorter_bench 10 24 1
	test/unit/bin/sorter_bench 16 24 $(shell nproc)
