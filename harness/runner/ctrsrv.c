/* ctrsrv.c — the one counter server of a run (see ctrsrv.h). */
#include "ctrsrv.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "remote.h"
#include "server.h"
#include "tmpdir.h"

#define PG_SOCKET_PREFIX ".s.PGSQL."       /* libpq finds the socket by host= and port= */
#define PG_DBNAME "postgres"
#define LOOPBACK "127.0.0.1"
#define SEARCH_ONLY 0711                  /* the run's counter directory: others may pass */

_Static_assert(IDB_CTRSRV_BACKENDS == IDB_BACKEND_COUNT, "IDB_CTRSRV_BACKENDS");

/* The server kind of each backend, and its durability settings (Redis config names). */
static const char *const kinds[IDB_BACKEND_COUNT] = {
    [IDB_BACKEND_POSTGRES] = "postgres", [IDB_BACKEND_REDIS] = "redis",
};
static const char *const redis_durability[][2] = {
    { "appendonly=no", NULL },                             /* none */
    { "appendonly=yes", "appendfsync=everysec" },          /* everysec */
    { "appendonly=yes", "appendfsync=always" },            /* always */
};

/* The value of option name in user (last one wins), or def. */
static const char *user_value(const char *const *user, int nuser, const char *name,
                              const char *def)
{
    size_t n = strlen(name);
    const char *v = def;
    for (int i = 0; i < nuser; i++)
        if (strncmp(user[i], name, n) == 0 && user[i][n] == '=') v = user[i] + n + 1;
    return v;
}

/* The index of text in the "a|b|c" choices of s's option name, or 0. */
static int choice(const idb_strategy *s, const char *const *user, int nuser, const char *name)
{
    if (!idb_opts_declared(s->options, name)) return 0;
    const char *v = user_value(user, nuser, name, NULL);
    if (!v) return 0;
    const idb_opt_decl *d = s->options;
    while (d->name && strcmp(d->name, name) != 0) d++;
    const char *c = d->choices;
    size_t len = strlen(v);
    for (int i = 0; c && *c; i++) {
        const char *bar = strchr(c, '|');
        size_t cl = bar ? (size_t)(bar - c) : strlen(c);
        if (cl == len && strncmp(c, v, len) == 0) return i;
        c = bar ? bar + 1 : c + cl;
    }
    return 0;
}

/* The backend the options ask for (see ctrsrv.h). */
int idb_ctrsrv_backend(const idb_strategy *s, const char *const *user, int nuser)
{
    return choice(s, user, nuser, "backend");
}

/* The address option of the started server into cs->kv, its password's file into
 * cs->secret_kv when it listens on TCP. */
static void address(idb_ctrsrv *cs)
{
    idb_server *srv = cs->srv;
    int port = idb_server_port(srv);
    if (*idb_server_secret_file(srv))
        snprintf(cs->secret_kv, sizeof cs->secret_kv, "secret_file=%s",
                 idb_server_secret_file(srv));
    if (cs->backend == IDB_BACKEND_REDIS) {
        if (port) snprintf(cs->kv, sizeof cs->kv, "url=" LOOPBACK ":%d", port);
        else snprintf(cs->kv, sizeof cs->kv, "url=unix:%s", idb_server_socket(srv));
        return;
    }
    const char *sock = strrchr(idb_server_socket(srv), '/');
    const char *num = sock ? strstr(sock, PG_SOCKET_PREFIX) : NULL;
    if (port)
        snprintf(cs->kv, sizeof cs->kv, "dsn=host=" LOOPBACK " port=%d user=%s dbname="
                 PG_DBNAME, port, idb_server_user(srv));
    else
        snprintf(cs->kv, sizeof cs->kv, "dsn=host=%s port=%s user=%s dbname=" PG_DBNAME,
                 idb_server_socket_dir(srv), num ? num + strlen(PG_SOCKET_PREFIX) : "5432",
                 idb_server_user(srv));
}

/* The directory for the server's files: dir (made when missing) or a temporary one; its
 * own files go into DIR/server (0700, the server user's: server.h), so DIR is only
 * searchable by others (SEARCH_ONLY), for a server that runs as another user. */
