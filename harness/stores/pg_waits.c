/* pg_waits.c — the postgres store's lock and latch waits (store.h: idb_store_waits).
 *
 * A sampler thread with its own session on the shard's server reads, every
 * wait_sample_us (default 1 ms), the state and wait event of the run's writers' backends
 * (open()'s session and every client's, by pid) from pg_stat_activity. A backend's row is
 * one sample when the backend is in a transaction (state `active`, `idle in transaction`
 * or `idle in transaction (aborted)`); idle between transactions, before the run and after
 * it, it is not sampled. Each sample falls in one class (pg_wait_class): not waiting (no
 * wait event: on CPU), LWLock:BufferContent, LWLock:BufferMapping, other LWLocks and
 * BufferPin (latch_other), Lock:* (heavyweight locks), IO:*, or other (Client: the backend
 * waits for its client between statements, IPC, Activity, Timeout, Extension).
 *
 * Why not the pg_wait_sampling extension: the packaged version (1.1.4 in Debian 12) samples
 * only waiting backends (sample_cpu came with 1.1.5), so it has no count of all samples to
 * make a share of, and it cannot tell a backend in a transaction from an idle one; it also
 * needs shared_preload_libraries, so a user's server (dsn=) would rarely have it.
 *
 * The sampler's own backend costs server CPU (one query per period): pg_server_cpu_ns
 * leaves it out (server.h: idb_server_child_cpu_ns).
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pg_int.h"
#include "server.h"

#define PIDS_MAX 4096                /* writers one sampler follows (IDB_STORE_CLIENTS_ANY) */
#define PID_CHARS 12                 /* one pid and its comma */
#define NS_PER_US 1000
#define NS_PER_S 1000000000L
#define SAMPLE_SQL "SELECT state, wait_event_type, wait_event FROM pg_stat_activity " \
                   "WHERE pid = ANY ($1::int[])"

struct pg_sampler {
    PGconn *c;
    int pid;                         /* the sampler's backend */
    pthread_t tid;
    int started;
    atomic_int stop;
    pthread_mutex_t mu;              /* guards pids, npids */
    int pids[PIDS_MAX];
    int npids;
    int64_t period_ns;
    atomic_int failed;               /* a sample query failed, or a writer was not followed:
                                      * the waits stay unknown */
    idb_store_waits w;               /* the thread's; read after it is joined */
};

/* Which sample a backend's (state, wait_event_type, wait_event) is, by type then event
 * (NULL: any event of the type); the first match wins, a type not listed is other. */
static const struct { const char *type, *event; int cls; } pg_classes[] = {
    { "LWLock", "BufferContent", IDB_WAIT_LWLOCK_BUFFER_CONTENT },
    { "LWLock", "BufferMapping", IDB_WAIT_LWLOCK_BUFFER_MAPPING },
    { "LWLock", NULL, IDB_WAIT_LATCH_OTHER },
    { "BufferPin", NULL, IDB_WAIT_LATCH_OTHER },
    { "Lock", NULL, IDB_WAIT_LOCK },
    { "IO", NULL, IDB_WAIT_IO },
};

/* The states of a backend in a transaction: its samples count. */
static const char *const pg_txn_states[] = {
    "active", "idle in transaction", "idle in transaction (aborted)",
};

int pg_wait_class(const char *state, const char *type, const char *event)
{
    int in_txn = 0;
    for (size_t i = 0; state && i < sizeof pg_txn_states / sizeof *pg_txn_states; i++)
        in_txn |= strcmp(state, pg_txn_states[i]) == 0;
    if (!in_txn) return -1;
    if (!type || !type[0]) return IDB_WAIT_CLASSES;
    for (size_t i = 0; i < sizeof pg_classes / sizeof *pg_classes; i++)
        if (strcmp(type, pg_classes[i].type) == 0 &&
            (!pg_classes[i].event || (event && strcmp(event, pg_classes[i].event) == 0)))
            return pg_classes[i].cls;
    return IDB_WAIT_OTHER;
}

void pg_waits_count(idb_store_waits *w, const char *state, const char *type,
                    const char *event)
{
    int cls = pg_wait_class(state, type, event);
    if (cls < 0) return;
    w->samples++;
    if (cls < IDB_WAIT_CLASSES) w->v[cls]++;
}

/* "{pid,pid,...}" of the writers into buf (cap bytes). */
static void pid_array(struct pg_sampler *sp, char *buf, size_t cap)
{
    size_t at = 0;
    pthread_mutex_lock(&sp->mu);
    buf[at++] = '{';
    for (int i = 0; i < sp->npids && at + PID_CHARS < cap; i++)
        at += (size_t)snprintf(buf + at, cap - at, "%s%d", i ? "," : "", sp->pids[i]);
    pthread_mutex_unlock(&sp->mu);
    snprintf(buf + at, cap - at, "}");
}

