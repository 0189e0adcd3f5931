/* IDA* over any twisty definition, with pattern tables as the heuristic.
 *
 * A position is, for every position of every set (one flat index over the
 * sets), the piece there (a label numbered over all sets) and its twist. A
 * turn moves each position's piece from its source and adds a twist; only
 * the positions it touches are rewritten. Consecutive turns follow a
 * canonical-sequence machine (state x turn -> state, -1 pruned) made in
 * Python from the definition (no turn after one of the same base move; of
 * two commuting base moves one order only).
 *
 * Each pattern table is looked up by the coordinate its table was built
 * with, computed from the full position: for each of its sets (the first the
 * most significant, mixed radix of the set sizes) c = r * Q + q, r the rank
 * of the pattern labels over the positions among the arrangements of the
 * same multiset (lexicographic; halved when every move permutes the pieces
 * evenly), q the twists of the positions holding pieces whose orientation
 * counts, position 1 the most significant (the last digit left out when it
 * is implied). The ranks use no division on the usual sets: distinct pieces
 * as a Lehmer code with popcounts; distinct pieces and one repeated label
 * with a table of a!/b!; any other multiset with the general formula.
 *
 * A table holds depths as bytes, as 4 bits, or as the depth mod 3 in 2 bits
 * (a turn changes a pattern's depth by at most one, so the parent's exact
 * value and the child's residue give the child's exact value).
 *
 * The search is resumable: tw_run works until a solution, the end of the
 * bounds, or a budget of nodes, and keeps its stack in struct tw_search, so
 * that the caller reports progress and can stop between calls.
 * Plain C99, no Python headers.
 */
#include <stdint.h>
#include <string.h>

#define FMT_BYTE 0
#define FMT_NIBBLE 1
#define FMT_MOD3 2
#define KIND_DISTINCT 0
#define KIND_ONE_REPEATED 1
#define KIND_MULTISET 2
#define FAR 250
#define VIEW_SAME 0
#define VIEW_INVERSE 1
#define VIEW_CONJUGATE 2

#define RUN_BUSY 0
#define RUN_FOUND 1
#define RUN_NONE 2

/* The search's functions are inlined into two copies of its loop, one compiled
 * for processors with a popcount instruction, chosen when the search runs. */
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
#define HOT static inline __attribute__((always_inline))
#define TWO_LOOPS 1
#else
#define HOT static
#define TWO_LOOPS 0
#endif

struct tw_puzzle {
    int64_t npos, nturns, maxtouch, any_wild, any_illegal, ncanon;
    const int16_t *src;     /* nturns x npos: the position each position's piece comes from */
    const uint8_t *add;     /* nturns x npos: the twist it gets */
    const int16_t *touched; /* nturns x maxtouch: the positions a turn changes, -1 ends */
    const uint8_t *order;   /* npos: the orientations of the position's set */
    const uint8_t *wild;    /* labels: 1 when a label's twist is ignored */
    const uint8_t *illegal; /* npos x nlabels: the label may not be there */
    int64_t nlabels;
    const int16_t *canon;   /* ncanon x nturns: the next canonical state, -1 pruned */
    const uint16_t *solved_perm;
    const uint8_t *solved_twist;
    const int16_t *home;    /* labels: the position a label is at when solved (distinct pieces) */
};

struct tw_pset {
    int64_t first, n, kind, k, o, even, implied, rep, rep_count, any_wild;
    uint64_t q_size, size, total;
    const uint8_t *lab;     /* label (over all sets) -> pattern label index */
    const uint8_t *wild;    /* k: the pattern label's twist is ignored */
    const uint64_t *counts; /* k: pieces a label */
    const uint64_t *fall;   /* (n + 1) x (n + 1): a! / b! for b <= a (one repeated label) */
    const uint8_t *counted; /* label (over all sets) -> 1 when its twist is a digit */
};

/* A symmetry of the puzzle (distinct pieces, solved twists 0): the position
 * j's piece goes to sym_pos[j], its label L becomes sym_label[L], its twist t
 * becomes sym_mul[j] * t + sym_add[j] - sym_add[home of L] (mod o; sym_mul is
 * 1, or o - 1 for a mirror image). A position's conjugate is as far from
 * solved as the position is, and a turn moves it by a turn. */
