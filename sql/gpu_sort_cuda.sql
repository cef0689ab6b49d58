-- The CUDA backend as this build and this machine have it.  Expected
-- outputs: gpu_sort_cuda.out (compiled in, no driver: the usual CI machine),
-- gpu_sort_cuda_1.out (built with USE_CUDA=0), gpu_sort_cuda_2.out (a GPU).
CREATE EXTENSION IF NOT EXISTS bitonic_sort;

-- compiled in or not, and the device or the reason there is none
SELECT usable, CASE WHEN usable THEN 'a usable device' ELSE details END AS details
FROM bitonic_sort_info() WHERE backend = 'cuda';

-- device = auto sorts with or without a GPU, small and large inputs alike
SET bitonic_sort.device = auto;
SELECT gpu_sort(ARRAY[3, 1, 2]);
SELECT gpu_sort(a) = ARRAY(SELECT x FROM unnest(a) x ORDER BY x) AS auto_sorts
FROM (SELECT array_agg((i * 7919) % 100003) AS a FROM generate_series(1, 100000) i) s;

-- the GPU demanded: it sorts where there is one, a clean error where not
SET bitonic_sort.device = gpu;
SELECT gpu_sort(ARRAY[2, 1]);
RESET bitonic_sort.device;
