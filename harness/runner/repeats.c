/* repeats.c — repeated keys over a run's shards (see repeats.h). */
#include "repeats.h"

#include <stdlib.h>
#include <string.h>

#include "id.h"
#include "keysort.h"

/* The merge's state: each list's next key (pos), a min-heap of list numbers by that key. */
typedef struct merge {
    uint8_t *const *lists;
    const int64_t *n;
    int64_t *pos;
    int *heap, size;
    size_t w;
} merge;

/* List i's next key. */
static const uint8_t *head(const merge *m, int i)
{
    return m->lists[i] + (size_t)m->pos[i] * m->w;
}

/* Sift heap slot s down. */
static void heap_down(merge *m, int s)
{
    for (;;) {
        int c = 2 * s + 1;
        if (c >= m->size) return;
        if (c + 1 < m->size && memcmp(head(m, m->heap[c + 1]), head(m, m->heap[c]), m->w) < 0)
            c++;
        if (memcmp(head(m, m->heap[c]), head(m, m->heap[s]), m->w) >= 0) return;
        int t = m->heap[c];
        m->heap[c] = m->heap[s];
        m->heap[s] = t;
        s = c;
    }
}

int64_t idb_repeats_merged(uint8_t *const *lists, const int64_t *n, int nlists, int width)
{
    merge m = { .lists = lists, .n = n, .w = (size_t)width,
                .pos = calloc((size_t)nlists + 1, sizeof *m.pos),
                .heap = malloc(((size_t)nlists + 1) * sizeof *m.heap) };
    if (!m.pos || !m.heap) {
        free(m.pos);
        free(m.heap);
        return -1;
    }
    for (int i = 0; i < nlists; i++)
        if (n[i] > 0) m.heap[m.size++] = i;
    for (int s = m.size / 2 - 1; s >= 0; s--) heap_down(&m, s);
    int64_t repeats = 0;
    uint8_t last[IDB_ID_MAX];
    int any = 0;
    while (m.size > 0) {
        int i = m.heap[0];
        if (any && memcmp(head(&m, i), last, m.w) == 0) repeats++;
        memcpy(last, head(&m, i), m.w);
        any = 1;
        if (++m.pos[i] == n[i]) m.heap[0] = m.heap[--m.size];
        heap_down(&m, 0);
    }
    free(m.pos);
    free(m.heap);
    return repeats;
}

int64_t idb_repeats(uint8_t *keys, int64_t n, int width)
{
    if (n <= 1) return 0;
    idb_keys_sort(keys, n, width);
    return idb_repeats_merged(&keys, &n, 1, width);
}
