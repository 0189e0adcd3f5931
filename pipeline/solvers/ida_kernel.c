/* IDA* with additive pattern databases: the search of pipeline/solvers/ida.py in C.
 *
 * The same algorithm, step for step, as the numba kernel (ida.ida): the same
 * neighbour order, the same node count, the same first solution found. It is
 * compiled with the system's C compiler into a shared library in the user's
 * cache (pipeline/solvers/ida_c.py) and called through ctypes, so a solve
 * starts without importing numba or loading its cached kernel. Plain C99,
 * no Python headers.
 */
#include <stdint.h>

#define INF (1 << 30)

/* A board and its pattern databases (ida_tables.Tables; see there). */
struct tables {
    int64_t n, groups, use_refl;
    const int64_t *nbr; /* n x 4, -1 padded */
    const int64_t *nnbr, *grp, *w, *rgrp, *rw, *refl, *off;
    const uint8_t *pdb;
};

static int64_t h_of(const struct tables *t, const int64_t *idx, const int64_t *ridx)
{
    int64_t s = 0, r = 0;
    for (int64_t g = 0; g < t->groups; g++)
        s += t->pdb[t->off[g] + idx[g]];
    if (t->use_refl) {
        for (int64_t g = 0; g < t->groups; g++)
            r += t->pdb[t->off[g] + ridx[g]];
        if (r > s)
            s = r;
    }
    return s;
}

/* The pattern indexes of a board (and of its reflection); the blank's cell. */
static int64_t indexes(const struct tables *t, const int64_t *board, int64_t *idx, int64_t *ridx)
{
    int64_t blank = -1;
    for (int64_t g = 0; g < t->groups; g++)
        idx[g] = ridx[g] = 0;
    for (int64_t c = 0; c < t->n; c++) {
        int64_t k = board[c];
        if (k == 0) {
            blank = c;
        } else {
            idx[t->grp[k]] += c * t->w[k];
            ridx[t->rgrp[k]] += t->refl[c] * t->rw[k];
        }
    }
    return blank;
}

int64_t pdb_heuristic(const struct tables *t, const int64_t *board)
{
    int64_t idx[t->groups], ridx[t->groups];
    indexes(t, board, idx, ridx);
    return h_of(t, idx, ridx);
}

/* Optimal length (-1: none within max_bound), nodes generated, and in
 * path[0..length-1] the blank's cell after each move. */
int64_t pdb_ida(const struct tables *t, const int64_t *board0, int64_t max_bound,
                int64_t *nodes_out, int64_t *path)
{
    int64_t n = t->n, nodes = 0;
    int64_t board[n], idx[t->groups], ridx[t->groups];
    int64_t blanks[max_bound + 2], prev[max_bound + 2], it[max_bound + 2];
    for (int64_t c = 0; c < n; c++)
        board[c] = board0[c];
    int64_t blank = indexes(t, board, idx, ridx);
    *nodes_out = 0;
    if (blank < 0)
        return -1;
    int64_t bound = h_of(t, idx, ridx);
    if (bound == 0)
        return 0;
    while (bound <= max_bound) {
        int64_t nxt = INF, d = 0;
        blanks[0] = blank;
        prev[0] = -1;
        it[0] = 0;
        while (d >= 0) {
            int64_t b = blanks[d], i = it[d];
            if (i < t->nnbr[b]) {
                it[d] = i + 1;
                int64_t j = t->nbr[b * 4 + i];
                if (j == prev[d])
                    continue;
                int64_t k = board[j], g = t->grp[k], rg = t->rgrp[k];
                int64_t dg = (b - j) * t->w[k], dr = (t->refl[b] - t->refl[j]) * t->rw[k];
                idx[g] += dg;
                ridx[rg] += dr;
                int64_t h = h_of(t, idx, ridx);
                nodes++;
                int64_t f = d + 1 + h;
                if (f > bound) {
                    if (f < nxt)
                        nxt = f;
                    idx[g] -= dg;
                    ridx[rg] -= dr;
                    continue;
                }
                board[b] = k;
                board[j] = 0;
                path[d] = j;
                if (h == 0) {
                    *nodes_out = nodes;
                    return d + 1;
                }
                d++;
                blanks[d] = j;
                prev[d] = b;
                it[d] = 0;
            } else {
                if (d == 0)
                    break;
                int64_t j = blanks[d], b = blanks[d - 1], k = board[b];
                board[j] = k;
                board[b] = 0;
                idx[t->grp[k]] -= (b - j) * t->w[k];
                ridx[t->rgrp[k]] -= (t->refl[b] - t->refl[j]) * t->rw[k];
                d--;
            }
        }
        if (nxt == INF)
            break;
        bound = nxt;
    }
    *nodes_out = nodes;
    return -1;
}

/* The same search over pattern databases indexed by rank (7-8 of 4x4: the
 * arrays of pipeline/puzzles/tiles/regions.py). The index of a group is the
 * rank of its tiles' cells as a k-permutation of the n cells (regions.perm_rank),
 * so each move ranks again the one group the tile belongs to (and the group of
 * its reflection); the sums of the other groups are kept. */
