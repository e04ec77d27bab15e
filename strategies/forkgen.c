/* forkgen.c — the fork generation in a MADV_WIPEONFORK page, with a getpid() fallback, and
 * the IDB_EFORK refusal (see forkgen.h). */
#include "forkgen.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static atomic_uint zero_word;                   /* never written: 0, the slow path */
_Atomic(atomic_uint *) idb_fork_gen_word = &zero_word;

static pthread_once_t forkgen_once = PTHREAD_ONCE_INIT;
static atomic_uint issued;                      /* the largest generation given out, here or
                                                 * in an ancestor (copied into children) */
static atomic_uint *wiped;                      /* the word in the wiped page, or NULL */

/* The getpid() fallback (no wiped page): the generation and the process it belongs to. */
static pthread_mutex_t fallback_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned fallback_gen;
static pid_t fallback_pid;

/* A generation no ancestor of this process had. */
static unsigned next_generation(void)
{
    unsigned g = atomic_fetch_add(&issued, 1) + 1;
    return g ? g : atomic_fetch_add(&issued, 1) + 1;   /* never 0 */
}

/* Map the page and mark it; on failure (an older kernel, or IDBENCH_NO_WIPEONFORK set)
 * leave wiped NULL: the getpid() fallback. */
static void forkgen_setup(void)
{
    const char *off = getenv("IDBENCH_NO_WIPEONFORK");
    if (off && *off && strcmp(off, "0")) return;
    long pg = sysconf(_SC_PAGESIZE);
    void *p = mmap(NULL, pg > 0 ? (size_t)pg : 4096, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return;
    if (madvise(p, pg > 0 ? (size_t)pg : 4096, MADV_WIPEONFORK) != 0) {
        munmap(p, pg > 0 ? (size_t)pg : 4096);
        return;
    }
    wiped = p;
    atomic_store(wiped, next_generation());
    atomic_store(&idb_fork_gen_word, wiped);
}

/* In a fork() child (the second line; the wiped page is 0 there already): a new
 * generation at once. */
static void forkgen_child(void)
{
    if (wiped) atomic_store(wiped, next_generation());
    else {
        fallback_gen = next_generation();
        fallback_pid = getpid();
        pthread_mutex_init(&fallback_lock, NULL);    /* a parent's thread may have held it */
    }
}

static void forkgen_register(void)
{
    pthread_atfork(NULL, NULL, forkgen_child);
    forkgen_setup();
}

/* The slow path (see forkgen.h). */
unsigned idb_fork_renew(void)
{
    pthread_once(&forkgen_once, forkgen_register);
    if (wiped) {
        unsigned g = atomic_load(wiped), want = 0;
        if (g) return g;                           /* set up just now */
        g = next_generation();                     /* a child: its page came back zeroed */
        return atomic_compare_exchange_strong(wiped, &want, g) ? g : want;
    }
    /* Fallback (no MADV_WIPEONFORK): the process id tells a child, at a system call per
     * call. The lock is not held across a fork by this thread; a child made while another
     * thread held it would block here (raw clone of a threaded process only). */
    pid_t me = getpid();
    pthread_mutex_lock(&fallback_lock);
    if (fallback_pid != me || !fallback_gen) {
        fallback_gen = next_generation();
        fallback_pid = me;
    }
    unsigned g = fallback_gen;
    pthread_mutex_unlock(&fallback_lock);
    return g;
}

/* The generation, set up first when it is not (see forkgen.h). */
unsigned idb_fork_generation(void) { return idb_fork_now(); }

/* 1 with the wiped page, 0 in the fallback (see forkgen.h). */
int idb_fork_wipes(void)
{
    (void)idb_fork_now();
    return wiped != NULL;
}

/* The IDB_EFORK refusal (see forkgen.h). */
int idb_fork_refuse(const char *owner, idb_err *err)
{
    return idb_fail(err, IDB_EFORK, "strategy %s: this instance belongs to the process that "
                    "created it and would repeat its IDs in this forked child (fork, _Fork or "
                    "clone); create a new instance in the child", owner);
}
