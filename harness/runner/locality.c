/* locality.c — relative insert positions by ranks and a Fenwick tree (see locality.h). */
#include "locality.h"

#include <stdlib.h>
#include <string.h>

#include "metrics.h"

int idb_locality_init(idb_locality *l, int64_t capacity)
{
    memset(l, 0, sizeof *l);
    l->pos = malloc((size_t)(capacity > 0 ? capacity : 1) * sizeof *l->pos);
    return l->pos ? 0 : -1;
}

typedef struct keyed { idb_id key; int64_t seq; } keyed;

/* qsort order of keys; equal keys keep insertion order. */
static int cmp_keyed(const void *a, const void *b)
{
    const keyed *x = a, *y = b;
    int c = idb_id_cmp(&x->key, &y->key);
    return c ? c : (x->seq > y->seq) - (x->seq < y->seq);
}

int idb_locality_add(idb_locality *l, const idb_id *keys, int64_t n)
{
    keyed *k = malloc((size_t)(n > 0 ? n : 1) * sizeof *k);
    int64_t *rank = malloc((size_t)(n > 0 ? n : 1) * sizeof *rank);
    int64_t *fen = calloc((size_t)n + 1, sizeof *fen);
    if (!k || !rank || !fen) { free(k); free(rank); free(fen); return -1; }
    for (int64_t i = 0; i < n; i++) k[i] = (keyed){ keys[i], i };
    qsort(k, (size_t)n, sizeof *k, cmp_keyed);
    for (int64_t r = 0; r < n; r++) rank[k[r].seq] = r + 1;   /* 1-based ranks */
    for (int64_t i = 0; i < n; i++) {
        int64_t less = 0;                                      /* keys already there below */
        for (int64_t j = rank[i] - 1; j > 0; j -= j & -j) less += fen[j];
        for (int64_t j = rank[i]; j <= n; j += j & -j) fen[j]++;
        if (i == 0) continue;
        double p = (double)less / (double)i;
        int b = (int)(p * IDB_LOC_BUCKETS);
        l->hist[b < IDB_LOC_BUCKETS ? b : IDB_LOC_BUCKETS - 1]++;
        l->tail += less == i;
        l->pos[l->inserts++] = p;
    }
    free(k); free(rank); free(fen);
    return 0;
}

double idb_locality_tail_frac(const idb_locality *l)
{
    return l->inserts ? (double)l->tail / (double)l->inserts : -1;
}

double idb_locality_pos_p50(idb_locality *l)
{
    if (!l->inserts) return -1;
    qsort(l->pos, (size_t)l->inserts, sizeof *l->pos, idb_cmp_double);
    return l->pos[(l->inserts - 1) / 2];
}

void idb_locality_free(idb_locality *l)
{
    free(l->pos);
    l->pos = NULL;
}