struct tw_pattern {
    int64_t nsets, format;
    int64_t view; /* VIEW_*: the table is looked up on the position, its inverse, a conjugate */
    const struct tw_pset *sets;
    const uint8_t *arr;
    uint64_t size, solved; /* coordinates; the solved position's */
    const int16_t *sym_pos;
    const uint16_t *sym_label;
    const uint8_t *sym_mul, *sym_add;
};

/* The search's stack: level d holds the node at depth d (its position is the
 * root's, or a child kept at level d - 1) and the children it opened: each
 * child's position, turn, canonical state and table values, and the indexes
 * of those that passed every table (searched in turn order). */
struct tw_search {
    const struct tw_puzzle *pz;
    const struct tw_pattern *pats;
    int64_t npat, max_depth;
    int64_t bound, next, depth, nodes, iterations, status, length;
    uint16_t *root_perm;  /* npos */
    uint8_t *root_twist;  /* npos */
    uint8_t *root_h;      /* npat */
    uint16_t *kid_perm;   /* levels x nturns x npos */
    uint8_t *kid_twist;   /* levels x nturns x npos */
    uint16_t *inv_perm;   /* levels x nturns x npos: the children seen by a table (inverse...) */
    uint8_t *inv_twist;   /* levels x nturns x npos */
    uint8_t *kid_h;       /* levels x nturns x npat */
    uint64_t *kid_coord;  /* levels x nturns */
    int16_t *kid_turn;    /* levels x nturns */
    int16_t *kid_canon;   /* levels x nturns */
    int16_t *alive;       /* levels x nturns */
    int16_t *alive_count; /* levels */
    int16_t *alive_at;    /* levels */
    int16_t *chosen;      /* levels: the child of level d - 1 that is the node at d */
    int16_t *canon;       /* levels: the node's canonical state */
    int16_t *path;        /* levels */
};

HOT int64_t popcount64(uint64_t x)
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

/* total * c / m exactly, the result known to be an integer that fits. */
HOT uint64_t times(uint64_t total, uint64_t c, uint64_t m)
{
    return (total / m) * c + (total % m) * c / m;
}

HOT uint64_t rank_distinct(const struct tw_pset *s, const uint16_t *perm)
{
    uint64_t used = 0, r = 0;
    for (int64_t j = 0; j < s->n; j++) {
        int64_t v = s->lab[perm[j]];
        uint64_t below = used & ((1ULL << v) - 1);
        r = r * (uint64_t)(s->n - j) + (uint64_t)(v - popcount64(below));
        used |= 1ULL << v;
    }
    return r;
}

HOT uint64_t rank_one_repeated(const struct tw_pset *s, const uint16_t *perm)
{
    uint64_t avail = ((s->k >= 64) ? ~0ULL : ((1ULL << s->k) - 1)) & ~(1ULL << s->rep);
    uint64_t r = 0;
    int64_t c = s->rep_count, n1 = s->n + 1;
    for (int64_t j = 0; j + 1 < s->n; j++) {
        int64_t v = s->lab[perm[j]], m1 = s->n - 1 - j;
        uint64_t less = (uint64_t)popcount64(avail & ((1ULL << v) - 1));
        r += less * s->fall[m1 * n1 + c];
        if (v == s->rep) {
            c--;
        } else {
            if (s->rep < v && c > 0)
                r += s->fall[m1 * n1 + c - 1];
            avail &= ~(1ULL << v);
        }
    }
    return r;
}

HOT uint64_t rank_multiset(const struct tw_pset *s, const uint16_t *perm)
{
    uint64_t work[256], total = s->total, r = 0;
    for (int64_t x = 0; x < s->k; x++)
        work[x] = s->counts[x];
    for (int64_t j = 0; j < s->n; j++) {
        int64_t v = s->lab[perm[j]];
        uint64_t m = (uint64_t)(s->n - j), below = 0;
        for (int64_t x = 0; x < v; x++)
            below += work[x];
        r += times(total, below, m);
        total = times(total, work[v], m);
        work[v]--;
    }
    return r;
}

HOT uint64_t set_coordinate(const struct tw_pset *s, const uint16_t *perm0, const uint8_t *tw0)
{
    const uint16_t *perm = perm0 + s->first;
    const uint8_t *tw = tw0 + s->first;
    uint64_t r;
    if (s->kind == KIND_DISTINCT)
        r = rank_distinct(s, perm);
    else if (s->kind == KIND_ONE_REPEATED)
        r = rank_one_repeated(s, perm);
    else
        r = rank_multiset(s, perm);
    if (s->even)
        r >>= 1;
    if (s->o == 1)
        return r;
    uint64_t q = 0, o = (uint64_t)s->o;
    int64_t digits = s->implied ? s->n - 1 : s->n;
    if (s->any_wild) {
        for (int64_t j = 0; j < digits; j++) {
            if (s->counted[perm[j]])
                q = q * o + tw[j];
        }
    } else {
        for (int64_t j = 0; j < digits; j++)
            q = q * o + tw[j];
    }
    return r * s->q_size + q;
}

