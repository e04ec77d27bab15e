/* insert_int.h — inside harness/runner only: what insert.c and insert_check.c share. */
#ifndef IDB_INSERT_INT_H
#define IDB_INSERT_INT_H

#include "ctrsrv.h"
#include "harness_kv.h"
#include "insert.h"

/* Shard k's strategy options into kv: the user's -o options, plus what the harness fills
 * in (harness_kv.h): shard = k, shards, worker = k (one worker per shard), dir, and the
 * counter server's address when cs (may be NULL) started one. Returns 0 or IDB_EINPUT
 * (insert_check.c). */
int idb_insert_shard_kv(const idb_insert_config *cfg, const idb_ctrsrv *cs, int k,
                        idb_harness_kv *kv, idb_err *err);

/* The store options of cfg into o and the keys' width into *width (store.h:
 * idb_store_opts_parse). Returns 0 or IDB_EINPUT (insert_check.c). */
int idb_insert_check_store(const idb_insert_config *cfg, idb_opts *o, int *width,
                           idb_err *err);

#endif
