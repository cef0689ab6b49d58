/*
 * core_alloc.h — allocation through the caller's hooks (a PostgreSQL
 * memory context in the extension), or malloc/free without hooks.
 */
#ifndef BS_CORE_ALLOC_H
#define BS_CORE_ALLOC_H

#include <stdlib.h>

#include "bs_sort.h"

/* Allocate size bytes through the hooks (or malloc); NULL on failure. */
static inline void *
bs_core_alloc(const bs_hooks *hooks, size_t size)
{
	return hooks && hooks->alloc ? hooks->alloc(size, hooks->arg) : malloc(size);
}

/* Free memory from bs_core_alloc; NULL is ignored. */
static inline void
bs_core_free(const bs_hooks *hooks, void *ptr)
{
	if (ptr == NULL)
		return;
	if (hooks && hooks->free)
		hooks->free(ptr, hooks->arg);
	else
		free(ptr);
}

#endif							/* BS_CORE_ALLOC_H */