HOT uint64_t coordinate(const struct tw_pattern *p, const uint16_t *perm, const uint8_t *tw)
{
    uint64_t c = 0;
    for (int64_t i = 0; i < p->nsets; i++)
        c = c * p->sets[i].size + set_coordinate(&p->sets[i], perm, tw);
    return c;
}

/* The size of struct 0 tw_puzzle, 1 tw_pset, 2 tw_pattern, 3 tw_search (the
 * caller's ctypes structs are checked against them). */
int64_t tw_struct_size(int64_t which)
{
    const int64_t sizes[] = {sizeof(struct tw_puzzle), sizeof(struct tw_pset),
                             sizeof(struct tw_pattern), sizeof(struct tw_search)};
    return which >= 0 && which < 4 ? sizes[which] : -1;
}

/* The pattern's coordinate of a full position. */
uint64_t tw_coordinate(const struct tw_pattern *p, const uint16_t *perm, const uint8_t *tw)
{
    return coordinate(p, perm, tw);
}

/* The stored value at coordinate c: a depth (bytes, 4 bits) or a depth mod 3. */
HOT int64_t stored(const struct tw_pattern *p, uint64_t c)
{
    if (p->format == FMT_BYTE)
        return p->arr[c];
    if (p->format == FMT_NIBBLE)
        return (p->arr[c >> 1] >> ((c & 1) << 2)) & 15;
    return (p->arr[c >> 2] >> ((c & 3) << 1)) & 3;
}

/* The exact value of a child from its stored value and its parent's exact value. */
HOT int64_t value(const struct tw_pattern *p, uint64_t c, int64_t parent)
{
    int64_t v = stored(p, c);
    if (p->format == FMT_BYTE)
        return v;
    if (p->format == FMT_NIBBLE)
        return v == 15 ? FAR : v;
    if (v == 3)
        return FAR;
    int64_t step = (v - parent % 3 + 3) % 3; /* 0 same, 1 one more, 2 one less */
    return step == 0 ? parent : step == 1 ? parent + 1 : parent - 1;
}

/* Turn t applied to (perm, tw) into (out_perm, out_tw); 0 when it lands on an
 * Illegal position. */
HOT int apply_turn(const struct tw_puzzle *pz, int64_t t, const uint16_t *perm,
                      const uint8_t *tw, uint16_t *out_perm, uint8_t *out_tw)
{
    memcpy(out_perm, perm, (size_t)pz->npos * sizeof(uint16_t));
    memcpy(out_tw, tw, (size_t)pz->npos);
    const int16_t *touched = pz->touched + t * pz->maxtouch;
    const int16_t *src = pz->src + t * pz->npos;
    const uint8_t *add = pz->add + t * pz->npos;
    for (int64_t i = 0; i < pz->maxtouch && touched[i] >= 0; i++) {
        int64_t j = touched[i], s = src[j];
        uint16_t piece = perm[s];
        int64_t x = tw[s] + add[j];
        if (x >= pz->order[j])
            x -= pz->order[j];
        if (pz->any_wild && pz->wild[piece])
            x = 0;
        if (pz->any_illegal && pz->illegal[j * pz->nlabels + piece])
            return 0;
        out_perm[j] = piece;
        out_tw[j] = (uint8_t)x;
    }
    return 1;
}

/* The inverse of a position of distinct pieces. As a group element g (the
 * position is solved * g), the label at j, whose home is h, went from h to j
 * twisted by tw[j] - solved_twist[h]; solved * g^-1 has at h the label solved
 * at j, twisted back. */
HOT void invert(const struct tw_puzzle *pz, const uint16_t *perm, const uint8_t *tw,
                uint16_t *out_perm, uint8_t *out_tw)
{
    for (int64_t j = 0; j < pz->npos; j++) {
        int64_t h = pz->home[perm[j]], o = pz->order[j];
        int64_t x = pz->solved_twist[j] + pz->solved_twist[h] + o - tw[j];
        out_perm[h] = pz->solved_perm[j];
        out_tw[h] = (uint8_t)(x >= o ? (x >= 2 * o ? x - 2 * o : x - o) : x);
    }
}

