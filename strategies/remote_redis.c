/* remote_redis.c — the Redis client of the remote counter (remote_int.h), on hiredis.
 *
 * One take is `INCRBY NAME n` (one round trip; the reply v: numbers v - n + 1 .. v). The
 * key starts missing, which INCRBY treats as 0. What survives a crash is the server's
 * business: appendonly no (idbench's durability=none) loses every increment since the last
 * snapshot, so after a restart INCRBY hands out numbers again that it already gave: the
 * hazard the insert runner counts as duplicate_ids.
 *
 * Address (url=): unix:PATH (a Unix socket) or HOST:PORT (TCP; idbench uses loopback), or
 * several of them comma-separated (a replicated group, replicas=R): a new connection tries
 * each in turn and keeps the first whose ROLE is master, so that after a failover the
 * clients find the promoted replica by themselves. wait_replicas=K: WAIT K after each
 * INCRBY; fewer than K acknowledgements fail the take (redis_wait). An entry
 * sentinel:ADDR (replicas=R with sentinel=1) is a Redis Sentinel: a new connection asks it
 * `SENTINEL get-master-addr-by-name idbench`, and as the servers' TCP addresses are inside
 * the run's network namespace, maps the port it names to the listed server whose INFO says
 * that tcp_port, connects there and checks its ROLE is master (redis_start_sentinel).
 * With a password (secret_file=, read by remote.c) every new connection sends AUTH first.
 * The connection and every reply have the deadline as hiredis's connect and command
 * timeouts. hiredis writes with write(): to a server that was killed that raises SIGPIPE,
 * which would kill idbench, so SIGPIPE is blocked in the calling thread around each command
 * and one it raised is consumed (as libpq does), leaving the process's handlers alone.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <time.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

#include <hiredis/hiredis.h>

#include "remote_int.h"

#define UNIX_PREFIX "unix:"
#define PORT_MAX 65535
#define HOST_MAX 256
#define US_PER_MS 1000
#define LOADING "LOADING"               /* the error of a server still reading its AOF/RDB */

/* Split addr into host and port (TCP) or a socket path (*port = 0). 0 or IDB_EINPUT. */
static int parse_url(const char *addr, char *host, size_t hlen, int *port, idb_err *err)
{
    if (strncmp(addr, UNIX_PREFIX, strlen(UNIX_PREFIX)) == 0) {
        const char *path = addr + strlen(UNIX_PREFIX);
        if (!*path || strlen(path) >= hlen)
            return idb_fail(err, IDB_EINPUT, "url '%.64s': no socket path", addr);
        snprintf(host, hlen, "%s", path);
        *port = 0;
        return 0;
    }
    const char *colon = strrchr(addr, ':');
    char *end;
    long p = colon ? strtol(colon + 1, &end, 10) : 0;
    if (!colon || colon == addr || (size_t)(colon - addr) >= hlen || !colon[1] || *end ||
        p < 1 || p > PORT_MAX)
        return idb_fail(err, IDB_EINPUT, "url '%.64s': not unix:PATH or HOST:PORT", addr);
    snprintf(host, hlen, "%.*s", (int)(colon - addr), addr);
    *port = (int)p;
    return 0;
}

/* Address i (0-based) of the comma-separated list addr into one (len bytes): 0, or -1 past
 * the list's end or for an address too long. */
static int addr_at(const char *addr, int i, char *one, size_t len)
{
    for (; i > 0 && addr; i--) {
        addr = strchr(addr, ',');
        if (addr) addr++;
    }
    if (!addr) return -1;
    size_t n = strcspn(addr, ",");
    if (n >= len) return -1;
    memcpy(one, addr, n);
    one[n] = 0;
    return 0;
}

/* 1 when the address list's entry one is a Sentinel's (sentinel:ADDR). */
static int is_sentinel(const char *one)
{
    return strncmp(one, IDB_REMOTE_SENTINEL_PREFIX, strlen(IDB_REMOTE_SENTINEL_PREFIX)) == 0;
}

static int redis_check(const idb_remote_conf *c, idb_err *err)
{
    char host[HOST_MAX], one[HOST_MAX + 16];
    int port, rc = 0;
    for (int i = 0; !rc && addr_at(c->addr, i, one, sizeof one) == 0; i++)
        rc = parse_url(one + (is_sentinel(one) ? strlen(IDB_REMOTE_SENTINEL_PREFIX) : 0), host,
                       sizeof host, &port, err);
    if (!rc && addr_at(c->addr, 0, one, sizeof one) != 0)
        rc = idb_fail(err, IDB_EINPUT, "url '%.64s': an address too long", c->addr);
    return rc;
}

