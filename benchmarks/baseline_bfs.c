/* Baseline for the benchmarks: a plain C breadth-first enumeration of a
 * rows x cols sliding puzzle from its goal, with an open-addressing hash set
 * of 4-bit-per-cell states and a FIFO queue; no parents, nothing written.
 * It is what a careful small C program does, measured in the same run as
 * puzzledb so that the report can give a ratio on a noisy machine.
 * Usage: baseline_bfs ROWS COLS   ->  prints "positions max_depth at_max" */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static uint64_t *slots;
static uint64_t mask;

static int insert(uint64_t s) {
    uint64_t h = (s * 0x9E3779B97F4A7C15ULL) >> 20;
    for (;;) {
        h &= mask;
        if (slots[h] == 0) { slots[h] = s; return 1; }
        if (slots[h] == s) return 0;
        h++;
    }
}

int main(int argc, char **argv) {
    int rows = argc > 2 ? atoi(argv[1]) : 2, cols = argc > 2 ? atoi(argv[2]) : 5;
    int n = rows * cols;
    uint64_t total = 1;
    for (int i = 2; i <= n; i++) total *= i;
    total /= 2;
    uint64_t cap = 1;
    while (cap < total * 2) cap <<= 1;
    slots = calloc(cap, sizeof *slots);
    mask = cap - 1;
    uint64_t *queue = malloc(total * sizeof *queue);
    uint64_t goal = 0;
    for (int i = 0; i < n - 1; i++) goal |= (uint64_t)(i + 1) << (4 * i);
    queue[0] = goal;
    insert(goal);
    uint64_t head = 0, tail = 1, level_end = 1, depth = 0, at_level = 1;
    while (head < tail) {
        uint64_t s = queue[head++];
        int b = 0;
        while ((s >> (4 * b)) & 15) b++;
        int r = b / cols, c = b % cols;
        int nb[4], k = 0;
        if (r > 0) nb[k++] = b - cols;
        if (r < rows - 1) nb[k++] = b + cols;
        if (c > 0) nb[k++] = b - 1;
        if (c < cols - 1) nb[k++] = b + 1;
        for (int i = 0; i < k; i++) {
            uint64_t t = (s >> (4 * nb[i])) & 15;
            uint64_t child = s ^ (t << (4 * nb[i])) ^ (t << (4 * b));
            if (insert(child)) queue[tail++] = child;
        }
        if (head == level_end && head < tail) {
            depth++;
            at_level = tail - head;
            level_end = tail;
        }
    }
    printf("%llu %llu %llu\n", (unsigned long long)tail, (unsigned long long)depth,
           (unsigned long long)at_level);
    return 0;
}
