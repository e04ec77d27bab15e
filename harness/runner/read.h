/* read.h — the read runner (`idbench read`): point lookups by ID on the stores an insert
 * run left in DIR, measured.
 *
 * DIR holds the insert record (readrec.h: the run's rows in creation order, its strategy,
 * key width, shards and -s options). The lookups (the plan, read_keys.c) are drawn with a
 * generator seeded by --seed alone, so the same seed on the same DIR gives the same
 * lookups:
 *   uniform       an existing row drawn uniformly from the run's N rows;
 *   recent:H      drawn uniformly from the newest ceil(N * H / 100) rows by creation;
 *   mixed:P:H     each lookup recent:H with probability P / 100, else uniform;
 *   miss_share F  lookup i looks up an ID that does not exist when floor((i + 1) F) >
 *                 floor(i F) (exactly floor(n F) of them, spread evenly): key_bytes random
 *                 bytes, drawn again while they equal one of the run's IDs (a binary search
 *                 in the sorted IDs), so none can collide; its shard is i mod shards.
 * Each shard's store is opened for reading (store.h version 3: open_read, a fresh handle,
 * its own cache empty) after, with a cold cache, the OS page cache of its files is dropped
 * (every regular file under DIR/shard-K: fdatasync, then posix_fadvise(POSIX_FADV_DONTNEED));
 * a model store (pagesim: no files) gets the run's rows replayed into a new handle
 * instead, and counts its lookups in a read pool of its own, empty at the first one. With
 * a warm cache the whole plan runs once first, unmeasured. Then the plan runs once,
 * each lookup timed (the harness's clock), its row compared with the record's.
 * range:W and shop[:W] run -n range or shop queries instead (read_query.c), each timed as a
 * whole; the point lookups' plan is not made.
 */
#ifndef IDB_READ_H
#define IDB_READ_H

#include <stdint.h>

#include "readrec.h"
#include "store.h"

enum idb_read_pattern { IDB_READ_UNIFORM, IDB_READ_RECENT, IDB_READ_MIXED, IDB_READ_RANGE,
                        IDB_READ_SHOP };

typedef struct idb_read_config {
    const idb_store *store;
    const char *dir;
    const char *strategy;             /* NULL, or checked against the record's (either
                                       * strategy of a --then run's record) */
    int64_t lookups;                  /* >= 1 */
    int pattern;                      /* enum idb_read_pattern */
    double recent_pct;                /* H, in (0, 100] (recent and mixed) */
    double mixed_pct;                 /* P, in [0, 100] (mixed) */
    int warm;                         /* 0: cold, 1: warm */
    uint64_t seed;
    double miss_share;                /* F, in [0, 1] (point lookups) */
    int64_t window_ms;                /* W of range:W (>= 0) and shop:W; -1: shop, no W */
} idb_read_config;

typedef struct idb_read_result {
    char strategy[IDB_READREC_NAME_MAX];   /* the record's; after insert --then, the
                                            * second strategy's when every existing row
                                            * looked up is one of its phase's */
    int64_t lookups, found, not_found;
    int64_t missing;                  /* lookups of IDs made not to exist (miss_share) */
    int64_t rows;                     /* the run's rows (the record's) */
    double misses_per_lookup;         /* pages the store's cache lacked, per lookup */
    double read_pages_per_lookup;     /* pages read from its files per lookup; -1 unknown */
    double lookups_per_s;             /* lookups / time in get(); -1 on a model */
    int64_t lat_p50_ns, lat_p99_ns;   /* -1 on a model */
    int64_t rows_returned;            /* range and shop: rows of every query; else -1 */
    double misses_per_row;            /* range and shop: misses / rows_returned; else -1 */
} idb_read_result;

/* One planned lookup: a record index (>= 0), or -1 with the ID that does not exist. */
typedef struct idb_read_lookup {
    int64_t index;
    idb_id miss;
} idb_read_lookup;

/* Range and shop queries (read_query.c; its header says what each asks and how its rows
 * are checked): the record's expectations and each query's parameters. */
typedef struct idb_read_expect {
    int64_t rows;
    uint64_t sum;                     /* of a hash of each row's ID and fields */
} idb_read_expect;
typedef struct idb_read_queries {
    int kind;                         /* store.h enum idb_query_kind */
    int64_t created_lo;
    int shards;
    uint32_t nshops;
    idb_id *id_lo;                    /* per shard: ID_FROM's bound (len 0: no row there) */
    idb_read_expect *per_shard;       /* range: per shard */
    idb_read_expect *per_shop;        /* shop: per shop */
    int *shop_shard;                  /* the shard of each shop */
    uint32_t *shop_of;                /* shop: query i's shop */
} idb_read_queries;

/* The queries of cfg (pattern range or shop) on rec into q (freed with
 * idb_read_queries_free), opts the run's store options, time_ordered the strategy's
 * declaration. IDB_EINPUT for a store without the query hook, or without the index the
 * query needs (secondary_created on a strategy not time-ordered, secondary_shop);
 * IDB_ENOMEM. Nothing is opened. */
int idb_read_queries_make(const idb_readrec *rec, const idb_read_config *cfg,
                          const idb_opts *opts, int time_ordered, idb_read_queries *q,
                          idb_err *err);
/* Run query i of q through st on the shards' read handles h[], adding its rows to *rows.
 * IDB_EIO when the store fails or returns rows other than the record's for the query. */
int idb_read_queries_run(const idb_read_queries *q, const idb_store *st, void *const *h,
                         int64_t i, int64_t *rows, idb_err *err);
void idb_read_queries_free(idb_read_queries *q);

/* Check cfg's numbers (without DIR). Returns 0 or IDB_EINPUT with err. */
int idb_read_check(const idb_read_config *cfg, idb_err *err);

/* The plan of cfg on rec into out[0..cfg->lookups) (see the header). Returns 0, or
 * IDB_EINPUT (a record with no rows), IDB_ENOMEM. */
int idb_read_plan(const idb_readrec *rec, const idb_read_config *cfg, idb_read_lookup *out,
                  idb_err *err);

/* The first record index recent:H draws from: N - ceil(N * H / 100) (at least the last
 * row, N - 1, for N >= 1). */
int64_t idb_read_recent_from(int64_t rows, double pct);

/* One read run (see the header): checks first (cfg, DIR's record, the store, the
 * strategy), so bad input creates nothing; then DIR is locked for the run (idb_run_lock),
 * read, and left as it was. Returns 0 with res, or IDB_EINPUT (bad input, a DIR insert
 * did not make for this store, a store that cannot read), IDB_EIO (a store failed, a row
 * that differs from the record), IDB_ENOMEM. */
int idb_read_run(const idb_read_config *cfg, idb_read_result *res, idb_err *err);

#endif