/* The conjugate of a position by a table's symmetry (struct tw_pattern). */
HOT void conjugate(const struct tw_puzzle *pz, const struct tw_pattern *p, const uint16_t *perm,
                   const uint8_t *tw, uint16_t *out_perm, uint8_t *out_tw)
{
    for (int64_t j = 0; j < pz->npos; j++) {
        int64_t piece = perm[j], to = p->sym_pos[j], o = pz->order[j];
        int64_t x = p->sym_mul[j] * tw[j] + p->sym_add[j] + o - p->sym_add[pz->home[piece]];
        out_perm[to] = p->sym_label[piece];
        out_tw[to] = (uint8_t)(x % o);
    }
}

/* The position as table p sees it: itself, or its inverse or conjugate in ``out``. */
HOT void view_of(const struct tw_puzzle *pz, const struct tw_pattern *p, const uint16_t **perm,
                 const uint8_t **tw, uint16_t *out_perm, uint8_t *out_tw)
{
    if (p->view == VIEW_SAME)
        return;
    if (p->view == VIEW_INVERSE)
        invert(pz, *perm, *tw, out_perm, out_tw);
    else
        conjugate(pz, p, *perm, *tw, out_perm, out_tw);
    *perm = out_perm;
    *tw = out_tw;
}

/* Table p's coordinate of a position as the table sees it. */
HOT uint64_t seen_coordinate(const struct tw_puzzle *pz, const struct tw_pattern *p,
                             const uint16_t *perm, const uint8_t *tw)
{
    uint16_t vp[pz->npos];
    uint8_t vt[pz->npos];
    view_of(pz, p, &perm, &tw, vp, vt);
    return coordinate(p, perm, tw);
}

/* Turn t applied to a position in place (the caller's scramble, a random walk). */
int64_t tw_apply(const struct tw_puzzle *pz, int64_t t, uint16_t *perm, uint8_t *tw)
{
    uint16_t p2[pz->npos];
    uint8_t t2[pz->npos];
    if (!apply_turn(pz, t, perm, tw, p2, t2))
        return 0;
    memcpy(perm, p2, (size_t)pz->npos * sizeof(uint16_t));
    memcpy(tw, t2, (size_t)pz->npos);
    return 1;
}

HOT int is_solved(const struct tw_puzzle *pz, const uint16_t *perm, const uint8_t *tw)
{
    return memcmp(perm, pz->solved_perm, (size_t)pz->npos * sizeof(uint16_t)) == 0 &&
           memcmp(tw, pz->solved_twist, (size_t)pz->npos) == 0;
}

/* A table's exact value at a position. Bytes and 4 bits hold it; a depth mod 3
 * is followed down: a turn to a residue one less is a step nearer the table's
 * solved coordinate (FAR when the walk finds none: a damaged table). */
int64_t tw_exact(const struct tw_puzzle *pz, const struct tw_pattern *p, const uint16_t *perm0,
                 const uint8_t *tw0)
{
    uint64_t c = seen_coordinate(pz, p, perm0, tw0);
    if (p->format != FMT_MOD3)
        return value(p, c, 0);
    uint16_t perm[pz->npos], p2[pz->npos];
    uint8_t tw[pz->npos], t2[pz->npos];
    memcpy(perm, perm0, (size_t)pz->npos * sizeof(uint16_t));
    memcpy(tw, tw0, (size_t)pz->npos);
    for (int64_t steps = 0; steps < FAR; steps++) {
        if (c == p->solved)
            return steps;
        int64_t v = stored(p, c), want = (v + 2) % 3, moved = 0;
        if (v == 3)
            return FAR;
        for (int64_t t = 0; t < pz->nturns && !moved; t++) {
            if (!apply_turn(pz, t, perm, tw, p2, t2))
                continue;
            uint64_t c2 = seen_coordinate(pz, p, p2, t2);
            if (stored(p, c2) == want) {
                memcpy(perm, p2, (size_t)pz->npos * sizeof(uint16_t));
                memcpy(tw, t2, (size_t)pz->npos);
                c = c2;
                moved = 1;
            }
        }
        if (!moved)
            return FAR;
    }
    return FAR;
}

