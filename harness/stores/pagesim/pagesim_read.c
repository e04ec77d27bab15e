/* pagesim_read.c — point lookups through the pagesim tree with their own LRU pool (see
 * pagesim_read.h). */
#include "pagesim_read.h"

#include <stdlib.h>

#include "pagesim_lru.h"

struct psd_reads {
    psl_lru *lru;
};

psd_reads *psd_new(int64_t cache_pages)
{
    psd_reads *d = calloc(1, sizeof *d);
    if (d && !(d->lru = psl_new(cache_pages))) {
        free(d);
        return NULL;
    }
    return d;
}

/* pst_lookup's callback: a read access of page in the pool (a miss when it lacks it). */
static void read_access(void *ctx, uint32_t page)
{
    psl_access(ctx, page, 0);
}

int psd_get(psd_reads *d, const pst_tree *t, const psr_rows *rows, const uint8_t *key,
            psr_row *out, int *found, idb_err *err)
{
    if (psl_reserve(d->lru, pst_pages(t)) != 0)
        return idb_fail(err, IDB_ENOMEM, "pagesim: out of memory for the read pool");
    uint32_t val = 0;
    *found = pst_lookup(t, key, read_access, d->lru, &val);
    if (*found) psr_get(rows, val, out);
    return 0;
}

int64_t psd_misses(const psd_reads *d)
{
    int64_t misses = 0, writes = 0;
    psl_counts(d->lru, &misses, &writes);
    return misses;
}

void psd_free(psd_reads *d)
{
    if (!d) return;
    psl_free(d->lru);
    free(d);
}
