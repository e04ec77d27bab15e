/* rundir.h — the insert runner's directory, and undoing what a failed run created there.
 *
 * A run writes only into its directory DIR: DIR/shard-K/ with each shard's store files,
 * and a strategy's own files in DIR (range's range directory). Before it creates anything
 * the runner takes a snapshot of the names already there (in DIR, and in each DIR/shard-K
 * that exists); after a failure, idb_rundir_undo removes every name that was not, and DIR
 * itself when the run made it, so DIR is left as the run found it. Nothing in the snapshot
 * is ever removed. (A file another process adds to DIR while the run fails would be taken
 * for the run's own: DIR is meant to be the run's.)
 */
#ifndef IDB_RUNDIR_H
#define IDB_RUNDIR_H

#include <limits.h>
#include <stddef.h>

#include "err.h"

typedef struct idb_rundir {
    char dir[PATH_MAX];
    int made_dir;                      /* DIR did not exist: this run made it */
    int shards;
    char **names;                      /* what existed: "NAME" in DIR, "shard-K/NAME" */
    size_t n, cap;
    int lockfd;                        /* the run's lock on DIR (idb_run_lock), -1: none */
} idb_rundir;

/* Check that dir is a directory this process may write, or that it does not exist and its
 * parent is one (it is then made by idb_rundir_begin). Creates nothing. Returns 0 or
 * IDB_EINPUT with err saying why. */
int idb_rundir_check(const char *dir, idb_err *err);

/* Take the snapshot of dir (checked by idb_rundir_check) for a run of shards shards, then
 * make dir when it does not exist. Returns 0, or IDB_EIO / IDB_ENOMEM (nothing made, rd
 * needs no idb_rundir_end). */
int idb_rundir_begin(idb_rundir *rd, const char *dir, int shards, idb_err *err);

/* The path of shard k's directory DIR/shard-K into path (len bytes), made when it does not
 * exist. Returns 0, or IDB_EINPUT (path too long, cannot be made for lack of permission)
 * or IDB_EIO. */
int idb_rundir_shard(const idb_rundir *rd, int k, char *path, size_t len, idb_err *err);

/* The path of shard k's directory in dir (DIR/shard-K) into path (len bytes), nothing made
 * (the read runner's). Returns 0 or IDB_EINPUT (path too long). */
int idb_rundir_shard_path(const char *dir, int k, char *path, size_t len, idb_err *err);

/* Remove what the run made: DIR when it made it, else every name in DIR and in its
 * DIR/shard-K directories that is not in the snapshot. Call after every store and strategy
 * instance is closed. */
void idb_rundir_undo(const idb_rundir *rd);

/* Free the snapshot (files stay as they are). */
void idb_rundir_end(idb_rundir *rd);

#endif