struct ranked {
    int64_t n, groups, use_refl;
    const int64_t *nbr, *nnbr;
    const int64_t *grp;  /* group of tile t; that of the blank is unused */
    const int64_t *rgrp; /* group of the tile t stands for in the reflection */
    const int64_t *gt;   /* groups x n: the tiles of group g in order */
    const int64_t *gk;   /* how many tiles group g has */
    const int64_t *rt;   /* tile t stands for rt[t] in the reflection */
    const int64_t *refl; /* cell c stands for refl[c] in the reflection */
    const int64_t *off;
    const uint8_t *pdb;
};

static int64_t popcount(uint64_t x)
{
#ifdef __GNUC__
    return __builtin_popcountll(x);
#else
    x = x - ((x >> 1) & 0x5555555555555555ULL);
    x = (x & 0x3333333333333333ULL) + ((x >> 2) & 0x3333333333333333ULL);
    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0FULL;
    return (int64_t)((x * 0x0101010101010101ULL) >> 56);
#endif
}

/* Database value of group g, of the board (reflected = 0) or of its reflection. */
static int64_t ranked_value(const struct ranked *t, const int64_t *pos, int64_t g, int reflected)
{
    uint64_t used = 0;
    int64_t r = 0;
    for (int64_t i = 0; i < t->gk[g]; i++) {
        int64_t u = t->gt[g * t->n + i];
        int64_t c = reflected ? t->refl[pos[t->rt[u]]] : pos[u];
        int64_t d = c - popcount(used & ((1ULL << c) - 1));
        r = r * (t->n - i) + d;
        used |= 1ULL << c;
    }
    return t->pdb[t->off[g] + r];
}

static int64_t ranked_sums(const struct ranked *t, const int64_t *board, int64_t *pos,
                           int64_t *hv, int64_t *rv, int64_t *s, int64_t *r)
{
    int64_t blank = -1;
    for (int64_t c = 0; c < t->n; c++) {
        pos[board[c]] = c;
        if (board[c] == 0)
            blank = c;
    }
    *s = *r = 0;
    for (int64_t g = 0; g < t->groups; g++) {
        hv[g] = ranked_value(t, pos, g, 0);
        rv[g] = t->use_refl ? ranked_value(t, pos, g, 1) : 0;
        *s += hv[g];
        *r += rv[g];
    }
    return blank;
}

int64_t ranked_heuristic(const struct ranked *t, const int64_t *board)
{
    int64_t pos[t->n], hv[t->groups], rv[t->groups], s, r;
    ranked_sums(t, board, pos, hv, rv, &s, &r);
    return r > s ? r : s;
}

/* As pdb_ida. */
int64_t ranked_ida(const struct ranked *t, const int64_t *board0, int64_t max_bound,
                   int64_t *nodes_out, int64_t *path)
{
    int64_t n = t->n, nodes = 0, s, r;
    int64_t board[n], pos[n], hv[t->groups], rv[t->groups];
    int64_t blanks[max_bound + 2], prev[max_bound + 2], it[max_bound + 2];
    int64_t oldh[max_bound + 2], oldr[max_bound + 2];
    for (int64_t c = 0; c < n; c++)
        board[c] = board0[c];
    int64_t blank = ranked_sums(t, board, pos, hv, rv, &s, &r);
    *nodes_out = 0;
    if (blank < 0)
        return -1;
    int64_t bound = r > s ? r : s;
    if (bound == 0)
        return 0;
    while (bound <= max_bound) {
        int64_t nxt = INF, d = 0;
        blanks[0] = blank;
        prev[0] = -1;
        it[0] = 0;
        while (d >= 0) {
            int64_t b = blanks[d], i = it[d];
            if (i < t->nnbr[b]) {
                it[d] = i + 1;
                int64_t j = t->nbr[b * 4 + i];
                if (j == prev[d])
                    continue;
                int64_t k = board[j], g = t->grp[k], rg = t->rgrp[k];
                int64_t h0 = hv[g], r0 = rv[rg];
                pos[k] = b;
                hv[g] = ranked_value(t, pos, g, 0);
                s += hv[g] - h0;
                if (t->use_refl) {
                    rv[rg] = ranked_value(t, pos, rg, 1);
                    r += rv[rg] - r0;
                }
                int64_t h = r > s ? r : s;
                nodes++;
                int64_t f = d + 1 + h;
                if (f > bound) {
                    if (f < nxt)
                        nxt = f;
                    pos[k] = j;
                    s += h0 - hv[g];
                    r += r0 - rv[rg];
                    hv[g] = h0;
                    rv[rg] = r0;
                    continue;
                }
                board[b] = k;
                board[j] = 0;
                path[d] = j;
                if (h == 0) {
                    *nodes_out = nodes;
                    return d + 1;
                }
                oldh[d] = h0;
                oldr[d] = r0;
                d++;
                blanks[d] = j;
                prev[d] = b;
                it[d] = 0;
            } else {
                if (d == 0)
                    break;
                int64_t j = blanks[d], b = blanks[d - 1], k = board[b];
                int64_t g = t->grp[k], rg = t->rgrp[k];
                board[j] = k;
                board[b] = 0;
                pos[k] = j;
                d--;
                s += oldh[d] - hv[g];
                r += oldr[d] - rv[rg];
                hv[g] = oldh[d];
                rv[rg] = oldr[d];
            }
        }
        if (nxt == INF)
            break;
        bound = nxt;
    }
    *nodes_out = nodes;
    return -1;
}
