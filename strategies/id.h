/* id.h — the one ID type every strategy produces and every store consumes.
 *
 * An ID is a short byte string, big-endian, so that memcmp order is numeric order and,
 * for time-ordered strategies, time order. Any width from 1 to IDB_ID_MAX bytes works
 * everywhere (the registry refuses a strategy that declares more, see strategy.h); IDs of
 * different widths compare as idb_id_cmp says (bytes first, then the shorter first).
 * 64-bit IDs also convert to uint64_t for stores that key by integer (SQLite's INTEGER
 * PRIMARY KEY). The hex form (id.c) is for messages; a strategy's own text is its format().
 */
#ifndef IDB_ID_H
#define IDB_ID_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define IDB_ID_MAX 32                           /* widest ID, in bytes (256 bits) */
#define IDB_ID_HEX_MAX (2 * IDB_ID_MAX + 1)     /* hex of the widest ID, plus NUL */

typedef struct idb_id {
    uint8_t len;               /* 1 .. IDB_ID_MAX bytes */
    uint8_t b[IDB_ID_MAX];     /* big-endian; bytes past len are not part of the ID */
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

/* The first 8 bytes of id's buffer as a big-endian integer (the whole ID when len == 8;
 * for a shorter ID the bytes past len are read too, so use it for 8-byte IDs). */
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

/* Lowercase hex of p[0..n), 2 digits a byte, NUL-terminated, into buf (2n + 1 bytes).
 * Returns buf. */
char *idb_hex(const uint8_t *p, size_t n, char *buf);

/* The hex form of id (2 digits a byte) into buf (IDB_ID_HEX_MAX bytes), for messages.
 * Returns buf. */
const char *idb_id_hex(const idb_id *id, char *buf);

#endif
