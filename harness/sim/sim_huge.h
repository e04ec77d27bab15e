/* sim_huge.h — asking for transparent huge pages on the simulator's large columns.
 *
 * A run touches every page of its columns once (tens of MB for 1M orders), and each 4 KiB
 * first touch is a page fault, which took about a quarter of a steady.ini run's CPU time;
 * with transparent huge pages set to "madvise" (the kernel's usual default) a column is
 * faulted in 2 MiB at a time only where it says so. Only the hint is given: the contents,
 * the size and where the memory comes from are malloc's as before.
 */
#ifndef IDB_SIM_HUGE_H
#define IDB_SIM_HUGE_H

#include <stddef.h>
#include <stdint.h>
#ifdef __linux__
#include <sys/mman.h>
#endif

#define SIM_HUGE_PAGE ((size_t)2 << 20)

/* Hint that the whole 2 MiB pages inside [p, p + n) be huge pages (no-op when p is NULL,
 * the block holds none, or the system has no such hint). Returns p. */
static inline void *sim_huge(void *p, size_t n)
{
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    if (p && n >= 2 * SIM_HUGE_PAGE) {
        uintptr_t a = ((uintptr_t)p + SIM_HUGE_PAGE - 1) & ~(uintptr_t)(SIM_HUGE_PAGE - 1);
        uintptr_t e = ((uintptr_t)p + n) & ~(uintptr_t)(SIM_HUGE_PAGE - 1);
        if (e > a) (void)madvise((void *)a, e - a, MADV_HUGEPAGE);
    }
#else
    (void)n;
#endif
    return p;
}

#endif
