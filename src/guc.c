/*
 * guc.c — the module's settings (bitonic_sort.*).
 */
#include "bitonic_sort.h"

#include <limits.h>

#include "core/threads.h"
#include "core/unmapper.h"
#ifdef BS_HAVE_CUDA
#include "cuda/bs_cuda.h"
#endif

#include "utils/guc.h"

int			bitonic_sort_device = BITONIC_DEVICE_AUTO;
int			bitonic_sort_algorithm = BS_ALGO_AUTO;
int			bitonic_sort_cpu_threads = 1;
int			bitonic_sort_gpu_memory_limit = 1024;
int			bitonic_sort_gpu_min_pairs = -1;
int			bitonic_sort_gpu_pinned_memory = 256;
char	   *bitonic_sort_emu_fail = NULL;
#ifdef BITONIC_TEST_BUILD
int			bitonic_sort_test_fault = BITONIC_FAULT_NONE;

static const struct config_enum_entry test_fault_options[] = {
	{"none", BITONIC_FAULT_NONE, false},
	{"part_sort", BITONIC_FAULT_PART_SORT, false},
	{"ingest", BITONIC_FAULT_INGEST, false},
	{"read_ahead", BITONIC_FAULT_READ_AHEAD, false},
	{"run_write", BITONIC_FAULT_RUN_WRITE, false},
	{"run_map", BITONIC_FAULT_RUN_MAP, false},
	{NULL, 0, false}
};
#endif
bool		bitonic_sort_enable = true;
int			bitonic_sort_both_ends_run_size = 24 * 1024;
bool		bitonic_sort_write_runs_behind = true;
int			bitonic_sort_map_runs = BITONIC_MAP_RUNS_AUTO;
bool		bitonic_sort_merge_thread = true;
int			bitonic_sort_min_rows = 10000;
bool		bitonic_sort_huge_pages = true;
int			bitonic_sort_transparent_huge_pages = BITONIC_THP_AUTO;
int			bitonic_sort_keep_memory = -1;
int			bitonic_sort_keep_memory_idle = 60000;
bool		bitonic_sort_heap_read = true;
int			bitonic_sort_max_threads = 8;

static const struct config_enum_entry device_options[] = {
	{"auto", BITONIC_DEVICE_AUTO, false},
	{"cpu", BITONIC_DEVICE_CPU, false},
	{"gpu", BITONIC_DEVICE_GPU, false},
	{NULL, 0, false}
};

static const struct config_enum_entry map_runs_options[] = {
	{"auto", BITONIC_MAP_RUNS_AUTO, false},
	{"on", BITONIC_MAP_RUNS_ON, false},
	{"off", BITONIC_MAP_RUNS_OFF, false},
	{NULL, 0, false}
};

static const struct config_enum_entry algorithm_options[] = {
	{"auto", BS_ALGO_AUTO, false},
	{"bitonic", BS_ALGO_BITONIC, false},
	{"adaptive", BS_ALGO_ADAPTIVE, false},
	{"vqsort", BS_ALGO_VQSORT, false},
	{NULL, 0, false}
};

static const struct config_enum_entry huge_page_advice_options[] = {
	{"auto", BITONIC_THP_AUTO, false},
	{"always", BITONIC_THP_ALWAYS, false},
	{"mixed", BITONIC_THP_MIXED, false},
	{"never", BITONIC_THP_NEVER, false},
	{NULL, 0, false}
};

/* The setting's name for a value of bitonic_sort.transparent_huge_pages. */
const char *
BitonicHugePageAdviceName(BitonicHugePageAdvice advice)
{
	for (const struct config_enum_entry *option = huge_page_advice_options; option->name != NULL; option++)
		if (option->val == (int) advice)
			return option->name;
	return "?";
}

/* Every backend bounds the threads of all backends' sorts by the new value. */
static void
assign_max_threads(int newval, void *extra)
{
	bs_threads_set_limit((unsigned) newval);
}

/* Memory kept for the next sort goes back at once when the setting falls below it. */
static void
assign_keep_memory(int newval, void *extra)
{
	BitonicKeptMemoryTrim(BitonicKeepMemoryBytes(newval));
}

#ifdef BS_HAVE_CUDA
/* Page-locked memory the backend holds beyond the new value goes back at once. */
static void
assign_gpu_pinned_memory(int newval, void *extra)
{
	bs_cuda_set_pinned_limit((size_t) newval << 20);
}
#endif

/*
 * Register the settings and reserve the prefix.  What protects the server
 * (huge pages, memory a backend keeps after its sort, how long it keeps it)
 * is the superuser's, as PostgreSQL's own resource settings are; a
 * superuser may GRANT SET ON PARAMETER to a role.  The threads of all
 * backends are bounded server-wide (max_threads), which cpu_threads can
 * only share, and a sort's memory by work_mem.
 */
