/*
 * page_faults.h — the process's page faults and resident memory, for the
 * unit tests that check what a buffer costs the kernel.
 */
#ifndef BS_PAGE_FAULTS_H
#define BS_PAGE_FAULTS_H

#include <stdio.h>
#include <sys/resource.h>
#include <unistd.h>

/* Minor page faults the process has taken so far; -1 where unknown. */
static inline long
minor_faults(void)
{
	struct rusage usage;

	return getrusage(RUSAGE_SELF, &usage) == 0 ? usage.ru_minflt : -1;
}

/* Resident bytes of the process (/proc/self/statm); -1 where unreadable. */
static inline long
resident_bytes(void)
{
	FILE	   *statm = fopen("/proc/self/statm", "r");
	long		size,
				resident = -1;

	if (statm == NULL)
		return -1;
	if (fscanf(statm, "%ld %ld", &size, &resident) != 2)
		resident = -1;
	fclose(statm);
	return resident < 0 ? -1 : resident * sysconf(_SC_PAGESIZE);
}

#endif							/* BS_PAGE_FAULTS_H */