/* A failure of the connection (gone: retried) or of the server's answer. */
static int conn_fail(redisContext *ctx, const char *what, idb_err *err)
{
    int gone = ctx->err == REDIS_ERR_IO || ctx->err == REDIS_ERR_EOF;   /* timeouts: IO */
    return idb_fail(err, gone ? IDB_EUNAVAIL : IDB_EIO, "redis: %s: %s", what,
                    ctx->errstr[0] ? ctx->errstr : "failed");
}

/* Block SIGPIPE in this thread; *old gets the mask to give back to unblock_pipe. */
static void block_pipe(sigset_t *old, int *was_pending)
{
    sigset_t pipe, pending;
    sigemptyset(&pipe);
    sigaddset(&pipe, SIGPIPE);
    sigpending(&pending);
    *was_pending = sigismember(&pending, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe, old);
}

/* Consume a SIGPIPE raised while blocked (not one pending before), then restore old. */
static void unblock_pipe(const sigset_t *old, int was_pending)
{
    sigset_t pipe, pending;
    sigemptyset(&pipe);
    sigaddset(&pipe, SIGPIPE);
    sigpending(&pending);
    if (!was_pending && sigismember(&pending, SIGPIPE)) {
        struct timespec zero = { 0, 0 };
        while (sigtimedwait(&pipe, NULL, &zero) < 0 && errno == EINTR) {}
    }
    pthread_sigmask(SIG_SETMASK, old, NULL);
}

/* AUTH with the password (the default user) on a new connection: 0, IDB_EIO (refused:
 * a wrong password, or a server that wants none) or IDB_EUNAVAIL (the connection failed). */
static int redis_auth(redisContext *ctx, const char *secret, idb_err *err)
{
    sigset_t old;
    int was, rc = 0;
    block_pipe(&old, &was);
    redisReply *r = redisCommand(ctx, "AUTH %s", secret);
    unblock_pipe(&old, was);
    if (!r) return conn_fail(ctx, "AUTH", err);
    if (r->type != REDIS_REPLY_STATUS || strcmp(r->str, "OK") != 0)
        rc = idb_fail(err, IDB_EIO, "redis: AUTH: %.120s",
                      r->type == REDIS_REPLY_ERROR ? r->str : "an unexpected reply");
    freeReplyObject(r);
    return rc;
}

/* 1 when the server of ctx says ROLE master, 0 when it says another role (a replica),
 * or a failure code (negated) as conn_fail's. */
static int is_master(redisContext *ctx, idb_err *err)
{
    sigset_t old;
    int was;
    block_pipe(&old, &was);
    redisReply *r = redisCommand(ctx, "ROLE");
    unblock_pipe(&old, was);
    if (!r) return -conn_fail(ctx, "ROLE", err);
    int master = r->type == REDIS_REPLY_ARRAY && r->elements > 0 &&
                 r->element[0]->type == REDIS_REPLY_STRING &&
                 strcmp(r->element[0]->str, "master") == 0;
    freeReplyObject(r);
    return master;
}

/* A connection to the primary of the address list: each address tried in turn (one alone:
 * no ROLE asked, as before), the first whose ROLE is master kept, as a client that lists
 * every server of a group finds the one to write to after a failover. */
static int redis_start_one(const idb_remote_conf *c, const char *addr, int64_t deadline,
                           void **out, idb_err *err);

static int redis_start_sentinel(const idb_remote_conf *c, const char *sentinel,
                                int64_t deadline, void **out, idb_err *err);

static int redis_start(const idb_remote_conf *c, int64_t deadline, void **out, idb_err *err)
{
    char one[HOST_MAX + 16];
    *out = NULL;
    if (!strchr(c->addr, ',')) return redis_start_one(c, c->addr, deadline, out, err);
    for (int i = 0; addr_at(c->addr, i, one, sizeof one) == 0; i++)
        if (is_sentinel(one))
            return redis_start_sentinel(c, one + strlen(IDB_REMOTE_SENTINEL_PREFIX), deadline,
                                        out, err);
    int rc = idb_fail(err, IDB_EUNAVAIL, "redis: no primary among %s", c->addr);
    for (int i = 0; addr_at(c->addr, i, one, sizeof one) == 0; i++) {
        idb_err why = { 0 };
        if (redis_start_one(c, one, deadline, out, &why) != 0) continue;
        int m = is_master(*out, &why);
        if (m == 1) return 0;
        redisFree(*out);
        *out = NULL;
        if (m < 0 && -m != IDB_EUNAVAIL) return idb_fail(err, -m, "%s", why.msg);
    }
    return rc;
}

