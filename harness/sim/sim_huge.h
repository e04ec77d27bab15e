/* sim_huge.h — asking for transparent huge pages on the simulator's large columns.
 *
 * A run touches every page of its columns once (tens of MB for 1M orders), and each 4 KiB
 * first touch is a page fault, which took about a quarter of a steady.ini run's CPU time;
 * with transparent huge pages set to "madvise" (the kernel's usual default) a column is
 * faulted in 2 MiB at a time only where it says so. The memory is malloc's, freed with
 * free(): sim_huge hints a block as it is; sim_huge_alloc also sizes the block so that it
 * fills whole huge pages where that costs at most 1/16 more.
 */
#ifndef IDB_SIM_HUGE_H
#define IDB_SIM_HUGE_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
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

/* malloc(n) for a column the run fills whole, in huge pages where that costs little: from
 * 2 MiB up, when rounding the block up to whole 2 MiB pages adds at most 1/SIM_HUGE_SLACK
 * of it, the block asked of malloc is sized so that glibc maps exactly those pages (its
 * 16-byte header first: a request of r - SIM_HUGE_HDR bytes maps r), which Linux from 6.7
 * places on a 2 MiB boundary; the whole mapping is then hinted. Elsewhere (another
 * malloc, an older kernel, a block from the heap) the block does not start within a page
 * of a 2 MiB boundary and gets sim_huge's hint of the huge pages inside it. At 500,000
 * orders the 4 MB columns were just under sim_huge's two pages and got at most one huge
 * page: every 4 KiB page was a fault (~10% of a steady.ini run's CPU). Nothing is asked
 * beyond the rounding, so nothing more is touched even where malloc fills what it gives
 * (MALLOC_PERTURB_). Freed with free(). */
#define SIM_HUGE_SLACK 16         /* at most n / 16 added by the rounding */
#define SIM_HUGE_HDR 32           /* glibc: 16 bytes of header, 8 of size rounding, margin */
static inline void *sim_huge_alloc(size_t n)
{
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    size_t r = (n + SIM_HUGE_HDR + SIM_HUGE_PAGE - 1) & ~(SIM_HUGE_PAGE - 1);
    if (n >= SIM_HUGE_PAGE && r - n <= n / SIM_HUGE_SLACK) {
        void *p = malloc(r - SIM_HUGE_HDR);
        uintptr_t a = (uintptr_t)p & ~(uintptr_t)(SIM_HUGE_PAGE - 1);
        if (p && (uintptr_t)p - a < 4096) (void)madvise((void *)a, r, MADV_HUGEPAGE);
        else sim_huge(p, r - SIM_HUGE_HDR);
        return p;
    }
#endif
    return sim_huge(malloc(n), n);
}

#endif
