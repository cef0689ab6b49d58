/*
 * bs_sort.h — the sorting core's public C API.
 *
 * Every sort in bitonic_sort sorts key/pointer pairs: a normalised unsigned
 * key (unsigned comparison gives the final order) and a 32-bit pointer (the
 * element's index in the input).  Ties are broken by the pointer, so every
 * sort is stable and every backend returns the same pair array bit for bit.
 *
 * Two shapes only:
 *   - bs_pair32: a 32-bit key and the pointer packed as (key << 32 | ptr)
 *   - bs_pair64: a 64-bit key and the pointer
 *
 * This header has no PostgreSQL dependency: the glue in src/, the CUDA
 * backend in cuda/ and the unit tests in test/unit/ all include it.
 */
#ifndef BS_SORT_H
#define BS_SORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A 32-bit key packed with its pointer: (uint64) key << 32 | ptr. */
typedef uint64_t bs_pair32;

/*
 * A 64-bit key with its pointer; ordered by (key, ptr).  The pointer comes
 * first so that on a little-endian machine the 16 bytes are the unsigned
 * 128-bit integer key << 64 | ptr, whose order is the pair's: vqsort sorts
 * them as such in place.
 */
typedef struct bs_pair64
{
	uint32_t	ptr;
	uint32_t	pad;			/* always 0 */
	uint64_t	key;
} bs_pair64;

/* Largest n any sorter accepts: pointers are 32-bit. */
#define BS_MAX_PAIRS ((size_t) UINT32_MAX)

typedef enum bs_algorithm
{
	BS_ALGO_AUTO = 0,			/* pick from n and backend */
	BS_ALGO_BITONIC,			/* Batcher's bitonic sorting network */
	BS_ALGO_ADAPTIVE,			/* Bilardi–Nicolau adaptive bitonic sort */
	BS_ALGO_VQSORT				/* Highway's vectorised quicksort (CPU; USE_HWY builds) */
} bs_algorithm;

/* Where a sort runs. */
typedef enum bs_backend
{
	BS_BACKEND_CPU = 0,
	BS_BACKEND_CUDA
} bs_backend;

typedef enum bs_status
{
	BS_OK = 0,
	BS_ERR_NOMEM,				/* an allocation failed */
	BS_ERR_TOO_MANY,			/* n exceeds BS_MAX_PAIRS */
	BS_ERR_UNSUPPORTED,			/* algorithm or backend not available in this build */
	BS_ERR_DEVICE,				/* the GPU backend failed; the pairs are unchanged (or, where only
								 * freeing its resources failed, already sorted) */
	BS_ERR_DEVICE_LOST			/* the GPU failed while writing the pairs back: they are lost */
} bs_status;

/*
 * Allocation and interrupt hooks.  The core allocates and calls `check` only
 * on the calling thread, and only at points where no worker thread is
 * running, so `check` may longjmp (PostgreSQL's CHECK_FOR_INTERRUPTS) as
 * long as `alloc` hands out memory that the caller frees on that path
 * (a PostgreSQL memory context).  NULL hooks mean malloc/free and no check.
 */
typedef struct bs_hooks
{
	void	   *(*alloc) (size_t size, void *arg);
	void		(*free) (void *ptr, void *arg);
	void		(*check) (void *arg);
	/*
	 * Whether check would act now (an interrupt waits), or NULL: only
	 * looked at, never acted on, so it is asked while helper threads run,
	 * and a parallel loop stops for the check at once (parallel.h).
	 */
	bool		(*pending) (void *arg);
	void	   *arg;
} bs_hooks;

/* Options of one sort call. */
typedef struct bs_options
{
	bs_backend	backend;
	bs_algorithm algorithm;
	int			threads;		/* worker threads; <= 1 means the calling thread only */
	const bs_hooks *hooks;		/* may be NULL */
	uint64_t   *comparisons;	/* if set, receives the number of key
								 * comparisons (builds with
								 * BS_COUNT_COMPARISONS only; else 0) */
} bs_options;

/* Sort n packed 32-bit-key pairs ascending by (key, ptr). */
extern bs_status bs_sort_pairs32(bs_pair32 *pairs, size_t n, const bs_options *opt);

/* Sort n 64-bit-key pairs ascending by (key, ptr). */
extern bs_status bs_sort_pairs64(bs_pair64 *pairs, size_t n, const bs_options *opt);

/* Standard bitonic network on the CPU, any n (partners >= n are skipped). */
extern bs_status bs_cpu_bitonic_pairs32(bs_pair32 *pairs, size_t n, const bs_options *opt);
extern bs_status bs_cpu_bitonic_pairs64(bs_pair64 *pairs, size_t n, const bs_options *opt);

/* Adaptive bitonic sort (Bilardi–Nicolau bitonic trees) on the CPU, any n. */
extern bs_status bs_cpu_adaptive_pairs32(bs_pair32 *pairs, size_t n, const bs_options *opt);
extern bs_status bs_cpu_adaptive_pairs64(bs_pair64 *pairs, size_t n, const bs_options *opt);

/* Highway's vqsort on the CPU (BS_ERR_UNSUPPORTED in builds without it). */
extern bs_status bs_cpu_vqsort_pairs32(bs_pair32 *pairs, size_t n, const bs_options *opt);
/*
 * Plain 64-bit keys, no pointers, ascending (values that equal keys cannot
 * tell apart need none); vqsort only: BS_ERR_UNSUPPORTED without Highway.
 */
extern bs_status bs_cpu_vqsort_keys64(uint64_t *keys, size_t n, const bs_options *opt);
extern bs_status bs_cpu_vqsort_pairs64(bs_pair64 *pairs, size_t n, const bs_options *opt);

/* Whether this build has Highway's vqsort. */
extern int	bs_cpu_has_vqsort(void);

/* The algorithm BS_ALGO_AUTO resolves to for n pairs on a backend. */
extern bs_algorithm bs_choose_algorithm(bs_backend backend, size_t n);

/* Below this many pairs `auto` picks the adaptive sorter on a backend. */
extern size_t bs_auto_threshold(bs_backend backend);

/* Name of an algorithm ("auto", "bitonic", "adaptive"). */
extern const char *bs_algorithm_name(bs_algorithm algo);

/* Short English text of a status code. */
extern const char *bs_status_message(bs_status status);

/* The SIMD level the CPU sorters use on this machine ("avx512", "avx2", "portable"). */
extern const char *bs_cpu_simd_level(void);

/* Number of online CPU cores. */
extern int	bs_cpu_core_count(void);

/* Smallest power of two >= n (1 for n <= 1): the size of the network sorting n. */
static inline size_t
bs_pow2_ceil(size_t n)
{
	size_t		p = 1;

	while (p < n)
		p *= 2;
	return p;
}

/* Pack a 32-bit key and a pointer into one pair. */
static inline bs_pair32
bs_pack32(uint32_t key, uint32_t ptr)
{
	return ((uint64_t) key << 32) | ptr;
}

/* Pointer of a packed pair. */
static inline uint32_t
bs_ptr32(bs_pair32 p)
{
	return (uint32_t) p;
}

/* Key of a packed pair. */
static inline uint32_t
bs_key32(bs_pair32 p)
{
	return (uint32_t) (p >> 32);
}

#ifdef __cplusplus
}
#endif

#endif							/* BS_SORT_H */