static int make_dir(const char *dir, idb_ctrsrv *cs, idb_err *err)
{
    if (!dir) {
        if (idb_tmpdir_make(cs->dir, sizeof cs->dir) != 0)
            return idb_fail(err, IDB_EIO, "counter server: cannot make a temporary directory: "
                            "%s", strerror(errno));
    } else if ((size_t)snprintf(cs->dir, sizeof cs->dir, "%s", dir) >= sizeof cs->dir) {
        return idb_fail(err, IDB_EINPUT, "counter server: directory name too long");
    } else if (mkdir(cs->dir, SEARCH_ONLY) != 0 && errno != EEXIST) {
        cs->dir[0] = 0;
        return idb_fail(err, IDB_EIO, "counter server: cannot make '%s': %s", dir,
                        strerror(errno));
    }
    if (chmod(cs->dir, SEARCH_ONLY) != 0)
        return idb_fail(err, IDB_EIO, "counter server: cannot chmod '%s': %s", cs->dir,
                        strerror(errno));
    return 0;
}

/* Start the server the options ask for (see ctrsrv.h). */
int idb_ctrsrv_start(const idb_strategy *s, const char *const *user, int nuser,
                     const char *dir, idb_ctrsrv *cs, idb_err *err)
{
    memset(cs, 0, sizeof *cs);
    cs->backend = idb_ctrsrv_backend(s, user, nuser);
    cs->durability = choice(s, user, nuser, "durability");
    cs->rtt_us = atoi(user_value(user, nuser, "rtt_us", "0"));
    const char *addr = cs->backend == IDB_BACKEND_REDIS ? "url" : "dsn";
    if (cs->backend == IDB_BACKEND_LOCAL || *user_value(user, nuser, addr, "")) return 0;
    const char *settings[2];
    int n = 0;
    if (cs->backend == IDB_BACKEND_REDIS)
        for (int i = 0; i < 2 && redis_durability[cs->durability][i]; i++)
            settings[n++] = redis_durability[cs->durability][i];
    int rc = make_dir(dir, cs, err);
    if (rc) return rc;
    char sdir[PATH_MAX + sizeof "/server"];
    snprintf(sdir, sizeof sdir, "%s/server", cs->dir);
    idb_server_conf conf = { .kind = kinds[cs->backend], .dir = sdir, .settings = settings,
                             .nsettings = n,
                             .tcp = choice(s, user, nuser, "transport") == 1 };
    idb_err e = { 0 };
    rc = idb_server_start(&conf, &cs->srv, &e);
    if (rc) {
        idb_ctrsrv_stop(cs);
        return idb_fail(err, rc, "counter server (%s): %s", conf.kind, e.msg);
    }
    snprintf(cs->version, sizeof cs->version, "%s", idb_server_version(cs->srv));
    address(cs);
    return 0;
}

/* The address option, or NULL (see ctrsrv.h). */
const char *idb_ctrsrv_kv(const idb_ctrsrv *cs)
{
    return cs->kv[0] ? cs->kv : NULL;
}

/* The password's file option, or NULL (see ctrsrv.h). */
const char *idb_ctrsrv_secret_kv(const idb_ctrsrv *cs)
{
    return cs->secret_kv[0] ? cs->secret_kv : NULL;
}

/* The address into place (see ctrsrv.h). */
void idb_ctrsrv_place(const idb_ctrsrv *cs, idb_harness_place *place)
{
    if (!cs->kv[0]) return;
    const char *v = strchr(cs->kv, '=') + 1;
    if (cs->backend == IDB_BACKEND_REDIS) place->url = v;
    else place->dsn = v;
    if (cs->secret_kv[0]) place->secret_file = strchr(cs->secret_kv, '=') + 1;
}

/* SIGKILL the server (see ctrsrv.h). */
int idb_ctrsrv_kill(idb_ctrsrv *cs, idb_err *err)
{
    if (!cs->srv) return idb_fail(err, IDB_EINPUT, "kill-counter: no counter server was "
                                  "started (backend=postgres|redis, no dsn=/url=)");
    return idb_server_kill(cs->srv, err);
}

/* Start it again on the same data (see ctrsrv.h). */
int idb_ctrsrv_restart(idb_ctrsrv *cs, idb_err *err)
{
    return cs->srv ? idb_server_restart(cs->srv, err) : 0;
}

/* Stop and remove (see ctrsrv.h). */
void idb_ctrsrv_stop(idb_ctrsrv *cs)
{
    idb_server_stop(cs->srv);
    cs->srv = NULL;
    if (cs->dir[0]) idb_tmpdir_remove(cs->dir);
    cs->dir[0] = 0;
    cs->secret_kv[0] = 0;
}

/* Whether the backend's server can be started here (see ctrsrv.h). */
int idb_ctrsrv_available(int backend, idb_err *err)
{
    if (backend <= IDB_BACKEND_LOCAL || backend >= IDB_BACKEND_COUNT) return 1;
    idb_server_conf conf = { .kind = kinds[backend], .dir = "/tmp" };
    return idb_server_preflight(&conf, err) == 0;
}
