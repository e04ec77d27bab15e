/* insert_interleave.c — C writers per shard on a model store (insert --clients C > 1 on
 * pagesim; see insert_int.h: idb_run_interleaved).
 *
 * A model measures no time, so it needs no threads: what C writers do to its tree is the
 * order in which their rows reach it. On a server, C clients each run a transaction of
 * `batch` rows at the same time, and the rows of those C transactions arrive interleaved.
 * Here, deterministically: each shard's rows are cut into transactions of `batch` rows in
 * stream order (as insert_clients.c cuts them); the transactions go out in rounds of C, the
 * i-th of a round to client i (client 0 is the shard's open() handle, the others
 * open_client's); within a round the rows go to the tree in turn, one per client:
 *
 *   round of C = 3, batch = 4:   txn a = a1 a2 a3 a4,  b = b1 ..,  c = c1 ..
 *   the tree receives            a1 b1 c1 a2 b2 c2 a3 b3 c3 a4 b4 c4
 *
 * and then each client commits, in client order. A shorter transaction (a shard's last)
 * drops out of the turn when it runs out. With C = 1 this is the one-writer order exactly.
 * order[] gets the rows' places in the order the tree received them (the keys' order for
 * locality); nothing is timed, no wait is measured (wait_share stays unknown), and no
 * transaction fails (the model has no locks): failed_txns and retries are 0.
 */
#include <stdlib.h>

#include "insert_int.h"

/* One shard's rows srows[0..n) (places in the stream) through the C handles h[0..C), in
 * rounds as the header draws; order[*at..) gets their places in arrival order. Returns 0 or
 * the store's code. */
static int interleave_shard(const run *r, void *const *h, int C, const idb_row *rows,
                            const int64_t *srows, int64_t n, int64_t *order, int64_t *at,
                            idb_err *err)
{
    const idb_store *st = r->cfg->store;
    int64_t batch = r->cfg->batch;
    for (int64_t round = 0; round < n; round += batch * C) {
        int m = 0;                               /* transactions in this round */
        while (m < C && round + m * batch < n) m++;
        for (int64_t j = 0; j < batch; j++)
            for (int c = 0; c < m; c++) {
                int64_t i = round + c * batch + j;
                if (i >= n || i >= round + (c + 1) * batch) continue;
                int rc = st->insert(h[c], &rows[srows[i]], err);
                if (rc) return rc;
                order[(*at)++] = srows[i];
            }
        for (int c = 0; c < m; c++) {
            int rc = st->commit(h[c], err);
            if (rc) return rc;
        }
    }
    return 0;
}

/* The timed part's replacement on a model store with cfg->clients > 1 (insert_int.h). */
int idb_run_interleaved(run *r, const idb_row *rows, const int *row_shard, int64_t *order,
                        idb_insert_result *res, idb_err *err)
{
    const idb_insert_config *cfg = r->cfg;
    int C = cfg->clients;
    void **h = calloc((size_t)C, sizeof *h);
    int64_t **srows = calloc((size_t)cfg->shards, sizeof *srows);
    int64_t *nrows = calloc((size_t)cfg->shards, sizeof *nrows);
    int rc = h && srows && nrows ? 0 : idb_fail(err, IDB_ENOMEM, "out of memory");
    if (!rc) rc = idb_shard_rows(r, row_shard, srows, nrows, err);
    int64_t at = 0;
    for (int k = 0; k < cfg->shards && !rc; k++) {
        h[0] = r->shards[k].store;
        for (int c = 1; c < C && !rc; c++)
            rc = cfg->store->open_client(h[0], c, &h[c], err);
        if (!rc) rc = interleave_shard(r, h, C, rows, srows[k], nrows[k], order, &at, err);
        for (int c = 1; c < C; c++) {            /* client 0 stays: the shard's handle */
            if (h[c]) cfg->store->close(h[c]);
            h[c] = NULL;
        }
    }
    for (int k = 0; srows && k < cfg->shards; k++) free(srows[k]);
    free(srows);
    free(nrows);
    free(h);
    res->failed_txns = res->retries = 0;
    return rc;
}
