#!/usr/bin/env python3
"""Random 4 KiB reads from a file not in the page cache, at several queue
depths: how long a cold probe's read waits and how many reads a second the
disk serves (results/BENCHMARKS.md, cold eval).

Usage: scripts/disk_reads.py FILE [READS]

The same offsets are read in every round, each round after the file is
evicted from the page cache (posix_fadvise DONTNEED): the first round
finds them nowhere, later rounds may find them in a cache below this
machine (a virtual disk's host), as repeated cold `eval`s of one position
do.
"""
import os
import random
import sys
import time
from concurrent.futures import ThreadPoolExecutor

path = sys.argv[1]
reads = int(sys.argv[2]) if len(sys.argv) > 2 else 800
fd = os.open(path, os.O_RDONLY)
os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_RANDOM)
pages = os.path.getsize(path) // 4096
rng = random.Random(7)
offsets = [rng.randrange(pages) * 4096 for _ in range(reads)]


def read(offset):
    start = time.perf_counter()
    os.pread(fd, 4096, offset)
    return time.perf_counter() - start


for depth in [1, 1, 1, 2, 4, 8, 16]:
    os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    start = time.perf_counter()
    with ThreadPoolExecutor(depth) as pool:
        waits = sorted(pool.map(read, offsets))
    took = time.perf_counter() - start
    print(
        f"queue depth {depth:2}: {reads} reads in {took * 1000:6.1f} ms, "
        f"{reads / took:6.0f} reads/s, wait median {waits[reads // 2] * 1e6:4.0f} µs, "
        f"90th percentile {waits[int(reads * 0.9)] * 1e6:4.0f} µs"
    )
