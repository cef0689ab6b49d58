#!/usr/bin/env python3
"""cuda_occupancy.py -- ptxas's resource figures for every kernel of
cuda/bitonic.cu (registers, shared memory, spills, per architecture) and the
occupancy they allow, without a GPU.

Compiles cuda/bitonic.cu with nvcc -Xptxas -v for each architecture (default
sm_80 and sm_90), reads the block size of each kernel from
cuda/bs_cuda_config.h (tile kernels, bs_merge_tile and bs_block_merge: BS_CUDA_TILE_THREADS, the others:
BS_CUDA_STEP_THREADS) and computes resident blocks per SM as the CUDA
occupancy calculator does: limited by threads, blocks, registers (allocated
per warp in units of 256) and shared memory (plus 1 KiB the system reserves
per block from sm_80 on).  Prints a Markdown table; exits 1 if a kernel
spills.
"""
import argparse
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.join(HERE, "..", "..")

# Per SM: max threads, max blocks, registers, shared memory bytes usable by blocks.
SM_LIMITS = {
    80: (2048, 32, 65536, 164 * 1024),
    90: (2048, 32, 65536, 228 * 1024),
}


def config():
    """The #define'd integer constants of bs_cuda_config.h."""
    text = open(os.path.join(TOP, "cuda", "bs_cuda_config.h")).read()
    return {m.group(1): int(m.group(2))
            for m in re.finditer(r"#define\s+(BS_CUDA_\w+)\s+\(?(\d+)", text)}


def demangle(names):
    """Demangled names, through c++filt (the mangled ones where it is missing)."""
    try:
        out = subprocess.run(["c++filt"], input="\n".join(names), capture_output=True,
                             text=True, check=True).stdout.split("\n")
        return out[:len(names)]
    except (OSError, subprocess.CalledProcessError):
        return names


def ptxas(nvcc, arch):
    """[(mangled name, registers, shared bytes, spill stores, spill loads)] for one architecture."""
    cmd = [nvcc, "-O3", "-std=c++17", "-Xptxas", "-v", "-arch=sm_%d" % arch, "-cubin",
           "-o", os.devnull, os.path.join(TOP, "cuda", "bitonic.cu")]
    log = subprocess.run(cmd, capture_output=True, text=True, check=True, cwd=TOP).stderr
    kernels, name, spills = [], None, (0, 0)
    for line in log.splitlines():
        m = re.search(r"Compiling entry function '(\w+)'", line)
        if m:
            name = m.group(1)
        m = re.search(r"(\d+) bytes spill stores, (\d+) bytes spill loads", line)
        if m:
            spills = (int(m.group(1)), int(m.group(2)))
        m = re.search(r"Used (\d+) registers", line)
        if m and name:
            smem = re.search(r"(\d+) bytes smem", line)
            kernels.append((name, int(m.group(1)), int(smem.group(1)) if smem else 0) + spills)
            name = None
    return kernels


def occupancy(arch, threads, regs, smem):
    """(resident blocks per SM, fraction of the SM's warps) for one kernel."""
    max_threads, max_blocks, sm_regs, sm_smem = SM_LIMITS[arch]
    warps = (threads + 31) // 32
    regs_per_warp = (regs * 32 + 255) // 256 * 256
    by_regs = (sm_regs // regs_per_warp) // warps if regs_per_warp else max_blocks
    by_smem = sm_smem // (smem + 1024) if smem else max_blocks
    blocks = min(max_threads // threads, max_blocks, by_regs, by_smem)
    return blocks, blocks * warps / (max_threads // 32)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--nvcc", default=os.environ.get("NVCC", "/usr/local/cuda/bin/nvcc"))
    ap.add_argument("--arch", type=int, nargs="+", default=[80, 90])
    args = ap.parse_args()
    cfg = config()
    spilled = False
    print("| arch | kernel | threads | registers | shared memory | spills (st/ld) | blocks/SM | occupancy |")
    print("|---|---|---|---|---|---|---|---|")
    for arch in args.arch:
        kernels = ptxas(args.nvcc, arch)
        for (name, regs, smem, st, ld), pretty in zip(kernels, demangle([k[0] for k in kernels])):
            threads = cfg["BS_CUDA_TILE_THREADS"] if "bs_tile_" in name or "bs_merge_tile" in name or "bs_block_merge" in name else cfg["BS_CUDA_STEP_THREADS"]
            blocks, occ = occupancy(arch, threads, regs, smem)
            spilled |= st > 0 or ld > 0
            print("| sm_%d | `%s` | %d | %d | %d B | %d / %d | %d | %.0f%% |"
                  % (arch, pretty.split("(")[0].replace("void ", ""), threads, regs, smem, st, ld,
                     blocks, 100 * occ))
    return 1 if spilled else 0


if __name__ == "__main__":
    sys.exit(main())
