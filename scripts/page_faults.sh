#!/bin/bash
# What touching fresh memory costs on this machine: 1 GiB mapped, one byte
# written a page, unmapped, four rounds; with 4 KiB pages and with huge
# pages (MADV_HUGEPAGE, as src/allocator.rs advises), each with no pause
# between rounds and with a pause of 5 s (after which the memory the
# previous round freed has been handed back to the host). Cited by
# results/BENCHMARKS.md. Needs a C compiler (`cc`).
# usage: scripts/page_faults.sh
set -euo pipefail
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cat > "$dir/faults.c" <<'C'
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}
int main(int argc, char **argv) {
    size_t size = 1UL << 30;
    int huge = atoi(argv[1]), pause = atoi(argv[2]);
    printf("%s pages, %d s pause:", huge ? "huge" : "4 KiB", pause);
    for (int round = 0; round < 4; round++) {
        double start = now();
        char *p = mmap(0, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED) return 1;
        if (huge) madvise(p, size, MADV_HUGEPAGE);
        for (size_t i = 0; i < size; i += 4096) p[i] = 1;
        printf(" %.3f", now() - start);
        fflush(stdout);
        munmap(p, size);
        sleep(pause);
    }
    printf(" s a GiB\n");
    return 0;
}
C
cc -O2 -o "$dir/faults" "$dir/faults.c"
for huge in 0 1; do
    for pause in 0 5; do
        "$dir/faults" "$huge" "$pause"
    done
done
