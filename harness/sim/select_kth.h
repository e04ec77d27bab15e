/* select_kth.h — Hoare's selection (median of three), defined once for any ordered element
 * type: SIM_SELECT_KTH(name, T) defines `static void name(T *v, int64_t n, int64_t k)`, which
 * puts the k-th smallest of v[0..n) at v[k], the smaller ones before it and the others
 * after (in place, no allocation). The simulator's latency percentiles (sim.c, int64_t)
 * and the router's split medians (sim_router.c, uint64_t) expand it.
 */
#ifndef IDB_SIM_SELECT_KTH_H
#define IDB_SIM_SELECT_KTH_H

#include <stdint.h>

#define SIM_SWAP(T, a, b) do { T x_ = *(a); *(a) = *(b); *(b) = x_; } while (0)

#define SIM_SELECT_KTH(name, T)                                                          \
    static void name(T *v, int64_t n, int64_t k)                                         \
    {                                                                                    \
        int64_t lo = 0, hi = n - 1;                                                      \
        while (hi > lo) {                                                                \
            int64_t mid = lo + (hi - lo) / 2;                                            \
            if (v[mid] < v[lo]) SIM_SWAP(T, &v[mid], &v[lo]);                            \
            if (v[hi] < v[lo]) SIM_SWAP(T, &v[hi], &v[lo]);                              \
            if (v[hi] < v[mid]) SIM_SWAP(T, &v[hi], &v[mid]);                            \
            T pivot = v[mid];                                                            \
            int64_t i = lo, j = hi;                                                      \
            while (i <= j) {                                                             \
                while (v[i] < pivot) i++;                                                \
                while (v[j] > pivot) j--;                                                \
                if (i <= j) { SIM_SWAP(T, &v[i], &v[j]); i++; j--; }                     \
            }                                                                            \
            if (k <= j) hi = j;                                                          \
            else if (k >= i) lo = i;                                                     \
            else return;                 /* v[j+1 .. i-1] all equal the pivot */         \
        }                                                                                \
    }

#endif
