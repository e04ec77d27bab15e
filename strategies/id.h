/* id.h — the one ID type every strategy produces and every store consumes.
 *
 * An ID is a short byte string, big-endian, so that memcmp order is numeric order and,
 * for time-ordered strategies, time order. 64-bit IDs also convert to uint64_t for stores
 * that key by integer (SQLite's INTEGER PRIMARY KEY).
 */
#ifndef IDB_ID_H
#define IDB_ID_H

#include <stdint.h>
#include <string.h>

#define IDB_ID_MAX 16

typedef struct idb_id {
    uint8_t len;               /* 8, 12 or 16 bytes */
    uint8_t b[IDB_ID_MAX];     /* big-endian */
} idb_id;

/* Store v at p as 8 big-endian bytes (one byte swap and one store). */
static inline void idb_put_be64(uint8_t *p, uint64_t v)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    v = __builtin_bswap64(v);
#endif
    memcpy(p, &v, 8);
}

/* Read 8 big-endian bytes at p. */
static inline uint64_t idb_get_be64(const uint8_t *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    v = __builtin_bswap64(v);
#endif
    return v;
}

/* Store v as an 8-byte big-endian ID. */
static inline void idb_id_set_u64(idb_id *id, uint64_t v)
{
    id->len = 8;
    idb_put_be64(id->b, v);
}

/* The first 8 bytes of id as a big-endian integer (the whole ID when len == 8). */
static inline uint64_t idb_id_u64(const idb_id *id)
{
    return idb_get_be64(id->b);
}

/* Write the low n bytes of v big-endian at p. */
static inline void idb_put_be(uint8_t *p, uint64_t v, int n)
{
    for (int i = n - 1; i >= 0; i--) { p[i] = (uint8_t)v; v >>= 8; }
}

/* Read n bytes big-endian from p. */
static inline uint64_t idb_get_be(const uint8_t *p, int n)
{
    uint64_t v = 0;
    for (int i = 0; i < n; i++) v = (v << 8) | p[i];
    return v;
}

/* memcmp order of two IDs; shorter sorts first when one is a prefix of the other. */
static inline int idb_id_cmp(const idb_id *a, const idb_id *b)
{
    int n = a->len < b->len ? a->len : b->len;
    int c = memcmp(a->b, b->b, (size_t)n);
    return c ? c : (int)a->len - (int)b->len;
}

#endif