/* A connection to addr, completed before the deadline (hiredis connects in one blocking
 * call). */
static int redis_start_one(const idb_remote_conf *c, const char *addr, int64_t deadline,
                           void **out, idb_err *err)
{
    char host[HOST_MAX];
    *out = NULL;
    int port, rc = parse_url(addr, host, sizeof host, &port, err);
    if (rc) return rc;
    int ms = idb_remote_ms_left(deadline);
    if (ms <= 0) return idb_fail(err, IDB_EUNAVAIL, "redis: no time left to connect");
    struct timeval tv = { .tv_sec = ms / 1000, .tv_usec = (ms % 1000) * US_PER_MS };
    struct timeval cmd = { .tv_sec = c->timeout_ms / 1000,
                           .tv_usec = (c->timeout_ms % 1000) * US_PER_MS };
    redisContext *ctx = port ? redisConnectWithTimeout(host, port, tv)
                             : redisConnectUnixWithTimeout(host, tv);
    if (!ctx) return idb_fail(err, IDB_ENOMEM, "redis: out of memory");
    if (!ctx->err && redisSetTimeout(ctx, cmd) != REDIS_OK && !ctx->err)
        ctx->err = REDIS_ERR_IO;
    if (ctx->err) {
        rc = idb_fail(err, IDB_EUNAVAIL, "redis: connect %s: %s", addr, ctx->errstr);
        redisFree(ctx);
        return rc;
    }
    if (c->secret && (rc = redis_auth(ctx, c->secret, err))) {
        redisFree(ctx);
        return rc;
    }
    *out = ctx;
    return 0;
}

/* One command (printf-like) on ctx with SIGPIPE blocked: its reply (the caller frees it),
 * or NULL with the connection's failure in err (conn_fail). */
static redisReply *command(redisContext *ctx, idb_err *err, const char *fmt, ...)
{
    sigset_t old;
    int was;
    va_list ap;
    va_start(ap, fmt);
    block_pipe(&old, &was);
    redisReply *r = redisvCommand(ctx, fmt, ap);
    unblock_pipe(&old, was);
    va_end(ap);
    if (!r) conn_fail(ctx, fmt, err);
    return r;
}

/* The port Sentinel names as the primary's (get-master-addr-by-name), or a failure code
 * (negated): IDB_EUNAVAIL while it names none. */
static int sentinel_port(const idb_remote_conf *c, const char *sentinel, int64_t deadline,
                         idb_err *err)
{
    void *s;
    int rc = redis_start_one(c, sentinel, deadline, &s, err);
    if (rc) return -rc;
    redisReply *r = command(s, err, "SENTINEL get-master-addr-by-name "
                            IDB_REMOTE_SENTINEL_MASTER);
    int port = !r ? -IDB_EUNAVAIL
             : r->type == REDIS_REPLY_ARRAY && r->elements == 2
               && r->element[1]->type == REDIS_REPLY_STRING ? atoi(r->element[1]->str)
             : -idb_fail(err, IDB_EUNAVAIL, "redis: Sentinel %s names no primary", sentinel);
    freeReplyObject(r);
    redisFree(s);
    return port;
}

/* The TCP port the server of ctx listens on (INFO server's tcp_port), or -1. */
static int server_port(redisContext *ctx)
{
    idb_err why = { 0 };
    redisReply *r = command(ctx, &why, "INFO server");
    const char *p = r && r->type == REDIS_REPLY_STRING ? strstr(r->str, "tcp_port:") : NULL;
    int port = p ? atoi(p + strlen("tcp_port:")) : -1;
    freeReplyObject(r);
    return port;
}

/* A connection to the primary Sentinel names: its port mapped to the listed server that
 * listens on it (each asked on its own address, a Unix socket), kept if its ROLE is master
 * (a client checks: Sentinel may still name a dead or demoted one). IDB_EUNAVAIL until
 * then, retried by the caller until the deadline. */
