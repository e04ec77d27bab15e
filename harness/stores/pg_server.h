/* pg_server.h — the postgres store's private servers: one per shard, started in the shard's
 * directory with the store's settings (harness/servers does the starting and stopping). */
#ifndef IDB_PG_SERVER_H
#define IDB_PG_SERVER_H

#include <stddef.h>

#include "store.h"

struct idb_server;

/* Start a private PostgreSQL server for one shard in dir (its files under dir/postgres) with
 * the settings of opts (shared_buffers, synchronous_commit, ...); its conninfo into dsn.
 * *srv owns the server: pg_server_stop stops it. IDB_EIO (with one message) when the
 * binaries are missing or it does not start. */
int pg_server_start(const char *dir, const idb_opts *opts, struct idb_server **srv, char *dsn,
                    size_t cap, idb_err *err);
/* Stop the server (NULL is fine). */
void pg_server_stop(struct idb_server *srv);

#endif