/* One sample of every writer's backend into sp->w; 0, or -1 when the query failed. */
static int sample(struct pg_sampler *sp, char *pids, size_t cap)
{
    pid_array(sp, pids, cap);
    const char *params[] = { pids };
    PGresult *r = PQexecParams(sp->c, SAMPLE_SQL, 1, NULL, params, NULL, NULL, 0);
    int ok = PQresultStatus(r) == PGRES_TUPLES_OK;
    for (int i = 0; ok && i < PQntuples(r); i++)
        pg_waits_count(&sp->w, PQgetisnull(r, i, 0) ? NULL : PQgetvalue(r, i, 0),
                       PQgetisnull(r, i, 1) ? NULL : PQgetvalue(r, i, 1),
                       PQgetisnull(r, i, 2) ? NULL : PQgetvalue(r, i, 2));
    PQclear(r);
    return ok ? 0 : -1;
}

/* The sampler thread: a sample every period (absolute times, no catching up after a late
 * one) until stop. */
static void *sampler_main(void *arg)
{
    struct pg_sampler *sp = arg;
    size_t cap = (size_t)PIDS_MAX * PID_CHARS + 3;
    char *pids = malloc(cap);
    struct timespec next, now;
    clock_gettime(CLOCK_MONOTONIC, &next);
    while (pids && !atomic_load(&sp->stop)) {
        if (sample(sp, pids, cap)) {
            atomic_store(&sp->failed, 1);
            break;
        }
        next.tv_nsec += sp->period_ns;
        next.tv_sec += next.tv_nsec / NS_PER_S;
        next.tv_nsec %= NS_PER_S;
        clock_gettime(CLOCK_MONOTONIC, &now);
        if (now.tv_sec > next.tv_sec || (now.tv_sec == next.tv_sec && now.tv_nsec > next.tv_nsec))
            next = now;
        while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL) == EINTR) {}
    }
    if (!pids) atomic_store(&sp->failed, 1);
    free(pids);
    return NULL;
}

/* libpq prints NOTICEs and WARNINGs (a server shutting down) on stderr by default: the
 * sampler has nothing to say there (the writers' sessions report a lost server). */
static void quiet(void *arg, const char *message) { (void)arg; (void)message; }

void pg_waits_add(pg_store *m, int pid)
{
    struct pg_sampler *sp = m->sampler;
    if (!sp) return;
    pthread_mutex_lock(&sp->mu);
    if (sp->npids < PIDS_MAX) sp->pids[sp->npids++] = pid;
    else atomic_store(&sp->failed, 1);   /* a writer not followed: no figure, not a wrong one */
    pthread_mutex_unlock(&sp->mu);
}

int pg_waits_start(pg_store *s, int64_t period_us, idb_err *err)
{
    if (period_us <= 0) return 0;
    struct pg_sampler *sp = calloc(1, sizeof *sp);
    if (!sp) return idb_fail(err, IDB_ENOMEM, "out of memory");
    pthread_mutex_init(&sp->mu, NULL);
    sp->period_ns = period_us * NS_PER_US;
    sp->w.kind = IDB_WAITS_SAMPLES;
    s->sampler = sp;
    sp->c = PQconnectdb(s->dsn);
    if (!sp->c || PQstatus(sp->c) != CONNECTION_OK)
        return idb_fail(err, IDB_EIO, "postgres: shard %d: the wait sampler cannot connect: "
                        "%.*s", s->shard, sp->c ? (int)strcspn(PQerrorMessage(sp->c), "\n") : 0,
                        sp->c ? PQerrorMessage(sp->c) : "");
    PQsetNoticeProcessor(sp->c, quiet, NULL);
    sp->pid = PQbackendPID(sp->c);
    pg_waits_add(s, PQbackendPID(s->c));
    if (pthread_create(&sp->tid, NULL, sampler_main, sp) != 0)
        return idb_fail(err, IDB_EIO, "postgres: shard %d: cannot start the wait sampler",
                        s->shard);
    sp->started = 1;
    return 0;
}

void pg_waits_stop(pg_store *s, idb_store_waits *w)
{
    struct pg_sampler *sp = s->sampler;
    *w = (idb_store_waits){ .kind = IDB_WAITS_NONE };
    if (!sp) return;
    if (sp->started) {
        atomic_store(&sp->stop, 1);
        pthread_join(sp->tid, NULL);
        sp->started = 0;
    }
    if (!atomic_load(&sp->failed)) *w = sp->w;
    if (w->kind == IDB_WAITS_SAMPLES) w->v[IDB_WAIT_INDEX_TREE] = w->v[IDB_WAIT_PAGE_LATCH] =
        w->v[IDB_WAIT_ROW_LOCK] = -1;                   /* mariadb's classes */
}

int64_t pg_waits_sampler_cpu_ns(const pg_store *s)
{
    long long ns = s->sampler && s->srv ? idb_server_child_cpu_ns(s->srv, s->sampler->pid) : 0;
    return ns > 0 ? ns : 0;
}

void pg_waits_free(pg_store *s)
{
    struct pg_sampler *sp = s->sampler;
    if (!sp) return;
    idb_store_waits w;
    pg_waits_stop(s, &w);
    PQfinish(sp->c);
    pthread_mutex_destroy(&sp->mu);
    free(sp);
    s->sampler = NULL;
}