static int redis_start_sentinel(const idb_remote_conf *c, const char *sentinel,
                                int64_t deadline, void **out, idb_err *err)
{
    char one[HOST_MAX + 16];
    int port = sentinel_port(c, sentinel, deadline, err);
    if (port < 0) return -port;
    for (int i = 0; addr_at(c->addr, i, one, sizeof one) == 0; i++) {
        idb_err why = { 0 };
        if (is_sentinel(one) || redis_start_one(c, one, deadline, out, &why) != 0) continue;
        if (server_port(*out) == port && is_master(*out, &why) == 1) return 0;
        redisFree(*out);
        *out = NULL;
    }
    return idb_fail(err, IDB_EUNAVAIL, "redis: the primary Sentinel names (port %d) is not "
                    "a live master among %s", port, c->addr);
}

/* WAIT K ms after an INCRBY (wait_replicas=K; ms: what is left of the deadline, at least
 * 1, as 0 would wait for ever): fewer than K replicas acknowledging it fails the take
 * (IDB_EUNAVAIL, the connection kept: it is healthy), so that its number is never used
 * (a gap), as a client that asks WAIT for durability must do. */
static int redis_wait(redisContext *ctx, const idb_remote_conf *c, int64_t deadline,
                      int *keep, idb_err *err)
{
    int ms = idb_remote_ms_left(deadline);
    sigset_t old;
    int was;
    block_pipe(&old, &was);
    redisReply *r = redisCommand(ctx, "WAIT %d %d", c->wait_replicas, ms > 0 ? ms : 1);
    unblock_pipe(&old, was);
    if (!r) return conn_fail(ctx, "WAIT", err);
    int rc = 0;
    if (r->type != REDIS_REPLY_INTEGER)
        rc = idb_fail(err, IDB_EIO, "redis: WAIT: %.120s", r->type == REDIS_REPLY_ERROR
                      ? r->str : "a reply that is not a number");
    else if (r->integer < c->wait_replicas) {
        rc = idb_fail(err, IDB_EUNAVAIL, "redis: WAIT: %lld of %d replicas acknowledged the "
                      "INCRBY", r->integer, c->wait_replicas);
        *keep = 1;
    }
    freeReplyObject(r);
    return rc;
}

/* One INCRBY. A reply that times out leaves hiredis's context unusable (a blocking context
 * cannot wait for it again): never kept. Nor need it be: a restarted server answers PING
 * before idbench's restart returns and a connect is immediate, so at timeout_ms=20 a kill
 * fails only the outage's orders (measured: 5 at a 100 ms outage). */
static int redis_take(void *cp, const idb_remote_conf *c, uint64_t n, int64_t deadline,
                      uint64_t *first, int *keep, idb_err *err)
{
    (void)deadline;                    /* the command timeout, set at connect, bounds it */
    *keep = 0;
    redisContext *ctx = cp;
    sigset_t old;
    int was;
    block_pipe(&old, &was);
    redisReply *r = redisCommand(ctx, "INCRBY %s %" PRIu64, c->name, n);
    unblock_pipe(&old, was);
    if (!r) return conn_fail(ctx, "INCRBY", err);
    int rc = 0;
    if (r->type == REDIS_REPLY_ERROR)        /* LOADING: restarted, reading its file */
        rc = idb_fail(err, strncmp(r->str, LOADING, strlen(LOADING)) == 0 ? IDB_EUNAVAIL
                      : IDB_EIO, "redis: INCRBY: %.120s", r->str);
    else if (r->type != REDIS_REPLY_INTEGER || r->integer < (long long)n)
        rc = idb_fail(err, IDB_EIO, "redis: INCRBY: a reply that is not a number >= %" PRIu64
                      " (type %d)", n, r->type);
    else
        *first = (uint64_t)r->integer - n + 1;
    freeReplyObject(r);
    if (!rc && c->wait_replicas > 0) rc = redis_wait(ctx, c, deadline, keep, err);
    return rc;
}

static void redis_close(void *conn)
{
    redisFree(conn);
}

const idb_remote_driver idb_remote_redis = {
    .name = "redis",
    .check = redis_check,
    .start = redis_start,
    .setup = NULL,                     /* INCRBY makes the key; start() connects fully */
    .take = redis_take,
    .close = redis_close,
};
