/* pagesim_rows.c — compact row fields in insertion order (see pagesim_rows.h).
 *
 * Rows are encoded one after another as LEB128 varints (7 bits a byte, low first):
 *
 *     shop | display_no | created_ms - previous row's (zigzag) | total_cents (zigzag)
 *
 * "previous" restarts at 0 with every block of BLOCK_ROWS rows; a block starts at a byte
 * offset kept per block (chunk number * CHUNK_BYTES + offset in the chunk) and never
 * crosses a chunk: a block starts a new chunk when the current one has less than the
 * largest block left. Memory: the encoded bytes (about 9 a row for a shop's orders),
 * 8 bytes per block, and at most one partly filled chunk.
 */
#include "pagesim_rows.h"

#include <stdlib.h>

#include "err.h"

#define BLOCK_ROWS 16
#define CHUNK_BYTES (1u << 16)
#define VARINT_MAX 10                    /* bytes of the largest 64-bit varint */
#define ROW_MAX (2 * 5 + 2 * VARINT_MAX) /* two 32-bit and two 64-bit varints */
#define BLOCK_MAX (BLOCK_ROWS * ROW_MAX)
#define FIRST_ROOM 64

struct psr_rows {
    uint8_t **chunk;
    uint32_t nchunks, chunk_cap;
    uint32_t used;                       /* bytes used in the last chunk */
    uint64_t *block;                     /* start of each block */
    uint32_t nblocks, block_cap;
    uint32_t n;                          /* rows */
    int64_t prev_ms;                     /* created_ms of the row before, in this block */
};

/* Zigzag: small negative and positive numbers both to small unsigned ones (and back, as
 * the two's-complement bits). */
static uint64_t zig(int64_t v) { return ((uint64_t)v << 1) ^ (v < 0 ? UINT64_MAX : 0); }
static uint64_t unzig(uint64_t u) { return (u >> 1) ^ (u & 1 ? UINT64_MAX : 0); }

/* Write v as a varint at p; returns the bytes written. */
static uint32_t put(uint8_t *p, uint64_t v)
{
    uint32_t k = 0;
    for (; v >= 0x80; v >>= 7) p[k++] = (uint8_t)(v | 0x80);
    p[k++] = (uint8_t)v;
    return k;
}

/* Read a varint at *p, moving *p past it. */
static uint64_t get(const uint8_t **p)
{
    uint64_t v = 0;
    for (unsigned sh = 0;; sh += 7) {
        uint8_t b = *(*p)++;
        v |= (uint64_t)(b & 0x7f) << sh;
        if (!(b & 0x80)) return v;
    }
}

psr_rows *psr_new(void) { return calloc(1, sizeof(psr_rows)); }

/* Grow a table of *cap elements of size sz (doubling) to hold one more than n. */
static int grow(void **a, uint32_t *cap, uint32_t n, size_t sz)
{
    if (n < *cap) return 0;
    if (*cap == UINT32_MAX) return IDB_ENOMEM;
    uint32_t c = *cap ? (*cap > UINT32_MAX / 2 ? UINT32_MAX : *cap * 2) : FIRST_ROOM;
    void *b = realloc(*a, (size_t)c * sz);
    if (!b) return IDB_ENOMEM;
    *a = b;
    *cap = c;
    return 0;
}

/* Start block number t->nblocks at the end of the data, in a new chunk when the last
 * one cannot hold a whole block. Returns 0 or IDB_ENOMEM (nothing changed). */
static int start_block(psr_rows *t)
{
    if (grow((void **)&t->block, &t->block_cap, t->nblocks, sizeof *t->block))
        return IDB_ENOMEM;
    if (!t->nchunks || CHUNK_BYTES - t->used < BLOCK_MAX) {
        if (grow((void **)&t->chunk, &t->chunk_cap, t->nchunks, sizeof *t->chunk))
            return IDB_ENOMEM;
        uint8_t *c = malloc(CHUNK_BYTES);
        if (!c) return IDB_ENOMEM;
        t->chunk[t->nchunks++] = c;
        t->used = 0;
    }
    t->block[t->nblocks++] = (uint64_t)(t->nchunks - 1) * CHUNK_BYTES + t->used;
    t->prev_ms = 0;
    return 0;
}

int psr_reserve(psr_rows *t)
{
    if (t->n == UINT32_MAX) return IDB_ENOMEM;
    return t->nblocks > t->n / BLOCK_ROWS ? 0 : start_block(t);
}

int psr_append(psr_rows *t, const psr_row *r)
{
    if (psr_reserve(t)) return IDB_ENOMEM;
    uint8_t *p = t->chunk[t->nchunks - 1] + t->used;
    uint32_t k = put(p, r->shop);
    k += put(p + k, r->display_no);
    k += put(p + k, zig((int64_t)((uint64_t)r->created_ms - (uint64_t)t->prev_ms)));
    k += put(p + k, zig(r->total_cents));
    t->prev_ms = r->created_ms;
    t->used += k;
    t->n++;
    return 0;
}

uint32_t psr_count(const psr_rows *t) { return t->n; }

void psr_get(const psr_rows *t, uint32_t i, psr_row *out)
{
    uint64_t at = t->block[i / BLOCK_ROWS];
    const uint8_t *p = t->chunk[at / CHUNK_BYTES] + at % CHUNK_BYTES;
    uint64_t ms = 0;                     /* wrapping, as the differences were taken */
    for (uint32_t k = 0; k <= i % BLOCK_ROWS; k++) {
        out->shop = (uint32_t)get(&p);
        out->display_no = (uint32_t)get(&p);
        ms += unzig(get(&p));
        out->created_ms = (int64_t)ms;
        out->total_cents = (int64_t)unzig(get(&p));
    }
}

void psr_free(psr_rows *t)
{
    if (!t) return;
    for (uint32_t i = 0; i < t->nchunks; i++) free(t->chunk[i]);
    free(t->chunk);
    free(t->block);
    free(t);
}