void
BitonicGucInit(void)
{
	int			cores = bs_cpu_core_count();

	DefineCustomEnumVariable("bitonic_sort.device",
							 "Sets the device that sorts.",
							 "auto uses the GPU when one is usable and the CPU otherwise; "
							 "cpu always uses the CPU; gpu requires the GPU and raises an error without one.",
							 &bitonic_sort_device,
							 BITONIC_DEVICE_AUTO,
							 device_options,
							 PGC_USERSET,
							 0,
							 NULL, NULL, NULL);

	DefineCustomEnumVariable("bitonic_sort.algorithm",
							 "Sets the sorting algorithm.",
							 "bitonic is Batcher's sorting network; adaptive is Bilardi and Nicolau's "
							 "adaptive bitonic sort on bitonic trees; vqsort is Highway's vectorised "
							 "quicksort (CPU, builds with Highway); auto picks by input size and backend.",
							 &bitonic_sort_algorithm,
							 BS_ALGO_AUTO,
							 algorithm_options,
							 PGC_USERSET,
							 0,
							 NULL, NULL, NULL);

	DefineCustomIntVariable("bitonic_sort.cpu_threads",
							"Sets the number of threads a CPU sort may use.",
							"Valid range is 1 to 64; the default is the number of CPU cores.",
							&bitonic_sort_cpu_threads,
							Min(cores, 64),
							1, 64,
							PGC_USERSET,
							0,
							NULL, NULL, NULL);

#ifdef BS_HAVE_CUDA
	DefineCustomIntVariable("bitonic_sort.gpu_memory_limit",
							"Sets the most GPU memory one sort may use.",
							"Larger inputs are sorted in chunks of this size and merged on the CPU. "
							"Valid range is 1MB to 1TB.",
							&bitonic_sort_gpu_memory_limit,
							1024,
							1, 1024 * 1024,
							PGC_USERSET,
							GUC_UNIT_MB,
							NULL, NULL, NULL);

	DefineCustomIntVariable("bitonic_sort.gpu_pinned_memory",
							"Sets how much page-locked host memory a backend keeps for the pairs of its GPU sorts.",
							"gpu_sort builds the pairs of a GPU sort there, so they are copied to the device and "
							"back without being locked page by page at every sort; a sort whose pairs need more "
							"has its own memory locked for it, as when this is 0.  Held from the backend's first "
							"GPU sort until the backend exits or the setting falls below it.",
							&bitonic_sort_gpu_pinned_memory,
							256,
							0, 1024 * 1024,
							PGC_SUSET,
							GUC_UNIT_MB,
							NULL, assign_gpu_pinned_memory, NULL);

	DefineCustomIntVariable("bitonic_sort.gpu_min_pairs",
							"Sets from how many pairs device = auto sorts on the GPU.",
							"-1 (the default) measures it: the first sort that could go to the GPU times "
							"the CPU and the GPU on random pairs of each shape, 2^16 to 2^22 of them, and "
							"takes the GPU from the smallest size where it was faster there and at every "
							"larger size, or never; bitonic_sort_info() shows the figures.",
							&bitonic_sort_gpu_min_pairs,
							-1,
							-1, INT_MAX,
							PGC_USERSET,
							0,
							NULL, NULL, NULL);
#endif

#ifdef BS_CUDA_EMU
	DefineCustomStringVariable("bitonic_sort.emu_fail",
							   "Makes one CUDA call of each GPU sort fail (emulated builds only, for tests).",
							   "\"alloc:N\", \"copy:N\", \"launch:N\" or \"device:N\" fails the Nth such call; empty fails none.",
							   &bitonic_sort_emu_fail,
							   "",
							   PGC_USERSET,
							   0,
							   NULL, NULL, NULL);
#endif
#ifdef BITONIC_TEST_BUILD
	DefineCustomEnumVariable("bitonic_sort.test_fault",
							 "Makes a background thread's job fail (the test build only).",
							 "part_sort: the part sorter fails every part; ingest: an error "
							 "is raised while the ingest worker places a buffer; read_ahead: the "
							 "external sort's reads ahead of its merge fail; run_write: the "
							 "writes of a run written from both ends (run_ends.c) fail; run_map: the "
							 "external sort's runs cannot be mapped; none: no fault.",
							 &bitonic_sort_test_fault,
							 BITONIC_FAULT_NONE,
							 test_fault_options,
							 PGC_USERSET,
							 0,
							 NULL, NULL, NULL);
#endif
	DefineCustomBoolVariable("bitonic_sort.enable",
							 "Enables the planner's use of the BitonicSort custom scan for ORDER BY.",
							 "When off, ORDER BY always uses PostgreSQL's own Sort node.",
							 &bitonic_sort_enable,
							 true,
							 PGC_USERSET,
							 0,
							 NULL, NULL, NULL);

	DefineCustomBoolVariable("bitonic_sort.write_runs_behind",
							 "Has a thread write each run of an external sort while the node reads the next.",
							 "Each run then takes half the memory a run written in place takes; only where "
							 "work_mem is 1MB or more and the first sort column's key is computed without "
							 "PostgreSQL's help.",
							 &bitonic_sort_write_runs_behind,
							 true,
							 PGC_USERSET,
							 0,
							 NULL, NULL, NULL);

	DefineCustomEnumVariable("bitonic_sort.map_runs",
							 "Sets when an external sort's merges read its runs where they lie in the page cache.",
							 "Mapped runs need no read buffers, so more runs are merged at once. auto maps them "
							 "where more runs are expected than read buffers in work_mem take; on wherever "
							 "work_mem is 1MB or more; off never.",
							 &bitonic_sort_map_runs,
							 BITONIC_MAP_RUNS_AUTO,
							 map_runs_options,
							 PGC_USERSET,
							 0,
							 NULL, NULL, NULL);

	DefineCustomBoolVariable("bitonic_sort.merge_thread",
							 "Has a thread decide the order of an external sort's final merge ahead of the node.",
							 "Only where the runs are read mapped and the keys decide the order alone (one "
							 "column of numbers, dates or times) or the thread can tell equal keys apart "
							 "(text in \"C\" that is not compressed, later columns of numbers, dates or times).",
							 &bitonic_sort_merge_thread,
							 true,
							 PGC_USERSET,
							 0,
							 NULL, NULL, NULL);

	DefineCustomIntVariable("bitonic_sort.both_ends_run_size",
							"Sets from what size a run of an external sort is written by two threads at once.",
							"Each gathers the run's rows in order from one end; it pays for runs much larger "
							"than the CPU's last-level cache, whose rows a second core reads from memory "
							"either way.  0: every run of 4096 rows or more.",
							&bitonic_sort_both_ends_run_size,
							24 * 1024,
							0, INT_MAX,
							PGC_USERSET,
							GUC_UNIT_KB,
							NULL, NULL, NULL);

	DefineCustomIntVariable("bitonic_sort.min_rows",
							"Sets the estimated row count from which ORDER BY may use BitonicSort.",
							"Valid range is 0 to 2147483647; below it the planner keeps the native Sort.",
							&bitonic_sort_min_rows,
							10000,
							0, INT_MAX,
							PGC_USERSET,
							0,
							NULL, NULL, NULL);

	DefineCustomBoolVariable("bitonic_sort.huge_pages",
							 "Takes the large buffers of sorts from the kernel's huge page pool while it has room.",
							 "Tuple blocks and key/pointer pairs of 2 MB and more are mapped from the pool of "
							 "2 MB pages that vm.nr_hugepages reserves; without free pages there, ordinary memory is used.",
							 &bitonic_sort_huge_pages,
							 true,
							 PGC_SUSET,
							 0,
							 NULL, NULL, NULL);

	DefineCustomEnumVariable("bitonic_sort.transparent_huge_pages",
							 "Sets which large buffers of sorts outside the huge page pool ask for transparent huge pages.",
							 "always: every buffer of 2 MB and more; mixed: the rows that are read in random order and "
							 "gpu_sort's buffers; never: none; auto: always where a fresh 4 kB page costs 5 us or more "
							 "(a VM that keeps shadow page tables), else mixed.",
							 &bitonic_sort_transparent_huge_pages,
							 BITONIC_THP_AUTO,
							 huge_page_advice_options,
							 PGC_SUSET,
							 0,
							 NULL, NULL, NULL);

	DefineCustomIntVariable("bitonic_sort.keep_memory",
							"Sets how much of a finished sort's large buffers the backend keeps for its next sort.",
							"Kept memory is already faulted in, so the next sort skips the page faults of fresh "
							"memory; the kernel may reclaim it under memory pressure, and it goes back once "
							"bitonic_sort.keep_memory_idle passes with no sort keeping memory. "
							"-1 keeps up to work_mem; 0 keeps nothing.",
							&bitonic_sort_keep_memory,
							-1, -1, INT_MAX,
							PGC_SUSET,
							GUC_UNIT_KB,
							NULL, assign_keep_memory, NULL);

	DefineCustomIntVariable("bitonic_sort.keep_memory_idle",
							"Sets how long memory kept for the next sort waits for it before it goes back to the kernel.",
							"A new value applies from the next sort that keeps memory.",
							&bitonic_sort_keep_memory_idle,
							60000, 1, 3600000,
							PGC_SUSET,
							GUC_UNIT_MS,
							NULL, NULL, NULL);

	DefineCustomBoolVariable("bitonic_sort.heap_read",
							 "Lets a BitonicSort node read the pages of a plain sequential scan below it itself.",
							 "The node then takes each visible row straight from its page instead of one at a "
							 "time through the scan node; the plan and the rows are the same (ties in block order).",
							 &bitonic_sort_heap_read,
							 true,
							 PGC_USERSET,
							 0,
							 NULL, NULL, NULL);

	DefineCustomIntVariable("bitonic_sort.max_threads",
							"Sets the most threads the sorts of all backends may have running at once.",
							"Counted in shared memory when the module is preloaded; a sort that would pass "
							"it runs on fewer threads (its backend's at least).  Valid range is 0 to 10000; "
							"the default is four per CPU core.",
							&bitonic_sort_max_threads,
							Min(4 * cores, 10000),
							0, 10000,
							PGC_SIGHUP,
							0,
							NULL, assign_max_threads, NULL);
	MarkGUCPrefixReserved("bitonic_sort");
}
