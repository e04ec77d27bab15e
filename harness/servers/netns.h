/* netns.h — a private network namespace for the servers of a run that must talk to each
 * other over TCP (replication, group communication, state transfer, consensus peers).
 *
 * Servers listen on Unix sockets where they can; where they cannot, idbench (as root)
 * moves the calling thread into a new network namespace made for the run, with only its
 * own loopback interface up, before starting them: every server forked from that thread
 * afterwards lives there, so its 127.0.0.1 listeners are out of every other user's (and the
 * host's) reach, while idbench and its clients still reach the servers through their Unix
 * sockets, which a network namespace does not confine. Call it from the thread that starts
 * the servers (the main thread), before any thread that must share the namespace is made.
 */
#ifndef IDB_NETNS_H
#define IDB_NETNS_H

#include "err.h"

/* Enter a new network namespace with its loopback up (once per process: later calls return
 * 0 at once). Returns 0, or IDB_EUNAVAIL with a message saying why (not root: no
 * CAP_SYS_ADMIN; the kernel refused) so that the caller falls back to per-run secrets or
 * refuses, saying which. */
int idb_netns_private(idb_err *err);

/* 1 once idb_netns_private succeeded in this process, else 0. */
int idb_netns_entered(void);

#endif
