/* The minimal C pointer chase memwall's ladder is checked against (bench/ladder/compare.sh).
 *
 * It walks exactly the ring memwall would build (read from a file written by the dump_ring
 * example), on small pages (MADV_NOHUGEPAGE, as `memwall ladder --huge-pages off`), after a
 * warm-up pass. Each sample times N and 2N hops and keeps the difference, which cancels the
 * fixed cost around a sample; memwall instead subtracts the median time of a zero-hop sample
 * (crates/memwall-core/src/ladder/sampling.rs), so that noise can only add time. Both costs are
 * tens of ns against milliseconds of chasing, so the two differ in practice only in the code
 * that chases.
 *
 *   cc -O2 -o chase chase.c && ./chase RING_FILE SAMPLES TARGET_MS   ->  "bytes min median" */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>

static double now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

__attribute__((noinline)) static void **chase(void **p, uint64_t hops) {
    for (uint64_t i = 0; i < hops; i++) p = (void **)*p;
    return p;
}

static int by_value(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv) {
    if (argc != 4) { fprintf(stderr, "usage: chase RING_FILE SAMPLES TARGET_MS\n"); return 2; }
    FILE *f = fopen(argv[1], "rb");
    if (!f) { perror(argv[1]); return 1; }
    fseek(f, 0, SEEK_END);
    size_t lines = (size_t)ftell(f) / 4;
    fseek(f, 0, SEEK_SET);
    uint32_t *next = malloc(lines * 4);
    if (!next || fread(next, 4, lines, f) != lines) { fprintf(stderr, "short read\n"); return 1; }
    fclose(f);
    int samples = atoi(argv[2]);
    double target = atof(argv[3]) * 1e6;

    size_t bytes = lines * 64;
    char *buf = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (buf == MAP_FAILED) { perror("mmap"); return 1; }
    madvise(buf, bytes, MADV_NOHUGEPAGE);
    for (size_t i = 0; i < lines; i++) *(void **)(buf + i * 64) = buf + (size_t)next[i] * 64;
    free(next);

    void **p = chase((void **)buf, lines); /* warm-up: the whole ring once */
    uint64_t hops = 256;
    for (;;) {
        double t0 = now_ns();
        p = chase(p, hops);
        double elapsed = now_ns() - t0;
        if (elapsed >= target / 4) { hops = (uint64_t)(hops * target / elapsed); break; }
        hops *= elapsed < target / 64 ? 8 : 2;
    }
    if (hops < 16) hops = 16;
    double *ns = malloc(sizeof(double) * (size_t)samples);
    for (int s = 0; s < samples; s++) {
        double t0 = now_ns();
        p = chase(p, hops);
        double t1 = now_ns();
        p = chase(p, 2 * hops);
        double t2 = now_ns();
        ns[s] = ((t2 - t1) - (t1 - t0)) / (double)hops;
    }
    qsort(ns, (size_t)samples, sizeof(double), by_value);
    printf("%zu %.4f %.4f %p\n", bytes, ns[0], ns[samples / 2], (void *)p);
    return 0;
}
