/*
 * test_page_probe.c — the probe of a fresh 4 kB page's cost: it measures
 * 4 kB faults (one per page in every round: not a huge page, not resident
 * memory), gives a plausible figure, and leaves no mapping behind.
 */
#include "page_probe.h"
#include "mono_clock.h"
#include "page_faults.h"
#include "unit.h"

#include <string.h>
#include <sys/mman.h>

#define PROBE_BYTES ((size_t) 2 << 20)
#define PROBE_ROUNDS 3

/* Lines of /proc/self/maps: the process's mappings. */
static int
mapping_count(void)
{
	FILE	   *maps = fopen("/proc/self/maps", "r");
	int			lines = 0;
	int			c;

	if (maps == NULL)
		return -1;
	while ((c = fgetc(maps)) != EOF)
		lines += c == '\n';
	fclose(maps);
	return lines;
}

/* Microseconds per page of writing each 4 kB page of resident memory, best of three. */
static double
resident_write_us(void)
{
	volatile char *mem = malloc(PROBE_BYTES);
	double		best = -1;

	if (mem == NULL)
		return -1;
	memset((char *) mem, 0, PROBE_BYTES);
	for (int round = 0; round < 3; round++)
	{
		double		t0 = mono_seconds();
		double		us;

		for (size_t i = 0; i < PROBE_BYTES; i += 4096)
			mem[i] = (char) round;
		us = (mono_seconds() - t0) * 1e6 / (double) (PROBE_BYTES / 4096);
		if (best < 0 || us < best)
			best = us;
	}
	free((char *) mem);
	return best;
}

int
main(void)
{
	int			before = mapping_count();
	long		faults_before = minor_faults();
	double		fault_us = bs_small_page_fault_us();
	long		faults = minor_faults() - faults_before;
	int			after = mapping_count();
	double		resident_us = resident_write_us();

	unit_note("a fresh 4 kB page: %.3f us; a resident one: %.3f us", fault_us, resident_us);
	unit_report(fault_us > 0 && fault_us < 10000, "the probe gives a plausible cost (%.3f us a page)", fault_us);
	unit_report(fault_us > 2 * resident_us,
				"every round faults: the best costs more than twice a write to resident memory (%.3f against %.3f us)",
				fault_us, resident_us);
	unit_report(faults_before >= 0 && faults >= (long) (PROBE_ROUNDS * PROBE_BYTES / 4096),
				"every round faults each 4 kB page in: %ld minor faults for %d rounds of %zu pages",
				faults, PROBE_ROUNDS, PROBE_BYTES / 4096);
	unit_report(before > 0 && before == after, "the probe unmaps its memory (%d mappings before, %d after)",
				before, after);
	return unit_exit_status();
}
