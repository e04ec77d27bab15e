/* sim_metrics.h — what the simulator measures once every order has its ID.
 *
 * Input: m orders that got an ID, each with its true creation time, its ID (any width
 * 1 .. IDB_ID_MAX; IDs order as idb_id_cmp says), the shard it was created on and the shard
 * it lives on at the end.
 *
 * Definitions (all in O(m log m): a sort into creation order, a scan, a counting merge
 * sort):
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
 *                     final shard (counted once per extra copy);
 *   insert_pos_p50, insert_last5_frac  (when asked) each creation shard's IDs inserted in
 *                     creation order into one index: the median relative insert position
 *                     and the share in the last 5% (locality.h); -1 when not asked or none.
 *
 * Memory. sim_metrics_take works in place on the caller's columns (16 + B bytes an order
 * for keys of B bytes: time, key, two shards, a 32-bit scratch) and frees each as soon as
 * it is done with it; the inversion count then merge sorts the keys with their final shard
 * (2 (B + 2) bytes an order). For 64-bit IDs that is 24 bytes an order at the peak; the
 * sort into creation order needs 12 + B more for each order created out of arrival order
 * (none in a run without stalls or clock errors).
 */
#ifndef IDB_SIM_METRICS_H
#define IDB_SIM_METRICS_H

#include <stddef.h>
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
    double insert_pos_p50, insert_last5_frac;
} sim_metrics_out;

/* Compute every figure above but the insert positions (-1) from in (not changed). Returns
 * 0, or -1 when out of memory. */
int sim_metrics(const sim_metrics_in *in, sim_metrics_out *out);

/* The orders as columns that sim_metrics_take owns: it sorts them in place and frees them. */
typedef struct sim_metrics_cols {
    int64_t m;
    int64_t *t_ns;                /* creation time */
    uint8_t *keys;                /* m keys of key_bytes each, in the order of the IDs: */
    size_t key_bytes;             /* ... compared by memcmp, or */
    int key_u64;                  /* 1: each a native uint64_t (key_bytes = 8) */
    uint16_t *shard_c, *shard_f;  /* created on, lives on at the end */
    uint32_t *scratch;            /* m entries of any content */
    int nshards;                  /* every shard number is below this */
    int locality;                 /* 1: also insert_pos_p50 and insert_last5_frac */
} sim_metrics_cols;

/* Compute every figure above from c's columns (at most 2^32 - 1 orders), which it takes:
 * every array is freed and set to NULL on return, success or not. Returns 0, or -1 when
 * out of memory. */
int sim_metrics_take(sim_metrics_cols *c, sim_metrics_out *out);

#endif
