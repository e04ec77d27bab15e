/* remote_redis.c — the Redis client of the remote counter (remote_int.h), on hiredis.
 *
 * One take is `INCRBY NAME n` (one round trip; the reply v: numbers v - n + 1 .. v). The
 * key starts missing, which INCRBY treats as 0. What survives a crash is the server's
 * business: appendonly no (idbench's durability=none) loses every increment since the last
 * snapshot, so after a restart INCRBY hands out numbers again that it already gave: the
 * hazard the insert runner counts as duplicate_ids.
 *
 * Address (url=): unix:PATH (a Unix socket) or HOST:PORT (TCP; idbench uses loopback).
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

static int redis_check(const idb_remote_conf *c, idb_err *err)
{
    char host[HOST_MAX];
    int port;
    return parse_url(c->addr, host, sizeof host, &port, err);
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

/* A connection, completed before the deadline (hiredis connects in one blocking call). */
static int redis_start(const idb_remote_conf *c, int64_t deadline, void **out, idb_err *err)
{
    char host[HOST_MAX];
    *out = NULL;
    int port, rc = parse_url(c->addr, host, sizeof host, &port, err);
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
        rc = idb_fail(err, IDB_EUNAVAIL, "redis: connect %s: %s", c->addr, ctx->errstr);
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