/* The heuristic of a position: the largest table value. */
int64_t tw_heuristic(const struct tw_search *s, const uint16_t *perm, const uint8_t *tw)
{
    int64_t h = 0;
    for (int64_t i = 0; i < s->npat; i++) {
        int64_t v = tw_exact(s->pz, &s->pats[i], perm, tw);
        if (v > h)
            h = v;
    }
    return h;
}

/* The position, table values and canonical state of the node at level d. */
HOT const uint16_t *node_perm(const struct tw_search *s, int64_t d)
{
    if (d == 0)
        return s->root_perm;
    int64_t n = s->pz->nturns, i = s->chosen[d];
    return s->kid_perm + ((d - 1) * n + i) * s->pz->npos;
}

HOT const uint8_t *node_twist(const struct tw_search *s, int64_t d)
{
    if (d == 0)
        return s->root_twist;
    int64_t n = s->pz->nturns, i = s->chosen[d];
    return s->kid_twist + ((d - 1) * n + i) * s->pz->npos;
}

HOT const uint8_t *node_h(const struct tw_search *s, int64_t d)
{
    if (d == 0)
        return s->root_h;
    int64_t n = s->pz->nturns, i = s->chosen[d];
    return s->kid_h + ((d - 1) * n + i) * s->npat;
}

HOT void prefetch(const struct tw_pattern *p, uint64_t c)
{
#ifdef __GNUC__
    int shift = p->format == FMT_BYTE ? 0 : p->format == FMT_NIBBLE ? 1 : 2;
    __builtin_prefetch(p->arr + (c >> shift));
#else
    (void)p;
    (void)c;
#endif
}

HOT void found(struct tw_search *s, int64_t d, int64_t turn)
{
    s->path[d] = (int16_t)turn;
    s->length = d + 1;
    s->status = RUN_FOUND;
}

/* The children of the node at level d that turns make (canonical, legal), into
 * level d's buffers; their count. */
HOT int64_t children(struct tw_search *s, int64_t d)
{
    const struct tw_puzzle *pz = s->pz;
    int64_t nt = pz->nturns, np = pz->npos, count = 0;
    const uint16_t *perm = node_perm(s, d);
    const uint8_t *tw = node_twist(s, d);
    const int16_t *canon = pz->canon + s->canon[d] * nt;
    uint16_t *kp = s->kid_perm + d * nt * np;
    uint8_t *kt = s->kid_twist + d * nt * np;
    int16_t *turn = s->kid_turn + d * nt, *kc = s->kid_canon + d * nt;
    for (int64_t t = 0; t < nt; t++) {
        if (canon[t] < 0)
            continue;
        if (!apply_turn(pz, t, perm, tw, kp + count * np, kt + count * np))
            continue;
        turn[count] = (int16_t)t;
        kc[count] = canon[t];
        count++;
    }
    s->nodes += count;
    return count;
}

/* Table p's values of the alive children of level d (their coordinates first, all
 * fetched from memory at once); the children over the bound are dropped. */
HOT int64_t sieve(struct tw_search *s, int64_t d, int64_t p, int16_t *alive, int64_t count)
{
    const struct tw_pattern *pat = &s->pats[p];
    int64_t nt = s->pz->nturns, np = s->pz->npos, room = s->bound - d - 1, kept = 0;
    const uint16_t *kp = s->kid_perm + d * nt * np;
    const uint8_t *kt = s->kid_twist + d * nt * np;
    uint16_t *vp = s->inv_perm + d * nt * np;
    uint8_t *vt = s->inv_twist + d * nt * np;
    uint8_t *kh = s->kid_h + d * nt * s->npat;
    uint64_t *coord = s->kid_coord + d * nt;
    int64_t parent = node_h(s, d)[p];
    for (int64_t a = 0; a < count; a++) {
        int64_t i = alive[a];
        const uint16_t *perm = kp + i * np;
        const uint8_t *tw = kt + i * np;
        view_of(s->pz, pat, &perm, &tw, vp + i * np, vt + i * np);
        coord[i] = coordinate(pat, perm, tw);
        prefetch(pat, coord[i]);
    }
    for (int64_t a = 0; a < count; a++) {
        int64_t i = alive[a], v = value(pat, coord[i], parent);
        kh[i * s->npat + p] = (uint8_t)v;
        if (v > room) {
            if (d + 1 + v < s->next)
                s->next = d + 1 + v;
        } else {
            alive[kept++] = (int16_t)i;
        }
    }
    return kept;
}

