/* sim_metrics.h — what the simulator measures once every order has its ID.
 *
 * Input: m orders that got an ID, each with its true creation time, its ID (any width
 * 1 .. IDB_ID_MAX; IDs order as idb_id_cmp says), the shard it was created on and the shard
 * it lives on at the end.
 *
 * Definitions (all in O(m log m): LSD radix sorts and a counting merge sort):
 *   duplicates        m - number of distinct IDs;
 *   inversions        pairs (a, b) with a created strictly before b and ID(a) > ID(b);
 *                     orders created at the same ns are taken in ID order (never inverted);
 *   inversion_frac    inversions / (m (m-1) / 2);
 *   max_inversion_gap_ns  the largest creation-time distance of an inverted pair;
 *   shard_monotonic   1 when, on every creation shard, each ID is above the one created
 *                     before it there; final_monotonic the same over final shards;
 *   tail_insert_frac  share of orders whose ID is above every ID already created on its
 *                     shard (the insert lands at the very end of the shard's index); the
 *                     first order of each shard has no position and is left out (as in
 *                     locality.h);
 *   shard_collisions  orders whose ID equals that of another order living on the same
 *                     final shard (counted once per extra copy).
 */
#ifndef IDB_SIM_METRICS_H
#define IDB_SIM_METRICS_H

#include <stdint.h>

#include "id.h"

typedef struct sim_metrics_in {
    int64_t m;
    const int64_t *t_ns;          /* creation time */
    const idb_id *ids;            /* the ID each order got */
    const uint16_t *shard_c;      /* created on */
    const uint16_t *shard_f;      /* lives on at the end */
    int nshards;                  /* every shard number is below this */
} sim_metrics_in;

typedef struct sim_metrics_out {
    int64_t duplicates, inversions, shard_collisions;
    double inversion_frac, tail_insert_frac, max_inversion_gap_ns;
    int shard_monotonic, final_monotonic;
} sim_metrics_out;

/* Compute every figure above. Returns 0, or -1 when out of memory. */
int sim_metrics(const sim_metrics_in *in, sim_metrics_out *out);

/* Count strict inversions of a[0..n) (pairs i < j with a[i] > a[j]), sorting a in place
 * with tmp (n entries) as scratch. Exposed for tests. */
int64_t sim_count_inversions(uint32_t *a, uint32_t *tmp, int64_t n);

#endif
