/* pg_server.c — the postgres store's private servers (pg_server.h), and whether it can run
 * here at all (the store's `available` hook: a dsn, or the server's binaries). */
#include <libpq-fe.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pg_server.h"
#include "server.h"

#define PATH_CHARS 1024
#define SETTINGS_MAX 8                             /* settings of a private server */
#define SETTING_CHARS 320                          /* one "name=value" */

/* The settings of a private server: the store's (shared_buffers, synchronous_commit,
 * autovacuum), then those that make its checkpoints the
 * run's own (no timed ones, none forced by WAL volume: checkpoint_every decides). */
static int settings(const idb_opts *o, char (*buf)[SETTING_CHARS], const char **out)
{
    const char *fixed[] = { "checkpoint_timeout=1d", "max_wal_size=64GB" };
    int n = 0;
    snprintf(buf[n], SETTING_CHARS, "shared_buffers=%s", idb_opts_str(o, "shared_buffers"));
    out[n] = buf[n];
    n++;
    snprintf(buf[n], SETTING_CHARS, "synchronous_commit=%s",
             idb_opts_str(o, "synchronous_commit"));
    out[n] = buf[n];
    n++;
    snprintf(buf[n], SETTING_CHARS, "autovacuum=%s", idb_opts_str(o, "autovacuum"));
    out[n] = buf[n];
    n++;
    for (size_t i = 0; i < sizeof fixed / sizeof *fixed; i++) out[n++] = fixed[i];
    return n;
}

int pg_server_start(const char *dir, const idb_opts *opts, struct idb_server **srv, char *dsn,
                    size_t cap, idb_err *err)
{
    char path[PATH_CHARS], buf[SETTINGS_MAX][SETTING_CHARS];
    const char *set[SETTINGS_MAX];
    if (snprintf(path, sizeof path, "%s/postgres", dir) >= (int)sizeof path)
        return idb_fail(err, IDB_EINPUT, "postgres: directory name too long: %s", dir);
    idb_server_conf c = { .kind = "postgres", .dir = path, .settings = set,
                          .nsettings = settings(opts, buf, set), .tcp = 0 };
    int rc = idb_server_start(&c, srv, err);
    if (rc) return rc;
    if (snprintf(dsn, cap, "host=%s user=%s dbname=postgres", idb_server_socket_dir(*srv),
                 idb_server_user(*srv)) >= (int)cap) {
        idb_server_stop(*srv);
        *srv = NULL;
        return idb_fail(err, IDB_EIO, "postgres: the server's conninfo is too long");
    }
    return 0;
}

void pg_server_stop(struct idb_server *srv) { idb_server_stop(srv); }

/* The version and shared_buffers of the server at dsn into version ("" if it does not
 * answer: the run will say why). */
static void server_version(const char *dsn, char *version, size_t cap)
{
    PGconn *c = PQconnectdb(dsn);
    PGresult *r = PQstatus(c) == CONNECTION_OK
        ? PQexec(c, "SELECT 'PostgreSQL ' || current_setting('server_version'), "
                 "current_setting('shared_buffers')") : NULL;
    if (PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) == 1)
        snprintf(version, cap, "%s; shared_buffers=%s", PQgetvalue(r, 0, 0),
                 PQgetvalue(r, 0, 1));
    PQclear(r);
    PQfinish(c);
}

int pg_available(const char *const *kv, int nkv, char *version, size_t cap, idb_err *why)
{
    const char *dsn = idb_store_kv_value(kv, nkv, "dsn");
    version[0] = 0;
    if (dsn[0]) server_version(dsn, version, cap);
    if (dsn[0] || idb_store_kv_value(kv, nkv, "dsn_file")[0]) return 0;
    int rc = idb_server_installed("postgres", version, cap, why);
    if (rc == IDB_EIO)
        snprintf(why->msg + strlen(why->msg), sizeof why->msg - strlen(why->msg),
                 "; or give -s dsn=");
    return rc;
}
