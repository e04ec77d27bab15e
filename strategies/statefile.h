/* statefile.h — a time-based strategy's reservation on disk (its option state_file=PATH),
 * so that a restarted instance never goes back to a time an earlier run may have used.
 *
 * Write ahead of use. The file holds the highest Unix ms the strategy may have put in an ID.
 * Before an instance stamps an ID with a ms beyond that, it reserves the next
 * IDB_STATE_WINDOW_MS: it writes reserved = ms + window to PATH.tmp, fsyncs it, renames it
 * over PATH and fsyncs the directory, and only then hands out the ID (as CosId's and Meituan
 * Leaf's snowflake generators persist their last timestamp). So a crash at any moment leaves
 * a file at or above every ms used, at the cost of one write and two fsyncs per window; a
 * clean idb_statefile_close writes the last ms really used instead, so that a restart waits
 * for nothing it does not have to. A new instance reads the file and stays above it: it
 * refuses or waits while its clock is behind (snowflake), or goes on above it (uuidv7, ulid,
 * which already run ahead of a clock that is behind).
 *
 * The file is three lines of text and nothing else:
 *     idbench-state 1
 *     strategy NAME
 *     reserved_ms N            (a decimal Unix ms, 0 .. IDB_STATE_MS_MAX)
 * A missing file means "never used". Anything else (empty, cut short, another strategy's,
 * a bad number) is corrupt: IDB_EINPUT, never a silent start from nothing.
 *
 * One user at a time: PATH.lock (created next to it, never renamed nor removed) is held
 * with flock(LOCK_EX | LOCK_NB) for the instance's life; a second instance, in this process
 * or another, is refused with IDB_EUNAVAIL. A flock belongs to the open file, which fork()
 * shares, so the reservation is bound to the process that opened it: in a forked child
 * idb_statefile_cover refuses (IDB_EFORK, forkgen.h) and idb_statefile_close writes nothing.
 *
 * Not thread-safe by itself: the strategy calls it under its own lock.
 */
#ifndef IDB_STATEFILE_H
#define IDB_STATEFILE_H

#include <stdint.h>

#include "err.h"
#include "forkgen.h"

#define IDB_STATE_WINDOW_MS 1000     /* ms reserved per write: one write + 2 fsyncs a second */
#define IDB_STATE_NONE INT64_MIN     /* reserved_ms / used_ms: nothing yet */
/* The largest reserved_ms a file may hold: an idb_clock counts int64 ns (to 2262), so
 * (reserved_ms + window) ms must still be a clock reading. Larger is corrupt. */
#define IDB_STATE_MS_MAX (INT64_MAX / 1000000 - IDB_STATE_WINDOW_MS - 1)

typedef struct idb_statefile {
    int lock_fd;                     /* PATH.lock, flock'ed */
    unsigned fork_gen;               /* idb_fork_generation() at open */
    int64_t reserved_ms;             /* IDs may use ms up to this (IDB_STATE_NONE: none) */
    int64_t used_ms;                 /* highest ms covered for an ID so far (or NONE) */
    const char *owner;               /* the strategy's name, as in the file */
    char *path, *tmp, *dir;          /* PATH, PATH.tmp, PATH's directory */
} idb_statefile;

/* Open the state file path for strategy owner (a static string): create and lock
 * PATH.lock, read PATH. *out gets the handle (the caller closes it); (*out)->reserved_ms is
 * what the last run reserved, IDB_STATE_NONE when PATH does not exist. Returns 0, or
 * IDB_EINPUT (PATH corrupt or another strategy's; its directory missing or not writable),
 * IDB_EUNAVAIL (another instance holds the lock), IDB_EIO or IDB_ENOMEM, with err filled. */
int idb_statefile_open(const char *path, const char *owner, idb_statefile **out, idb_err *err);

/* Write reserved_ms = ms durably (temp file, fsync, rename, fsync of the directory).
 * Returns 0, IDB_EIO (a write failed, nothing changed) or IDB_EFORK (in a forked child). */
int idb_statefile_reserve(idb_statefile *sf, int64_t ms, idb_err *err);

/* Called before an ID stamped ms is handed out: reserves ms + IDB_STATE_WINDOW_MS first
 * when ms is beyond the reservation. Returns 0 (the ID may go out), or IDB_EIO (the
 * reservation could not be written) or IDB_EFORK (a forked child): then no ID may go out. */
static inline int idb_statefile_cover(idb_statefile *sf, int64_t ms, idb_err *err)
{
    int rc = 0;
    if (sf->fork_gen != idb_fork_now() || ms > sf->reserved_ms)
        rc = idb_statefile_reserve(sf, ms + IDB_STATE_WINDOW_MS, err);
    if (rc == 0 && ms > sf->used_ms) sf->used_ms = ms;
    return rc;
}

/* The message for a state file whose reservation is ahead of the clock: fills err with
 * IDB_ECLOCK and behind_ms = reserved_ms + 1 - now_ms (the ms until the clock passes it),
 * saying what the strategy does (how, e.g. "on_backwards=wait waits"). Returns IDB_ECLOCK. */
int idb_statefile_behind(const idb_statefile *sf, int64_t now_ms, const char *how,
                         idb_err *err);

/* Release the lock and free sf (NULL is fine). In the process that opened it, first write
 * the last ms used (when an ID was covered), so a restart need not wait out the rest of the
 * window; a failure there leaves the larger reservation, which is safe. In a forked child it
 * writes nothing and the parent keeps the lock. */
void idb_statefile_close(idb_statefile *sf);

#endif
