/* forkgen.h — noticing that an instance is used in a child process, for the fork rule of
 * strategy.h (every strategy either refuses there with IDB_EFORK or is safe there), and for
 * random.h's per-thread streams (re-keyed in a child).
 *
 * A fork generation: a nonzero number for this process, kept in a page marked
 * MADV_WIPEONFORK (Linux >= 4.14, as BoringSSL keeps its fork-safety flag): the kernel hands
 * any child a zeroed copy of it, whichever way the child was made (fork(), glibc's _Fork(),
 * which skips the atfork handlers, or a raw clone(2) without CLONE_VM). The first
 * idb_fork_now() that finds it 0 gives the process a new generation, larger than every one
 * its parent had. A pthread_atfork handler stays as the second line (it renews the
 * generation in a fork() child too). An instance records the generation at create;
 * next() compares it with idb_fork_now(): a load of the word, a test for 0 (never taken
 * but in a new child) and the compare.
 *
 * Where madvise(MADV_WIPEONFORK) fails (an older kernel), or with the environment variable
 * IDBENCH_NO_WIPEONFORK=1 (for the tests of this fallback), the word stays 0 and every
 * idb_fork_now() asks getpid(): a system call per ID, but every child is still noticed.
 * vfork + exec is left aside (the child shares the parent's memory until it execs).
 */
#ifndef IDB_FORKGEN_H
#define IDB_FORKGEN_H

#include <stdatomic.h>

#include "err.h"

/* The word idb_fork_now() reads: in the wiped page once set up, else an always-0 word
 * (written only by forkgen.c). */
extern _Atomic(atomic_uint *) idb_fork_gen_word;

/* The current fork generation, set up first if it is not yet: the slow path of
 * idb_fork_now() (first use, a new child, or the getpid() fallback). Never 0. */
unsigned idb_fork_renew(void);

/* The current fork generation (nonzero). Call it at create (any thread); never fails. */
unsigned idb_fork_generation(void);

/* The current fork generation (nonzero): one relaxed load and a test in this process,
 * the slow path in a child's first call (or always, in the getpid() fallback). */
static inline unsigned idb_fork_now(void)
{
    atomic_uint *w = atomic_load_explicit(&idb_fork_gen_word, memory_order_relaxed);
    unsigned g = atomic_load_explicit(w, memory_order_relaxed);
    if (__builtin_expect(g == 0, 0)) return idb_fork_renew();
    return g;
}

/* 1 when the generation lives in a MADV_WIPEONFORK page, 0 in the getpid() fallback
 * (sets the generation up first). For tests and diagnostics. */
int idb_fork_wipes(void);

/* The refusal of an instance of strategy `owner` used in a forked child: fills err with a
 * message naming owner and saying to create a new instance; returns IDB_EFORK. */
int idb_fork_refuse(const char *owner, idb_err *err);

/* 0 when gen (recorded at create) is still this process's generation, else the refusal. */
static inline int idb_fork_check(unsigned gen, const char *owner, idb_err *err)
{
    if (__builtin_expect(idb_fork_now() != gen, 0)) return idb_fork_refuse(owner, err);
    return 0;
}

#endif
