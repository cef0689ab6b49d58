#!/usr/bin/env python3
"""cuda_cost_model.py -- kernel launches and full global-memory passes of the
CUDA sorters, and the time they imply at a given memory bandwidth, checked
without a GPU.

Counts follow the host code's launch sequence (cuda/bitonic.cu) with the tile
sizes of cuda/bs_cuda_config.h, read from that file; test_cuda_sort.cc checks
the same count against the emulator's launch counter.

  naive     one launch per network step: k(k+1)/2 launches and passes, n = 2^k
  standard  one shared-memory tile sort; per merge stage beyond the tile, one
            global launch per stride >= T and one shared-memory launch that
            finishes all smaller strides
  adaptive  the same sequence, but a global phase is two launches (the split
            search, then the exchanges) and moves only the exchanged pairs:
            the fraction is measured here by running the adaptive merge on
            random pairs (worst case: every pair, i.e. the standard's passes)

A pass reads and writes every pair once: 2 * n * sizeof(pair) bytes.
"""
import argparse
import os
import random
import re

HERE = os.path.dirname(os.path.abspath(__file__))
CONFIG = os.path.join(HERE, "..", "..", "cuda", "bs_cuda_config.h")


def config():
    """The #define'd integer constants of bs_cuda_config.h."""
    text = open(CONFIG).read()
    return {m.group(1): int(m.group(2))
            for m in re.finditer(r"#define\s+(BS_CUDA_\w+)\s+\(?(\d+)", text)}


def stages(n, tile):
    """Per merge stage beyond the tile: the number of global phases."""
    full = 1
    while full < n:
        full *= 2
    out = []
    k = 2 * tile
    while k <= full:
        plain = 0
        j = k // 4
        while j >= tile:
            plain += 1
            j //= 2
        out.append(1 + plain)          # the mirror phase and the plain ones
        k *= 2
    return out


def standard(n, tile):
    """(launches, passes) of the standard sorter."""
    launches = 1 + sum(p + 1 for p in stages(n, tile))
    return launches, float(launches)


def adaptive(n, tile, moved):
    """(launches, passes) of the adaptive sorter; moved = pairs moved per global phase."""
    st = stages(n, tile)
    launches = 1 + sum(2 * p + 1 for p in st)
    passes = 1 + len(st) + moved * sum(st)
    return launches, passes


def naive(n):
    """(launches, passes) of one launch per network step."""
    k = n.bit_length() - 1
    return k * (k + 1) // 2, float(k * (k + 1) // 2)


def measure_moved(n=1 << 14, tile=64, seed=1):
    """Fraction of pairs the adaptive global phases exchange, on random input."""
    rng = random.Random(seed)
    a = [(rng.getrandbits(32), i) for i in range(n)]
    for lo in range(0, n, tile):
        a[lo:lo + tile] = sorted(a[lo:lo + tile])
    moved, phases = 0, 0
    k = 2 * tile
    while k <= n:
        spans = [(k, True)] + [(j, False) for j in (k // 4 >> s for s in range(64)) if j >= tile]
        for span, mirror in spans:
            half = span // 2 if mirror else span
            swaps = 0
            for c in range(n // 2):
                base, i = (c // half) * 2 * half, c % half
                p = base + 2 * half - 1 - i if mirror else base + half + i
                if a[base + i] > a[p]:
                    a[base + i], a[p] = a[p], a[base + i]
                    swaps += 1
            moved += 2 * swaps / n
            phases += 1
        for lo in range(0, n, tile):       # the shared-memory finish
            a[lo:lo + tile] = sorted(a[lo:lo + tile])
        k *= 2
    assert a == sorted(a), "the simulated network did not sort"
    return moved / phases


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bandwidth", type=float, default=3.35e12, help="bytes/s (default: H100 SXM, 3.35 TB/s)")
    ap.add_argument("--from-exp", type=int, default=20)
    ap.add_argument("--to-exp", type=int, default=28)
    args = ap.parse_args()
    cfg = config()
    moved = measure_moved()
    print(f"bandwidth {args.bandwidth / 1e12:.2f} TB/s; adaptive global phases move "
          f"{moved:.2f} of the pairs on random input (measured), at most 1.00")
    for shape, size, tile in (("pairs32 (32-bit key + pointer, 8 B)", 8, cfg["BS_CUDA_TILE_PAIRS32"]),
                              ("pairs64 (64-bit key + pointer, 16 B)", 16, cfg["BS_CUDA_TILE_PAIRS64"])):
        print(f"\n{shape}, tile T = {tile}")
        print("| n | naive launches = passes | naive ms | standard launches | standard passes "
              "| standard/naive | standard ms | adaptive launches | adaptive passes | adaptive ms |")
        print("|---|---|---|---|---|---|---|---|---|---|")
        for e in range(args.from_exp, args.to_exp + 1):
            n = 1 << e
            ms = lambda passes: passes * 2 * n * size / args.bandwidth * 1e3
            nl, npass = naive(n)
            sl, spass = standard(n, tile)
            al, apass = adaptive(n, tile, moved)
            print(f"| 2^{e} | {nl} | {ms(npass):.2f} | {sl} | {spass:.0f} | {spass / npass:.0%} | "
                  f"{ms(spass):.2f} | {al} | {apass:.1f} | {ms(apass):.2f} |")


if __name__ == "__main__":
    main()
