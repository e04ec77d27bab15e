/* tmpdir.h — private temporary directories for runs that need files nobody keeps, and
 * what happens to them when the program is interrupted (SIGINT, SIGTERM, SIGHUP), or when
 * whoever reads its output went away (SIGPIPE: `idbench matrix 2>&1 | head`), which by
 * default would kill it without a word and leave them behind. (A SIGPIPE a library may
 * raise on a socket is blocked where it can happen: strategies/remote_redis.c.)
 *
 * Every directory idb_tmpdir_make creates is registered until idb_tmpdir_remove removes it.
 * A signal then does one of two things, chosen once per process:
 *   IDB_ON_SIGNAL_CLEAN_AND_DIE  (the default, set by the first idb_tmpdir_make): the signal
 *       handler removes every registered directory (async-signal-safe) and the process dies
 *       of the signal; for commands that run one long call they cannot stop (insert).
 *   IDB_ON_SIGNAL_FLAG  the handler only records the signal: the program sees it through
 *       idb_signal_caught (its blocking calls return EINTR), stops its children, writes
 *       what it must, removes its directories and calls idb_signal_die (matrix, plot).
 * A signal that was ignored when the program started (a background job of a shell without
 * job control) stays ignored.
 *
 * Server processes (harness/servers) register their pids too: before the directories are
 * removed, the handler (and idb_signal_die) SIGKILLs each registered process and its
 * process group, so no server outlives an interrupted idbench.
 */
#ifndef IDB_TMPDIR_H
#define IDB_TMPDIR_H

#include <stddef.h>
#include <sys/types.h>

/* Create a new empty directory under $TMPDIR (or /tmp), registered for removal on a
 * signal; its path goes into buf. Mode 0700, or 0711 when run as root, so that a private
 * server running as its package's user (harness/servers) can reach its dir inside.
 * Returns 0, or -1 with errno set. */
int idb_tmpdir_make(char *buf, size_t len);

/* Register dir, made by the caller (mkdtemp), for removal on a signal like the directories
 * idb_tmpdir_make makes; idb_tmpdir_remove removes it. Returns 0, or -1 with errno set. */
int idb_tmpdir_adopt(const char *dir);

/* The mode for a private directory a run makes for its own files: 0700, but 0711 as
 * root, so that the servers' users (postgres, mysql, redis) may pass through it to the
 * server directories below it (they cannot list it). */
mode_t idb_private_dir_mode(void);

/* Remove dir and everything in it (not following symlinks) and unregister it. Returns 0,
 * or -1 with errno set when something could not be removed. */
int idb_tmpdir_remove(const char *dir);

/* Register pid (a child that leads its own process group) to be sent sig (0: SIGKILL), with
 * its group, when a signal kills the program; installs the default handling if none was
 * chosen. Returns 0, or -1 with errno EMFILE when the table is full. */
int idb_pid_register(int pid, int sig);

/* Forget pid (it was stopped in order). */
void idb_pid_unregister(int pid);

enum idb_on_signal { IDB_ON_SIGNAL_CLEAN_AND_DIE, IDB_ON_SIGNAL_FLAG };

/* Catch SIGINT, SIGTERM, SIGHUP and SIGPIPE as what says (see above), without SA_RESTART
 * (in the flag mode a write to a reader that is gone then fails with EPIPE). Call it
 * before starting any work. Returns 0 or -1 with errno set. */
int idb_signals_catch(enum idb_on_signal what);

/* The signal caught so far (0: none). */
int idb_signal_caught(void);

/* In a child after fork() that does not exec: the default action for those signals again,
 * and a registry of its own that is empty (the parent's directories are the parent's). */
void idb_signals_default(void);

/* When a signal was caught: kill every registered process, remove every registered
 * directory and die of that signal (its default action). Returns only when none was caught. */
void idb_signal_die(void);

#endif
