/*
 * unit.h — a tiny TAP-style harness for the C unit tests.
 *
 * Each test case prints one line, "ok - name" or "not ok - name"; the
 * runner (test/scripts/run-unit.sh) counts them.  The process exits non-zero
 * when any case failed.
 */
#ifndef BS_UNIT_H
#define BS_UNIT_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

static int	unit_failed_cases;

/* Report one test case. */
static inline void
unit_report(int ok, const char *fmt, ...)
{
	va_list		ap;

	printf("%s - ", ok ? "ok" : "not ok");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	if (!ok)
		unit_failed_cases++;
}

/* Print a diagnostic line that the runner ignores. */
static inline void
unit_note(const char *fmt, ...)
{
	va_list		ap;

	printf("# ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

/* Process exit status for main(). */
static inline int
unit_exit_status(void)
{
	return unit_failed_cases ? 1 : 0;
}

#endif							/* BS_UNIT_H */
