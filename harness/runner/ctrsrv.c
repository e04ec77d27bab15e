/* ctrsrv.c — the one counter server of a run (see ctrsrv.h). */
#include "ctrsrv.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "netns.h"
#include "remote.h"
#include "server.h"
#include "tmpdir.h"

#define PG_SOCKET_PREFIX ".s.PGSQL."       /* libpq finds the socket by host= and port= */
#define PG_DBNAME "postgres"
#define LOOPBACK "127.0.0.1"
#define SEARCH_ONLY 0711                  /* the run's counter directory: others may pass */

#define PG_TSA " target_session_attrs=read-write"   /* the multi-host conninfo's choice */
#define SECRET_LEN 64

_Static_assert(IDB_CTRSRV_BACKENDS == IDB_BACKEND_COUNT, "IDB_CTRSRV_BACKENDS");
_Static_assert(IDB_CTRSRV_GROUP_MAX == IDB_REMOTE_REPLICAS_MAX + 1, "IDB_CTRSRV_GROUP_MAX");

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

/* The address of a replicated group into cs->kv: every server's socket, so that a client
 * finds the primary by itself after a failover: postgres host=D0,D1,... with
 * target_session_attrs=read-write, redis unix:S0,unix:S1,... (remote_redis.c keeps the one
 * whose ROLE is master); the group's password file (redis) into cs->secret_kv. */
static void group_address(idb_ctrsrv *cs)
{
    int redis = cs->backend == IDB_BACKEND_REDIS;
    size_t n = (size_t)snprintf(cs->kv, sizeof cs->kv, redis ? "url=" : "dsn=host=");
    if (cs->sentinel)
        n += (size_t)snprintf(cs->kv + n, sizeof cs->kv - n, IDB_REMOTE_SENTINEL_PREFIX
                              "unix:%s,", idb_server_socket(cs->sentinel));
    for (int i = 0; i < cs->ngroup && n < sizeof cs->kv; i++)
        n += (size_t)snprintf(cs->kv + n, sizeof cs->kv - n, "%s%s%s", i ? "," : "",
                              redis ? "unix:" : "", redis ? idb_server_socket(cs->group[i])
                              : idb_server_socket_dir(cs->group[i]));
    if (!redis && n < sizeof cs->kv)
        snprintf(cs->kv + n, sizeof cs->kv - n, " port=5432 user=%s dbname=" PG_DBNAME PG_TSA,
                 idb_server_user(cs->srv));
    if (*idb_server_secret_file(cs->srv))
        snprintf(cs->secret_kv, sizeof cs->secret_kv, "secret_file=%s",
                 idb_server_secret_file(cs->srv));
}

/* The address option of the started server into cs->kv, its password's file into
 * cs->secret_kv when it listens on TCP. */
