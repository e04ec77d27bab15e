/* pg_server.c — the postgres store's private servers (pg_server.h). */
#include "pg_server.h"

int pg_server_start(const char *dir, const idb_opts *opts, struct idb_server **srv, char *dsn,
                    size_t cap, idb_err *err)
{
    (void)dir; (void)opts; (void)srv; (void)dsn; (void)cap;
    return idb_fail(err, IDB_EINPUT, "postgres: give -s dsn=CONNINFO or -s dsn_file=FILE "
                    "(private servers are not built in yet)");
}

void pg_server_stop(struct idb_server *srv) { (void)srv; }