/* Open the node at level d: its children, sieved by every table. */
HOT void open_node(struct tw_search *s, int64_t d)
{
    int64_t nt = s->pz->nturns, np = s->pz->npos;
    int64_t count = children(s, d);
    int16_t *alive = s->alive + d * nt;
    s->alive_at[d] = 0;
    s->alive_count[d] = 0;
    if (d + 1 == s->bound) { /* leaves: only the solved position is wanted */
        const uint16_t *kp = s->kid_perm + d * nt * np;
        const uint8_t *kt = s->kid_twist + d * nt * np;
        for (int64_t i = 0; i < count; i++) {
            if (is_solved(s->pz, kp + i * np, kt + i * np)) {
                found(s, d, s->kid_turn[d * nt + i]);
                return;
            }
        }
        if (count && d + 2 < s->next)
            s->next = d + 2;
        return;
    }
    for (int64_t i = 0; i < count; i++)
        alive[i] = (int16_t)i;
    for (int64_t p = 0; p < s->npat && count; p++)
        count = sieve(s, d, p, alive, count);
    s->alive_count[d] = (int16_t)count;
}

/* Start a search from the position at the root. */
void tw_start(struct tw_search *s)
{
    const struct tw_puzzle *pz = s->pz;
    s->nodes = 0;
    s->iterations = 0;
    s->length = -1;
    s->status = RUN_BUSY;
    int64_t h = 0;
    for (int64_t i = 0; i < s->npat; i++) {
        int64_t v = tw_exact(pz, &s->pats[i], s->root_perm, s->root_twist);
        s->root_h[i] = (uint8_t)(v > FAR ? FAR : v);
        if (v > h)
            h = v;
    }
    if (is_solved(pz, s->root_perm, s->root_twist)) {
        s->status = RUN_FOUND;
        s->length = 0;
        return;
    }
    s->bound = h < 1 ? 1 : h;
    s->depth = -1;
    if (s->bound > s->max_depth)
        s->status = RUN_NONE;
}

/* One step of the walk: open the next child of the node on top, or pop it. */
HOT void step(struct tw_search *s)
{
    int64_t d = s->depth, nt = s->pz->nturns;
    if (s->alive_at[d] >= s->alive_count[d]) {
        s->depth = d - 1;
        return;
    }
    int64_t i = s->alive[d * nt + s->alive_at[d]++];
    const uint8_t *h = s->kid_h + (d * nt + i) * s->npat;
    s->path[d] = s->kid_turn[d * nt + i];
    s->chosen[d + 1] = (int16_t)i;
    s->canon[d + 1] = s->kid_canon[d * nt + i];
    int64_t zero = 1;
    for (int64_t p = 0; p < s->npat; p++)
        zero &= h[p] == 0;
    if (zero && is_solved(s->pz, node_perm(s, d + 1), node_twist(s, d + 1))) {
        found(s, d, s->kid_turn[d * nt + i]);
        return;
    }
    s->depth = d + 1;
    open_node(s, d + 1);
}

/* Search on for at most ``budget`` more nodes: RUN_FOUND (the turns in path,
 * ``length`` of them), RUN_NONE (no solution within max_depth), or RUN_BUSY. */
HOT int64_t run(struct tw_search *s, int64_t budget)
{
    int64_t stop = s->nodes + budget;
    while (s->status == RUN_BUSY && s->nodes < stop) {
        if (s->depth < 0) {
            if (s->iterations > 0) {
                if (s->next > s->max_depth) {
                    s->status = RUN_NONE;
                    break;
                }
                s->bound = s->next;
            }
            s->iterations++;
            s->next = FAR;
            s->depth = 0;
            s->canon[0] = 0;
            open_node(s, 0);
            continue;
        }
        step(s);
    }
    return s->status;
}

#if TWO_LOOPS
__attribute__((target("popcnt"))) static int64_t run_popcnt(struct tw_search *s, int64_t budget)
{
    return run(s, budget);
}

static int64_t run_plain(struct tw_search *s, int64_t budget)
{
    return run(s, budget);
}

int64_t tw_run(struct tw_search *s, int64_t budget)
{
    __builtin_cpu_init();
    return __builtin_cpu_supports("popcnt") ? run_popcnt(s, budget) : run_plain(s, budget);
}
#else
int64_t tw_run(struct tw_search *s, int64_t budget)
{
    return run(s, budget);
}
#endif