static void address(idb_ctrsrv *cs)
{
    idb_server *srv = cs->srv;
    if (cs->ngroup > 1) {
        group_address(cs);
        return;
    }
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

/* A redis group's setup: the run's private network namespace as root (its replication is
 * TCP; as another user, one line says it stays on loopback), and the group's password in
 * secret (SECRET_LEN). 0 or IDB_EIO. */
static int redis_group_prep(char *secret, idb_err *err)
{
    idb_err why = { 0 };
    if (geteuid() == 0 && idb_netns_private(&why) != 0)
        return idb_fail(err, IDB_EIO, "replicas: no private network namespace: %s", why.msg);
    if (geteuid() != 0)
        fprintf(stderr, "idbench: redis replicas: not root, so no private network namespace: "
                "replication (and Sentinel, sentinel=1) on loopback TCP with a per-run "
                "password (requirepass, masterauth)\n");
    return idb_server_secret_new(secret, SECRET_LEN, err);
}

/* Server i of the group (0: the primary, in DIR/server; i >= 1: a standby/replica in
 * DIR/replica-I): its settings (durability, replication), then started. */
static int start_member(idb_ctrsrv *cs, int i, int tcp, const char *secret, idb_err *err)
{
    const char *settings[6];
    char dir[PATH_MAX + 32], clone[PATH_MAX + 64], replicaof[64], auth[SECRET_LEN + 16];
    int n = 0, redis = cs->backend == IDB_BACKEND_REDIS;
    if (redis)
        for (int k = 0; k < 2 && redis_durability[cs->durability][k]; k++)
            settings[n++] = redis_durability[cs->durability][k];
    if (!redis && cs->sync && (i == 0 || cs->ngroup > 2)) {   /* a lone promoted standby: */
        settings[n++] = "synchronous_standby_names=*";        /* nobody to wait for */
        settings[n++] = "synchronous_commit=on";
    }
    if (redis && i > 0) {
        snprintf(replicaof, sizeof replicaof, "replicaof=127.0.0.1 %d",
                 idb_server_port(cs->group[0]));
        snprintf(auth, sizeof auth, "masterauth=%s", secret);
        settings[n++] = replicaof;
        settings[n++] = auth;
    }
    if (i == 0) snprintf(dir, sizeof dir, "%s/server", cs->dir);
    else snprintf(dir, sizeof dir, "%s/replica-%d", cs->dir, i);
    if (!redis && i > 0)
        snprintf(clone, sizeof clone, "host=%s port=5432 user=%s",
                 idb_server_socket_dir(cs->group[0]), idb_server_user(cs->group[0]));
    idb_server_conf conf = { .kind = kinds[cs->backend], .dir = dir, .settings = settings,
                             .nsettings = n, .tcp = tcp || (redis && cs->ngroup > 1),
                             .secret = *secret ? secret : NULL,
                             .clone_of = !redis && i > 0 ? clone : NULL };
    int rc = idb_server_start(&conf, &cs->group[i], err);
    explicit_bzero(auth, sizeof auth);
    if (rc) return rc;
    if (i == 0) cs->srv = cs->group[0];
    return 0;
}

/* The replicas the options ask for (see ctrsrv.h). */
int idb_ctrsrv_replicas(const idb_strategy *s, const char *const *user, int nuser)
{
    if (!idb_opts_declared(s->options, "replicas")) return 0;
    return atoi(user_value(user, nuser, "replicas", "0"));
}

int idb_ctrsrv_sentinel(const idb_strategy *s, const char *const *user, int nuser)
{
    if (!idb_opts_declared(s->options, "sentinel")) return 0;
    return atoi(user_value(user, nuser, "sentinel", "0")) > 0;
}

/* One refusal of idb_ctrsrv_check: IDB_EINPUT with why. */
static int refuse(idb_err *err, const char *why)
{
    return idb_fail(err, IDB_EINPUT, "%s", why);
}

/* The replication options checked (see ctrsrv.h). */
int idb_ctrsrv_check(const idb_strategy *s, const char *const *user, int nuser, idb_err *err)
{
    int b = idb_ctrsrv_backend(s, user, nuser), r = idb_ctrsrv_replicas(s, user, nuser);
    const char *addr = b == IDB_BACKEND_REDIS ? "url" : "dsn";
    const char *repl = user_value(user, nuser, "replication", NULL);
    int wait = atoi(user_value(user, nuser, "wait_replicas", "0"));
    if (r > 0 && (b == IDB_BACKEND_LOCAL || *user_value(user, nuser, addr, "")))
        return refuse(err, "replicas=R needs a counter server idbench starts: -o "
                      "backend=postgres|redis, without dsn=/url=");
    if (idb_ctrsrv_sentinel(s, user, nuser)
        && (b != IDB_BACKEND_REDIS || r == 0 || *user_value(user, nuser, addr, "")))
        return refuse(err, "sentinel=1 needs backend=redis and replicas=R (R >= 1) on "
                      "servers idbench starts (no url=)");
    if (r > 0 && choice(s, user, nuser, "transport") == 1)
        return refuse(err, "replicas=R: the clients reach the group on its Unix sockets "
                      "(transport=unix)");
    if (repl && b != IDB_BACKEND_POSTGRES)
        return refuse(err, "replication=async|sync is backend=postgres's (redis replicates "
                      "asynchronously: wait_replicas=K makes each INCRBY wait)");
    if (repl && strcmp(repl, "sync") == 0 && r == 0)
        return refuse(err, "replication=sync needs standbys: replicas=R (R >= 1)");
    if (wait > 0 && (b != IDB_BACKEND_REDIS || wait > r))
        return refuse(err, "wait_replicas=K needs backend=redis and replicas=R with K <= R");
    if (atoi(user_value(user, nuser, "cache", "1")) > 1 && b != IDB_BACKEND_POSTGRES)
        return refuse(err, "cache=N is the postgres sequence's CACHE: backend=postgres");
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
    int rc = idb_ctrsrv_check(s, user, nuser, err);
    if (rc || cs->backend == IDB_BACKEND_LOCAL || *user_value(user, nuser, addr, ""))
        return rc;
    cs->ngroup = 1 + idb_ctrsrv_replicas(s, user, nuser);
    cs->sync = choice(s, user, nuser, "replication") == 1;
    if ((rc = make_dir(dir, cs, err))) return rc;
    char secret[SECRET_LEN] = "";
    idb_err e = { 0 };
    if (cs->ngroup > 1 && cs->backend == IDB_BACKEND_REDIS) rc = redis_group_prep(secret, &e);
    for (int i = 0; i < cs->ngroup && !rc; i++)
        rc = start_member(cs, i, choice(s, user, nuser, "transport") == 1, secret, &e);
    if (!rc && cs->ngroup > 1) rc = idb_ctrsrv_wait_streaming(cs, &e);
    if (!rc && idb_ctrsrv_sentinel(s, user, nuser))
        rc = idb_ctrsrv_sentinel_start(cs, secret, &e);
    explicit_bzero(secret, sizeof secret);
    if (rc) {
        idb_ctrsrv_stop(cs);
        return idb_fail(err, rc, "counter server (%s): %s", kinds[cs->backend], e.msg);
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
    cs->nlag = 0;                      /* the stopped walsenders die with the primary */
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
    for (int i = 0; i < cs->nlag; i++) kill(cs->lag_pid[i], SIGCONT);   /* let them stop */
    cs->nlag = 0;
    idb_server_stop(cs->sentinel);                 /* first: no failover while they stop */
    cs->sentinel = NULL;
    if (cs->ngroup == 0) idb_server_stop(cs->srv);
    for (int i = cs->ngroup - 1; i >= 0; i--) idb_server_stop(cs->group[i]);
    memset(cs->group, 0, sizeof cs->group);
    cs->ngroup = 0;
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
