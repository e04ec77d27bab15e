/* counter_service.c — in-process backend of the counter service: one atomic per name.
 * Names are kept whole (IDB_COUNTER_NAME_MAX); a longer one is refused, never cut. */
#include "counter_service.h"

#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#define MAX_COUNTERS 64

_Static_assert(IDB_COUNTER_NAME_MAX <= IDB_OPT_VALUE_MAX,
               "a counter name option must be able to hold every name the service keeps");

typedef struct inproc {
    idb_counter_service svc;           /* first member: the service handed out */
    char name[IDB_COUNTER_NAME_MAX];
    _Atomic uint64_t last;             /* the last number handed out; 0 = none yet */
    idb_counter_service *attached;     /* another backend under this name, or NULL */
} inproc;

static inproc counters[MAX_COUNTERS];
static int ncounters;
static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;

/* take() of the in-process backend: one compare-and-swap on the named atomic. */
static int inproc_take(idb_counter_service *svc, uint64_t n, uint64_t *first, idb_err *err)
{
    inproc *c = (inproc *)svc;
    uint64_t prev = atomic_load_explicit(&c->last, memory_order_relaxed);
    do {                               /* a refused take must leave the counter as it was */
        if (prev > UINT64_MAX - n)
            return idb_fail(err, IDB_EEXHAUSTED, "counter %s is used up", c->name);
    } while (!atomic_compare_exchange_weak_explicit(&c->last, &prev, prev + n,
                                                    memory_order_relaxed, memory_order_relaxed));
    *first = prev + 1;
    return 0;
}

/* The table entry called name, or NULL. Call with table_lock held. */
static inproc *lookup(const char *name)
{
    for (int i = 0; i < ncounters; i++)
        if (strcmp(counters[i].name, name) == 0) return &counters[i];
    return NULL;
}

/* The table entry called name, made on first use; NULL when the table is full. Call
 * with table_lock held. */
static inproc *entry(const char *name)
{
    inproc *c = lookup(name);
    if (!c && ncounters < MAX_COUNTERS) {
        c = &counters[ncounters++];
        c->svc.take = inproc_take;
        memcpy(c->name, name, strlen(name) + 1);     /* checked by name_fits: it fits */
        atomic_store(&c->last, 0);
    }
    return c;
}

/* 0 when name can be kept whole, else IDB_EINPUT with err filled. */
static int name_fits(const char *name, idb_err *err)
{
    size_t n = strlen(name);
    if (n < IDB_COUNTER_NAME_MAX) return 0;
    return idb_fail(err, IDB_EINPUT, "counter name of %zu bytes is too long (at most %d)", n,
                    IDB_COUNTER_NAME_MAX - 1);
}

/* The service under name (see counter_service.h). */
idb_counter_service *idb_counter_inproc(const char *name, idb_err *err)
{
    if (name_fits(name, err)) return NULL;
    pthread_mutex_lock(&table_lock);
    inproc *c = entry(name);
    idb_counter_service *svc = c ? (c->attached ? c->attached : &c->svc) : NULL;
    pthread_mutex_unlock(&table_lock);
    if (!svc) idb_fail(err, IDB_EEXHAUSTED, "too many counters (at most %d)", MAX_COUNTERS);
    return svc;
}

/* Attach svc under name (see counter_service.h). */
int idb_counter_attach(const char *name, idb_counter_service *svc, idb_err *err)
{
    if (name_fits(name, err)) return IDB_EINPUT;
    pthread_mutex_lock(&table_lock);
    inproc *c = entry(name);
    if (c) c->attached = svc;
    pthread_mutex_unlock(&table_lock);
    return c ? 0 : idb_fail(err, IDB_EEXHAUSTED, "too many counters (at most %d)", MAX_COUNTERS);
}

/* Detach whatever is attached under name (see counter_service.h). */
void idb_counter_detach(const char *name)
{
    pthread_mutex_lock(&table_lock);
    inproc *c = lookup(name);
    if (c) c->attached = NULL;
    pthread_mutex_unlock(&table_lock);
}

/* Reset the atomic called name to 0 (see counter_service.h). */
void idb_counter_inproc_reset(const char *name)
{
    pthread_mutex_lock(&table_lock);
    inproc *c = lookup(name);
    if (c) atomic_store(&c->last, 0);
    pthread_mutex_unlock(&table_lock);
}
