/*
 * extension.c — the planner hooks act only in a database where the
 * extension is created: a library preloaded server-wide, or loaded by one
 * call of gpu_sort(), leaves the plans of every other database (and of this
 * one after DROP EXTENSION) to PostgreSQL.
 *
 * Whether the extension exists is looked up once and kept until pg_extension
 * changes (its syscache's invalidation, which CREATE, ALTER and DROP
 * EXTENSION send to every backend).
 */
#include "scan/plan.h"

#include "catalog/pg_extension.h"	/* EXTENSIONOID on 17 */
#include "commands/extension.h"
#include "utils/inval.h"
#include "utils/syscache.h"

typedef enum ExtensionState
{
	EXTENSION_UNKNOWN,
	EXTENSION_ABSENT,
	EXTENSION_CREATED
} ExtensionState;

static ExtensionState extension_state = EXTENSION_UNKNOWN;
static bool callback_registered = false;

/* Syscache callback: pg_extension changed, look again at the next planning. */
static void
forget_extension_state(Datum arg, int cacheid, uint32 hashvalue)
{
	extension_state = EXTENSION_UNKNOWN;
}

/* Whether the planner hooks may offer BitonicSort: enabled, and the extension created here. */
bool
BitonicPlanningEnabled(void)
{
	if (!bitonic_sort_enable)
		return false;
	if (!callback_registered)
	{
		CacheRegisterSyscacheCallback(EXTENSIONOID, forget_extension_state, (Datum) 0);
		callback_registered = true;
	}
	if (extension_state == EXTENSION_UNKNOWN)
		extension_state = OidIsValid(get_extension_oid("bitonic_sort", true)) ?
			EXTENSION_CREATED : EXTENSION_ABSENT;
	return extension_state == EXTENSION_CREATED;
}
