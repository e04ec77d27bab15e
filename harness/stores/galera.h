/* galera.h — what the files of the `galera` store share (store_galera.c: options, open,
 * inserts spread over the nodes, close; galera_servers.c: the private nodes, their cluster
 * and a node joining; galera_stats.c: the keys each node assigned and their pattern).
 * Internal to harness/stores.
 */
#ifndef IDB_GALERA_H
#define IDB_GALERA_H

#include "mariadb.h"

#define GL_NODES_MAX 9                 /* -s nodes= at most (and one more may join) */
#define GL_DB "idbench"                /* the database, made on node 1, replicated */
#define GL_PROVIDER_DEFAULT "/usr/lib/galera/libgalera_smm.so"
#define GL_PROVIDER_ENV "IDBENCH_GALERA_PROVIDER"   /* tests: point at a missing provider */
#define GL_PORT_BASE 4567              /* node j's group port: base + 10 j (its own netns) */
#define GL_RETRIES_MAX 8               /* tries of one transaction before its orders fail */

/* The mariadb store's table (store_mariadb.c): every node's inserts, commits and close go
 * through it on md_store handles. */
extern const idb_store idb_store_mariadb;

/* One open store: the nodes (each a private server with a connection), where the open
 * transaction is, and every order's key with the node and phase it was written in. */
typedef struct gl_store {
    md_store *node[GL_NODES_MAX + 1];  /* node j (0-based; node j + 1 in messages) */
    int nnodes;                        /* nodes in the cluster now (one more after a join) */
    int first_nodes;                   /* -s nodes= */
    int autoinc, key_bytes, row_bytes;
    int cur;                           /* the node of the open transaction */
    int64_t batches;                   /* transactions committed (round robin: batch b on
                                        * node b mod nnodes) */
    int64_t join_at;                   /* join a node after this many orders (0: never) */
    int joined;                        /* 1 once the node joined */
    double join_ms;                    /* the join's time (start to synced), -1 none */
    char dir[PATH_MAX];                /* the shard's directory: node-J below it */
    int64_t pool, flush, page_size;    /* every node's settings (the options') */
    /* The open transaction's rows (copies), replayed on the next node when a commit fails
     * with a deadlock or a certification failure (IDB_EBUSY); with autoinc also where the
     * runner keeps each row (alive until its bookkeeping after the commit: the closed loop,
     * which autoinc takes), so that a replay's new keys reach it. */
    idb_row *txn;
    idb_row **dst;
    int ntxn, txn_cap;
    int64_t retried_orders, failed_orders, failed_txns;
    /* Every committed order: its key (8 bytes), its node and phase (0 before the join). */
    uint64_t *keys;
    uint8_t *key_node, *key_phase;
    int64_t nkeys, cap;
    int64_t orders;                    /* orders committed so far */
    long long cpu0[GL_NODES_MAX + 1];  /* CPU ns of each node at the run's start (-1) */
} gl_store;

/* Start node j's private server in <dir>/node-(j+1) with o's settings, as a member of the
 * cluster of `members` nodes (node 0 alone starts a new cluster), into a new md_store
 * *out connected as root. Before the first start (as root) the process moves into its
 * private network namespace (netns.h); not root: IDB_EINPUT with one line (no group
 * traffic without a namespace: wsrep has no authentication). Returns 0 or the server
 * API's code with one message. */
int gl_node_start(gl_store *s, int j, int members, md_store **out, idb_err *err);

/* Wait until every node reports a cluster of want nodes, synced. Returns 0 or IDB_EIO
 * after a minute. */
int gl_wait_cluster(gl_store *s, int want, idb_err *err);

/* On node j: select the database and prepare the INSERT (the table made on node 0 and
 * replicated). Returns 0 or IDB_EIO. */
int gl_node_ready(gl_store *s, int j, idb_err *err);

/* Join one more node (the join-node fault): start it as a member of nnodes + 1, wait for
 * the cluster of nnodes + 1, prepare it; s->nnodes grows. Returns 0 or IDB_EIO. */
int gl_join(gl_store *s, idb_err *err);

/* The store's stats() (galera_stats.c): each node's keys read back from the node itself and
 * checked against the keys the inserts were handed; the pattern (per node and phase: the
 * step seen, the keys' residues) into <dir>/galera-pattern.txt and on stderr. */
int gl_stats(void *h, idb_store_stats *st, idb_err *err);

#endif
