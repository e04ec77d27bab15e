/* pg_server.c — the postgres store's private servers (pg_server.h), and whether it can run
 * here at all (the store's `available` hook: a dsn, or the server's binaries). */
#include <libpq-fe.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pg_server.h"

#define PG_BIN_DIR "/usr/lib/postgresql/15/bin"    /* Debian's postgresql-15 */
#define PG_BIN_ENV "IDB_PG_BINDIR"                 /* overrides it (tests: a missing one) */
#define PATH_CHARS 1024

int pg_server_start(const char *dir, const idb_opts *opts, struct idb_server **srv, char *dsn,
                    size_t cap, idb_err *err)
{
    (void)dir; (void)opts; (void)srv; (void)dsn; (void)cap;
    return idb_fail(err, IDB_EINPUT, "postgres: give -s dsn=CONNINFO or -s dsn_file=FILE "
                    "(private servers are not built in yet)");
}

void pg_server_stop(struct idb_server *srv) { (void)srv; }

/* The value of option key= in kv[0..nkv) ("" when not given). */
static const char *kv_value(const char *const *kv, int nkv, const char *key)
{
    size_t n = strlen(key);
    const char *v = "";
    for (int i = 0; i < nkv; i++)
        if (strncmp(kv[i], key, n) == 0 && kv[i][n] == '=') v = kv[i] + n + 1;
    return v;
}

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
    static const char *const bins[] = { "postgres", "initdb" };
    const char *dir = getenv(PG_BIN_ENV), *dsn = kv_value(kv, nkv, "dsn");
    version[0] = 0;
    if (dsn[0]) server_version(dsn, version, cap);
    if (dsn[0] || kv_value(kv, nkv, "dsn_file")[0]) return 0;
    if (!dir || !dir[0]) dir = PG_BIN_DIR;
    char path[PATH_CHARS];
    for (size_t i = 0; i < sizeof bins / sizeof *bins; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, bins[i]);
        if (access(path, X_OK) != 0)
            return idb_fail(why, IDB_EIO, "no PostgreSQL server: %.200s is missing (install "
                            "postgresql-15: ./bootstrap), or give -s dsn=", path);
    }
    snprintf(path, sizeof path, "'%s/postgres' --version 2>/dev/null", dir);
    FILE *p = strchr(dir, '\'') ? NULL : popen(path, "r");
    if (p) {
        if (!fgets(version, (int)cap, p)) version[0] = 0;
        version[strcspn(version, "\n")] = 0;
        pclose(p);
    }
    return 0;
}
