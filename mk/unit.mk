# mk/unit.mk — the C unit tests: each test/unit/test_*.c links the sorting
# core directly (no PostgreSQL), one binary per file.

UNIT_SRCS = $(wildcard test/unit/test_*.c)
UNIT_BINS = $(patsubst test/unit/%.c,test/unit/bin/%,$(UNIT_SRCS))
CORE_SRCS = $(CORE_OBJS:.o=.c)
UNIT_CFLAGS = -O3 -g -Wall -Wextra -Werror -DBS_COUNT_COMPARISONS -Isrc/core -Itest/unit

test/unit/bin/%: test/unit/%.c $(CORE_SRCS) $(wildcard src/core/*.h src/core/*.inc test/unit/*.h)
	@mkdir -p test/unit/bin
	$(CC) $(UNIT_CFLAGS) -o $@ $< $(CORE_SRCS) -lpthread -lm

.PHONY: unit unit-build
unit-build: $(UNIT_BINS)
unit: unit-build
	test/scripts/run-unit.sh $(UNIT_BINS)

clean: clean-unit
clean-unit:
	rm -rf test/unit/bin

# The sorter micro-benchmark (not a test): test/bench/sorter_bench.c,
# built with comparison counting (it costs the adaptive sort about 3%).
test/unit/bin/sorter_bench: test/bench/sorter_bench.c $(CORE_SRCS) $(wildcard src/core/*.h src/core/*.inc test/unit/*.h)
	@mkdir -p test/unit/bin
	$(CC) $(UNIT_CFLAGS) -o $@ $< $(CORE_SRCS) -lpthread -lm

.PHONY: bench-sorters
bench-sorters: test/unit/bin/sorter_bench
	test/unit/bin/sorter_bench 10 24 1
	test/unit/bin/sorter_bench 16 24 $(shell nproc)
